"""Pilot tests of the live diagnosis screen against the real demo tenant (real HTTP over loopback), plus small
bundles for the error, hung-server and no-Tier-2 cases.

The app under test is the real TriageApp with `open_diagnosis` doing exactly what the wiring proposal says
(`show_diagnosis(...)`), so the seam is exercised as it will be used.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import socket
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, TabbedContent
from textual.worker import WorkerState

from core.diagnosis.engine import diagnose, run_to_report
from core.diagnosis.progress import (
    HistoryFound,
    MemoryTrend,
    ProgressEvent,
    StepFinished,
    StepStarted,
    VerdictReady,
)
from core.diagnosis.request import DiagnosisRequest
from core.models.report import HistoryEntry, Report
from core.report.render import to_markdown, to_text
from core.sim.bundle import CaseBundle
from core.sim.demo import demo_expectations
from core.sim.faults import Fault
from core.sources.credentials import BearerToken
from core.sources.retry import RetryPolicy
from core.sources.runai import RunaiClient
from core.tenant import Tenant, open_bundle_tenant
from tests.ui.conftest import CLUSTER, small_bundle, workload
from tui.app import TriageApp
from tui.commands.start import StartOptions, flag
from tui.export import EXPORT_DIR_ENV, export_name, safe_fragment
from tui.messages import DiagnosisProgress, DiagnosisTarget
from tui.screens.diagnosis.open import show_diagnosis
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.widgets.containers_pane import ContainersPane
from tui.widgets.evidence_pane import EvidencePane
from tui.widgets.history_timeline import HistoryTimeline
from tui.widgets.kube_events_pane import KubeEventsPane
from tui.widgets.log_pane import LogPane
from tui.widgets.memory.chart import MemoryChart
from tui.widgets.missing_pane import MissingPane
from tui.widgets.node_pane import NodePane
from tui.widgets.step_list import StepList
from tui.widgets.verdict_banner import VerdictBanner

SIZE = (120, 40)
CASES = {case["key"]: case for case in demo_expectations()}


class WiredApp(TriageApp):
    """TriageApp with the proposed `open_diagnosis` body."""

    def open_diagnosis(self, target: DiagnosisTarget) -> None:
        self.diagnosis_requests.append(target)
        if self.tenant is not None:
            show_diagnosis(self, self.tenant, target, self.clock)


def options_for(case: dict[str, Any]) -> StartOptions:
    if case.get("lookup") == "id":
        return StartOptions(mode="demo", cluster_id=case["clusterId"], workload_id=case["workloadId"])
    return StartOptions(mode="demo", cluster_id=case["clusterId"], name=case["name"], project=case["project"])


def make(tenant: Tenant, options: StartOptions) -> WiredApp:
    app = WiredApp(options, tenant=tenant, cursor_blink=False, debounce_s=0.05)
    app.animation_level = "none"
    return app


@pytest.fixture
async def demo(demo_bundle: CaseBundle) -> AsyncIterator[Tenant]:
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant")
    try:
        yield tenant
    finally:
        await tenant.aclose()


@pytest.fixture
async def tenants() -> AsyncIterator[Callable[..., Tenant]]:
    opened: list[Tenant] = []

    def open_one(bundle: CaseBundle, **kwargs: Any) -> Tenant:
        tenant = open_bundle_tenant(bundle, label="test bundle", **kwargs)
        opened.append(tenant)
        return tenant

    yield open_one
    for tenant in opened:
        await tenant.aclose()


async def until(pilot: Pilot[Any], check: Callable[[], bool], timeout: float = 10.0) -> None:
    """Pause until `check()` holds (without waiting on workers, which may be hung on purpose)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen did not reach the expected state within {timeout} s")
        await pilot.pause(0.02)


def screen_of(app: TriageApp) -> DiagnosisScreen:
    screen = app.screen
    assert isinstance(screen, DiagnosisScreen), f"expected the diagnosis screen, got {type(screen).__name__}"
    return screen


async def verdict(pilot: Pilot[Any], timeout: float = 15.0) -> DiagnosisScreen:
    def done() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, DiagnosisScreen) and (screen.report is not None or screen.failure is not None)

    await until(pilot, done, timeout)
    await pilot.pause()
    return screen_of(pilot.app)  # type: ignore[arg-type]


def request_of(case: dict[str, Any], tenant: Tenant, **changes: Any) -> DiagnosisRequest:
    kwargs: dict[str, Any] = {"cluster_id": case["clusterId"], "lookback": "24h", "now": tenant.captured_at}
    if case.get("lookup") == "id":
        kwargs["workload_id"] = case["workloadId"]
    else:
        kwargs.update(name=case["name"], project=case["project"])
    kwargs.update(changes)
    return DiagnosisRequest(**kwargs)


def with_faults(bundle: CaseBundle, *faults: Fault) -> CaseBundle:
    return dataclasses.replace(bundle, faults=list(faults))


def hung_app(
    bundle: CaseBundle,
    tenants: Callable[..., Tenant],
    case: dict[str, Any],
    path: str = "/api/v1/workloads/{id}",
    *,
    delay_ms: int = 5000,
) -> TriageApp:
    """`case` on a tenant whose `path` read hangs for `delay_ms`: the screen's own run waits there."""
    return make(tenants(with_faults(bundle, Fault("GET", path, 0, 20, delay_ms=delay_ms))), options_for(case))


async def shown(pilot: Pilot[Any], app: TriageApp) -> DiagnosisScreen:
    """The diagnosis screen once it is up, its run possibly still going."""
    await until(pilot, lambda: isinstance(app.screen, DiagnosisScreen))
    return screen_of(app)


async def verdict_on_tab(pilot: Pilot[Any], key: str) -> DiagnosisScreen:
    """Wait for the verdict, then show the tab of `key` (`1`-`8`), as a user presses it."""
    screen = await verdict(pilot)
    await pilot.press(key)
    await pilot.pause()
    return screen


def screen_text(app: TriageApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


# -- verdicts ----------------------------------------------------------------------------------------------
# One per kind of banner (a category, UNKNOWN, a route-out, Option B by name); the snapshots cover the rest.
VERDICT_CASES = [
    "pull-not-found",
    "node-notready",
    "unknown-no-signals",
    "preempt-priority",
    "resnet-bench-by-name",
]


@pytest.mark.parametrize("key", VERDICT_CASES)
async def test_banner_shows_the_expected_verdict(demo: Tenant, key: str) -> None:
    case = CASES[key]
    app = make(demo, options_for(case))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        report = screen.report
        assert report is not None, screen.failure and screen.failure.detail
        assert (report.outcome, report.category) == (case["outcome"], case["category"])
        banner = screen.query_one(VerdictBanner)
        first_line = banner.plain.splitlines()[0]
        if case["outcome"] == "diagnosed":
            assert case["category"] in first_line
            assert banner.state == ("unknown" if case["category"] == "UNKNOWN" else "diagnosed")
            assert f"{report.recurrence.count} in 24h" in banner.plain
        else:
            assert f"Outcome: {case['outcome']}" in first_line and banner.state == "routed"
            assert "recurrence not counted" in banner.plain
        assert f"Reason: {report.reason}" in banner.plain
        steps = screen.query_one(StepList).steps
        assert steps[1].state == "done" and steps[1].reads >= 1
        if case["outcome"] == "diagnosed":
            assert all(s.state == "done" for s in steps.values())
        else:
            assert {s.state for n, s in steps.items() if n > 1} == {"skipped"}
            assert all("routed out" in (s.why or "") for n, s in steps.items() if n > 1)
        # Every line of the report's evidence is on the Evidence pane, each under its own source.
        pane = screen.query_one(EvidencePane)
        assert [(e.source, e.text) for e in pane.items] == [(e.source, e.text) for e in report.evidence]
        for source, items in pane.groups():
            assert all(item.source == source for item in items)


async def test_unknown_verdict_is_explained_on_the_missing_pane(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["unknown-no-signals"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        assert screen.report is not None and screen.report.category == "UNKNOWN"
        missing = screen.query_one(MissingPane)
        assert missing.explanation == screen.report.reason
        assert [(m.what, m.why) for m in missing.items] == [(m.what, m.why) for m in screen.report.missing]
        assert missing.plain.startswith("UNKNOWN because: ")


async def test_oom_panes_show_memory_containers_and_history(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["oom-rising"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        report = screen.report
        assert report is not None and report.memory is not None
        chart = screen.query_one(MemoryChart)
        assert chart.state == "samples" and chart.trend is not None
        assert chart.trend.peak_bytes == report.memory.peak_bytes == CASES["oom-rising"]["memory"]["peakBytes"]
        assert chart.trend.limit_bytes == report.memory.limit_bytes
        assert "99.7% of the limit" in chart.plain and "limit 48 GiB" in chart.plain
        containers = screen.query_one(ContainersPane)
        assert containers.state == "found"
        assert "exit=137" in containers.plain and "OOMKilled" in containers.plain
        timeline = screen.query_one(HistoryTimeline)
        assert timeline.row_count == len(timeline.entries) > 0
        assert any(e.failure and e.occurrence is not None for e in timeline.entries)
        assert "1 occurrence" in timeline.plain
        assert screen.query_one(NodePane).state == "not-read"


@pytest.mark.parametrize("key", ["pending-unschedulable", "preempt-priority"])
async def test_a_routed_out_workload_says_why_there_is_no_history_and_draws_no_table(demo: Tenant, key: str) -> None:
    app = make(demo, options_for(CASES[key]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        assert screen.report is not None and screen.report.outcome != "diagnosed"
        await pilot.press("3")
        await pilot.pause()
        timeline = screen.query_one(HistoryTimeline)
        assert timeline.plain.startswith("History not read: ") and timeline.row_count == 0
        assert not timeline.query_one(DataTable).display
        shown = screen_text(app)
        assert "History not read: " in shown and "when (UTC)" not in shown


async def test_no_samples_memory_state(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["oom-empty-metrics"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        chart = screen.query_one(MemoryChart)
        assert chart.state == "no-samples"
        assert "no samples recorded" in chart.plain and "limit 16 GiB" in chart.plain
        assert "%" not in chart.plain  # no ratio is drawn from a peak nobody measured


async def test_log_key_shows_the_log_with_the_explaining_line_marked(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        await pilot.press("l")
        await pilot.pause()
        log = screen.query_one(LogPane)
        assert screen.query_one("#diagnosis-tabs").active == "tab-log"  # type: ignore[attr-defined]
        assert app.focused is log.table
        assert log.excerpt is not None and log.excerpt.explaining_line is not None
        assert log.table.cursor_row == log.excerpt.explaining_line
        assert log.explaining is not None and log.explaining in " ".join(e.text for e in screen.report.evidence)  # type: ignore[union-attr]


# -- live updates ------------------------------------------------------------------------------------------
async def _events(tenant: Tenant, request: DiagnosisRequest) -> list[ProgressEvent]:
    return [e async for e in diagnose(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable)]


@pytest.mark.parametrize("seed", [1, 2])
async def test_events_in_any_order_fill_the_same_panes(
    demo: Tenant, demo_bundle: CaseBundle, tenants: Callable[..., Tenant], seed: int
) -> None:
    case = CASES["oom-rising"]
    events = await _events(demo, request_of(case, demo))
    final = events[-1]
    assert isinstance(final, VerdictReady)
    shuffled = events[:-1]
    random.Random(seed).shuffle(shuffled)
    # The screen's own run hangs on its first read, so only the posted events can fill it.
    hung = tenants(with_faults(demo_bundle, Fault("GET", "/api/v1/workloads/{id}", 0, 20, delay_ms=5000)))
    app = make(hung, options_for(case))
    async with app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, app)
        for event in shuffled:
            screen.post_message(DiagnosisProgress(screen.run_id, event))
        await pilot.pause()
        evidence = {(e.source, e.text) for e in screen.query_one(EvidencePane).items}
        assert evidence == {(e.item.source, e.item.text) for e in events if type(e).__name__ == "EvidenceFound"}
        trend = next(e for e in events if isinstance(e, MemoryTrend))
        assert screen.query_one(MemoryChart).trend == trend
        history = next(e for e in events if isinstance(e, HistoryFound))
        assert screen.query_one(HistoryTimeline).row_count == len(history.entries)
        assert screen.query_one(ContainersPane).state == "found"
        finished = {e.step: e.reads for e in events if isinstance(e, StepFinished)}
        assert {n: s.reads for n, s in screen.query_one(StepList).steps.items()} == finished
        assert screen.report is None and screen.query_one(VerdictBanner).state == "running"
        screen.post_message(DiagnosisProgress(screen.run_id, final))
        await pilot.pause()
        assert screen.report == final.report
        assert "OOM_KILLED" in screen.query_one(VerdictBanner).plain


async def test_thousands_of_history_lines_stay_in_one_table(
    demo_bundle: CaseBundle, tenants: Callable[..., Tenant]
) -> None:
    hung = tenants(with_faults(demo_bundle, Fault("GET", "/api/v1/workloads/{id}", 0, 20, delay_ms=5000)))
    case = CASES["oom-rising"]
    app = make(hung, options_for(case))
    start = hung.captured_at
    assert start is not None
    entries = tuple(
        HistoryEntry(at=start, kind="event", text=f"[bold]event {i}[/bold]", failure=i % 500 == 0, occurrence=i // 500)
        for i in range(6000)
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, app)
        # How fast the table fills is for a benchmark, not a timed assertion (it fails under parallel load).
        screen.post_message(DiagnosisProgress(screen.run_id, HistoryFound(entries, 6000, 12)))
        await pilot.pause()
        screen.show_tab("tab-history")
        await pilot.pause()
        timeline = screen.query_one(HistoryTimeline)
        assert timeline.row_count == 6000
        assert "12 occurrences" in timeline.plain
        assert "[bold]event 0[/bold]" in screen_text(app)  # markup-looking text stays literal


# -- cancel, rerun, stale results --------------------------------------------------------------------------
async def test_esc_cancels_a_hung_diagnosis(demo_bundle: CaseBundle, tenants: Callable[..., Tenant]) -> None:
    # The history read hangs for 30 s; the cancel must not wait for it. The 10 s bound below is far from the hang
    # and leaves room for a machine loaded by parallel tests (a 2 s bound failed there).
    fault = Fault("GET", "/api/v1/workloads/{id}/history", 0, 5, delay_ms=30_000)
    hung = tenants(with_faults(demo_bundle, fault))
    app = make(hung, options_for(CASES["oom-rising"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, app)
        await until(pilot, lambda: screen.query_one(StepList).steps[3].state == "running")
        await pilot.pause(0.1)
        assert screen.running and screen.report is None
        worker = screen.worker
        assert worker is not None
        began = time.monotonic()
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DiagnosisScreen))
        await until(pilot, lambda: worker.state == WorkerState.CANCELLED)
        assert time.monotonic() - began < 10.0
        assert screen not in app.screen_stack


async def test_the_next_workload_opens_on_the_kept_screen_as_on_a_new_one(demo: Tenant) -> None:
    first, second = CASES["oom-rising"], CASES["crash-traceback"]
    app = make(demo, options_for(first))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        assert screen.report is not None and screen.report.category == first["category"]
        await pilot.press("5")  # the Pod tab, its table focused
        await pilot.pause()
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DiagnosisScreen))
        app.open_diagnosis(DiagnosisTarget(second["clusterId"], None, second["name"], second["project"]))
        again = await verdict(pilot)
        assert again is screen  # kept, not composed again
        report = again.report
        assert report is not None and (report.outcome, report.category) == (second["outcome"], second["category"])
        assert again.query_one(TabbedContent).active == "tab-evidence"
        assert second["name"] in again.query_one(VerdictBanner).plain
        assert first["name"] not in again.query_one(VerdictBanner).plain
        focused = again.focused  # not left on the Pod tab's table of the workload before
        assert focused is None or all(node.id != "tab-pod" for node in focused.ancestors_with_self)
        assert again.exports == [] and again.failure is None


async def test_a_diagnosis_opened_over_the_kept_screen_gets_a_screen_of_its_own(demo: Tenant) -> None:
    first, second = CASES["oom-rising"], CASES["crash-traceback"]
    app = make(demo, options_for(first))
    async with app.run_test(size=SIZE) as pilot:
        below = await verdict(pilot)
        # Opened while the kept screen is still on the stack (nothing pops it first): a new screen on top.
        app.open_diagnosis(DiagnosisTarget(second["clusterId"], None, second["name"], second["project"]))
        above = await verdict(pilot)
        assert above is not below and above.report is not None
        assert (above.report.outcome, above.report.category) == (second["outcome"], second["category"])
        assert below.report is not None and below.report.category == first["category"]  # left as it was
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is below)


async def test_rerun_runs_the_engine_again(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        assert demo.control_plane is not None
        wid = CASES["crash-traceback"]["workloadId"]

        def status_reads() -> int:
            return sum(1 for r in demo.control_plane.requests if r.path == f"/api/v1/workloads/{wid}")  # type: ignore[union-attr]

        first_report, first_run, reads = screen.report, screen.run_id, status_reads()
        await pilot.press("r")
        assert screen.run_id == first_run + 1
        await verdict(pilot)
        assert status_reads() == reads + 1
        assert screen.report is not None and first_report is not None
        assert screen.report.category == first_report.category


async def test_lookback_key_reruns_with_the_next_window(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["oom-recurring"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        assert screen.report is not None and screen.report.recurrence.lookback == "24h"
        await pilot.press("b")
        assert screen.lookback == "7d"
        await verdict(pilot)
        assert screen.report is not None and screen.report.recurrence.lookback == "7d"
        assert screen.report.recurrence.count == CASES["oom-recurring"]["recurrence"]
        assert "3 in 7d · recurring" in screen.query_one(VerdictBanner).plain


async def test_stale_results_of_a_replaced_run_are_dropped(
    demo_bundle: CaseBundle, tenants: Callable[..., Tenant]
) -> None:
    slow = tenants(demo_bundle, latency_ms=40)
    app = make(slow, options_for(CASES["oom-recurring"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, app)
        await until(pilot, lambda: screen.query_one(StepList).steps[1].reads >= 1)
        await pilot.press("b")  # a new run (7d) replaces the 24h one while it is still reading
        await verdict(pilot)
        assert screen.report is not None and screen.report.recurrence.lookback == "7d"
        # A late verdict of the first run must not replace what is shown.
        old = screen.report.model_copy(update={"category": "NODE_FAILURE"})
        dropped = screen.stale_dropped
        screen.post_message(DiagnosisProgress(screen.run_id - 1, VerdictReady(old)))
        screen.post_message(DiagnosisProgress(screen.run_id - 1, StepStarted(2, "late")))
        await pilot.pause()
        assert screen.stale_dropped == dropped + 2
        assert screen.report.category == "OOM_KILLED"
        assert "NODE_FAILURE" not in screen.query_one(VerdictBanner).plain


# -- export and copy ---------------------------------------------------------------------------------------
async def test_export_markdown_and_json(demo: Tenant, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXPORT_DIR_ENV, str(tmp_path))
    case = CASES["oom-rising"]
    app = make(demo, options_for(case))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        await pilot.press("e")
        await pilot.press("J")
        await until(pilot, lambda: len(screen.exports) == 2)
        shown = screen.report
        assert shown is not None
    md = sorted(tmp_path.glob("*.md"))
    js = sorted(tmp_path.glob("*.json"))
    assert [p.name for p in md] == ["runai-triage-llama-ft-7b-20261130T120000Z.md"]
    assert [p.name for p in js] == ["runai-triage-llama-ft-7b-20261130T120000Z.json"]
    assert md[0].read_text(encoding="utf-8") == to_markdown(shown, name=flag)
    exported = json.loads(js[0].read_text(encoding="utf-8"))
    headless = await run_to_report(
        request_of(case, demo), demo.runai, demo.kube, tier2_unavailable=demo.kube_unavailable
    )
    expected = headless.to_json_dict()
    # The same verdict and content as the headless command; evidence order may differ only among equals.
    for key in (
        "schema",
        "outcome",
        "category",
        "workload",
        "memory",
        "recurrence",
        "recommendations",
        "reason",
    ):
        assert exported[key] == expected[key], key
    assert sorted(map(json.dumps, exported["evidence"])) == sorted(map(json.dumps, expected["evidence"]))
    assert Report.model_validate(exported) == shown


async def test_second_export_does_not_overwrite(demo: Tenant, tmp_path: Path) -> None:
    app = make(demo, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        screen._export_to = tmp_path
        screen._env = {}
        await pilot.press("J")
        await until(pilot, lambda: len(screen.exports) == 1)
        await pilot.press("J")
        await until(pilot, lambda: len(screen.exports) == 2)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "runai-triage-t5-summarize-20261130T120000Z-2.json",
        "runai-triage-t5-summarize-20261130T120000Z.json",
    ]


async def test_copy_puts_the_text_report_on_the_clipboard(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert screen.report is not None
        assert app.clipboard == to_text(screen.report, name=flag)  # the report as `diagnose` prints it
        assert app.clipboard.startswith("Category: CRASH_APP_ERROR")


async def test_export_before_the_verdict_warns_and_writes_nothing(
    demo_bundle: CaseBundle, tenants: Callable[..., Tenant], tmp_path: Path
) -> None:
    app = hung_app(demo_bundle, tenants, CASES["oom-rising"])
    async with app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, app)
        screen._export_to, screen._env = tmp_path, {}
        await pilot.press("e", "c")
        await pilot.pause()
        assert screen.exports == [] and app.clipboard == ""
        assert any("still running" in str(n.message) for n in app._notifications)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("tab", "12345678")
async def test_v_before_the_verdict_says_why_on_every_tab(
    demo_bundle: CaseBundle, tenants: Callable[..., Tenant], tab: str
) -> None:
    # The history read hangs, so the History tab's table is on screen and empty while the diagnosis runs.
    app = hung_app(demo_bundle, tenants, CASES["oom-rising"], "/api/v1/workloads/{id}/history", delay_ms=30_000)
    async with app.run_test(size=SIZE) as pilot:
        screen = await shown(pilot, app)
        await until(pilot, lambda: screen.query_one(StepList).steps[3].state == "running")
        await pilot.press(tab, "v")
        await pilot.pause()
        assert screen.running and app.screen is screen
        assert [str(n.message) for n in app._notifications] == ["Nothing to show yet: the diagnosis is still running."]


def test_export_names_are_safe_file_names() -> None:
    assert safe_fragment("../../etc/passwd") == "etc-passwd"
    assert safe_fragment("\x1b[2Jx\u202e;rm -rf ~") == "2Jx-rm-rf"
    assert safe_fragment("...") == "workload"
    assert safe_fragment("a" * 300) == "a" * 60
    report = Report.model_validate(
        {"outcome": "not-found", "workload": {"name": "x/../y z"}, "recurrence": {"lookback": "24h"}}
    )
    from datetime import UTC, datetime

    name = export_name(report, "json", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    assert name == "runai-triage-x-..-y-z-20260102T030405Z.json"
    assert re.fullmatch(r"[A-Za-z0-9._-]+", name) and "/" not in name


# -- untrusted text ----------------------------------------------------------------------------------------
async def test_hostile_story_renders_as_literal_text(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["hostile"]))
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await verdict(pilot)
        assert screen.report is not None and screen.report.category == "CRASH_APP_ERROR"
        texts = [screen_text(app)]
        for pane in ("tab-events", "tab-log", "tab-history", "tab-pod"):
            screen.show_tab(pane)
            await pilot.pause()
            texts.append(screen_text(app))
        seen = "\n".join(texts)
        assert app.is_running  # [@click=app.quit] was not interpreted
        assert "[@click=app.quit]x[/]" in seen and "[link=file:///etc/passwd]" in seen
        assert "\\x1b[2J" in seen and "\\u202e" in seen
        assert not any(ch in seen for ch in ("\x1b", "\x9b", "\x07", "\u202e", "\u200b"))
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\u202e" not in svg
        assert "[@click=app.quit]" in screen.query_one(KubeEventsPane).plain


# -- errors ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("status", "title"), [(401, "Credentials refused (401)"), (403, "Access denied (403)")])
async def test_refused_reads_show_in_the_banner_and_r_retries(
    tenants: Callable[..., Tenant], status: int, title: str
) -> None:
    entry = workload("train-a", 30)
    wid = entry["workload"]["id"]
    fault = {"match": f"GET /api/v1/workloads/{wid}", "status": status, "times": 1}
    tenant = tenants(small_bundle([entry], faults=[fault]))
    app = make(tenant, StartOptions(mode="case", cluster_id=CLUSTER, workload_id=wid))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        banner = screen.query_one(VerdictBanner)
        assert screen.report is None and banner.state == "failed"
        assert title in banner.plain and "Press r to retry" in banner.plain
        assert screen.query_one(StepList).steps[1].state == "failed"
        await pilot.press("r")
        await verdict(pilot)
        assert screen.report is not None and banner.state != "failed"
        # The bundle has no kubernetes section: every Tier 2 pane says why it is empty.
        for pane in (ContainersPane, KubeEventsPane, LogPane, NodePane):
            widget = screen.query_one(pane)
            assert widget.state == "unavailable" and "no kubernetes section" in (widget.why or "")


async def test_unreachable_control_plane_is_said_in_words() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = RunaiClient(f"http://127.0.0.1:{port}", BearerToken("t"), retry=RetryPolicy(max_attempts=1))
    tenant = Tenant(label="unreachable", runai=client, kube=None, kube_unavailable="Tier 2 off")
    app = make(tenant, StartOptions(cluster_id=CLUSTER, workload_id="w-1"))
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await verdict(pilot)
            banner = screen.query_one(VerdictBanner)
            assert banner.state == "failed"
            assert "Control plane unreachable" in banner.plain and "RUNAI_BASE_URL" in banner.plain
    finally:
        await tenant.aclose()


async def test_a_target_without_a_cluster_is_refused_with_a_notice(demo: Tenant) -> None:
    app = make(demo, StartOptions(mode="demo"))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.tenant is not None)
        app.open_diagnosis(DiagnosisTarget(None, "some-id"))
        await pilot.pause()
        assert not isinstance(app.screen, DiagnosisScreen)
        assert any("cluster id" in str(n.message) for n in app._notifications)


# -- palette and help --------------------------------------------------------------------------------------
async def test_palette_offers_a_rerun_with_a_chosen_lookback(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["oom-recurring"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        await pilot.press("colon")
        await pilot.pause()
        await pilot.press(*"lookback 2w")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: screen.lookback == "2w" and screen.report is not None)
        assert screen.report is not None and screen.report.recurrence.lookback == "2w"


async def test_help_lists_the_screen_keys(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        await verdict(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        for words in (
            "rerun",
            "back",
            "export",
            "export json",
            "copy",
            "lookback",
            "log",
            "previous log",
            "describe",
            "tab by number",
            "1-8",
            "next tab",
            "full text",
        ):
            assert words in text, words
        assert "READ-ONLY" in text


async def test_wide_and_short_layouts(demo: Tenant) -> None:
    app = make(demo, options_for(CASES["oom-rising"]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await verdict(pilot)
        assert screen.query_one(StepList).compact and not screen.has_class("-wide")
        assert "READ-ONLY" in screen_text(app)
        await pilot.resize_terminal(160, 50)
        await pilot.pause()
        assert not screen.query_one(StepList).compact and screen.has_class("-wide")
