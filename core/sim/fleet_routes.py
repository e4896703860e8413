"""The Run:ai read endpoints about the fleet rather than one workload: the tenant-wide pod list and the nodes.

- `GET /api/v1/workloads/pods`: every pod of the bundle's workloads, paged (`offset`, `limit`, `next`); only the
  deleted ones with `deleted=true`, only the live ones without it (as a workload's own pods endpoint);
  `completed=true|false` keeps the pods with or without a `completedAt`; `filterBy` and `sortBy` on the fields
  the 2.24 document lists (`core.sim.pod_index.POD_FIELDS`); `verbosity=full` keeps `workloadName` and
  `projectName`, which the default `brief` answer leaves out.
- `GET /api/v1/nodes` and `GET /api/v1/clusters/{clusterUuid}/nodes`: the bundle's top-level `nodes`,
  `filterBy`/`sortBy` on the document's node fields, `offset`/`limit`; the body is the SDK's `Nodes`
  (`{"nodes": [...]}`, which has no `next`: a client pages until a short page).
"""

from __future__ import annotations

from typing import Any

from core.sim.bundle import show
from core.sim.exchange import Route, RouteContext, SimResponse, api_error, json_response
from core.sim.filtering import (
    ListField,
    QueryError,
    apply_conditions,
    list_fields,
    page,
    parse_filter_by,
    parse_paging,
    query_bool,
    query_get,
    query_values,
    sort_items,
    sort_order,
)
from core.sim.pod_index import POD_FIELDS, pod_index_of

# The node fields of the 2.24 document's filterBy pattern and `NodeFilterSortFields`.
NODE_FIELDS: dict[str, ListField] = list_fields(
    "text", "name", "status", "nodePool", "gpuType", "nvLinkDomainUid", "nvLinkCliqueId", "clusterUuid",
    paths={"gpuType": ("gpuInfo", "gpuType")},
)
# What `verbosity=full` adds to a pod of the tenant-wide list.
FULL_ONLY_KEYS = ("workloadName", "projectName")
VERBOSITY = ("brief", "full")


def same_cluster(a: str, b: str) -> bool:
    # Cluster ids are UUIDs, the same whatever their letters' case (the simulator loads no models to say so).
    return a.strip().casefold() == b.strip().casefold()


def _completed(ctx: RouteContext) -> bool | None:
    value = (query_get(ctx.query, "completed") or "").lower()
    if value in ("", "all"):
        return None
    if value in ("true", "false"):
        return value == "true"
    raise QueryError(f"completed: expected true, false or all, got '{show(value)}'")


def _sort(ctx: RouteContext, fields: dict[str, ListField]) -> tuple[str | None, bool]:
    sort_by = query_get(ctx.query, "sortBy") or None
    if sort_by and sort_by not in fields:
        raise QueryError(f"sortBy: unknown field '{show(sort_by)}'")
    return sort_by, sort_order(ctx.query) == "desc"


def list_pods(ctx: RouteContext) -> SimResponse:
    try:
        deleted = query_bool(ctx.query, "deleted")
        completed = _completed(ctx)
        conditions = parse_filter_by(query_values(ctx.query, "filterBy"), POD_FIELDS)
        sort_by, descending = _sort(ctx, POD_FIELDS)
        verbosity = (query_get(ctx.query, "verbosity") or "brief").lower()
        if verbosity not in VERBOSITY:
            raise QueryError(f"verbosity: expected brief or full, got '{show(verbosity)}'")
        offset, limit = parse_paging(ctx.query)
    except QueryError as exc:
        return api_error(400, str(exc))
    chunk, nxt = pod_index_of(ctx.bundle).page(
        offset, limit, deleted=deleted, completed=completed, conditions=conditions, sort_by=sort_by,
        descending=descending,
    )
    if verbosity == "brief":
        chunk = [{k: v for k, v in pod.items() if k not in FULL_ONLY_KEYS} for pod in chunk]
    body: dict[str, Any] = {"pods": chunk}
    if nxt is not None:
        body["next"] = nxt
    return json_response(200, body)


def _nodes(ctx: RouteContext, nodes: list[dict[str, Any]]) -> SimResponse:
    try:
        conditions = parse_filter_by(query_values(ctx.query, "filterBy"), NODE_FIELDS)
        sort_by, descending = _sort(ctx, NODE_FIELDS)
        offset, limit = parse_paging(ctx.query)
    except QueryError as exc:
        return api_error(400, str(exc))
    search = (query_get(ctx.query, "search") or "").lower()
    chosen = [n for n in apply_conditions(nodes, conditions) if not search or search in str(n.get("name", "")).lower()]
    if sort_by:
        chosen = sort_items(chosen, NODE_FIELDS[sort_by], descending, tie=lambda n: str(n.get("name", "")))
    chunk, _ = page(chosen, offset, limit)
    return json_response(200, {"nodes": chunk})


def tenant_nodes(ctx: RouteContext) -> SimResponse:
    return _nodes(ctx, ctx.bundle.nodes)


def cluster_nodes(ctx: RouteContext) -> SimResponse:
    wanted = ctx.params["clusterUuid"]
    known = [str(c.get("uuid") or "") for c in ctx.bundle.clusters]
    if known and not any(same_cluster(uuid, wanted) for uuid in known):
        return api_error(404, f"cluster {show(wanted)} not found")
    name = query_get(ctx.query, "nodeName")
    mine = [
        n for n in ctx.bundle.nodes
        if same_cluster(str(n.get("clusterUuid") or ""), wanted) and (not name or n.get("name") == name)
    ]
    return _nodes(ctx, mine)


# Before `/api/v1/workloads/{id}`: `pods` is not a workload id.
FLEET_ROUTES: list[Route] = [
    Route("/api/v1/workloads/pods", list_pods),
    Route("/api/v1/nodes", tenant_nodes),
    Route("/api/v1/clusters/{clusterUuid}/nodes", cluster_nodes),
]
