"""The picker follows the tenant: the page on screen is read again every few seconds and updated in place, and the
failed and needs-attention rows on it are diagnosed in the background. The base of PickerScreen between it and
the views; the pacing (pace.py) and the verdict queue (verdicts.py) are plain objects it calls.

- One read per interval; each read is one attempt (one list request; in the needs-attention view also one events
  read per Pending or Running row whose phase changed). A failed read doubles the wait; the header says so, and
  the rows stay as they were.
- Paused while the user types in the name filter, while a cluster or project list is open, while a page read is
  on its way, and while another screen covers the picker; it never moves the focus. Back on the picker after
  more than an interval, the page is read at once.
- The rows are updated by workload id: when the page holds the same workloads in the same order only the cells
  that changed are redrawn (tui.widgets.workload_table.update_rows), otherwise the page is drawn again with the
  cursor kept on the same workload.
- What moved (news.py): ● a phase change, ✱ a new failure until the cursor rests on it (`n` jumps to the next),
  ↺ a recovery, diagnosed again so its verdict and line say what the diagnosis says now.
- Verdicts: only rows without a verdict for their current phase change are diagnosed, within the background
  budget (core.triage.batch), queued behind any background diagnosis already running rather than cancelling it.
- The total ("rows 1-31 of 1,247") is counted again when a read finds rows that came or went.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import ClassVar

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.timer import Timer
from textual.widgets import Input, Select
from textual.worker import Worker, WorkerState

from core.models.runai import Workload
from core.safety.untrusted import clean
from core.triage.pacing import Pacer
from tui.loading import load
from tui.messages import PageFailed, PageLoaded
from tui.screens.picker import reads
from tui.screens.picker.pace import CHOICES_S, RefreshPace, every
from tui.screens.picker.verdicts import GROUP as VERDICT_GROUP
from tui.screens.picker.views import PickerViews
from tui.settings import update_settings
from tui.widgets.filter_bar import cluster_label
from tui.widgets.notice import Notice
from tui.widgets.top_bar import TopBar
from tui.widgets.verdict_line import VerdictLine
from tui.widgets.workload_table import WorkloadTable

GROUP = "picker-refresh"


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


class PickerRefresh(PickerViews):
    COMMANDS: ClassVar[set[type[Provider]]] = {RefreshCommands}  # type: ignore[assignment]
    refresh_s: float
    _seq: int
    _pace: RefreshPace
    _refresh_timer: Timer | None = None
    refreshes = 0  # reads made by the refresh and shown (tests, benchmarks)

    # -- the timer ----------------------------------------------------------------------------------------
    def set_refresh(self, seconds: float, *, save: bool = False) -> None:
        """Read the page every `seconds` from now on (0: only when asked); `save` keeps it in the settings."""
        self.refresh_s = seconds
        self._pace.pacer = Pacer(seconds)  # a new interval; when the page was last read stays said
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
        if self._pace.on and self.is_attached:
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
        if not self._pace.on:
            return
        paused = self._paused_because()
        if paused != self._pace.paused:
            self._pace.paused = paused
            self._show_read_state()
        if paused is not None or self._loading or self._page is None:
            self._arm(self._pace.interval_s)
            return
        notice = self.query_one(Notice)
        if notice.display and notice.kind == "error":
            self._request(self.nav.reload())  # the error on screen: read the page as `r` would, then go on
            return
        if not self.refresh_now():
            self._arm(self._pace.interval_s)

    def refresh_now(self) -> bool:
        """Read the page on screen again now, as the timer would (False when there is none to read)."""
        if self._page is None or self._loading:
            return False
        try:
            filters = self._query.filters()
        except ValueError:
            return False
        page = self._page
        cache = self._attention_cache if self._query.attention else None
        self._read(GROUP, partial(reads.refreshed_page, self.tenant.runai, cache, self._seq, filters, self._sort,
                                  page.offset, page.limit))
        return True

    def _stop_background(self) -> None:
        """A page request is on its way (or the picker is covered): a refresh in flight is stale, and the
        background diagnoses and the rows queued for them belong to a page that is going."""
        self._verdicts.stop()
        self.workers.cancel_group(self, GROUP)

    # -- the page's own reads ------------------------------------------------------------------------------
    def _page_read(self) -> None:
        """A page request was shown (after the screen drew it): it counts as read."""
        self._pace.read(self._clock())
        table = self.query_one(WorkloadTable)
        table.set_marks(self._mark_news(table.workloads))
        self._cursor_left_by_read()
        self._update_indicator()
        self._show_read_state()
        self._arm(self._pace.interval_s)

    def _page_failed(self, message: PageFailed) -> None:
        self._arm(self._pace.failed(message.error, said=False))
        self._show_read_state()

    def on_screen_suspend(self) -> None:
        # Something was opened from the picker (a diagnosis, the row, the help): the row under the cursor was
        # seen; the background diagnoses pause, so the screen on top has the machine to itself.
        self._stop_background()
        self._mark_seen(self._news.cursor_after_read)
        if self._refresh_timer is not None:
            self._refresh_timer.stop()
            self._refresh_timer = None

    def on_screen_resume(self) -> None:
        # The rows of the page still waiting for a verdict are taken up again (none queued twice).
        self._verdicts.resume()
        if self._pace.on:
            self._arm(0.1 if self._pace.stale(self._clock()) else self._pace.interval_s)

    def return_to(self, workload_id: str | None, name: str | None) -> None:
        """Back from a diagnosis on a list that follows the tenant: the page is read again as the picker shows,
        so the row is placed on that read, where it is now (it may have left the page meanwhile)."""
        if self._pace.on and workload_id and self._page is not None:
            self._return_row = (workload_id, name, False)
            return
        super().return_to(workload_id, name)

    # -- a refresh lands ----------------------------------------------------------------------------------
    def on_page_refreshed(self, message: reads.PageRefreshed) -> None:
        if message.seq != self._seq or self._loading or self._page is None:
            self._arm(self._pace.interval_s)  # the user moved on meanwhile: that page's read re-arms too
            return
        page = message.page
        self.refreshes += 1
        self._pace.read(self._clock())
        shown = [w for w in page.workloads if self._query.matches(w.name, w.project_name, w.cluster_id, w.phase)]
        before = self._page
        self._page = page
        self._hidden = len(page.workloads) - len(shown)
        if not self.nav.busy:
            self.nav.next_start = page.next_offset
        marks = self._mark_news(shown)
        cells = self._verdicts.refreshed(shown, self._query.cluster_id, self._query.attention,
                                         self._attention_cache.judged, self._news.recovered)
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
        self._verdicts.flush()
        self._recount_if_moved(before, page)
        self._arm(self._pace.interval_s)

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
        self._read("picker-count", partial(reads.count, self.tenant.runai, self._generation, filters))

    def on_refresh_failed(self, message: reads.RefreshFailed) -> None:
        if message.seq != self._seq:
            self._arm(self._pace.interval_s)
            return
        wait = self._pace.failed(message.error)
        self._show_read_state()
        self._arm(wait)

    def read_state(self) -> str:
        """The header's account of the list: when it was read, how often, and a refresh that failed."""
        return self._pace.state()

    def _show_read_state(self) -> None:
        state = self._pace.state()
        label = clean(self.tenant.label, one_line=True, max_len=80)
        self.query_one(TopBar).set_context(f"{label} · {state}" if state else label)

    # -- the background verdicts ----------------------------------------------------------------------------
    def _verdicts_unread(self, seq: int) -> None:
        """The page could not be read: no rows to diagnose, and a line that says why rather than "no failures"."""
        self._verdicts.page(seq, [], None, False, self._attention_cache.judged)
        self.query_one(VerdictLine).show("verdicts: none, the page could not be read")

    def _on_top(self) -> bool:
        # `is_current` would not do: Textual counts the screen just below the top one as current too.
        return self.is_attached and self.app.screen is self

    def _diagnose_rows(self, seq: int, rows: list[Workload], cluster: str | None) -> Worker[None]:
        """The worker of the verdict queue (verdicts.py): judge the rows left for after the engine loaded, then
        diagnose the rows that want a verdict, each posted as it arrives."""

        async def diagnose() -> None:
            # The engine loads here, after the page has been on screen a moment (never before a first page), in a
            # thread: the UI loop keeps painting while its modules import.
            await asyncio.to_thread(load, "core.triage.batch")
            todo = [*rows, *await self._judge_later(seq)]
            if not todo:
                return
            from core.diagnosis.request import DEFAULT_LOOKBACK  # the engine is loaded by now

            try:
                await reads.diagnose_rows(self.tenant, seq, todo, cluster, self._clock(), DEFAULT_LOOKBACK,
                                          getattr(self.app, "kube_off", None), self.post_message)
            except asyncio.CancelledError:
                # Cancelled because the page changed: the normal end of this worker, not a failure (the diagnoses
                # and their reads were cancelled with it, by diagnose_many).
                return

        return self.run_worker(diagnose, group=VERDICT_GROUP, exclusive=True, exit_on_error=False)

    async def _judge_later(self, seq: int) -> list[Workload]:
        """Judge the rows left for after the engine loaded (reading the events of a Pending row the list entry
        cannot judge, within the background budget); returns those that want a diagnosis, now waiting."""
        later = self._verdicts.take_later(seq)
        if not later:
            return []
        await reads.judge_pending(self.tenant.runai, later, self._attention_cache)
        more = self._verdicts.judged_later(seq, later, self._attention_cache.judged)
        if seq != self._verdicts.seq:
            return []
        table = self.query_one(WorkloadTable)
        for w in more:
            table.set_verdict(w.id or "", self._verdicts.cell(w))
        self._show_verdict_line()
        return [w for w in more if self._verdicts.verdicts.get(w) is None]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == VERDICT_GROUP and event.state in (WorkerState.SUCCESS, WorkerState.ERROR):
            self._verdicts.flush()
