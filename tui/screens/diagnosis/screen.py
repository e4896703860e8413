"""The live diagnosis screen: runs the engine for one workload and fills the panes as its events arrive.

Data flow: one worker (group `diagnosis`, exclusive, so a rerun cancels the run it replaces) drains the
engine's async iterator and posts every progress event as a `DiagnosisProgress` message tagged with the run's
number. Handlers drop messages of any run other than the one on screen, so a late answer of a cancelled or
replaced run never overwrites the current one. Widgets are only touched in handlers, on the UI loop.

The verdict's report is the single source for exports and the clipboard: what is written is exactly what
`runai-triage diagnose` would print for the same request.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.containers import Container
from textual.events import Resize
from textual.widgets import TabbedContent, TabPane
from textual.worker import Worker

import styles
from core.diagnosis.engine import DiagnosisFailed, diagnose
from core.diagnosis.progress import ProgressEvent, VerdictReady
from core.diagnosis.request import DiagnosisRequest, UsageError, parse_lookback
from core.models.report import Report
from core.safety.untrusted import clean
from core.tenant import Tenant
from tui.clock import Clock, system_clock
from tui.messages import DiagnosisProgress, DiagnosisStopped
from tui.progress_batches import ProgressBatches
from tui.screens.diagnosis.commands import LOOKBACKS, TABS, DiagnosisCommands
from tui.screens.diagnosis.follow import FOLLOW, DiagnosisFollow
from tui.screens.diagnosis.panes import DiagnosisPanes
from tui.screens.diagnosis.report_actions import ReportActions
from tui.screens.diagnosis.text import failure_words
from tui.screens.diagnosis.views import PaneActions
from tui.widgets.containers_pane import ContainersPane
from tui.widgets.evidence_pane import EVERY_LINE_KEY, EvidencePane
from tui.widgets.footer import KeysFooter
from tui.widgets.history_timeline import HistoryTimeline
from tui.widgets.kube_events_pane import KubeEventsPane
from tui.widgets.log_pane import LogPane
from tui.widgets.memory.chart import MemoryChart
from tui.widgets.missing_pane import MissingPane
from tui.widgets.node_pane import NodePane
from tui.widgets.pods_pane import PodsPane
from tui.widgets.step_list import StepList, full_width
from tui.widgets.top_bar import TopBar
from tui.widgets.verdict_banner import VerdictBanner, workload_label

STYLES_DIR = Path(styles.__file__).parent
# Terminals at least this wide put the banner and the steps side by side; at least this tall show the full
# step table instead of its one-line summary.
WIDE_COLUMNS = 140
TALL_ROWS = 36
# Beside the steps (from WIDE_COLUMNS), the banner keeps at least this much; the steps take what they need of the rest.
BANNER_COLUMNS = 68


def _banner_label(request: DiagnosisRequest) -> str:
    """The banner's name for the workload until the engine resolves it."""
    return workload_label(request.name, request.project, request.workload_id or "workload")


# -- the screen -------------------------------------------------------------------------------------------
class DiagnosisScreen(DiagnosisFollow, PaneActions, ReportActions):
    # The keys go to the Evidence tab's text from the start (j / k, arrows, page keys), not to the tab bar.
    AUTO_FOCUS = "#evidence"
    CSS_PATH: ClassVar[list[str | Path]] = [STYLES_DIR / "diagnosis.tcss"]
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {DiagnosisCommands}
    # Footer: what fits 80 columns beside the app's `?`, `:` and `q`; `?` lists every key.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", tooltip="Back to the picker (cancels a diagnosis still running)"),
        Binding("r", "rerun", "rerun", tooltip="Diagnose this workload again"),
        FOLLOW,
        Binding("v", "view", "full text", tooltip="The whole verdict, or the whole highlighted history or log line"),
        Binding(
            EVERY_LINE_KEY,
            "every_line",
            "every line",
            show=False,
            tooltip="Evidence: every line, or back to the short list (the decisive signal first, each signal once)",
        ),
        Binding("c", "copy_report", "copy", tooltip="Copy the report (and keep it in a file)"),
        Binding("e", "export('markdown')", "export", tooltip="Write the report as Markdown"),
        Binding("J", "export('json')", "export json", show=False, tooltip="Write the report as JSON"),
        Binding("j", "row(1)", "row down", show=False),
        Binding("k", "row(-1)", "row up", show=False),
        Binding("b", "cycle_lookback", "lookback", show=False, tooltip="Diagnose again over 24h, 7d or 2w"),
        Binding("d", "show_tab('tab-pod')", "describe", show=False, tooltip="The pod, as kubectl describe shows it"),
        Binding("l", "show_log", "log", show=False, tooltip="The container log, the explaining line marked"),
        Binding(
            "p",
            "show_previous_log",
            "previous log",
            show=False,
            tooltip="The previous container's log (what the diagnosis read)",
        ),
        Binding("right_square_bracket", "next_tab", "next tab", key_display="]", show=False),
        Binding("left_square_bracket", "previous_tab", "previous tab", key_display="[", show=False),
        *(
            Binding(
                str(n),
                f"show_tab('{pane}')",
                "tab by number",
                show=False,
                tooltip="Show a tab by its number: "
                + ", ".join(f"{i} {name}" for i, (_, name) in enumerate(TABS, start=1)),
            )
            for n, (pane, _label) in enumerate(TABS, start=1)
        ),
    ]

    def __init__(
        self,
        request: DiagnosisRequest,
        tenant: Tenant,
        *,
        clock: Clock | None = None,
        engine_clock: Callable[[], float] | None = None,
        export_to: Path | None = None,
        env: Mapping[str, str] | None = None,
        kube_off: str | None = None,
        replay: tuple[ProgressEvent, ...] = (),
    ) -> None:
        """`clock` gives "now" for each run (default: the request's own `now`, else the wall clock);
        `engine_clock` times reads (tests freeze it); `export_to` overrides $RUNAI_TRIAGE_EXPORT_DIR and the
        platform's data directory;
        `kube_off` says why Tier 2 is not read although the tenant offers it (`--no-kube`); `replay` holds
        the events of a diagnosis of this request already made, shown as the first run instead of reading."""
        super().__init__()
        self._replay = replay
        self.tenant = tenant
        self.kube_off = kube_off
        self.base_request = request
        self.lookback = request.lookback
        self._clock = clock
        self._engine_clock = engine_clock
        self._export_to = export_to
        self._env = env
        self.run_id = 0
        self.report: Report | None = None
        self.failure: DiagnosisStopped | None = None
        self.stale_dropped = 0
        self.exports: list[Path] = []
        self.copies: list[Path] = []
        self.worker: Worker[None] | None = None
        self.panes = DiagnosisPanes(self, tenant, kube_off, _banner_label(request))

    # -- layout -------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # The width class set before the panes mount: set once they are, it would restyle every one of them.
        self.set_class(self.app.size.width >= WIDE_COLUMNS, "-wide")
        yield TopBar(f"{self.tenant.label} · diagnosis")
        with Container(id="diagnosis-summary"):
            yield VerdictBanner(id="verdict")
            yield StepList(id="steps")
        with TabbedContent(id="diagnosis-tabs", initial="tab-evidence"):
            with TabPane("Evidence", id="tab-evidence"):
                yield EvidencePane(id="evidence")
            with TabPane("Missing", id="tab-missing"):
                yield MissingPane(id="missing")
            with TabPane("History", id="tab-history"):
                yield HistoryTimeline(id="history")
            with TabPane("Memory", id="tab-memory"):
                yield MemoryChart(id="memory")
            with TabPane("Pod", id="tab-pod"):
                yield PodsPane(id="pods")
                yield ContainersPane(id="containers")
            with TabPane("Events", id="tab-events"):
                yield KubeEventsPane(id="events")
            with TabPane("Log", id="tab-log"):
                yield LogPane(id="log")
            with TabPane("Node", id="tab-node"):
                yield NodePane(id="node")
        yield KeysFooter()

    def on_mount(self) -> None:
        self._fit(self.app.size.width, self.app.size.height)
        self.start()

    def on_resize(self, event: Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        wide = width >= WIDE_COLUMNS
        self.set_class(wide, "-wide")
        steps = self.query_one(StepList)
        steps.styles.width = min(full_width(), width - BANNER_COLUMNS) if wide else None
        steps.set_compact(height < TALL_ROWS)
        self.query_one(VerdictBanner).set_compact(height < TALL_ROWS)

    # -- running ------------------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.worker is not None and self.worker.is_running

    def current_request(self) -> DiagnosisRequest:
        now = self._clock() if self._clock is not None else (self.base_request.now or system_clock())
        return dataclasses.replace(self.base_request, lookback=self.lookback, now=now)

    def start(self) -> None:
        """Begin a new run: every pane back to its waiting state, the old run's messages from now on stale."""
        self.run_id += 1
        self.report = None
        self.failure = None
        self.panes.start(self.lookback)
        replay, self._replay = self._replay, ()
        if replay:  # made in the background a moment ago for this request: no read, no wait
            for event in replay:
                self.apply(event)
            return
        self.worker = self._run(self.run_id, self.current_request())

    @work(group="diagnosis", exclusive=True, exit_on_error=False)
    async def _run(self, run_id: int, request: DiagnosisRequest) -> None:
        tenant = self.tenant
        kwargs: dict[str, Any] = {"clock": self._engine_clock} if self._engine_clock is not None else {}
        if self.kube_off is None:
            # Tier 2 opens in its own thread (if the app has not opened it yet) while Step 1 reads.
            kwargs["open_tier2"] = tenant.open_tier2
        else:
            kwargs["tier2_unavailable"] = self.kube_off
        batches = ProgressBatches(lambda events: self.post_message(DiagnosisProgress(run_id, events)))
        try:
            async for event in diagnose(request, tenant.runai, **kwargs):
                batches.add(event)
            batches.flush()
        except DiagnosisFailed as exc:
            batches.flush()
            self.post_message(DiagnosisStopped(run_id, *failure_words(exc)))
        except Exception as exc:  # an engine bug still ends in words on the banner, not a traceback
            batches.flush()
            title = f"unexpected error ({type(exc).__name__})"
            self.post_message(DiagnosisStopped(run_id, title, clean(str(exc), max_len=600), "Press r to retry."))
        finally:
            batches.close()  # a cancelled run: what waited is stale

    def serves(self, tenant: Tenant, clock: Clock | None, kube_off: str | None) -> bool:
        return self.tenant is tenant and self._clock is clock and self.kube_off == kube_off

    def open_for(self, request: DiagnosisRequest, replay: tuple[ProgressEvent, ...] = ()) -> None:
        """This screen, kept from an earlier diagnosis, for `request`: as a new one would open, on Evidence."""
        self.cancel()
        self._replay = replay
        self.base_request = request
        self.lookback = request.lookback
        self.failure = None
        self.worker = None
        self.stale_dropped = 0
        self.exports, self.copies = [], []
        self.panes.workload = _banner_label(request)
        self.show_tab("tab-evidence")
        self.start()
        self._focus_pane("tab-evidence")  # shown again, it focuses as when first mounted

    def cancel(self) -> None:
        if self.worker is not None and self.worker.is_running:
            self.worker.cancel()
            self.run_id += 1  # anything the cancelled run had already posted is now stale
            self.panes.cancelled()

    def rerun_with(self, lookback: str) -> None:
        try:
            parse_lookback(lookback)
        except UsageError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.lookback = lookback
        self.notify(f"Diagnosing again over the last {lookback}.", title="lookback", markup=False)
        self.start()

    # -- progress -----------------------------------------------------------------------------------------
    def apply(self, event: ProgressEvent) -> None:
        """Show one engine event; the verdict's report is kept for the keys that use it (v, c, e, f)."""
        if isinstance(event, VerdictReady):
            self.report = event.report
        self.panes.apply(event)

    def on_diagnosis_progress(self, message: DiagnosisProgress) -> None:
        message.stop()
        if message.run_id != self.run_id:
            self.stale_dropped += 1
            return
        with self.app.batch_update():  # one layout and repaint for the whole batch
            for event in message.events:
                self.apply(event)

    def on_diagnosis_stopped(self, message: DiagnosisStopped) -> None:
        message.stop()
        if message.run_id != self.run_id:
            self.stale_dropped += 1
            return
        self.failure = message
        self.panes.stopped(message.title, message.detail, message.hint)

    # -- actions ------------------------------------------------------------------------------------------
    def action_rerun(self) -> None:
        self.start()

    def action_back(self) -> None:
        self.cancel()
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
            # The list highlights the workload this was (opened from it, or straight from the command line).
            w = self.report.workload if self.report is not None else None
            below = self.app.screen_stack[-1]
            return_to = getattr(below, "return_to", None)
            if callable(return_to):
                return_to(w.id if w else self.base_request.workload_id, w.name if w else self.base_request.name)

    def action_cycle_lookback(self) -> None:
        if self.lookback in LOOKBACKS:
            self.rerun_with(LOOKBACKS[(LOOKBACKS.index(self.lookback) + 1) % len(LOOKBACKS)])
        else:
            self.rerun_with(LOOKBACKS[0])
