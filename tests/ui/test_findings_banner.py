"""Infrastructure findings on the diagnosis screen: their own banner line with the owner, apart from the category,
and in full on the Evidence tab and in the whole verdict (`v`); nothing of the kind for a workload without one."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from core.tenant import Tenant
from tests.ui.test_diagnosis import CASES, make, options_for, verdict
from tui.screens.detail import DetailScreen
from tui.widgets.evidence_pane import EvidencePane
from tui.widgets.verdict_banner import VerdictBanner


async def _banner(pilot: Pilot[Any]) -> VerdictBanner:
    screen = await verdict(pilot)
    return screen.query_one(VerdictBanner)


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_a_hardware_finding_has_its_own_banner_line_with_its_owner(
    demo_tenant: Tenant, size: tuple[int, int]
) -> None:
    app = make(demo_tenant, options_for(CASES["xid79-16pod"]))
    async with app.run_test(size=size) as pilot:
        banner = await _banner(pilot)
        lines = banner.plain.split("\n")
        assert lines[0].startswith("✗ CRASH_APP_ERROR")  # the category stays the seed's, on its own line
        assert lines[1].startswith("⚑ Not the workload's fault gpu-hardware on node gpu-e-47 · for the administrator")
        assert "Xid 79" in lines[1]
        # Drawn, not only held: the mark and the owner are on screen at either size.
        drawn = pilot.app.export_screenshot()
        assert "⚑" in drawn and "for&#160;the&#160;administrator" in drawn


async def test_findings_in_full_on_the_evidence_tab_and_in_the_whole_verdict(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["disk-pressure-evicted"]))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await verdict(pilot)
        pane = screen.query_one(EvidencePane)
        # A line above the evidence, as in the text report; in full below it.
        assert pane.findings is not None and "node-pressure on node gpu-e-60" in pane.findings.plain
        held = pane.preface
        preface = held.plain if held is not None else ""
        assert "Infrastructure findings" in preface and "node-pressure on node gpu-e-60" in preface
        assert "runai-nlp/tokenizer-batch-2b81-0" in preface  # the other pod evicted on that node
        await pilot.press("v")
        await pilot.pause()
        detail = pilot.app.screen
        assert isinstance(detail, DetailScreen)
        assert "node-pressure on node gpu-e-60, for the administrator" in detail.body.plain


async def test_no_finding_no_line(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=(120, 40)) as pilot:
        banner = await _banner(pilot)
        assert "⚑" not in banner.plain
        pane = pilot.app.screen.query_one(EvidencePane)
        assert pane.preface is not None and "Infrastructure findings" not in pane.preface.plain
        assert pane.findings is None


async def test_a_finding_that_does_not_explain_says_so(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["disconnected-cluster"]))
    async with app.run_test(size=(120, 40)) as pilot:
        banner = await _banner(pilot)
        assert "⚑ Also found control-plane · for the administrator" in banner.plain
