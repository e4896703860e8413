"""The picker's reads: plain async functions of the tenant that return the one message their answer makes (or, for
the background diagnoses, post one per verdict). The picker screen runs each in a worker of its own group,
exclusive, so a new read cancels the one it replaces; none touches a widget."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

from textual.message import Message

from core.models.runai import Workload
from core.safety.untrusted import clean
from core.sources.runai import MAX_LIMIT, RunaiClient, filter_item
from core.tenant import Tenant
from core.triage.attention import AttentionCache, judge_by_events, read_attention_page
from core.triage.pacing import polite
from core.triage.verdicts import needs_events
from tui.messages import (
    ClustersFailed,
    ClustersLoaded,
    CountFailed,
    CountLoaded,
    PageFailed,
    PageLoaded,
    ProjectsFailed,
    ProjectsLoaded,
    VerdictArrived,
)
from tui.picker_query import DATE_FIELDS, Sort

# Projects are read in pages of the API maximum; this many pages is far beyond any real tenant.
MAX_PROJECT_PAGES = 20


class ReturnPage(Message):
    """Where the workload gone back to is in the list: the offset of its page, or None with why not."""

    def __init__(self, workload_id: str, offset: int | None, why: str | None = None) -> None:
        super().__init__()
        self.workload_id = workload_id
        self.offset = offset
        self.why = why


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


# Every failure below becomes a message: the screen decides what to show.
async def clusters(runai: RunaiClient) -> Message:
    try:
        page = await runai.list_clusters_page()
    except Exception as exc:
        return ClustersFailed(exc)
    return ClustersLoaded(page.items, [p.message for p in page.problems])


async def projects(runai: RunaiClient, cluster_id: str | None) -> Message:
    """The project names of a cluster (every cluster's when None), sorted as a person reads them."""
    names: set[str] = set()
    offset: int | None = 0
    try:
        filters = [filter_item("clusterId", "==", cluster_id)] if cluster_id else None
        for _ in range(MAX_PROJECT_PAGES):
            if offset is None:
                break
            page = await runai.list_projects(filters=filters, offset=offset, limit=MAX_LIMIT)
            names.update(
                p.name for p in page.items if p.name and (not cluster_id or p.cluster_id in (None, cluster_id))
            )
            offset = page.next
    except Exception as exc:
        return ProjectsFailed(cluster_id, exc)
    return ProjectsLoaded(cluster_id, sorted(names, key=str.casefold))


async def _list_page(
    runai: RunaiClient, seq: int, filters: list[str], sort: Sort, offset: int, limit: int
) -> PageLoaded:
    page = await runai.list_workloads(
        filters=filters, sort_by=sort.field, sort_order=sort.order, offset=offset, limit=limit
    )
    unreadable = len({problem.index for problem in page.problems})
    return PageLoaded(seq, offset, limit, page.items, page.next, unreadable)


async def _attention_page(
    runai: RunaiClient, cache: AttentionCache, seq: int, filters: list[str], sort: Sort, offset: int, limit: int,
    max_list_reads: int | None = None,
) -> PageLoaded:
    extra = {} if max_list_reads is None else {"max_list_reads": max_list_reads}
    found = await read_attention_page(runai, filters, sort.field, sort.order, offset, limit, cache, **extra)
    return PageLoaded(seq, offset, limit, found.rows, found.next_start, found.unreadable, found)


async def page(
    runai: RunaiClient, cache: AttentionCache | None, seq: int, filters: list[str], sort: Sort, offset: int,
    limit: int,
) -> Message:
    """A page of the list (`cache` given: of the needs-attention view, read through core.triage.attention)."""
    try:
        if cache is not None:
            return await _attention_page(runai, cache, seq, filters, sort, offset, limit)
        return await _list_page(runai, seq, filters, sort, offset, limit)
    except Exception as exc:
        return PageFailed(seq, exc)


async def refreshed_page(
    runai: RunaiClient, cache: AttentionCache | None, seq: int, filters: list[str], sort: Sort, offset: int,
    limit: int,
) -> Message:
    """The page on screen read again in one attempt: the refresh's pacer, not the client, waits before the next."""
    try:
        with polite():
            if cache is not None:
                loaded = await _attention_page(runai, cache, seq, filters, sort, offset, limit, max_list_reads=1)
            else:
                loaded = await _list_page(runai, seq, filters, sort, offset, limit)
    except Exception as exc:  # said in the header; the rows stay
        return RefreshFailed(seq, exc)
    return PageRefreshed(seq, loaded)


async def count(runai: RunaiClient, generation: int, filters: list[str]) -> Message:
    try:
        found = await runai.count_workloads(filters)
    except Exception as exc:
        return CountFailed(generation, exc)
    return CountLoaded(generation, found)


def _date(workload: Workload, field: str) -> datetime | None:
    return workload.phase_updated_at if field == "phaseUpdatedAt" else workload.created_at


async def return_page(
    runai: RunaiClient, workload_id: str, name: str | None, filters: list[str], sort: Sort, walked: bool
) -> Message:
    """The page of the list (its filters, its order) the workload gone back to is on now.

    In an order by date (the default) two reads find it: the workload (its date now) and a count of the rows
    before it. In an order by text, or in the needs-attention view (walked page by page), no page can be computed:
    the answer says where the workload went and how to find it."""
    shown = clean(name or workload_id, one_line=True, max_len=80)
    if sort.field not in DATE_FIELDS or walked:
        how = "the needs-attention view is walked page by page" if walked else f"sorted {sort.describe()}"
        return ReturnPage(workload_id, None, f"{shown} is not on this page ({how}): / finds it by name")
    try:
        workload = await runai.get_workload(workload_id)
        when = _date(workload, sort.field)
        if when is None:
            raise ValueError(f"it has no {sort.field}")
        # Newest first: the rows at or after its date come before it (ties put it among them).
        before = filter_item(sort.field, ">=" if sort.descending else "<=", when)
        found = await runai.count_workloads([*filters, before])
    except Exception as exc:  # the list stays as it is, and the notice says why
        return ReturnPage(workload_id, None, f"{shown} could not be found in the list: {exc}")
    return ReturnPage(workload_id, max(0, int(found) - 1))


async def judge_pending(runai: RunaiClient, rows: list[Workload], cache: AttentionCache) -> None:
    """Read the events of the rows whose list entry cannot say whether a pod fails (an image pull, a mount, an
    init container), within the background budget, and keep the judgements in `cache`."""
    unread = [w for w in rows if needs_events(w, cache.judged)]
    if not unread:
        return
    from core.triage.batch import BACKGROUND

    gate = asyncio.Semaphore(BACKGROUND.requests)
    found = await asyncio.gather(*(judge_by_events(runai, w, gate) for w in unread))
    for w, judgement in zip(unread, found, strict=True):
        cache.judged[cache.key(w)] = judgement


async def diagnose_rows(
    tenant: Tenant, seq: int, rows: list[Workload], cluster: str | None, now: datetime, lookback: str,
    kube_off: str | None, post: Callable[[Message], object],
) -> None:
    """Diagnose the rows in the background budget (core.triage.batch), posting a VerdictArrived as each ends."""
    from core.diagnosis.request import DiagnosisRequest
    from core.triage.batch import BACKGROUND, diagnose_many

    # Tier 2 opens in its own thread (never on the UI loop) once a diagnosis gets past Step 1.
    open_tier2 = tenant.open_tier2 if kube_off is None else None
    requests = [
        DiagnosisRequest(cluster_id=w.cluster_id or cluster or "", workload_id=w.id, lookback=lookback, now=now,
                         count_others=False)
        for w in rows
    ]
    async for index, verdict in diagnose_many(
        requests, tenant.runai, tier2_unavailable=kube_off, open_tier2=open_tier2, politeness=BACKGROUND
    ):
        post(VerdictArrived(seq, rows[index], verdict))
