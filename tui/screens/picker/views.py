"""What the picker shows besides its rows: the notices (empty, error), the row detail line, the verdict line,
the page indicator with what moved, the cluster line and the edge-of-list notice; and the row gone back to from a
diagnosis. The first base of PickerScreen (tui/screens/picker/screen.py), which holds the state it reads.

The cluster line: when a cluster listed is not Connected or has not reported lately (decided by `cluster_health`,
through core.triage.cluster_state), a line under the filters says so and that its rows may be stale. Checked once
the first page has been on screen for a moment (deciding loads the engine's signals, which the first page never
waits for), then on every page.

Back on the picker from a diagnosis: the cursor on that workload, in the same list the user left. When the workload
is on the page shown, its row is highlighted. When it is not (it moved while the diagnosis was open, or the
diagnosis was opened straight from the command line), the list is not narrowed to it: its page is found
(reads.return_page) and shown with its row highlighted. The list's filters and what it marked as news (✱) stay.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from functools import partial

from textual import on
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable

from core.models.clusters import same_cluster
from core.models.runai import Cluster, Workload
from core.sources.runai import MAX_LIMIT
from core.tenant import Tenant
from core.triage.attention import AttentionCache
from core.triage.verdicts import verdict_key
from tui.clock import Clock
from tui.loading import load
from tui.messages import PageLoaded, VerdictArrived
from tui.paging import Go, Move, PageNav
from tui.picker_query import NameFilterError, PickerQuery, Sort
from tui.screens.picker import reads
from tui.screens.picker.news import News
from tui.screens.picker.text import IndicatorState, indicator_parts
from tui.screens.picker.verdicts import START_DELAY_S, VerdictQueue
from tui.screens.problem import describe_error
from tui.widgets.cluster_notice import ClusterNotice
from tui.widgets.filter_bar import cluster_label
from tui.widgets.notice import Notice
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.row_detail import RowDetail
from tui.widgets.verdict_line import VerdictLine, verdict_cell, verdict_why
from tui.widgets.workload_table import WorkloadTable

EDGE_NOTICE_S = 2.5
# Used until the table has a size (the first page waits for layout, so this is rarely seen).
DEFAULT_PAGE_SIZE = 20


class PickerViews(Screen[None]):
    tenant: Tenant
    _clock: Clock
    _clusters: list[Cluster]
    _query: PickerQuery
    _sort: Sort
    nav: PageNav
    _generation: int
    _page: PageLoaded | None
    _hidden: int
    _count_problem: str | None
    _loading: bool
    _answered: bool
    _edge_noticed: tuple[str, float] | None
    _page_resize_timer: Timer | None
    _attention_cache: AttentionCache
    _verdicts: VerdictQueue
    _news: News

    _return_row: tuple[str, str | None, bool] | None = None  # (id, name, its page looked for already)
    _cluster_check: Timer | bool | None = None  # None: not yet; a timer: waiting; True: checked once

    def _request(self, move: Move, *, count: bool = False) -> None: ...

    def _read(self, group: str, read: Callable[[], Awaitable[Message]]) -> None:
        """Run one of the reads (tui/screens/picker/reads.py, its arguments bound) in a worker of its group,
        exclusive (a new read cancels the one it replaces), and post the message its answer makes. The read's
        coroutine is made when the worker starts: one cancelled before it starts leaves nothing unawaited."""

        async def read_and_post() -> None:
            self.post_message(await read())

        self.run_worker(read_and_post, group=group, exclusive=True, exit_on_error=False)

    @property
    def offset(self) -> int:
        return self._page.offset if self._page is not None else 0

    # -- the page's size -------------------------------------------------------------------------------------
    def _visible_rows(self) -> int:
        height = self.query_one("#table-area").content_region.height
        # One line is the table header.
        return max(1, min(MAX_LIMIT, height - 1)) if height > 1 else DEFAULT_PAGE_SIZE

    def on_resize(self, event: Resize) -> None:
        self._schedule_page_check()

    @on(WorkloadTable.HeightChanged)
    def _table_height_changed(self) -> None:
        # A line above or below the table came or went (the cluster line): sized again, as after a resize.
        self._schedule_page_check()

    def _schedule_page_check(self) -> None:
        if self._page_resize_timer is not None:
            self._page_resize_timer.stop()
        # A drag-resize sends a burst of events; the page is refetched once it settles.
        self._page_resize_timer = self.set_timer(0.15, self._check_page_size)

    def _check_page_size(self) -> None:
        if self._page is not None and not self._loading and self._visible_rows() != self.nav.limit:
            self._request(self.nav.reload())
        elif self._loading and self._page is not None:
            self._schedule_page_check()  # again once the page in flight has landed

    # -- the row gone back to -------------------------------------------------------------------------------
    def return_to(self, workload_id: str | None, name: str | None) -> None:
        """Back from a diagnosis (opened from here or straight from the command line): the cursor on that
        workload, its page found and shown when its row is not on this one; the list is never narrowed to it,
        and what it marked stays marked."""
        if not workload_id:
            return
        self._return_row = (workload_id, name, False)
        if self._page is not None and not self._loading:
            self._place_return_row()

    def _place_return_row(self) -> None:
        """Called when a page is shown: the row gone back to, highlighted if it is there."""
        if self._return_row is None:
            return
        wanted, name, looked = self._return_row
        table = self.query_one(WorkloadTable)
        ids = [w.id for w in table.workloads]
        if wanted in ids:
            table.move_cursor(row=ids.index(wanted), animate=False)
            self._show_row_detail()
            self._return_row = None
        elif not looked:
            try:
                filters = self._query.filters()
            except ValueError:
                self._return_row = None
                return
            self._return_row = (wanted, name, True)
            found = partial(reads.return_page, self.tenant.runai, wanted, name, filters, self._sort, self.nav.walked)
            self._read("picker-return", found)
        else:
            self._return_row = None  # not on the page it was counted to (a tie, or it moved again): stays here

    def on_return_page(self, message: reads.ReturnPage) -> None:
        if self._return_row is None or self._return_row[0] != message.workload_id:
            return
        if message.offset is None:
            self._return_row = None
            self.notify(message.why or "That workload is not on this page.", timeout=4, markup=False)
            return
        start = message.offset // self.nav.limit * self.nav.limit
        if start == self.offset or self._loading:
            self._return_row = None  # its page is the one shown (a tie with its neighbours): nothing to move to
            return
        self._request(self.nav.to(start))

    # -- notices and lines ----------------------------------------------------------------------------------
    def _cluster_label(self) -> str | None:
        for cluster in self._clusters:
            if cluster.uuid == self._query.cluster_id:
                return cluster_label(cluster)
        return None

    def _notice(self, kind: str, title: str, *lines: str) -> None:
        notice = self.query_one(Notice)
        notice.show(kind, title, *lines)  # type: ignore[arg-type]
        notice.display = True
        self.query_one(WorkloadTable).display = False

    def _show_table(self) -> None:
        self.query_one(Notice).display = False
        table = self.query_one(WorkloadTable)
        table.display = True
        if self.focused is None:
            table.focus()  # an empty result left the keys with the screen; the rows take them back

    def _show_row_detail(self) -> None:
        workload = self.query_one(WorkloadTable).highlighted
        why = None
        if workload is not None and self._page is not None and self._page.attention is not None:
            why = self._page.attention.why.get(workload.id or "")
        verdict = self._verdicts.verdicts.get(workload) if workload is not None else None
        said = verdict_why(verdict) if verdict is not None else None
        self.query_one(RowDetail).show_workload(workload, why, said)

    def _show_verdict_line(self) -> None:
        self.query_one(VerdictLine).show(self._verdicts.line())

    def _show_empty(self) -> None:
        described = self._query.describe(self._cluster_label())
        if self.offset > 0:
            self._notice(
                "empty",
                f"No rows from {self.offset + 1:,} on",
                "The list may have shrunk since the previous page; press [ or g to go back, or r to reload.",
            )
            return
        hint = "Change the filters (/ name, p project, c cluster, a needs attention) or press r to reload."
        if self._query.name:
            hint = "esc clears the name filter. " + hint
        if self._hidden:
            hint = f"The server sent rows that did not match the filter ({self._hidden}); they are not shown. " + hint
        self._notice("empty", f"No {described}.", hint)

    def _show_error(self, error: BaseException) -> None:
        self._answered = True
        if isinstance(error, NameFilterError):
            self._notice("error", "This name cannot be filtered", str(error), "esc clears the name filter.")
        else:
            info = describe_error(error)
            self._notice("error", info.title, info.detail, info.hint)
        self._update_indicator()

    def _shown_page(self) -> PageLoaded | None:
        """The page on screen, None while an error stands in its place."""
        notice = self.query_one(Notice)
        return self._page if not (notice.display and notice.kind == "error") else None

    def _update_indicator(self) -> None:
        page = self._shown_page()
        state = IndicatorState(
            query=self._query,
            sort=self._sort,
            offset=page.offset if page is not None else None,
            shown=len(page.workloads) if page is not None else 0,
            total=self.nav.total,
            total_problem=self._count_problem,
            loading=self._loading,
            hidden=self._hidden if page is not None else 0,
            unreadable=page.unreadable if page is not None else 0,
            last_page=self._on_last_page(),
            attention=page.attention if page is not None and self._query.attention else None,
        )
        indicator = self.query_one(PageIndicator)
        indicator.show(*indicator_parts(state))
        moved = self._news.words()
        if moved:
            indicator.show(indicator.plain, moved)
        self.refresh_bindings()  # the footer's `]` goes on the last page

    def _on_last_page(self) -> bool:
        """A page is on screen (not an error) and the server said there is none after it."""
        page = self._shown_page()
        return page is not None and page.next_offset is None

    def _edge_notice(self, edge: str | None, note: str | None = None) -> None:
        """At the first or last page, say so once; a held key does not stack notices."""
        words = note or (f"This is the {edge} page." if edge else None)
        if words is None:
            return
        now = time.monotonic()
        last = self._edge_noticed
        if last is not None and last[0] == words and now - last[1] < EDGE_NOTICE_S:
            return
        self._edge_noticed = (words, now)
        self.notify(words, timeout=EDGE_NOTICE_S, markup=False)

    def _navigate(self, move: Move) -> None:
        if self._page is None and not self._loading:
            return
        if isinstance(move, Go):
            self._request(move)
        else:
            self._edge_notice(move.edge, move.note)

    # -- verdicts as they arrive ----------------------------------------------------------------------------
    def on_verdict_arrived(self, message: VerdictArrived) -> None:
        if not self._verdicts.arrived(message.seq, message.workload, message.verdict):
            return  # a page no longer on screen: kept for when it is shown again
        table = self.query_one(WorkloadTable)
        key = verdict_key(message.workload)
        if any(verdict_key(w) == key for w in table.workloads):  # not a row whose phase moved on meanwhile
            table.set_verdict(message.workload.id or "", verdict_cell(message.verdict))
        self._show_verdict_line()
        highlighted = table.highlighted
        if highlighted is not None and highlighted.id == message.workload.id:
            self._show_row_detail()  # the highlighted row's line that says why

    # -- what moved -----------------------------------------------------------------------------------------
    def _mark_news(self, rows: list[Workload]) -> dict[str, str]:
        """Compare this read with the last of the same list; the marks to show before the ages. A row that
        recovered: the verdict kept for it no longer holds, so it is diagnosed again and its line never quotes
        the crash it came back from."""
        marks, recovered = self._news.update(rows, self._generation, self._clock, self._query.attention,
                                             self._attention_cache)
        for w in rows:
            if w.id in recovered:
                self._verdicts.verdicts.forget(w)
        return marks

    @on(DataTable.RowHighlighted)
    def _news_seen(self) -> None:
        # The user moved the cursor onto it: seen. Read when handled, not from the event (a redraw moves the
        # cursor through other rows on its way), and not for the row a read left the cursor on: a workload that
        # fails under a cursor nobody moved is still news.
        workload = self.query_one(WorkloadTable).highlighted
        if workload is not None and workload.id != self._news.cursor_after_read:
            self._news.cursor_after_read = None
            self._mark_seen(workload.id)

    def _mark_seen(self, workload_id: str | None) -> None:
        if self._news.seen(workload_id):
            self.query_one(WorkloadTable).set_marks(self._news.marks())
            self._update_indicator()

    def _cursor_left_by_read(self) -> None:
        workload = self.query_one(WorkloadTable).highlighted
        self._news.cursor_after_read = workload.id if workload is not None else None

    def new_failures(self) -> list[str]:
        """The workloads flagged as newly needing attention and not looked at yet, oldest news first."""
        return self._news.new_failures()

    def action_next_new_failure(self) -> None:
        flagged = self.new_failures()
        table = self.query_one(WorkloadTable)
        ids = [w.id for w in table.workloads]
        here = [i for i in flagged if i in ids]
        if here and table.display:
            table.move_cursor(row=ids.index(here[0]))
            table.focus()
            self._mark_seen(here[0])
            return
        if flagged:
            self.notify(f"{len(flagged)} new failure{'s are' if len(flagged) != 1 else ' is'} not on this page: "
                        "g goes to the first page.", timeout=3, markup=False)
        else:
            self.notify("No workload newly needs attention since the list was first read.", timeout=3, markup=False)

    # -- the cluster line -----------------------------------------------------------------------------------
    @property
    def clusters_checked(self) -> bool:
        """The cluster line reflects the clusters shown (tests wait for it before measuring the table)."""
        return self._cluster_check is True

    def _check_clusters(self) -> None:
        """After a page is shown: the cluster line now, or (the first time) once the page has been painted and
        the engine's signals have loaded, in a thread (`cluster_health` lives there)."""
        if self._cluster_check is True:
            self._show_cluster_state()
        elif self._cluster_check is None:
            self._cluster_check = self.set_timer(START_DELAY_S, self._load_cluster_state)

    def _load_cluster_state(self) -> None:
        async def load_then_show() -> None:
            await asyncio.to_thread(load, "core.triage.cluster_state")
            self._cluster_check = True
            self._show_cluster_state()

        self.run_worker(load_then_show, group="picker-cluster-state", exclusive=True, exit_on_error=False)

    def _show_cluster_state(self) -> None:
        from core.triage.cluster_state import cluster_state  # loaded by now (above): never before the first page

        if not self.is_attached or not self.query(ClusterNotice):
            return
        now = self._clock()
        chosen = self._query.cluster_id
        shown = [c for c in self._clusters if chosen is None or same_cluster(c.uuid, chosen)]
        stale = [state.short for state in (cluster_state(c, now) for c in shown) if state.short]
        notice = self.query_one(ClusterNotice)
        if notice.show(stale) or notice.display:
            # The table lost (or gained) a line: the page is sized to it again (a no-op when it already is).
            self.call_after_refresh(self._check_page_size)

    def action_open_nodes(self) -> None:
        """`N`: the Nodes view of the cluster chosen here (its own module loads the engine, on first use)."""
        cluster = self._query.cluster_id
        if not cluster:
            self.notify("Choose a cluster first (c): the nodes are a cluster's.", severity="warning", timeout=3)
            return
        from tui.screens.nodes import NodesScreen

        chosen = next((c for c in self._clusters if c.uuid == cluster), None)
        screen = NodesScreen(
            self.tenant, self._clock, cluster, cluster_name=cluster_label(chosen) if chosen else None,
            refresh_s=getattr(self, "refresh_s", 0.0), kube_off=getattr(self.app, "kube_off", None),
        )
        self.app.push_screen(screen)
