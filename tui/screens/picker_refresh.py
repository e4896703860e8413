"""The picker follows the tenant: the page on screen is read again every few seconds and updated in place.

- One read per interval (core.triage.pacing): a timer re-armed when the last read ended, so two never overlap;
  each read is one attempt (one list request; in the needs-attention view also one events read per Pending or
  Running row whose phase changed). A failed read (429, 5xx, anything) doubles the wait and honours
  `Retry-After`; the header says so, and the rows stay as they were.
- Paused while the user types in the name filter, while a cluster or project list is open, while a page read is
  on its way, and while another screen covers the picker; it never moves the focus. Back on the picker after
  more than an interval, the page is read at once.
- The rows are updated by workload id: when the page holds the same workloads in the same order only the cells
  that changed are redrawn (tui.widgets.workload_table.update_rows), otherwise the page is drawn again with the
  cursor kept on the same workload.
- What moved (core.triage.changes): a row whose phase changed gets ● before its age for a few reads; one that
  newly needs attention gets ✱ and is counted in the line under the table ("2 new failures") until the cursor
  rests on it (`n` jumps to the next one); one that needed attention and does not now gets ↺, is counted as
  recovered, and is diagnosed again so its verdict and line say what the diagnosis says now.
- Verdicts: only rows without a verdict for their current phase change are diagnosed, within the background
  budget (core.triage.batch), queued behind any background diagnosis already running rather than cancelling it.
- The total ("rows 1-31 of 1,247") is counted again when a read finds rows that came or went.

The interval is `--refresh`, else the saved setting (`:` "refresh every ..."), else 5 s for a tenant that can
change; a recorded case or the still demo describes one moment, so it is read again only when asked (r).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Select
from textual.worker import Worker, WorkerState

from core.models.runai import Workload
from core.safety.untrusted import clean
from core.triage.attention import judging_loads_the_engine, read_attention_page
from core.triage.changes import ChangeTracker
from core.triage.pacing import DEFAULT_INTERVAL_S, Pacer, polite, status_of
from core.triage.verdicts import needs_events, to_diagnose, verdict_key
from tui.messages import PageFailed, PageLoaded
from tui.picker_query import Sort
from tui.screens.picker_news import PickerNews
from tui.screens.picker_verdicts import GROUP as VERDICT_GROUP
from tui.screens.problem import describe_error
from tui.settings import update_settings
from tui.widgets.filter_bar import cluster_label
from tui.widgets.notice import Notice
from tui.widgets.top_bar import TopBar
from tui.widgets.verdict_line import WAITING, verdict_cell
from tui.widgets.workload_table import WorkloadTable

if TYPE_CHECKING:
    from core.tenant import Tenant

GROUP = "picker-refresh"
# The intervals `:` offers.
CHOICES_S = (2.0, 5.0, 10.0, 30.0, 60.0)


def refresh_interval(flag: float | None, saved: float | None, tenant: Tenant) -> float:
    """Seconds between reads of the picker's page: `--refresh`, else the saved setting, else 5 s; 0 (off) for a
    tenant that cannot change (a recorded case, the still demo) unless `--refresh` says otherwise."""
    if flag is not None:
        return flag
    if tenant.captured_at is not None and tenant.live_clock is None:
        return 0.0
    return saved if saved is not None else DEFAULT_INTERVAL_S


def short_reason(error: BaseException) -> str:
    """A failed read in a few words for the header: its HTTP status, else what kind of failure it was."""
    status = status_of(error)
    return f"HTTP {status}" if status is not None else describe_error(error).title.lower()


def every(seconds: float) -> str:
    return "never (r reads it)" if seconds <= 0 else f"every {seconds:g} s"


class PageRefreshed(Message):
    """A refresh's read of the page on screen (`seq`: the page request it refreshes)."""

    def __init__(self, seq: int, page: PageLoaded) -> None:
        super().__init__()
        self.seq = seq
        self.page = page


class RefreshFailed(Message):
    def __init__(self, seq: int, error: BaseException) -> None:
        super().__init__()
        self.seq = seq
        self.error = error


class RefreshCommands(Provider):
    """`:` entries that set how often the picker reads its page again (kept in the settings)."""

    def _commands(self) -> list[tuple[str, float]]:
        return [(f"Refresh the list every {s:g} s", s) for s in CHOICES_S] + [("Refresh the list only when asked", 0)]

    def _target(self) -> PickerRefresh | None:
        return next((s for s in reversed(self.app.screen_stack) if isinstance(s, PickerRefresh)), None)

    async def discover(self) -> Hits:
        target = self._target()
        for title, seconds in self._commands() if target is not None else []:
            yield DiscoveryHit(title, lambda s=seconds: target.set_refresh(s, save=True), help="Kept in the settings")

    async def search(self, query: str) -> Hits:
        target = self._target()
        matcher = self.matcher(query)
        for title, seconds in self._commands() if target is not None else []:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), lambda s=seconds: target.set_refresh(s, save=True),
                          help="Kept in the settings")


class PickerRefresh(PickerNews):
    COMMANDS: ClassVar[set[type[Provider]]] = {RefreshCommands}  # type: ignore[assignment]
    refresh_s: float
    tenant: Tenant

    def __init__(self) -> None:
        super().__init__()
        self.refresh_s = 0.0
        self.refreshes = 0  # reads made by the refresh and shown (tests, benchmarks)
        self._pacer = Pacer(0.0)
        self._refresh_timer: Timer | None = None
        self._tracker: ChangeTracker | None = None
        self._tracker_generation = -1
        self._read_at: datetime | None = None
        self._refresh_problem: str | None = None
        self._paused: str | None = None
        self._verdict_queue: list[Workload] = []
        self._cursor_after_read: str | None = None  # the workload a read left the cursor on (not moved onto)

    # -- the timer ----------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._pacer = Pacer(self.refresh_s)

    def set_refresh(self, seconds: float, *, save: bool = False) -> None:
        """Read the page every `seconds` from now on (0: only when asked); `save` keeps it in the settings."""
        self.refresh_s = seconds
        self._pacer = Pacer(seconds)
        self._arm(seconds)
        self._show_read_state()
        if save:
            problem = update_settings(self.app.config_dir, refresh_s=seconds)  # type: ignore[attr-defined]
            if problem is not None:
                self.notify(problem, title="setting not kept", severity="warning", markup=False)
        self.notify(f"The list is read {every(seconds)}.", timeout=3, markup=False)

    def _arm(self, seconds: float) -> None:
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
            self._refresh_timer = None
        if self._pacer.on and self.is_attached:
            self._refresh_timer = self.set_timer(max(seconds, 0.05), self._refresh_tick)

    def _paused_because(self) -> str | None:
        if self.app.screen is not self:
            return "another screen is open"
        if isinstance(self.focused, Input):
            return "paused while you type"
        if any(select.expanded for select in self.query(Select)):
            return "paused while a list is open"
        return None

    def _refresh_tick(self) -> None:
        self._refresh_timer = None
        if not self._pacer.on:
            return
        paused = self._paused_because()
        if paused != self._paused:
            self._paused = paused
            self._show_read_state()
        if paused is not None or self._loading or self._page is None:
            self._arm(self._pacer.interval_s)
            return
        notice = self.query_one(Notice)
        if notice.display and notice.kind == "error":
            self._request(self.nav.reload())  # the error on screen: read the page as `r` would, then go on
            return
        if not self.refresh_now():
            self._arm(self._pacer.interval_s)

    def refresh_now(self) -> bool:
        """Read the page on screen again now, as the timer would (False when there is none to read)."""
        if self._page is None or self._loading:
            return False
        try:
            filters = self._query.filters()
        except ValueError:
            return False
        page = self._page
        self._read_page(self._seq, filters, self._sort, page.offset, page.limit, self._query.attention)
        return True

    @work(group=GROUP, exclusive=True, exit_on_error=False)
    async def _read_page(
        self, seq: int, filters: list[str], sort: Sort, offset: int, limit: int, attention: bool
    ) -> None:
        try:
            with polite():  # one attempt: the pacer, not the client, waits before the next read
                if attention:
                    found = await read_attention_page(
                        self.tenant.runai, filters, sort.field, sort.order, offset, limit, self._attention_cache,
                        max_list_reads=1,
                    )
                    loaded = PageLoaded(seq, offset, limit, found.rows, found.next_start, found.unreadable, found)
                else:
                    page = await self.tenant.runai.list_workloads(
                        filters=filters, sort_by=sort.field, sort_order=sort.order, offset=offset, limit=limit
                    )
                    unreadable = len({problem.index for problem in page.problems})
                    loaded = PageLoaded(seq, offset, limit, page.items, page.next, unreadable)
        except Exception as exc:  # every failure is said in the header; the rows stay
            self.post_message(RefreshFailed(seq, exc))
            return
        self.post_message(PageRefreshed(seq, loaded))

    # -- the screen's own reads -----------------------------------------------------------------------------
    def _stop_verdicts(self) -> None:
        # A page request is on its way (or the picker is covered): a refresh in flight is stale, and the rows
        # queued for a verdict belong to a page that is going.
        super()._stop_verdicts()
        self.workers.cancel_group(self, GROUP)
        self._verdict_queue = []

    def on_page_loaded(self, message: PageLoaded) -> None:
        # After the screen's own handler: only a page that was shown counts as read.
        if message.seq != self._seq or self._loading or self._page is not message:
            return
        self._pacer.succeeded()
        self._refresh_problem = None
        self._read_at = self._clock()
        table = self.query_one(WorkloadTable)
        table.set_marks(self._news(table.workloads))
        self._cursor_left_by_read()
        self._update_indicator()
        self._show_read_state()
        self._arm(self._pacer.interval_s)

    def on_page_failed(self, message: PageFailed) -> None:
        if message.seq == self._seq:
            self._arm(self._pacer.failed(message.error))
            self._show_read_state()

    def on_screen_suspend(self) -> None:
        # Something was opened from the picker (a diagnosis, the row, the help): the row under the cursor was seen.
        self._mark_seen(self._cursor_after_read)
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
            self._refresh_timer = None

    def on_screen_resume(self) -> None:
        # The background verdicts take up the rows still waiting (picker_verdicts); none is queued twice.
        self._verdict_queue = []
        if not self._pacer.on:
            return
        stale = self._read_at is None or (self._clock() - self._read_at).total_seconds() >= self._pacer.interval_s
        self._arm(0.1 if stale else self._pacer.interval_s)

    def return_to(self, workload_id: str | None, name: str | None) -> None:
        """Back from a diagnosis on a list that follows the tenant: the page is read again as the picker shows,
        so the row is placed on that read, where it is now (it may have left the page meanwhile)."""
        if self._pacer.on and workload_id and self._page is not None:
            self._return_row = (workload_id, name, False)
            return
        super().return_to(workload_id, name)

    # -- a refresh lands ----------------------------------------------------------------------------------
    def on_page_refreshed(self, message: PageRefreshed) -> None:
        if message.seq != self._seq or self._loading or self._page is None:
            self._arm(self._pacer.interval_s)  # the user moved on meanwhile: that page's read re-arms too
            return
        page = message.page
        self.refreshes += 1
        self._pacer.succeeded()
        self._refresh_problem = None
        self._read_at = self._clock()
        shown = [w for w in page.workloads if self._query.matches(w.name, w.project_name, w.cluster_id, w.phase)]
        before = self._page
        self._page = page
        self._hidden = len(page.workloads) - len(shown)
        if not self.nav.busy:
            self.nav.next_start = page.next_offset
        marks = self._news(shown)
        cells = self._refresh_verdicts(shown)
        table = self.query_one(WorkloadTable)
        was_empty = not table.workloads
        with self.app.batch_update():
            if not table.update_rows(shown, cells, marks):
                names = {c.uuid: cluster_label(c) for c in self._clusters if c.uuid}
                table.show_workloads(shown, keep_cursor=True, clusters=names, show_cluster=not self._query.cluster_id,
                                     sort=self._sort, verdicts=cells)
                table.set_marks(marks)
            if shown and (was_empty or self.query_one(Notice).display):
                self._show_table()
            elif not shown:
                self._show_empty()
            self._show_row_detail()
            self._update_indicator()
            self._show_verdict_line()
            self._show_read_state()
        self._cursor_left_by_read()
        self._place_return_row()
        self._flush_verdict_queue()
        self._recount_if_moved(before, page)
        self._arm(self._pacer.interval_s)

    def _recount_if_moved(self, before: PageLoaded | None, page: PageLoaded) -> None:
        """The total under the table counted again when the page's rows came or went (a workload submitted or
        deleted moves every page after it): one count request then, none while nothing moved."""
        if before is None or [w.id for w in before.workloads] == [w.id for w in page.workloads]:
            return
        if self._query.attention:  # that view's total is the candidates the server sent, counted page by page
            return
        try:
            filters = self._query.filters()
        except ValueError:
            return
        self._fetch_count(self._generation, filters)

    def on_refresh_failed(self, message: RefreshFailed) -> None:
        if message.seq != self._seq:
            self._arm(self._pacer.interval_s)
            return
        wait = self._pacer.failed(message.error)
        self._refresh_problem = f"refresh failed ({short_reason(message.error)}), retry in {wait:.0f} s"
        self._show_read_state()
        self._arm(wait)

    def _refresh_verdicts(self, shown: list[Workload]) -> dict[str, Text]:
        """The Verdict cells of a refreshed page; rows without a verdict for their current phase change are
        queued for one (never twice, never cancelling the background diagnoses already running)."""
        cluster = self._query.cluster_id
        busy = self._verdicts_busy()
        running = {verdict_key(w) for w in self._verdict_rows if self.verdicts.get(w) is None} if busy else set()
        running |= {verdict_key(w) for w in self._verdict_queue}
        candidates = [w for w in shown if w.id and (w.cluster_id or cluster)]
        recovered = self._tracker.recovered if self._tracker is not None else {}
        judged = self._attention_cache.judged
        eligible, todo = to_diagnose(candidates, self.verdicts, attention_view=self._query.attention,
                                     under_way=running, recovered=recovered, judged=judged)
        cells: dict[str, Text] = {}
        for w in eligible:
            known = self.verdicts.get(w)
            cells[w.id or ""] = verdict_cell(known) if known is not None else WAITING
        self._verdict_queue += todo
        self._verdict_rows = eligible
        # Every row was judged just now, but a Pending row whose phase changed: its events say (picker_verdicts).
        self._verdict_later = [] if self._query.attention else [
            w for w in candidates if not judging_loads_the_engine(w) and needs_events(w, judged)
        ]
        self._verdict_cluster = cluster
        return cells

    def _verdicts_busy(self) -> bool:
        running = (WorkerState.PENDING, WorkerState.RUNNING)
        return self._verdict_timer is not None or any(
            w.group == VERDICT_GROUP and w.node is self and w.state in running for w in self.workers
        )

    def _flush_verdict_queue(self) -> None:
        waiting = self._verdict_queue or self._verdict_later
        if not waiting or self._verdicts_busy() or self.app.screen is not self:
            return
        wanted = {verdict_key(w) for w in self._verdict_rows}
        rows = [w for w in self._verdict_queue if verdict_key(w) in wanted and self.verdicts.get(w) is None]
        self._verdict_queue = []
        if rows or self._verdict_later:
            self._diagnose_rows(self._verdict_seq, rows, self._verdict_cluster)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == VERDICT_GROUP and event.state in (WorkerState.SUCCESS, WorkerState.ERROR):
            self._flush_verdict_queue()

    @staticmethod
    def _hhmmss(when: datetime) -> str:
        return when.strftime("%H:%M:%S")

    def read_state(self) -> str:
        """The header's account of the list: when it was read, how often, and a refresh that failed."""
        if not self._pacer.on:
            return ""
        read = f"read {self._hhmmss(self._read_at)} UTC" if self._read_at else "not read yet"
        if self._refresh_problem:  # first, so a narrow header still says it; the rows are those read before
            return f"{self._refresh_problem} · rows {read}"
        parts = [read]
        if self._paused:
            parts.append(self._paused)
        else:
            parts.append(every(self._pacer.interval_s))
        return " · ".join(parts)

    def _show_read_state(self) -> None:
        state = self.read_state()
        label = clean(self.tenant.label, one_line=True, max_len=80)
        self.query_one(TopBar).set_context(f"{label} · {state}" if state else label)

