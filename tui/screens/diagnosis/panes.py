"""How the diagnosis screen's panes fill from the engine's events, and how they settle when the verdict is in: the
panes a verdict leaves unread say why (a route-out, no Tier 2, no OOM evidence), the ones a read failed say what
failed, and the tab labels count the evidence and the missing items.

`DiagnosisPanes` is a plain object the screen calls (`start`, `apply`, `cancelled`, `stopped`): it draws a run,
the screen runs it and keeps its report."""

from __future__ import annotations

from typing import Protocol, TypeVar

from textual.widget import Widget
from textual.widgets import TabbedContent

from core.diagnosis.progress import (
    ContainersFound,
    EvidenceFound,
    HistoryFound,
    KubeEventsFound,
    LogFound,
    MemoryTrend,
    MissingFound,
    NodeFound,
    ProgressEvent,
    ReadFinished,
    StepFinished,
    StepStarted,
    TerminationsFound,
    VerdictReady,
    WorkloadResolved,
)
from core.models.report import MissingItem, Report
from core.tenant import Tenant
from tui.next_steps import for_the_app
from tui.screens.diagnosis.commands import TABS
from tui.screens.diagnosis.text import verdict_preface
from tui.widgets.containers_pane import ContainersPane
from tui.widgets.evidence_pane import EvidencePane
from tui.widgets.findings_line import findings_heads
from tui.widgets.history_timeline import HistoryTimeline
from tui.widgets.kube_events_pane import KubeEventsPane
from tui.widgets.log_pane import LogPane
from tui.widgets.memory.chart import MemoryChart
from tui.widgets.memory.plot import failure_times, run_spans
from tui.widgets.missing_pane import MissingPane
from tui.widgets.node_pane import NodePane
from tui.widgets.pods_pane import PodsPane
from tui.widgets.step_list import StepList
from tui.widgets.verdict_banner import VerdictBanner, workload_label

TIER2_SOURCES = {
    "kubectl describe pod": "containers",
    "kubectl get events": "events",
    "kubectl logs --previous": "log",
    "kubectl logs": "log",
    "kubectl describe node": "node",
}
METRICS = "get_workload_metrics"
HISTORY = "get_workload_history"
NOT_READ_DEFAULTS = {
    "containers": "no pod of this workload could be named, so none was described",
    "events": "no pod was read, so its events were not listed",
    "log": "no container log was read",
    "node": "a node is described only on node-failure evidence, and there was none",
}


W = TypeVar("W", bound=Widget)


class _Resettable(Protocol):
    def reset(self) -> None: ...


class DiagnosisPanes:
    """The banner, the steps and the tabs of one diagnosis screen, drawn from one run's events at a time."""

    def __init__(self, screen: Widget, tenant: Tenant, kube_off: str | None, workload: str) -> None:
        """`screen` holds the widgets (queried when drawn: they exist once it is composed); `tenant` and
        `kube_off` say whether Tier 2 could be read; `workload` labels the banner until the engine names it."""
        self._screen = screen
        self.tenant = tenant
        self.kube_off = kube_off
        self.workload = workload
        self.lookback = ""
        self._verdict_in = False
        self._trend_seen = False
        self._history_seen = False

    def _widget(self, kind: type[W]) -> W:
        return self._screen.query_one(kind)

    # -- a run's start and end without a verdict ---------------------------------------------------------
    def start(self, lookback: str) -> None:
        """Every pane back to its waiting state and its top, the banner running over `lookback`."""
        self.lookback = lookback
        self._verdict_in = False
        self._trend_seen = False
        self._history_seen = False
        for pane in self._resettable():
            pane.reset()
        self._widget(PodsPane).reset()
        self._scroll_home()
        self._widget(StepList).reset()
        self._widget(VerdictBanner).show_running(self.workload, self.lookback)
        self._label_tabs()

    def _scroll_home(self) -> None:
        """Every pane back at its top: a new diagnosis never opens where the last one was scrolled to."""
        for widget in self._widget(TabbedContent).query("*"):
            if widget.is_scrollable:
                widget.scroll_home(animate=False, immediate=True)

    def cancelled(self) -> None:
        self._widget(StepList).close_open("cancelled", "cancelled", "cancelled")
        self._widget(VerdictBanner).show_cancelled(self.workload)

    def stopped(self, title: str, detail: str, hint: str) -> None:
        """The run ended without a report: the banner says why and what to do, the steps left open close."""
        self._widget(VerdictBanner).show_failure(title, detail, hint)
        self._widget(StepList).close_open("not run", "failed", "no report: the diagnosis stopped")
        self._widget(EvidencePane).set_items(
            self._widget(EvidencePane).items, "No evidence could be read before the diagnosis stopped."
        )

    # -- events -------------------------------------------------------------------------------------------
    def apply(self, event: ProgressEvent) -> None:
        """Show one engine event; each kind updates only its own pane, so arrival order does not matter."""
        steps = self._widget(StepList)
        if isinstance(event, StepStarted):
            steps.start(event.step, event.title)
            if not self._verdict_in:
                self._widget(VerdictBanner).show_running(
                    self.workload, self.lookback, f"Step {event.step} of 5: {event.title}"
                )
        elif isinstance(event, StepFinished):
            steps.finish(event.step, event.reads, event.seconds, event.skipped)
        elif isinstance(event, ReadFinished):
            steps.read(event.source, event.ok, event.step)
        elif isinstance(event, WorkloadResolved):
            w = event.workload
            self.workload = workload_label(w.name, w.project, w.id or self.workload)
        elif isinstance(event, EvidenceFound):
            self._widget(EvidencePane).add(event.item)
            self._label_tabs()
        elif isinstance(event, MissingFound):
            self._widget(MissingPane).add(event.item)
            self._route_missing(event.item)
            self._label_tabs()
        elif isinstance(event, ContainersFound):
            self._widget(ContainersPane).show(event)
        elif isinstance(event, KubeEventsFound):
            self._widget(KubeEventsPane).show(event.rows)
        elif isinstance(event, LogFound):
            self._widget(LogPane).show(event)
        elif isinstance(event, NodeFound):
            self._widget(NodePane).show(event)
        elif isinstance(event, TerminationsFound):
            self._widget(PodsPane).show(event.entries)
        elif isinstance(event, MemoryTrend):
            self._trend_seen = True
            self._widget(MemoryChart).show_trend(event)
        elif isinstance(event, HistoryFound):
            self._history_seen = True
            self._widget(HistoryTimeline).show(event.entries, event.records, event.pages, self.lookback)
        elif isinstance(event, VerdictReady):
            self._finish(event)

    def _tier2_panes(self) -> dict[str, ContainersPane | KubeEventsPane | LogPane | NodePane]:
        return {
            "containers": self._widget(ContainersPane),
            "events": self._widget(KubeEventsPane),
            "log": self._widget(LogPane),
            "node": self._widget(NodePane),
        }

    def _route_missing(self, item: MissingItem) -> None:
        panes = self._tier2_panes()
        if item.source in TIER2_SOURCES:
            panes[TIER2_SOURCES[item.source]].set_unavailable(f"{item.what}: {item.why}")
        elif item.source is None and item.what.startswith("Kubernetes evidence"):
            # The engine's one gap for "no Tier 2 at all" carries no source: it applies to every Tier 2 pane.
            for pane in panes.values():
                pane.set_unavailable(item.why)
        elif item.source == HISTORY and item.what == "history":
            self._widget(HistoryTimeline).set_unavailable(item.why)

    def _finish(self, event: VerdictReady) -> None:
        report = event.report
        self._verdict_in = True
        self._widget(VerdictBanner).show_report(report)
        # The report's lists are final and ordered (deciding evidence first): they replace the live ones.
        self._widget(EvidencePane).set_report(
            # The banner above says the reason (`v` whole): the tab does not say it again.
            report, findings=findings_heads(report), preface=verdict_preface(report, reason=False)
        )
        explanation = (report.reason or "") if report.category == "UNKNOWN" else None
        notes = [for_the_app(report, note) for note in report.notes]
        self._widget(MissingPane).finish(report.missing, explanation, notes)
        self._widget(PodsPane).show(report.termination_order, report.memory)
        steps = self._widget(StepList)
        routed_why = steps.route_out(report.outcome) if report.outcome != "diagnosed" else None
        if routed_why is None:
            steps.close_open("skipped", None, "not reached")
        steps.set_total(event.reads, event.seconds)
        self._settle_history(report, routed_why)
        self._settle_memory(report, routed_why)
        self._settle_tier2(routed_why)
        self._label_tabs()

    def _settle_history(self, report: Report, routed_why: str | None) -> None:
        timeline = self._widget(HistoryTimeline)
        if self._history_seen:
            return
        if routed_why:
            timeline.reset(f"History not read: {routed_why}")
        elif report.history:
            timeline.show(report.history, len(report.history), 0, self.lookback)
        elif not any(m.source == HISTORY and m.what == "history" for m in report.missing):
            timeline.reset("No history records inside the lookback.")

    def _settle_memory(self, report: Report, routed_why: str | None) -> None:
        chart = self._widget(MemoryChart)
        failed = [m for m in report.missing if m.source == METRICS and m.what != "CPU-memory peak"]
        if failed and not self._trend_seen:
            chart.set_unavailable(f"{failed[0].what}: {failed[0].why}")
        elif report.memory is not None:
            windows = run_spans(report.memory.windows)
            chart.show_configured(report.memory, failure_times(report.history or ()), windows)
        elif not self._trend_seen:
            chart.set_not_read(
                routed_why
                or "the verdict rests on no OOM evidence and no unexplained exit 137, so metrics were not needed"
            )

    def _settle_tier2(self, routed_why: str | None) -> None:
        known = self.tenant.tier2_known()
        if self.kube_off or known is None:  # None: still opening after a route-out at Step 1, not needed anyway
            unavailable = self.kube_off
        else:
            unavailable = None if known[0] is not None else (known[1] or "not configured")
        for key, pane in self._tier2_panes().items():
            if unavailable:
                pane.set_unavailable(unavailable)
            else:
                pane.set_not_read(routed_why or NOT_READ_DEFAULTS[key])

    def _resettable(self) -> list[_Resettable]:
        return [
            self._widget(EvidencePane),
            self._widget(MissingPane),
            self._widget(HistoryTimeline),
            self._widget(MemoryChart),
            *self._tier2_panes().values(),
        ]

    def _label_tabs(self) -> None:
        tabs = self._widget(TabbedContent)
        counts = {
            "tab-evidence": len(self._widget(EvidencePane).items),
            "tab-missing": len(self._widget(MissingPane).items),
        }
        for pane_id, label in TABS:
            text = f"{label} {counts[pane_id]}" if counts.get(pane_id) else label
            tab = tabs.get_tab(pane_id)
            if str(tab.label) != text:
                tab.label = text
