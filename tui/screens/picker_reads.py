"""The picker's reads, each in a worker of its own group (exclusive, so a new read cancels the one it
replaces) that ends by posting exactly one message; the picker screen (which mixes this in) decides what to
show. Workers never touch widgets."""

from __future__ import annotations

from textual import work
from textual.screen import Screen

from core.sources.runai import MAX_LIMIT, filter_item
from core.tenant import Tenant
from core.triage.attention import AttentionCache, read_attention_page
from tui.messages import (
    ClustersFailed,
    ClustersLoaded,
    CountFailed,
    CountLoaded,
    PageFailed,
    PageLoaded,
    ProjectsFailed,
    ProjectsLoaded,
)
from tui.picker_query import Sort

# Projects are read in pages of the API maximum; this many pages is far beyond any real tenant.
MAX_PROJECT_PAGES = 20


class PickerReads(Screen[None]):
    tenant: Tenant
    _attention_cache: AttentionCache

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
    async def _fetch_page(self, seq: int, filters: list[str], sort: Sort, offset: int, limit: int) -> None:
        try:
            page = await self.tenant.runai.list_workloads(
                filters=filters, sort_by=sort.field, sort_order=sort.order, offset=offset, limit=limit
            )
        except Exception as exc:
            self.post_message(PageFailed(seq, exc))
            return
        unreadable = len({problem.index for problem in page.problems})
        self.post_message(PageLoaded(seq, offset, limit, page.items, page.next, unreadable))

    @work(group="picker-page", exclusive=True, exit_on_error=False)
    async def _fetch_attention(self, seq: int, filters: list[str], sort: Sort, offset: int, limit: int) -> None:
        try:
            page = await read_attention_page(
                self.tenant.runai, filters, sort.field, sort.order, offset, limit, self._attention_cache
            )
        except Exception as exc:
            self.post_message(PageFailed(seq, exc))
            return
        self.post_message(PageLoaded(seq, offset, limit, page.rows, page.next_start, page.unreadable, page))

    @work(group="picker-count", exclusive=True, exit_on_error=False)
    async def _fetch_count(self, generation: int, filters: list[str]) -> None:
        try:
            count = await self.tenant.runai.count_workloads(filters)
        except Exception as exc:
            self.post_message(CountFailed(generation, exc))
            return
        self.post_message(CountLoaded(generation, count))
