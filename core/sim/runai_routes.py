"""The Run:ai control-plane read endpoints, answered from a case bundle (see docs/case-format.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.models.kinds import kind_of
from core.sim.bundle import parse_instant, show
from core.sim.exchange import Route, RouteContext, SimResponse, api_error, json_response
from core.sim.filtering import (
    PROJECT_FIELDS,
    WORKLOAD_FIELDS,
    QueryError,
    apply_conditions,
    page,
    parse_filter_by,
    parse_paging,
    query_bool,
    query_get,
    query_values,
    sort_order,
)
from core.sim.sampling import DEFAULT_SAMPLES, MAX_SAMPLES, sample_series
from core.sim.workload_index import index_of

# Kind path segment -> the lower-cased workload `type` it serves.
SPEC_KINDS: dict[str, str] = {
    "trainings": "training",
    "workspaces": "workspace",
    "distributed": "distributed",
    "inferences": "inference",
    "distributed-inferences": "distributedinference",
}


def _bad(exc: QueryError) -> SimResponse:
    return api_error(400, str(exc))


def _entry(ctx: RouteContext) -> dict[str, Any] | SimResponse:
    wid = ctx.params["id"]
    entry = ctx.bundle.workload_entry(wid)
    if entry is None:
        return api_error(404, f"workload {show(wid)} not found")
    return entry


def _paged(key: str, items: list[Any], offset: int, limit: int) -> SimResponse:
    chunk, nxt = page(items, offset, limit)
    body: dict[str, Any] = {key: chunk}
    if nxt is not None:
        body["next"] = nxt
    return json_response(200, body)


# -- workloads list ------------------------------------------------------------------------------------------
def _workload_query(ctx: RouteContext, *, sorted_as_asked: bool) -> dict[str, Any]:
    """A workload list query from deleted/search/filterBy, and sortBy/sortOrder when `sorted_as_asked` (else
    bundle order); QueryError on bad parameters, checked in that order."""
    deleted = query_bool(ctx.query, "deleted")
    conditions = parse_filter_by(query_values(ctx.query, "filterBy"), WORKLOAD_FIELDS)
    search = (query_get(ctx.query, "search") or "").lower()
    sort_by: str | None = None
    descending = False
    if sorted_as_asked:
        sort_by = query_get(ctx.query, "sortBy") or None
        descending = sort_order(ctx.query) == "desc"
        if sort_by and sort_by not in WORKLOAD_FIELDS:
            raise QueryError(f"sortBy: unknown field '{show(sort_by)}'")
    return {
        "deleted": deleted, "search": search, "conditions": conditions, "sort_by": sort_by,
        "descending": descending,
    }


# A bundle holds each workload as `GET /workloads/{id}` answers it; the list's items (the SDK's `Workload`)
# lack what only that answer has.
DETAIL_ONLY_KEYS: tuple[str, ...] = ("pendingSchedulingMessages",)


def _listed(workload: dict[str, Any]) -> dict[str, Any]:
    if not any(key in workload for key in DETAIL_ONLY_KEYS):
        return workload
    return {key: value for key, value in workload.items() if key not in DETAIL_ONLY_KEYS}


def list_workloads(ctx: RouteContext) -> SimResponse:
    try:
        query = _workload_query(ctx, sorted_as_asked=True)
        offset, limit = parse_paging(ctx.query)
    except QueryError as exc:
        return _bad(exc)
    # Served from the bundle's index: the same page as filtering and sorting the whole list would give.
    chunk, nxt = index_of(ctx.bundle).page(offset, limit, **query)
    body: dict[str, Any] = {"workloads": [_listed(workload) for workload in chunk]}
    if nxt is not None:
        body["next"] = nxt
    return json_response(200, body)


def count_workloads(ctx: RouteContext) -> SimResponse:
    try:
        query = _workload_query(ctx, sorted_as_asked=False)
    except QueryError as exc:
        return _bad(exc)
    return json_response(200, {"count": index_of(ctx.bundle).count(**query)})


def get_workload(ctx: RouteContext) -> SimResponse:
    entry = _entry(ctx)
    if isinstance(entry, SimResponse):
        return entry
    return json_response(200, entry["workload"])


# -- per-workload reads --------------------------------------------------------------------------------------
def _time_key(value: object) -> float:
    when = parse_instant(value)
    return when.timestamp() if when is not None else float("-inf")


# A bundle does not change while it is served, so each list is sorted once, not once per page: a 20,000-record
# history is asked for 40 times. Keyed by the list's identity; the list itself is kept to pin that identity.
_SORTED: dict[tuple[int, str, bool], tuple[list[Any], list[Any]]] = {}
_SORTED_MAX = 256


def _sorted_by_time(items: list[Any], stamp: Callable[[Any], object], field: str, *, newest_first: bool) -> list[Any]:
    key = (id(items), field, newest_first)
    cached = _SORTED.get(key)
    if cached is not None and cached[0] is items and len(cached[1]) == len(items):
        return cached[1]
    ordered = sorted(items, key=lambda item: _time_key(stamp(item)), reverse=newest_first)
    if len(_SORTED) >= _SORTED_MAX:
        _SORTED.clear()
    _SORTED[key] = (items, ordered)
    return ordered


def workload_events(ctx: RouteContext) -> SimResponse:
    entry = _entry(ctx)
    if isinstance(entry, SimResponse):
        return entry
    if "events" in entry and entry["events"] is None:
        # The bundle's way of saying "the events fetch fails" (the seed's events: null).
        return api_error(500, "failed to fetch workload events")
    try:
        order = sort_order(ctx.query, default="desc")
        offset, limit = parse_paging(ctx.query)
    except QueryError as exc:
        return _bad(exc)
    events = _sorted_by_time(
        entry.get("events") or [], lambda e: e.get("createdAt"), "createdAt", newest_first=order == "desc"
    )
    return _paged("events", events, offset, limit)


def workload_pods(ctx: RouteContext) -> SimResponse:
    entry = _entry(ctx)
    if isinstance(entry, SimResponse):
        return entry
    try:
        deleted = query_bool(ctx.query, "deleted")
        offset, limit = parse_paging(ctx.query)
    except QueryError as exc:
        return _bad(exc)
    search = (query_get(ctx.query, "search") or "").lower()
    pods = [
        p
        for p in entry.get("pods") or []
        if bool(p.get("deletedAt")) == deleted and (not search or search in str(p.get("name", "")).lower())
    ]
    return _paged("pods", pods, offset, limit)


def workload_history(ctx: RouteContext) -> SimResponse:
    entry = _entry(ctx)
    if isinstance(entry, SimResponse):
        return entry
    try:
        offset, limit = parse_paging(ctx.query)
    except QueryError as exc:
        return _bad(exc)
    records = _sorted_by_time(
        entry.get("history") or [],
        lambda r: (r.get("meta") or {}).get("creationTimestamp"),
        "creationTimestamp",
        newest_first=True,
    )
    return _paged("records", records, offset, limit)


def _spec_for(ctx: RouteContext, kind: str | None) -> SimResponse:
    entry = _entry(ctx)
    if isinstance(entry, SimResponse):
        return entry
    # A kind's endpoint serves its workloads however their `type` is spelt ("Distributed Inference" too).
    wtype = kind_of(entry["workload"].get("type")) or str(entry["workload"].get("type") or "").lower()
    served_by_kind = wtype in SPEC_KINDS.values()
    if kind is None and entry.get("specV2") is not None:
        fits = True  # a v2 submission answers at /api/v2/workloads/{id} whatever its type says
    else:
        fits = not served_by_kind if kind is None else SPEC_KINDS[kind] == wtype
    if not fits:
        where = "/api/v2/workloads/{id}" if kind is None else f"/api/v1/workloads/{kind}/{{id}}"
        return api_error(404, f"workload {show(ctx.params['id'])} is not served by {where} (type {show(wtype)})")
    # The documented v2 document (`{workload: {metadata, desiredPhase, workloadManifest, ...}, syncInfo}`).
    spec = entry["specV2"] if kind is None and "specV2" in entry else entry.get("spec")
    if spec is None:
        return api_error(404, f"no spec for workload {show(ctx.params['id'])}")
    return json_response(200, spec)


def _spec_route(kind: str | None) -> Route:
    def handler(ctx: RouteContext) -> SimResponse:
        return _spec_for(ctx, kind)

    template = "/api/v2/workloads/{id}" if kind is None else f"/api/v1/workloads/{kind}/{{id}}"
    return Route(template, handler)


# -- metrics -------------------------------------------------------------------------------------------------
def _metrics_body(ctx: RouteContext, series: list[dict[str, Any]]) -> SimResponse:
    types_text = query_get(ctx.query, "metricType")
    types = [t.strip() for t in (types_text or "").split(",") if t.strip()]
    if not types:
        return api_error(400, "metricType is required (comma-separated metric types)")
    start_text, end_text = query_get(ctx.query, "start"), query_get(ctx.query, "end")
    if not start_text or not end_text:
        return api_error(400, f"{'start' if not start_text else 'end'} is required (ISO-8601)")
    start, end = parse_instant(start_text), parse_instant(end_text)
    if start is None:
        return api_error(400, f"start: not an ISO-8601 timestamp: '{show(start_text)}'")
    if end is None:
        return api_error(400, f"end: not an ISO-8601 timestamp: '{show(end_text)}'")
    if end < start:
        return api_error(400, "end is before start")
    samples_text = query_get(ctx.query, "numberOfSamples")
    samples = DEFAULT_SAMPLES
    if samples_text not in (None, ""):
        try:
            samples = int(samples_text)
        except ValueError:
            return api_error(400, f"numberOfSamples: expected an integer, got '{show(samples_text)}'")
        if not 1 <= samples <= MAX_SAMPLES:
            return api_error(400, f"numberOfSamples: must be between 1 and {MAX_SAMPLES}, got {samples}")
    measurements: list[dict[str, Any]] = []
    missing = 0
    for mtype in dict.fromkeys(types):
        matching = [s for s in series if s.get("type") == mtype]
        if not matching:
            missing += 1
            continue
        for s in matching:
            measurements.append(
                {
                    "type": mtype,
                    "labels": s.get("labels"),
                    "values": sample_series(s.get("values"), start, end, samples),
                }
            )
    status = 207 if missing and measurements else 200
    return json_response(status, {"measurements": measurements})


def _has_pod_label(series: dict[str, Any]) -> bool:
    labels = series.get("labels")
    return isinstance(labels, dict) and "podId" in labels


def workload_metrics(ctx: RouteContext) -> SimResponse:
    entry = _entry(ctx)
    if isinstance(entry, SimResponse):
        return entry
    # Series labelled with a podId belong to the pod-level endpoint.
    series = [s for s in entry.get("metrics") or [] if not _has_pod_label(s)]
    return _metrics_body(ctx, series)


def pod_metrics(ctx: RouteContext) -> SimResponse:
    entry = _entry(ctx)
    if isinstance(entry, SimResponse):
        return entry
    pod_id = ctx.params["podId"]
    # The documented `podMetrics` (pod id -> series), and series of `metrics` labelled with the pod's id.
    series = list((entry.get("podMetrics") or {}).get(pod_id) or [])
    series += [s for s in entry.get("metrics") or [] if _has_pod_label(s) and str(s["labels"]["podId"]) == pod_id]
    return _metrics_body(ctx, series)


# -- inference revisions -------------------------------------------------------------------------------------
def _revision(ctx: RouteContext) -> dict[str, Any] | SimResponse:
    """The `inferenceRevisions` item whose revision id is `{revisionId}`, searched across workloads."""
    rid = ctx.params["revisionId"]
    for entry in ctx.bundle.workloads:
        for item in entry.get("inferenceRevisions") or []:
            revision = item.get("revision") or {}
            if str(revision.get("id") or revision.get("revisionId") or "") == rid:
                return item
    return api_error(404, f"revision {show(rid)} not found")


def inference_revisions(ctx: RouteContext) -> SimResponse:
    """The revisions list: not paged (it takes only `deleted`), a bare `{"revisions": [...]}`."""
    entry = _entry(ctx)
    if isinstance(entry, SimResponse):
        return entry
    if kind_of(entry["workload"].get("type")) != "inference":
        return api_error(404, f"workload {show(ctx.params['id'])} is not an inference")
    try:
        deleted = query_bool(ctx.query, "deleted")
    except QueryError as exc:
        return _bad(exc)
    revisions = [item.get("revision") or {} for item in entry.get("inferenceRevisions") or []]
    return json_response(200, {"revisions": [r for r in revisions if bool(r.get("deletedAt")) == deleted]})


def revision_pods(ctx: RouteContext) -> SimResponse:
    """A revision's pods: not paged (it takes only `deleted`); with `deleted=true` only the deleted ones, as the
    workload's own pods endpoint does."""
    item = _revision(ctx)
    if isinstance(item, SimResponse):
        return item
    try:
        deleted = query_bool(ctx.query, "deleted")
    except QueryError as exc:
        return _bad(exc)
    pods = _sorted_by_time(item.get("pods") or [], lambda p: p.get("createdAt"), "createdAt", newest_first=True)
    return json_response(200, {"pods": [p for p in pods if bool(p.get("deletedAt")) == deleted]})


def _revision_feed(key: str, stamp: Callable[[Any], object], field: str) -> Callable[[RouteContext], SimResponse]:
    """A revision's events or history: paged like the workload's own (`offset`, `limit`; events `sortOrder`)."""

    def handler(ctx: RouteContext) -> SimResponse:
        item = _revision(ctx)
        if isinstance(item, SimResponse):
            return item
        try:
            newest_first = key != "events" or sort_order(ctx.query, default="desc") == "desc"
            offset, limit = parse_paging(ctx.query)
        except QueryError as exc:
            return _bad(exc)
        stored = {"records": "history"}.get(key, key)
        items = _sorted_by_time(item.get(stored) or [], stamp, field, newest_first=newest_first)
        return _paged(key, items, offset, limit)

    return handler


# -- org lookups ---------------------------------------------------------------------------------------------
def list_clusters(ctx: RouteContext) -> SimResponse:
    return json_response(200, ctx.bundle.clusters)


def list_projects(ctx: RouteContext) -> SimResponse:
    try:
        conditions = parse_filter_by(query_values(ctx.query, "filterBy"), PROJECT_FIELDS)
        offset, limit = parse_paging(ctx.query)
    except QueryError as exc:
        return _bad(exc)
    return _paged("projects", apply_conditions(ctx.bundle.projects, conditions), offset, limit)


# Literal paths first: /workloads/count and /workloads/<kind>/{id} must win over /workloads/{id}[/...].
RUNAI_ROUTES: list[Route] = [
    Route("/api/v1/workloads", list_workloads),
    Route("/api/v1/workloads/count", count_workloads),
    Route("/api/v1/workloads/inferences/{id}/revisions", inference_revisions),
    Route("/api/v1/workloads/inferences/revisions/{revisionId}/pods", revision_pods),
    Route(
        "/api/v1/workloads/inferences/revisions/{revisionId}/events",
        _revision_feed("events", lambda e: e.get("createdAt"), "createdAt"),
    ),
    Route(
        "/api/v1/workloads/inferences/revisions/{revisionId}/history",
        _revision_feed("records", lambda r: (r.get("meta") or {}).get("creationTimestamp"), "creationTimestamp"),
    ),
    *[_spec_route(kind) for kind in SPEC_KINDS],
    _spec_route(None),
    Route("/api/v1/workloads/{id}", get_workload),
    Route("/api/v1/workloads/{id}/events", workload_events),
    Route("/api/v1/workloads/{id}/pods", workload_pods),
    Route("/api/v1/workloads/{id}/history", workload_history),
    Route("/api/v1/workloads/{id}/metrics", workload_metrics),
    Route("/api/v1/workloads/{id}/pods/{podId}/metrics", pod_metrics),
    Route("/api/v1/clusters", list_clusters),
    Route("/api/v1/org-unit/projects", list_projects),
]
