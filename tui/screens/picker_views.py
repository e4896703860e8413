"""What the picker shows besides its rows: the notices (empty, error), the row detail line, the page indicator
and the edge-of-list notice. A base of PickerScreen (tui/screens/picker.py), which holds the state it reads."""

from __future__ import annotations

import time

from core.models.runai import Cluster
from tui.messages import PageLoaded, VerdictArrived
from tui.paging import PageNav
from tui.picker_query import NameFilterError, PickerQuery, Sort
from tui.screens.picker_cluster import PickerCluster
from tui.screens.picker_return import ReturnPage
from tui.screens.picker_text import IndicatorState, indicator_parts
from tui.screens.problem import describe_error
from tui.widgets.filter_bar import cluster_label
from tui.widgets.notice import Notice
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.row_detail import RowDetail
from tui.widgets.verdict_line import verdict_why
from tui.widgets.workload_table import WorkloadTable

EDGE_NOTICE_S = 2.5


class PickerViews(PickerCluster):
    _clusters: list[Cluster]
    _query: PickerQuery
    _sort: Sort
    nav: PageNav
    _page: PageLoaded | None
    _hidden: int
    _count_problem: str | None
    _loading: bool
    _answered: bool
    _edge_noticed: tuple[str, float] | None

    _return_row: tuple[str, str | None, bool] | None = None  # (id, name, its page looked for already)

    def return_to(self, workload_id: str | None, name: str | None) -> None:
        """Back from a diagnosis (opened from here or straight from the command line): the cursor on that
        workload. When its row is not on the page, its page in the same list is found and shown
        (tui/screens/picker_return.py): the list is never narrowed to it, and what it marked stays marked."""
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
            self._find_return_page(wanted, name, filters, self._sort)
        else:
            self._return_row = None  # not on the page it was counted to (a tie, or it moved again): stays here

    def on_return_page(self, message: ReturnPage) -> None:
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

    @property
    def offset(self) -> int:
        return self._page.offset if self._page is not None else 0

    # -- views --------------------------------------------------------------------------------------------
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
        verdict = self.verdicts.get(workload) if workload is not None else None
        said = verdict_why(verdict) if verdict is not None else None
        self.query_one(RowDetail).show_workload(workload, why, said)

    def on_verdict_arrived(self, message: VerdictArrived) -> None:
        super().on_verdict_arrived(message)
        highlighted = self.query_one(WorkloadTable).highlighted
        if highlighted is not None and highlighted.id == message.workload.id:
            self._show_row_detail()  # the highlighted row's line that says why

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

    def _update_indicator(self) -> None:
        notice = self.query_one(Notice)
        page = self._page if not (notice.display and notice.kind == "error") else None
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
        self.query_one(PageIndicator).show(*indicator_parts(state))
        self.refresh_bindings()  # the footer's `]` goes on the last page

    def _on_last_page(self) -> bool:
        """A page is on screen (not an error) and the server said there is none after it."""
        notice = self.query_one(Notice)
        page = self._page if not (notice.display and notice.kind == "error") else None
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
