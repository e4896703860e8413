"""Pilot tests of the diagnosis screen as a k9s user drives it: a banner that keeps its place, a mark and colour
that fit the outcome, tab keys, d / l / p, the full text one key away, copy that says how and keeps a file,
advice in the app's terms, the memory chart over time, an 80-column footer; plus the app-wide keys and
start-up words (ctrl+c, the palette's descriptions, the theme kept between runs, --no-kube, problem titles).
All against the real demo tenant over HTTP."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.widgets import DataTable

from core.report.render import to_text
from core.sim.bundle import CaseBundle
from core.tenant import Tenant, open_bundle_tenant
from tests.ui.test_diagnosis import CASES, make, options_for, screen_of, screen_text, until, verdict
from tui.app import TriageApp
from tui.commands.app_args import app_arguments
from tui.commands.start import OpenedTenant, StartOptions, flag, options_from_args
from tui.messages import DiagnosisTarget
from tui.screens.detail import DetailScreen
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.picker.screen import PickerScreen
from tui.screens.problem import ProblemScreen
from tui.widgets.evidence_pane import EvidencePane
from tui.widgets.history_timeline import HistoryTimeline
from tui.widgets.log_pane import LogPane
from tui.widgets.memory.area import MemoryArea
from tui.widgets.memory.chart import MemoryChart
from tui.widgets.step_list import StepList
from tui.widgets.verdict_banner import VerdictBanner

SIZE = (120, 40)


def active_tab(screen: DiagnosisScreen) -> str:
    return str(screen.query_one("#diagnosis-tabs").active)  # type: ignore[attr-defined]


# -- the banner --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
async def test_the_tabs_do_not_move_when_the_verdict_arrives(demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    slow = open_bundle_tenant(demo_bundle, label="demo tenant", latency_ms=60)
    try:
        app = make(slow, options_for(CASES["pull-rate-limit"]))
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: isinstance(app.screen, DiagnosisScreen))
            screen = screen_of(app)
            await until(pilot, lambda: screen.running and screen.query_one(VerdictBanner).state == "running")
            await pilot.pause()
            tabs_before = screen.query_one("#diagnosis-tabs").region
            banner_before = screen.query_one(VerdictBanner).region
            await verdict(pilot)
            await pilot.pause()
            assert screen.query_one(VerdictBanner).state == "diagnosed"
            assert screen.query_one(VerdictBanner).region == banner_before
            assert screen.query_one("#diagnosis-tabs").region == tabs_before
    finally:
        await slow.aclose()


@pytest.mark.parametrize(
    ("key", "state", "mark"),
    [
        ("policy-idle", "policy", "■"),
        ("succeeded", "succeeded", "✓"),
        ("preempt-priority", "routed", "→"),
        ("pull-not-found", "diagnosed", "✗"),
        ("unknown-no-signals", "unknown", "?"),
    ],
)
async def test_the_mark_and_colour_fit_the_outcome(demo_tenant: Tenant, key: str, state: str, mark: str) -> None:
    app = make(demo_tenant, options_for(CASES[key]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        banner = screen.query_one(VerdictBanner)
        assert banner.state == state and banner.has_class(f"-{state}")
        assert banner.plain.startswith(f"{mark} ")
        if state != "diagnosed":
            assert "✗" not in banner.plain  # nothing broken is never drawn as a failure


async def test_a_cut_reason_is_whole_one_key_away(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["pull-rate-limit"]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await verdict(pilot)
        report = screen.report
        assert report is not None and report.reason
        banner = screen.query_one(VerdictBanner)
        assert banner.cut and "… v" in screen_text(app)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        body = app.screen.body.plain  # type: ignore[attr-defined]
        assert report.reason in body and all(line in body for line in report.recommendations)
        assert "rate limit" in body  # the cause of this image-pull case is on screen, not cut away


# -- keys --------------------------------------------------------------------------------------------------
async def test_number_and_bracket_keys_switch_tabs(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        await pilot.press("4")
        assert active_tab(screen) == "tab-memory"
        await pilot.press("right_square_bracket")
        assert active_tab(screen) == "tab-pod"
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert active_tab(screen) == "tab-history"
        await pilot.press("8", "right_square_bracket")
        assert active_tab(screen) == "tab-evidence"  # round the end
        await pilot.press("d")
        assert active_tab(screen) == "tab-pod"
        await pilot.press("l")
        assert active_tab(screen) == "tab-log"


async def test_p_shows_the_log_and_says_when_it_is_not_the_previous_one(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        await pilot.press("p")
        await pilot.pause()
        assert active_tab(screen) == "tab-log"
        log = screen.query_one(LogPane)
        assert log.excerpt is not None
        said = [str(n.message) for n in app._notifications if "previous container log" in str(n.message)]
        assert bool(said) is (not log.excerpt.previous)


async def test_enter_on_a_history_line_shows_it_whole(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["oom-recurring"]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await verdict(pilot)
        await pilot.press("3")  # the History tab, its table taking the keys
        timeline = screen.query_one(HistoryTimeline)
        table = timeline.query_one(DataTable)
        assert app.focused is table
        row = next(i for i, e in enumerate(timeline.entries) if len(e.text) > 60)
        await pilot.press(*["j"] * (row + 1), "k")  # j / k move as in the picker (and never export)
        assert table.cursor_row == row and not screen.exports
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert timeline.entries[row].text in app.screen.body.plain  # type: ignore[attr-defined]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)


async def test_copy_says_how_and_keeps_the_report_in_a_file(demo_tenant: Tenant, tmp_path: Path) -> None:
    app = make(demo_tenant, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        screen._export_to, screen._env = tmp_path, {}
        await pilot.press("c")
        await until(pilot, lambda: len(screen.copies) == 1)
        assert screen.report is not None
        text = to_text(screen.report, name=flag)  # the report as `diagnose` prints it
        assert app.clipboard == text
        assert screen.copies[0].parent == tmp_path and screen.copies[0].read_text(encoding="utf-8") == text
        said = " ".join(str(n.message) for n in app._notifications)
        assert "OSC 52" in said and "tmux" in said and str(screen.copies[0]) in said
        assert "lines" in said and "(s)" not in said


async def test_copy_says_when_the_file_could_not_be_kept(demo_tenant: Tenant, tmp_path: Path) -> None:
    app = make(demo_tenant, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        screen._export_to, screen._env = tmp_path / "missing", {}
        await pilot.press("c")
        await until(pilot, lambda: any("failed too" in str(n.message) for n in app._notifications))
        assert screen.copies == [] and app.clipboard  # the clipboard request still went out


# -- advice ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["running-healthy", "preempt-priority", "ambiguous-chat-agent"])
async def test_the_app_says_what_to_press_not_which_flag_to_add(demo_tenant: Tenant, key: str) -> None:
    app = make(demo_tenant, options_for(CASES[key]))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await verdict(pilot)
        shown = screen.query_one(VerdictBanner).plain + "\n" + screen_text(app)
        assert not re.search(r"--(lookback|active|workload-id)\b", shown), shown
        assert "runai-diagnose-preempted-workload" not in shown
        # The copy is the report as the command line prints it: its advice is for a shell, left as it is.
        assert screen.report is not None
        await pilot.press("c")
        await until(pilot, lambda: bool(screen.copies))
        assert app.clipboard == to_text(screen.report, name=flag)


# -- the memory chart --------------------------------------------------------------------------------------
async def test_memory_over_time_against_limit_with_peak_and_failure_marked(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await verdict(pilot)
        await pilot.press("4")
        await pilot.pause()
        chart = screen.query_one(MemoryChart)
        spec = chart.spec
        report = screen.report
        assert spec is not None and report is not None and report.memory is not None
        assert spec.limit is not None and spec.limit * spec.scale == report.memory.limit_bytes
        assert spec.peak is not None and round(spec.peak[1] * spec.scale) == report.memory.peak_bytes
        assert len(spec.failures) == 1  # the OOM kill of this run, from the history
        plot = chart.query_one(MemoryArea)
        assert plot.display and plot.size.height >= 6 and plot.canvas is not None
        drawn = screen_text(app)
        assert "◆" in drawn and "11:21" in drawn and "48 GiB" in drawn
        # Measured and configured are told apart in words.
        assert "usage, measured" in chart.plain and "limit 48 GiB, configured" in chart.plain


async def test_no_samples_draws_nothing_and_says_so(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["oom-empty-metrics"]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await verdict(pilot)
        await pilot.press("4")
        await pilot.pause()
        chart = screen.query_one(MemoryChart)
        assert chart.spec is None and not chart.query_one(MemoryArea).display
        assert "no samples recorded" in chart.plain and "configured, not measured" in chart.plain


# -- 80 columns --------------------------------------------------------------------------------------------
async def test_the_diagnosis_footer_fits_80_columns(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=(80, 24)) as pilot:
        await verdict(pilot)
        footer = screen_text(app).splitlines()[-1]
        for words in ("esc back", "r rerun", "v full text", "c copy", "? help", ": commands", "q quit"):
            assert words in footer, (words, footer)


# -- app-wide keys and words -------------------------------------------------------------------------------
async def test_ctrl_c_quits(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, StartOptions(mode="demo"))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert not app.is_running


async def test_palette_entries_are_described_for_people(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, StartOptions(mode="demo"))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("colon")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.pause(0.3)
        shown = screen_text(app)
        assert "Type part of a workload name" in shown
        assert "runs " not in shown and "focus_name" not in shown and "toggle_" not in shown


async def test_the_chosen_theme_is_kept_between_runs(demo_bundle: CaseBundle, tmp_path: Path) -> None:
    def app() -> TriageApp:
        return TriageApp(
            opener=lambda: OpenedTenant(open_bundle_tenant(demo_bundle, label="demo tenant")),
            cursor_blink=False,
            config_dir=tmp_path,
        )

    first = app()
    async with first.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(first.screen, PickerScreen) and first.screen.first_answer)
        first.theme = "nord"
        await pilot.pause()
    assert json.loads((tmp_path / "settings.json").read_text(encoding="utf-8")) == {"theme": "nord"}
    second = app()
    async with second.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(second.screen, PickerScreen) and second.screen.first_answer)
        assert second.theme == "nord"


async def test_the_settings_live_under_xdg_config_home(isolated_settings: Path) -> None:
    assert TriageApp().config_dir == isolated_settings / "runai-triage"


async def test_no_kube_is_honoured_with_the_demo(demo_bundle: CaseBundle) -> None:
    case = CASES["crash-traceback"]
    # As the program reads its options: the app says why Tier 2 is off with the flag the user gave it.
    args = app_arguments(["--demo", "--cluster-id", case["clusterId"], "--workload-id", case["workloadId"],
                          "--no-kube"])
    assert args is not None
    options = options_from_args(args)
    tenants: list[Tenant] = []

    def opener() -> OpenedTenant:
        tenants.append(open_bundle_tenant(demo_bundle, label="demo tenant"))
        return OpenedTenant(tenants[-1], case["clusterId"])

    app = TriageApp(options, opener=opener, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, DiagnosisScreen))
        screen = await verdict(pilot)
        log = screen.query_one(LogPane)
        assert log.state == "unavailable" and log.why == "Tier 2 unavailable: disabled with --no-kube"
        cp = tenants[0].control_plane
        assert cp is not None
        assert not any(r.path.startswith(("/api/v1/namespaces", "/api/v1/nodes")) for r in cp.requests)


@pytest.mark.parametrize(
    ("env", "argv_url", "title"),
    [
        ({}, None, "No Run:ai tenant configured"),
        ({}, "https://acme.run.ai", "No Run:ai credentials"),
        ({"RUNAI_BEARER_TOKEN": "t0ken-value"}, None, "No Run:ai tenant URL"),
    ],
)
async def test_start_problems_name_what_is_missing(
    tmp_path: Path, env: dict[str, str], argv_url: str | None, title: str
) -> None:
    environ = {"RUNAI_CLI_CONFIG_PATH": str(tmp_path), **env}
    app = TriageApp(StartOptions(base_url=argv_url), env=environ, cursor_blink=False, config_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen))
        screen = app.screen
        assert isinstance(screen, ProblemScreen) and screen.problem.title == title
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "not connected" in header and "the tenant configured in the environment" not in header


# -- every diagnosis opens at the top, its keys working at once (issue 27, point 1) --------------------------
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_every_diagnosis_opens_at_the_top_and_the_scroll_keys_work_at_once(
    demo_tenant: Tenant, size: tuple[int, int]
) -> None:
    first, second = CASES["xid79-16pod"], CASES["long-history"]  # long evidence, at any size
    app = make(demo_tenant, options_for(first))
    async with app.run_test(size=size) as pilot:
        screen = await verdict(pilot)
        evidence = screen.query_one(EvidencePane)
        # Opened: the keys go to the Evidence text, not the tab bar; j, arrows, page keys and home move it.
        assert app.focused is evidence
        await pilot.press("x")  # every evidence line: longer than the pane, so there is something to scroll
        await pilot.pause()
        assert app.focused is evidence
        assert evidence.max_scroll_y > 3, "the evidence must be longer than the pane for this test to mean much"
        await pilot.press("j", "j")
        await pilot.pause()
        assert evidence.scroll_y == 2
        await pilot.press("k")
        await pilot.pause()
        assert evidence.scroll_y == 1
        await pilot.press("pagedown")
        await pilot.pause()
        assert evidence.scroll_y > 2
        await pilot.press("home")
        await pilot.pause()
        assert evidence.scroll_y == 0
        await pilot.press("down")
        await pilot.pause()
        assert evidence.scroll_y == 1
        # Scrolled to the bottom, then the next workload: it opens at its top, its keys working.
        await pilot.press("1", "end")
        await pilot.pause()
        assert evidence.scroll_y == evidence.max_scroll_y > 0
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        app.open_diagnosis(DiagnosisTarget(second["clusterId"], second["workloadId"]))
        again = await verdict(pilot)
        assert again is screen
        await pilot.pause()
        assert evidence.scroll_y == 0, "the next diagnosis opened scrolled down"
        assert app.focused is evidence
        assert screen_text(app).count("Reason:") >= 1  # the reason is on screen, not scrolled away
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("j")
        await pilot.pause()
        assert evidence.scroll_y == 1


# -- a route-out ends the step list where it was decided (issue 27, point 6) -------------------------------
@pytest.mark.parametrize(("key", "at"), [("preempt-disruption", 4), ("preempt-priority", 1)])
async def test_a_routed_out_diagnosis_ends_its_steps_where_it_was_decided(
    demo_tenant: Tenant, key: str, at: int
) -> None:
    app = make(demo_tenant, options_for(CASES[key]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await verdict(pilot)
        await pilot.pause()
        steps = screen.query_one(StepList).steps
        assert [s.state for s in steps.values()] == ["done"] * at + ["skipped"] * (5 - at)
        assert steps[at].reads > 0
        assert all(f"routed out at Step {at} (preempted): nothing past Step {at} is read" == s.why
                   for s in steps.values() if s.state == "skipped")
        line = screen_text(app)
        assert "running" not in line.splitlines()[5]  # the one-line step summary at 80x24
        await pilot.press("4")
        await pilot.pause()
        assert f"routed out at Step {at}" in screen.query_one(MemoryChart).plain
