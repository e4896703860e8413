"""Pilot tests of the report as a person reads it in the app (issue 24): the Evidence tab opens on the short
view (the decisive signal first, each signal once with its sources, the rest counted), `x` shows every line and
goes back, and the picker says why a diagnosed row failed with the same line `scan` leads with. Against the real
demo tenant over HTTP."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from core.models.report import Report
from core.report.evidence_view import full_lines, short_view
from core.report.why import why_line
from core.tenant import Tenant
from tests.ui.conftest import make_app, settle
from tests.ui.test_diagnosis import CASES, make, options_for, screen_text, until, verdict
from tests.ui.test_picker_verdicts import with_verdicts
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.help import HelpScreen
from tui.widgets.evidence_pane import EvidencePane
from tui.widgets.row_detail import RowDetail
from tui.widgets.workload_table import WorkloadTable

SIZE = (120, 40)


def _tab(screen: DiagnosisScreen) -> str:
    return str(screen.query_one("#diagnosis-tabs").active)  # type: ignore[attr-defined]


async def _verdict_on(pilot: Pilot[Any]) -> tuple[DiagnosisScreen, Report, EvidencePane]:
    screen = await verdict(pilot)
    assert screen.report is not None
    return screen, screen.report, screen.query_one(EvidencePane)


async def test_the_evidence_tab_opens_on_the_short_view_decisive_first(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["node-notready"]))
    async with app.run_test(size=SIZE) as pilot:
        _, report, pane = await _verdict_on(pilot)
        view = pane.view()
        assert view is not None and not pane.every
        assert view == short_view(report)
        assert view.shown[0].decisive and view.more > 0
        shown = screen_text(app)
        assert "Evidence, decisive first (x: every line)" in shown
        assert f"and {view.more} more lines: press x" in shown
        # Each signal once: no line of the view quotes what another quotes.
        texts = [line.text for line in view.shown]
        assert len(texts) == len(set(texts))


async def test_the_screen_names_the_key_for_every_line_and_the_copy_the_flag(demo_tenant: Tenant,
                                                                            tmp_path: Path) -> None:
    app = make(demo_tenant, options_for(CASES["node-notready"]))
    async with app.run_test(size=SIZE) as pilot:
        screen, _, _ = await _verdict_on(pilot)
        shown = screen_text(app)
        assert "more lines: press x" in shown and "--verbose" not in shown
        # The copy is the report as `diagnose` prints it, for a ticket: its pointer is the command line's flag.
        screen._export_to, screen._env = tmp_path, {}
        await pilot.press("c")
        await until(pilot, lambda: len(screen.copies) == 1)
        more = next(line for line in app.clipboard.splitlines() if line.startswith("- and "))
        assert re.fullmatch(r"- and \d+ more lines: --verbose( \(also .+\))?", more), more


async def test_x_shows_every_line_and_goes_back(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["node-notready"]))
    async with app.run_test(size=SIZE) as pilot:
        screen, report, pane = await _verdict_on(pilot)
        screen.show_tab("tab-log")
        await pilot.press("x")
        await pilot.pause()
        assert pane.every and _tab(screen) == "tab-evidence", "x opens the Evidence tab on every line"
        view = pane.view()
        assert view is not None and [line.text for line in view.shown] == [ln.text for ln in full_lines(report)]
        assert len(view.shown) == len(report.evidence)
        assert "Every evidence line, decisive first (x: the short list)" in screen_text(app)
        await pilot.press("x")
        await pilot.pause()
        assert not pane.every and pane.view() == short_view(report)


async def test_help_lists_the_every_line_key(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=SIZE) as pilot:
        await verdict(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        entry = next(e for e in help_screen.entries if e.action == "every_line")
        assert entry.keys == ("x",) and entry.help.startswith("Evidence: every line, or back to the short list")


async def test_the_picker_says_why_a_diagnosed_row_failed(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=(140, 42)) as pilot:
        screen, table = await with_verdicts(pilot)
        row = next(
            w for w in table.workloads
            if (v := screen.verdicts.get(w)) is not None and v.report is not None and v.report.outcome == "diagnosed"
        )
        table.move_cursor(row=table.workloads.index(row))
        await settle(pilot, lambda: screen.query_one(WorkloadTable).highlighted == row)
        verdict_ = screen.verdicts.get(row)
        assert verdict_ is not None and verdict_.report is not None
        why = why_line(verdict_.report)
        assert why is not None
        detail = screen.query_one(RowDetail).whole
        assert detail.startswith(f"why: {why[0]} ({', '.join(why[1])})"), detail
