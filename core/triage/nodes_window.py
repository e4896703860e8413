"""What ran where in a window: a cluster's nodes now, and every pod that ran on one of them between two moments,
live or deleted, read from the tenant-wide pod list (`GET /api/v1/workloads/pods`) rather than workload by
workload, so the reads grow with the pods of the window, never with the tenant's history.

A pod ran in [start, end] when it was created by `end` and neither completed nor was deleted before `start`.
The server can narrow each list to one side of that (filterBy items are ANDed, there is no OR), so three lists:
- live pods not completed (`completed=false`): running or waiting now, created by `end`;
- live pods completed in the window (`completedAt>=start`);
- deleted pods deleted in the window (`deleted=true`, `deletedAt>=start`), checked on the client for a
  completion before `start`.
Every row is checked again here (how the server compares is not verified). A pod with no node was never placed
and ran nowhere: counted, not kept. A missing time is unknown, never "now": a pod without `createdAt` is kept
only when the rest says it ran in the window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.models.clusters import same_cluster
from core.models.runai import RunaiPod
from core.models.runai_nodes import RunaiNode
from core.sources.runai_params import MAX_LIMIT, filter_item

# Past this many pods in one window the reading stops and says so: a window that large wants a narrower one.
MAX_WINDOW_PODS = 100_000
MAX_NODE_PAGES = 40  # 20,000 nodes: far beyond a cluster


@dataclass
class WindowPods:
    """The pods that ran on a node in the window, and what the reading could not keep, in words."""

    pods: list[RunaiPod] = field(default_factory=list)
    unplaced: int = 0  # pods of the window never bound to a node
    unreadable: int = 0  # list items that could not be read
    reads: int = 0
    cut: bool = False  # MAX_WINDOW_PODS reached: later pages were not read


def _queries(cluster_id: str, start: datetime, end: datetime, node: str | None) -> list[dict[str, Any]]:
    base = [filter_item("clusterId", "==", cluster_id), filter_item("createdAt", "<=", end)]
    if node:
        base.append(filter_item("nodeName", "==", node))
    return [
        {"filters": base, "completed": False},
        {"filters": [*base, filter_item("completedAt", ">=", start)]},
        {"filters": [*base, filter_item("deletedAt", ">=", start)], "deleted": True},
    ]


def ran_in_window(pod: RunaiPod, cluster_id: str, start: datetime, end: datetime) -> bool:
    if pod.cluster_id and not same_cluster(pod.cluster_id, cluster_id):
        return False
    if pod.created_at is not None and pod.created_at > end:
        return False
    return all(at is None or at >= start for at in (pod.completed_at, pod.deleted_at))


async def read_window_pods(
    tier1: Any, cluster_id: str, start: datetime, end: datetime, *, node: str | None = None
) -> WindowPods:
    """Every pod of the cluster (or of one node) that ran in [start, end]; a failed read propagates (the view
    has no denominator without it)."""
    found = WindowPods()
    seen: set[str] = set()
    for query in _queries(cluster_id, start, end, node):
        offset: int | None = 0
        while offset is not None:
            if len(seen) >= MAX_WINDOW_PODS:
                found.cut = True
                return found
            page = await tier1.list_tenant_pods(offset=offset, limit=MAX_LIMIT, **query)
            found.reads += 1
            found.unreadable += len({p.index for p in page.problems})
            for pod in page.items:
                key = pod.id or f"{pod.workload_id}/{pod.name}"
                if key in seen or not ran_in_window(pod, cluster_id, start, end):
                    continue
                if node and pod.node_name != node:
                    continue
                seen.add(key)
                if not pod.node_name:
                    found.unplaced += 1
                elif pod.workload_id:
                    found.pods.append(pod)
            offset = page.next if page.items else None
    return found


@dataclass
class NodesRead:
    nodes: list[RunaiNode] = field(default_factory=list)
    reads: int = 0
    unreadable: int = 0


async def read_nodes(tier1: Any, cluster_id: str, pool: str | None) -> NodesRead:
    """The cluster's nodes now (of one pool), paged until a short page (the body has no `next`)."""
    found = NodesRead()
    filters: Sequence[str] = [filter_item("nodePool", "==", pool)] if pool else ()
    seen: set[str] = set()
    for index in range(MAX_NODE_PAGES):
        page = await tier1.list_nodes(cluster_id, filters=filters, offset=index * MAX_LIMIT, limit=MAX_LIMIT)
        found.reads += 1
        found.unreadable += len({p.index for p in page.problems})
        fresh = [n for n in page.items if n.name and n.name not in seen]
        seen.update(n.name for n in fresh if n.name)
        found.nodes += [n for n in fresh if not pool or n.node_pool == pool]
        # A short page is the last; a full one that brought nothing new is a server ignoring the offset.
        if len(page.items) + len({p.index for p in page.problems}) < MAX_LIMIT or not fresh:
            break
    return found


async def read_each_workload(tier1: Any, ids: Iterable[str], requests: int) -> int:
    """Read each workload by id (`requests` at once), for a recording: a replay serves a pod only beside its
    workload's own object. Returns how many reads failed (each is kept in the recording as it came)."""
    gate = asyncio.Semaphore(requests)

    async def one(wid: str) -> bool:
        async with gate:
            try:
                await tier1.get_workload(wid)
            except Exception:
                return False
            return True

    done = await asyncio.gather(*(one(wid) for wid in ids))
    return done.count(False)
