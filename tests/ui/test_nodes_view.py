"""The Nodes view driven with Textual's Pilot on the demo tenant (real HTTP): `N` from the picker, the bad node
first and its cause under the table; `enter` opens the workloads that ran there with their verdicts, and
`enter` again diagnoses one; `e` writes the incident report; `w` changes the window; a failed read is said;
and a live view reads again on its own without diagnosing twice.
"""

from __future__ import annotations

import copy
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from textual.widgets import Static

from core.sim.bundle import CaseBundle, parse_bundle
from core.tenant import open_bundle_tenant
from tests.integration.test_nodes_bundles import bundle as small_nodes_bundle
from tests.ui.conftest import settle
from tests.ui.test_snapshots_nodes import nodes_app, on_nodes
from tui.app import TriageApp
from tui.commands.start import OpenedTenant
from tui.screens import nodes as nodes_screen
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.node_workloads import NodeWorkloadsScreen
from tui.screens.nodes import NodesScreen
from tui.widgets.nodes_table import NodesTable
from tui.widgets.notice import Notice
from tui.widgets.workload_table import WorkloadTable

STORM = {"ssm-mamba-ft", "detr-sweep-lr3", "eval-notebook-priya", "moe-router-ablation", "whisper-large-ft",
         "vit-h14-pretrain", "qwen-sft-14b"}


async def test_enter_on_the_bad_node_lists_what_ran_there_with_verdicts(demo_bundle: CaseBundle) -> None:
    app = nodes_app(demo_bundle)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await on_nodes(pilot)
        table = screen.query_one(NodesTable)
        assert table.highlighted is not None and table.highlighted.name == "gpu-e-23"
        cause = str(screen.query_one("#node-cause", Static).render())
        assert cause.startswith("⚑ gpu-e-23: 7 of 8 failures share gpu-hardware from 11-29 21:58")
        await pilot.press("enter")
        await settle(pilot, lambda: isinstance(app.screen, NodeWorkloadsScreen) and app.screen.loaded)
        listed = app.screen.query_one(WorkloadTable)
        names = [w.name for w in listed.workloads]
        assert len(names) == 11 and set(names[:7]) == STORM and names[7] == "t5-distill-4"
        verdicts = [listed.verdict_text(w.id or "") for w in listed.workloads]
        assert verdicts == ["CRASH_APP_ERROR"] * 7 + ["OOM_KILLED"] + [None] * 3
        assert {w.phase for w in listed.workloads[8:]} == {"Completed"}  # read by id: the healthy ones too
        # enter diagnoses the highlighted one, as from the picker; esc comes back to the same row.
        await pilot.press("down", "enter")
        await settle(pilot, lambda: isinstance(app.screen, DiagnosisScreen))
        assert app.diagnosis_requests[-1].workload_id == listed.workloads[1].id
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, NodeWorkloadsScreen))
        assert app.screen.query_one(WorkloadTable).cursor_row == 1
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, NodesScreen))


async def test_e_writes_the_incident_report_and_w_changes_the_window(demo_bundle: CaseBundle) -> None:
    app = nodes_app(demo_bundle)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await on_nodes(pilot)
        await pilot.press("e")
        await pilot.pause()
        assert len(screen.exports) == 1
        text = Path(screen.exports[0]).read_text(encoding="utf-8")
        heads = [t for t in MarkdownIt().parse(text) if t.type == "heading_open"]
        assert heads[0].tag == "h1" and "gpu-e-23" in text.splitlines()[0]
        await pilot.press("w")
        await settle(pilot, lambda: screen.settled and screen.result is not None
                     and screen.result.request.since == "7d", 30)
        assert screen.result is not None and screen.result.end - screen.result.start == timedelta(days=7)
        assert screen.query_one(NodesTable).highlighted is not None


async def test_a_failed_read_is_said_and_r_reads_again() -> None:
    # Refused long enough for the client's own retries, then answered: the first read fails, `r` succeeds.
    raw = small_nodes_bundle({"faults": [{"match": "GET /api/v1/workloads/pods", "status": 503, "times": 12}]})
    app = _small_app(raw)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await on_nodes(pilot)
        notice = screen.query_one(Notice)
        assert notice.display and notice.kind == "error" and "pods that ran in the window" in notice.plain
        assert "last read failed" in str(screen.query_one("#nodes-status", Static).render())
        for _ in range(5):
            if screen.result is not None:
                break
            await pilot.press("r")
            await settle(pilot, lambda: screen.settled, 30)
        assert screen.result is not None and screen.query_one(NodesTable).display and not notice.display


async def test_a_live_view_reads_again_and_diagnoses_nothing_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nodes_screen, "NODES_MIN_INTERVAL_S", 0.2)
    app = _small_app(small_nodes_bundle())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await on_nodes(pilot)
        screen._pacer = nodes_screen.Pacer(0.2)  # as the picker's interval would set it, made short
        screen._arm(0.2)
        first = screen.result
        await settle(pilot, lambda: screen.result is not first and screen.settled, 10)
        assert first is not None and first.diagnosed > 0
        assert screen.result is not None and screen.result.diagnosed == 0
        assert [r.failed for r in screen.result.rows] == [r.failed for r in first.rows]


def _small_app(raw: dict[str, Any]) -> TriageApp:
    bundle = parse_bundle(copy.deepcopy(raw), "nodes-test")

    def opener() -> OpenedTenant:
        return OpenedTenant(open_bundle_tenant(bundle, label="nodes test"))

    app = TriageApp(opener=opener, cursor_blink=False, debounce_s=0.05)
    app.animation_level = "none"
    return app
