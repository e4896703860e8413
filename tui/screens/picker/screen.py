"""The workload picker: filter, sort, page through and choose a workload to diagnose.

Data flow: every read runs in a worker of its own group (`picker-clusters`, `picker-projects`, `picker-page`,
`picker-count`; each exclusive, so a new read cancels the one it replaces) and ends by posting one message.
Page requests are numbered (`seq`) and count requests carry the filter generation they were made for, so an
answer that arrives after the filters moved on is dropped instead of shown. Pages are fetched server-side,
sized to the rows the table can show, in the chosen server-side order (newest phase change first by default).
Page keys go through `PageNav` (tui.paging): every press counts, and presses made while a page is on its way
are coalesced into one request. The needs-attention view reads its pages through core.triage.attention. The
failed and needs-attention rows on screen are diagnosed in the background (verdicts.py), and the page is read
again every few seconds (refresh.py).

The screen's chain is three classes deep: PickerScreen (keys, requests, answers) on PickerRefresh (following the
tenant) on PickerViews (what is drawn); the reads (reads.py), the verdict queue (verdicts.py), the refresh's
pacing (pace.py) and what moved (news.py) are plain objects and functions it calls.
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.timer import Timer
from textual.widgets import DataTable, Input, Select

from core.models.clusters import find_cluster, listed_clusters
from core.models.runai import Cluster
from core.safety.untrusted import clean
from core.tenant import Tenant
from core.triage.attention import AttentionCache
from core.triage.verdicts import VerdictCache
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
from tui.paging import Go, Move, PageNav
from tui.picker_query import PickerQuery, Sort, next_sort, sort_for_column
from tui.screens.detail import DetailScreen
from tui.screens.picker import reads
from tui.screens.picker.news import NEXT_NEW_FAILURE, News
from tui.screens.picker.pace import RefreshPace
from tui.screens.picker.refresh import PickerRefresh
from tui.screens.picker.verdicts import VerdictQueue
from tui.screens.picker.views import DEFAULT_PAGE_SIZE
from tui.screens.problem import describe_error
from tui.screens.workload_detail import workload_detail
from tui.widgets.cluster_notice import ClusterNotice
from tui.widgets.filter_bar import FilterBar, cluster_label
from tui.widgets.footer import KeysFooter
from tui.widgets.notice import Notice
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.row_detail import RowDetail
from tui.widgets.top_bar import TopBar
from tui.widgets.verdict_line import VerdictLine
from tui.widgets.workload_table import WorkloadTable


class PickerScreen(PickerRefresh):
    # Footer: what a first-time user needs at 80 columns; `?` lists every key.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_name", "filter", key_display="/", tooltip="Type part of a workload name"),
        Binding("a", "toggle_attention", "attention", tooltip="Only workloads that need a diagnosis, or all"),
        # `]` in the footer only while there is a next page (check_action); on the last page the press falls
        # through to the unshown `]` below, which says this is the last page.
        Binding("right_square_bracket", "next_page('footer')", "next page", key_display="]"),
        Binding("left_square_bracket", "previous_page", "prev page", key_display="[", show=False),
        Binding("right_square_bracket,pagedown,ctrl+f", "next_page", "next page", show=False),
        Binding("pageup,ctrl+b", "previous_page", "prev page", show=False),
        Binding("g,home", "first_page", "first page", show=False),
        Binding("G,end", "last_page", "last page", show=False),
        Binding("j", "row(1)", "row down", show=False),
        Binding("k", "row(-1)", "row up", show=False),
        Binding("enter", "diagnose", "diagnose", tooltip="Diagnose the highlighted workload"),
        Binding("d", "diagnose", "diagnose", show=False),
        Binding("v", "view_row", "view row", show=False, tooltip="Every field of the highlighted row, uncut"),
        Binding("s", "cycle_sort", "sort", show=False,
                tooltip="Sort by phase change, name, project, phase or creation (a header click also sorts)"),
        Binding("c", "focus_cluster", "choose cluster", show=False, tooltip="Open the cluster list"),
        Binding("p", "focus_project", "choose project", show=False, tooltip="Open the project list"),
        Binding("r", "retry", "reload", show=False, tooltip="Read the list again"),
        NEXT_NEW_FAILURE,
        Binding("N", "open_nodes", "nodes", show=False,
                tooltip="Every node of the cluster: what ran and failed on it in a window, and why"),
        Binding("escape", "escape", "clear filter", show=False, tooltip="Clear the name filter"),
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
        refresh_s: float = 0.0,
    ) -> None:
        super().__init__()
        self.refresh_s = refresh_s  # read the page again every refresh_s seconds (0: only when asked)
        self.tenant = tenant
        self._clock = clock
        self._wanted_cluster = cluster_id
        self._live_clock = live_clock
        self._debounce_s = debounce_s
        self._cursor_blink = cursor_blink
        self._clusters: list[Cluster] = []
        self._clusters_failed = False
        self._query = PickerQuery()
        self._sort = Sort()
        self.nav = PageNav(DEFAULT_PAGE_SIZE)
        self._seq = 0
        self._generation = 0
        self._page: PageLoaded | None = None
        self._hidden = 0
        self._count_problem: str | None = None
        self._loading = False
        self._answered = False
        self._page_resize_timer: Timer | None = None
        self._edge_noticed: tuple[str, float] | None = None
        self._land_on: str | None = None  # where the cursor goes on the page j or k moved to ("first", "last")
        self._attention_cache = AttentionCache()
        self._verdicts = VerdictQueue(VerdictCache(), start_timer=self.set_timer, run=self._diagnose_rows,
                                      on_top=self._on_top)
        self._news = News()
        self._pace = RefreshPace(refresh_s)

    # -- layout -------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TopBar(self.tenant.label)
        yield FilterBar(
            hand_back=self.action_focus_table, debounce_s=self._debounce_s, cursor_blink=self._cursor_blink,
            id="filter-bar",
        )
        yield ClusterNotice(id="cluster-notice")
        with Container(id="table-area"):
            yield WorkloadTable(self._clock, id="workloads")
            yield Notice(id="notice")
        yield RowDetail(id="row-detail")
        yield VerdictLine(id="verdict-line")
        yield PageIndicator(id="page-indicator")
        yield KeysFooter()

    def on_mount(self) -> None:
        self._notice("loading", "Loading clusters…", f"Reading {self.tenant.label}.")
        self.query_one(WorkloadTable).focus()
        if self._live_clock:
            self.set_interval(30, self.query_one(WorkloadTable).refresh_ages)
        for select in self.query(Select):
            self.watch(select, "expanded", self._selector_toggled, init=False)
        self._load_clusters()

    def _load_clusters(self) -> None:
        self._read("picker-clusters", partial(reads.clusters, self.tenant.runai))

    def _load_projects(self, cluster_id: str | None) -> None:
        self._read("picker-projects", partial(reads.projects, self.tenant.runai, cluster_id))

    # -- public state (tests and other screens read it) ------------------------------------------------------
    @property
    def picker_query(self) -> PickerQuery:
        return self._query

    @property
    def sort(self) -> Sort:
        return self._sort

    @property
    def page_size(self) -> int:
        return self.nav.limit

    @property
    def loading(self) -> bool:
        return self._loading

    @property
    def first_answer(self) -> bool:
        """True once the screen has shown rows, an empty state or an error (not just "loading")."""
        return self._answered

    @property
    def verdicts(self) -> VerdictCache:
        """The background diagnoses' verdicts, by workload and phase change."""
        return self._verdicts.verdicts

    @property
    def verdicts_settled(self) -> bool:
        """True when every eligible row on screen has its verdict (tests and screenshots wait for this)."""
        return self._verdicts.settled

    # -- requests -----------------------------------------------------------------------------------------
    def _apply_query(self, query: PickerQuery | None = None) -> None:
        """A new filter or order: back to the first page, and count again."""
        self._query = query if query is not None else self._query
        self._generation += 1
        self._count_problem = None
        self._attention_cache = AttentionCache()
        self.nav.reset(walked=self._query.attention, limit=self._visible_rows())
        self._request(self.nav.reload(), count=True)

    def _request(self, move: Move, *, count: bool = False) -> None:
        if not isinstance(move, Go):
            return
        self._stop_background()  # the page on screen is going: its background work stops before the next read
        self._seq += 1
        self.nav.limit = self._visible_rows()
        try:
            filters = self._query.filters()
        except ValueError as exc:
            self.nav.failed()
            self._loading = False
            self._show_error(exc)
            return
        self._loading = True
        if self._page is None or self.query_one(Notice).display:
            described = self._query.describe(self._cluster_label()).capitalize()
            self._notice("loading", "Loading workloads…", described + ".")
        else:
            self.query_one(WorkloadTable).add_class("-stale")
        self._update_indicator()
        cache = self._attention_cache if self._query.attention else None
        self._read("picker-page", partial(reads.page, self.tenant.runai, cache, self._seq, filters, self._sort,
                                          move.offset, self.nav.limit))
        if count:
            self._read("picker-count", partial(reads.count, self.tenant.runai, self._generation, filters))

    # -- message handlers ---------------------------------------------------------------------------------
    def on_clusters_loaded(self, message: ClustersLoaded) -> None:
        self._clusters_failed = False
        self._clusters = [c for c in message.clusters if c.uuid]
        ids = [c.uuid for c in self._clusters]
        wanted = find_cluster(self._clusters, self._wanted_cluster) if self._wanted_cluster else []
        selected = wanted[0].uuid if len(wanted) == 1 else (ids[0] if ids else None)
        if self._wanted_cluster and len(wanted) != 1:
            self.notify(
                f"cluster {clean(self._wanted_cluster, max_len=80)!r} is not one of the tenant's clusters (by id or "
                f"exact name): {listed_clusters(self._clusters)}; showing the first one",
                severity="warning",
                markup=False,
            )
        bar = self.query_one(FilterBar)
        bar.set_clusters(self._clusters, selected)
        self._load_projects(selected)
        if self.query_one("#table-area").content_region.height > 1:
            self._first_query()  # the table area has its size (the page is sized to it): no frame to wait for
        else:
            # Applied after a refresh, once the table area has its size; the bar's query is read then, not now,
            # so a choice the user made in between is not overwritten.
            self.call_after_refresh(self._first_query)

    def _first_query(self) -> None:
        # Not when the app closed meanwhile (the screen's widgets are gone then).
        if self.is_attached and self.query(FilterBar):
            self._apply_query(self.query_one(FilterBar).picker_query)

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
        follow = self.nav.landed(message.offset, message.next_offset)
        if isinstance(follow, Go):
            self._request(follow)  # page keys pressed meanwhile ask for another page: show that one
            return
        self._loading = False
        self._answered = True
        self._page = message
        shown = [
            w for w in message.workloads if self._query.matches(w.name, w.project_name, w.cluster_id, w.phase)
        ]
        self._hidden = len(message.workloads) - len(shown)
        table = self.query_one(WorkloadTable)
        table.remove_class("-stale")
        keep = table.workloads and [w.id for w in table.workloads] == [w.id for w in shown]
        names = {c.uuid: cluster_label(c) for c in self._clusters if c.uuid}
        verdicts = self._verdicts.page(message.seq, shown, self._query.cluster_id, self._query.attention,
                                       self._attention_cache.judged)
        table.show_workloads(
            shown, keep_cursor=bool(keep), clusters=names, show_cluster=not self._query.cluster_id, sort=self._sort,
            verdicts=verdicts,
        )
        if self._land_on is not None and shown:
            table.move_cursor(row=0 if self._land_on == "first" else len(shown) - 1, animate=False)
        self._land_on = None
        if shown:
            self._show_table()
        else:
            self._show_empty()
        self._place_return_row()
        self._show_row_detail()
        self._show_verdict_line()
        self._update_indicator()
        self._check_clusters()
        self._page_read()

    def on_page_failed(self, message: PageFailed) -> None:
        if message.seq != self._seq:
            return
        self.nav.failed()
        self._loading = False
        self._land_on = None
        self._verdicts_unread(message.seq)
        self.query_one(WorkloadTable).remove_class("-stale")
        self._show_error(message.error)
        self._check_clusters()  # a list that fails may be why: the cluster's own state still shows
        self._page_failed(message)

    def on_count_loaded(self, message: CountLoaded) -> None:
        if message.generation == self._generation:
            self.nav.total = message.count
            self._update_indicator()

    def on_count_failed(self, message: CountFailed) -> None:
        if message.generation == self._generation:
            self._count_problem = describe_error(message.error).title
            self._update_indicator()

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_row_detail()

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_diagnose()

    @on(DataTable.HeaderSelected)
    def _header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        chosen = sort_for_column(str(event.column_key.value), self._sort)
        if chosen is not None:
            self._set_sort(chosen)

    def _selector_toggled(self, expanded: bool) -> None:
        # A cluster or project was picked (or the list closed with esc): the keys go back to the table now, while
        # that key is handled, so the next key is a command (tui.keys_in_turn). Not when the list closed because
        # the user clicked somewhere else: the keys are there.
        if not expanded and (self.focused is None or isinstance(self.focused, Select)):
            self.action_focus_table()

    # -- actions ------------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_page" and parameters == ("footer",):
            return not self._on_last_page()
        return True

    def action_next_page(self, _shown_as: str = "") -> None:
        self._navigate(self.nav.step(+1))

    def action_previous_page(self) -> None:
        self._navigate(self.nav.step(-1))

    def action_first_page(self) -> None:
        self._navigate(self.nav.first())

    def action_last_page(self) -> None:
        self._navigate(self.nav.last())

    def action_retry(self) -> None:
        if self._clusters_failed or (not self._clusters and self._page is None):
            self._notice("loading", "Loading clusters…", f"Reading {self.tenant.label}.")
            self._load_clusters()
            return
        self._attention_cache = AttentionCache()
        self._request(self.nav.reload(), count=self.nav.total is None)

    def action_row(self, delta: int) -> None:
        """j / k (and the arrows on the table): a row down or up; past the page's last row the next page, its
        first row highlighted, and above the first row the previous page, its last row highlighted."""
        table = self.query_one(WorkloadTable)
        if not table.display:
            return
        table.focus()
        rows = table.row_count
        past = (delta > 0 and table.cursor_row >= rows - 1) or (delta < 0 and table.cursor_row <= 0 and self.offset > 0)
        if rows and past:
            move = self.nav.step(1 if delta > 0 else -1)
            self._land_on = ("first" if delta > 0 else "last") if isinstance(move, Go) else None
            self._navigate(move)
        else:
            table.move_cursor(row=table.cursor_row + delta)

    def action_toggle_attention(self) -> None:
        self.query_one(FilterBar).toggle_attention()

    def action_cycle_sort(self) -> None:
        self._set_sort(next_sort(self._sort))

    def _set_sort(self, sort: Sort) -> None:
        self._sort = sort
        self.notify(f"Sorted {sort.describe()} (by the server).", timeout=2, markup=False)
        self._apply_query()

    def action_focus_name(self) -> None:
        self.query_one("#name-filter", Input).focus()

    def _open_selector(self, selector: str) -> None:
        select = self.query_one(selector, Select)
        select.focus()
        select.action_show_overlay()

    def action_focus_cluster(self) -> None:
        self._open_selector("#cluster-select")

    def action_focus_project(self) -> None:
        self._open_selector("#project-select")

    def action_focus_table(self) -> None:
        table = self.query_one(WorkloadTable)
        if table.display:
            self.set_focus(table)
        else:
            # No rows to focus: the keys go to the screen, so the next one is a command, not filter text.
            self.set_focus(None)

    def action_escape(self) -> None:
        if not self.query_one(FilterBar).clear_name():
            self.action_focus_table()

    def action_view_row(self) -> None:
        table = self.query_one(WorkloadTable)
        workload = table.highlighted
        if workload is None or not table.display:
            self.notify("No workload is highlighted.", severity="warning", timeout=2)
            return
        why = self._page.attention.why.get(workload.id or "") if self._page and self._page.attention else None
        names = {c.uuid: cluster_label(c) for c in self._clusters if c.uuid}
        body = workload_detail(workload, self._clock(), names, why, table.verdict_text(workload.id or ""))
        self.app.push_screen(DetailScreen(f"Workload {workload.name or workload.id}", body))

    def action_diagnose(self) -> None:
        table = self.query_one(WorkloadTable)
        workload = table.highlighted if table.display else None
        if workload is None:
            self.notify("No workload is highlighted.", severity="warning", timeout=2)
            return
        if not workload.id:
            self.notify("This row has no workload id, so it cannot be diagnosed.", severity="error")
            return
        cluster = workload.cluster_id or self._query.cluster_id
        replay = self._verdicts.replay_for(workload)
        self.post_message(WorkloadChosen(workload.id, cluster, workload.name, workload.project_name, replay))
