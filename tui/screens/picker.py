"""The workload picker: filter, page through and choose a workload to diagnose.

Data flow: every read runs in a worker of its own group (`picker-clusters`, `picker-projects`, `picker-page`,
`picker-count`; each exclusive, so a new read cancels the one it replaces) and ends by posting one message.
Page requests are numbered (`seq`) and count requests carry the filter generation they were made for, so an
answer that arrives after the filters moved on is dropped instead of shown. Pages are fetched server-side,
sized to the rows the table can show, newest first by `phaseUpdatedAt`.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.events import Resize
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, Select

from core.models.runai import Cluster
from core.sources.runai import MAX_LIMIT, filter_item
from core.tenant import Tenant
from tui.clock import Clock
from tui.messages import (
    ClustersFailed,
    ClustersLoaded,
    CountFailed,
    CountLoaded,
    PageFailed,
    PageLoaded,
    ProjectsFailed,
    ProjectsLoaded,
    WorkloadChosen,
)
from tui.screens.problem import describe_error
from tui.widgets.filter_bar import FilterBar, PickerQuery, cluster_label
from tui.widgets.notice import Notice
from tui.widgets.page_indicator import PageIndicator, rows_text
from tui.widgets.row_detail import RowDetail
from tui.widgets.top_bar import TopBar
from tui.widgets.workload_table import WorkloadTable

SORT_BY = "phaseUpdatedAt"
SORT_ORDER = "desc"
# Used until the table has a size (the first page waits for layout, so this is rarely seen).
DEFAULT_PAGE_SIZE = 20
# Projects are read in pages of the API maximum; this many pages is far beyond any real tenant.
MAX_PROJECT_PAGES = 20


class PickerScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_name", "filter", key_display="/"),
        Binding("f", "toggle_failures", "failed only"),
        Binding("left_square_bracket", "previous_page", "prev page", key_display="["),
        Binding("right_square_bracket", "next_page", "next page", key_display="]"),
        Binding("pageup,ctrl+b", "previous_page", "prev page", show=False),
        Binding("pagedown,ctrl+f", "next_page", "next page", show=False),
        Binding("enter", "diagnose", "diagnose"),
        Binding("d", "diagnose", "diagnose", show=False),
        Binding("c", "focus_cluster", "choose cluster", show=False),
        Binding("p", "focus_project", "choose project", show=False),
        Binding("r", "retry", "reload"),
        Binding("escape", "focus_table", "back to the table", show=False),
    ]

    def __init__(
        self,
        tenant: Tenant,
        clock: Clock,
        *,
        cluster_id: str | None = None,
        live_clock: bool = False,
        debounce_s: float = 0.4,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.tenant = tenant
        self._clock = clock
        self._wanted_cluster = cluster_id
        self._live_clock = live_clock
        self._debounce_s = debounce_s
        self._cursor_blink = cursor_blink
        self._clusters: list[Cluster] = []
        self._clusters_failed = False
        self._query = PickerQuery()
        self._offset = 0
        self._limit = DEFAULT_PAGE_SIZE
        self._seq = 0
        self._generation = 0
        self._page: PageLoaded | None = None
        self._hidden = 0
        self._count: int | None = None
        self._count_problem: str | None = None
        self._loading = False
        self._answered = False
        self._page_resize_timer: Timer | None = None

    # -- layout -------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TopBar(self.tenant.label)
        yield FilterBar(debounce_s=self._debounce_s, cursor_blink=self._cursor_blink, id="filter-bar")
        with Container(id="table-area"):
            yield WorkloadTable(self._clock, id="workloads")
            yield Notice(id="notice")
        yield RowDetail(id="row-detail")
        yield PageIndicator(id="page-indicator")
        yield Footer()

    def on_mount(self) -> None:
        self._notice("loading", "Loading clusters…", f"Reading {self.tenant.label}.")
        self.query_one(WorkloadTable).focus()
        if self._live_clock:
            self.set_interval(30, self.query_one(WorkloadTable).refresh_ages)
        self._load_clusters()

    # -- public state (tests and other screens read it) ------------------------------------------------------
    @property
    def picker_query(self) -> PickerQuery:
        return self._query

    @property
    def page_size(self) -> int:
        return self._limit

    @property
    def offset(self) -> int:
        return self._offset

    @property
    def loading(self) -> bool:
        return self._loading

    @property
    def first_answer(self) -> bool:
        """True once the screen has shown rows, an empty state or an error (not just "loading")."""
        return self._answered

    # -- workers ------------------------------------------------------------------------------------------
    @work(group="picker-clusters", exclusive=True, exit_on_error=False)
    async def _load_clusters(self) -> None:
        try:
            page = await self.tenant.runai.list_clusters_page()
        except Exception as exc:  # every failure becomes a message; the screen decides what to show
            self.post_message(ClustersFailed(exc))
            return
        self.post_message(ClustersLoaded(page.items, [p.message for p in page.problems]))

    @work(group="picker-projects", exclusive=True, exit_on_error=False)
    async def _load_projects(self, cluster_id: str | None) -> None:
        names: set[str] = set()
        offset: int | None = 0
        try:
            filters = [filter_item("clusterId", "==", cluster_id)] if cluster_id else None
            for _ in range(MAX_PROJECT_PAGES):
                if offset is None:
                    break
                page = await self.tenant.runai.list_projects(filters=filters, offset=offset, limit=MAX_LIMIT)
                names.update(
                    p.name
                    for p in page.items
                    if p.name and (not cluster_id or p.cluster_id in (None, cluster_id))
                )
                offset = page.next
        except Exception as exc:
            self.post_message(ProjectsFailed(cluster_id, exc))
            return
        self.post_message(ProjectsLoaded(cluster_id, sorted(names, key=str.casefold)))

    @work(group="picker-page", exclusive=True, exit_on_error=False)
    async def _fetch_page(self, seq: int, filters: list[str], offset: int, limit: int) -> None:
        try:
            page = await self.tenant.runai.list_workloads(
                filters=filters, sort_by=SORT_BY, sort_order=SORT_ORDER, offset=offset, limit=limit
            )
        except Exception as exc:
            self.post_message(PageFailed(seq, exc))
            return
        unreadable = len({problem.index for problem in page.problems})
        self.post_message(PageLoaded(seq, offset, limit, page.items, page.next, unreadable))

    @work(group="picker-count", exclusive=True, exit_on_error=False)
    async def _fetch_count(self, generation: int, filters: list[str]) -> None:
        try:
            count = await self.tenant.runai.count_workloads(filters)
        except Exception as exc:
            self.post_message(CountFailed(generation, exc))
            return
        self.post_message(CountLoaded(generation, count))

    # -- requests -----------------------------------------------------------------------------------------
    def _visible_rows(self) -> int:
        height = self.query_one("#table-area").content_region.height
        # One line is the table header.
        return max(1, min(MAX_LIMIT, height - 1)) if height > 1 else DEFAULT_PAGE_SIZE

    def _apply_query(self, query: PickerQuery) -> None:
        """A new filter: back to the first page, and count again."""
        self._query = query
        self._generation += 1
        self._offset = 0
        self._count = None
        self._count_problem = None
        self._request_page(count=True)

    def _request_page(self, *, count: bool = False) -> None:
        self._seq += 1
        self._limit = self._visible_rows()
        try:
            filters = self._query.filters()
        except ValueError as exc:
            self._loading = False
            self._show_error(exc)
            return
        self._loading = True
        if self._page is None or self.query_one(Notice).display:
            self._notice(
                "loading",
                "Loading workloads…",
                self._query.describe(self._cluster_label()).capitalize() + ".",
            )
        else:
            self.query_one(WorkloadTable).add_class("-stale")
        self._update_indicator()
        self._fetch_page(self._seq, filters, self._offset, self._limit)
        if count:
            self._fetch_count(self._generation, filters)

    # -- message handlers ---------------------------------------------------------------------------------
    def on_clusters_loaded(self, message: ClustersLoaded) -> None:
        self._clusters_failed = False
        self._clusters = [c for c in message.clusters if c.uuid]
        ids = [c.uuid for c in self._clusters]
        selected = self._wanted_cluster if self._wanted_cluster in ids else (ids[0] if ids else None)
        if self._wanted_cluster and self._wanted_cluster not in ids:
            self.notify(
                f"cluster {self._wanted_cluster!r} is not among the tenant's clusters; showing the first one",
                severity="warning",
                markup=False,
            )
        bar = self.query_one(FilterBar)
        bar.set_clusters(self._clusters, selected)
        self._load_projects(selected)
        # Applied after a refresh so the table area has its size (the page is sized to it); the bar's query is
        # read then, not now, so a choice the user made in between is not overwritten.
        self.call_after_refresh(lambda: self._apply_query(bar.picker_query))

    def on_clusters_failed(self, message: ClustersFailed) -> None:
        self._clusters_failed = True
        self._answered = True
        info = describe_error(message.error, "clusters")
        self._notice("error", f"{info.title} while reading the clusters", info.detail, info.hint)
        self._update_indicator()

    def _shown_cluster(self) -> str | None:
        # The filter bar's cluster is set before its projects are requested; the applied query may only follow
        # a refresh later, so the projects' answer is matched against the bar, never against self._query.
        return self.query_one(FilterBar).picker_query.cluster_id

    def on_projects_loaded(self, message: ProjectsLoaded) -> None:
        if message.cluster_id == self._shown_cluster():
            self.query_one(FilterBar).set_projects(message.names)

    def on_projects_failed(self, message: ProjectsFailed) -> None:
        if message.cluster_id == self._shown_cluster():
            info = describe_error(message.error, "projects")
            # The list still works without the project choices, so this is a warning, not an error state.
            self.notify(f"Projects could not be read: {info.detail}", severity="warning", markup=False)

    @on(FilterBar.Changed)
    def _filters_changed(self, message: FilterBar.Changed) -> None:
        if message.picker_query.cluster_id != self._query.cluster_id:
            self._load_projects(message.picker_query.cluster_id)
        self._apply_query(message.picker_query)

    def on_page_loaded(self, message: PageLoaded) -> None:
        if message.seq != self._seq:
            return  # an answer for filters or a page that is no longer asked for
        self._loading = False
        self._answered = True
        self._page = message
        self._offset = message.offset
        shown = [
            w for w in message.workloads if self._query.matches(w.name, w.project_name, w.cluster_id, w.phase)
        ]
        self._hidden = len(message.workloads) - len(shown)
        table = self.query_one(WorkloadTable)
        table.remove_class("-stale")
        keep = table.workloads and [w.id for w in table.workloads] == [w.id for w in shown]
        table.show_workloads(shown, keep_cursor=bool(keep))
        if shown:
            self._show_table()
        else:
            self._show_empty()
        self.query_one(RowDetail).show_workload(table.highlighted)
        self._update_indicator()

    def on_page_failed(self, message: PageFailed) -> None:
        if message.seq != self._seq:
            return
        self._loading = False
        self.query_one(WorkloadTable).remove_class("-stale")
        self._show_error(message.error)

    def on_count_loaded(self, message: CountLoaded) -> None:
        if message.generation == self._generation:
            self._count = message.count
            self._update_indicator()

    def on_count_failed(self, message: CountFailed) -> None:
        if message.generation == self._generation:
            self._count_problem = describe_error(message.error).title
            self._update_indicator()

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.query_one(RowDetail).show_workload(self.query_one(WorkloadTable).highlighted)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_diagnose()

    def on_resize(self, event: Resize) -> None:
        if self._page_resize_timer is not None:
            self._page_resize_timer.stop()
        # A drag-resize sends a burst of events; the page is refetched once it settles.
        self._page_resize_timer = self.set_timer(0.15, self._check_page_size)

    def _check_page_size(self) -> None:
        if self._page is not None and not self._loading and self._visible_rows() != self._limit:
            self._request_page()

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
        self.query_one(WorkloadTable).display = True

    def _show_empty(self) -> None:
        described = self._query.describe(self._cluster_label())
        if self._offset > 0:
            self._notice(
                "empty",
                f"No rows from {self._offset + 1:,} on",
                "The list may have shrunk since the previous page; press [ to go back or r to reload.",
            )
            return
        hint = "Change the filters (/ name, p project, c cluster, f failed only) or press r to reload."
        if self._hidden:
            hint = (
                f"The server sent {self._hidden} row(s) that did not match the filter; they are not shown. "
                + hint
            )
        self._notice("empty", f"No {described}.", hint)

    def _show_error(self, error: BaseException) -> None:
        self._answered = True
        info = describe_error(error)
        self._notice("error", info.title, info.detail, info.hint)
        self._update_indicator()

    def _update_indicator(self) -> None:
        parts: list[str] = []
        notice = self.query_one(Notice)
        if self._page is not None and not (notice.display and notice.kind == "error"):
            total = self._count
            shown = len(self._page.workloads)
            parts.append(rows_text(self._page.offset, shown, total, self._count_problem))
        parts.append("newest first")
        if self._query.failures_only:
            parts.append("failed only")
        if self._loading:
            parts.append("loading…")
        if self._count_problem:
            parts.append(f"total unknown ({self._count_problem})")
        if self._page is not None and self._hidden:
            parts.append(f"{self._hidden} row(s) hidden: did not match the filter")
        if self._page is not None and self._page.unreadable:
            parts.append(f"{self._page.unreadable} item(s) could not be read")
        self.query_one(PageIndicator).show(*parts)

    # -- actions ------------------------------------------------------------------------------------------
    def action_next_page(self) -> None:
        if self._page is None or self._loading:
            return
        if self._page.next_offset is None:
            self.notify("This is the last page.", timeout=2)
            return
        self._offset = self._page.next_offset
        self._request_page()

    def action_previous_page(self) -> None:
        if self._page is None or self._loading:
            return
        if self._offset == 0:
            self.notify("This is the first page.", timeout=2)
            return
        self._offset = max(0, self._offset - self._visible_rows())
        self._request_page()

    def action_retry(self) -> None:
        if self._clusters_failed or (not self._clusters and self._page is None):
            self._notice("loading", "Loading clusters…", f"Reading {self.tenant.label}.")
            self._load_clusters()
            return
        self._request_page(count=self._count is None)

    def action_toggle_failures(self) -> None:
        self.query_one(FilterBar).toggle_failures()

    def action_focus_name(self) -> None:
        self.query_one("#name-filter", Input).focus()

    def action_focus_cluster(self) -> None:
        self.query_one("#cluster-select", Select).focus()

    def action_focus_project(self) -> None:
        self.query_one("#project-select", Select).focus()

    def action_focus_table(self) -> None:
        table = self.query_one(WorkloadTable)
        if table.display:
            table.focus()

    def action_diagnose(self) -> None:
        workload = self.query_one(WorkloadTable).highlighted
        if workload is None:
            self.notify("No workload is highlighted.", severity="warning", timeout=2)
            return
        if not workload.id:
            self.notify("This row has no workload id, so it cannot be diagnosed.", severity="error")
            return
        cluster = workload.cluster_id or self._query.cluster_id
        self.post_message(WorkloadChosen(workload.id, cluster, workload.name, workload.project_name))

    # Escape leaves a filter for the table; Input.Submitted also lands there so enter then diagnoses.
    @on(Input.Submitted)
    def _name_submitted(self) -> None:
        self.action_focus_table()
