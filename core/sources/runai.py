"""The Run:ai control-plane REST client (Tier 1): typed, read-only, with retries and token handling.

One `httpx.AsyncClient` per `RunaiClient`, always behind `ReadOnlyTransport`, so nothing but GET (and the
token POST) can leave it. Each call: get a token, GET with retries, on a 401 refresh once and replay once,
map the status to an error class, then parse the body with the tolerant parsers of `core.models.pages` (bad
items are reported on the page, a wrong envelope is a `MalformedResponse`).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode

import httpx

from core.models.base import ApiModel
from core.models.pages import (
    Page,
    ShapeError,
    parse_json,
    parse_list,
    parse_object,
    parse_object_bytes,
    parse_page_bytes,
)
from core.models.runai import (
    Cluster,
    HistoryRecord,
    InferenceRevision,
    MetricsResponse,
    Project,
    RunaiPod,
    Workload,
    WorkloadEvent,
)
from core.models.runai_spec import WorkloadSpecDoc
from core.models.spec_v2 import is_v2_document, spec_from_v2
from core.sources.bounded import DEFAULT_REQUEST_DEADLINE_S, MAX_BODY_BYTES, SUPPORTED_ENCODINGS, BoundedTransport
from core.sources.budget import remaining as budget_remaining
from core.sources.credentials import Credentials
from core.sources.errors import ApiError, ApiTimeout, MalformedResponse, safe_target, transport_failure
from core.sources.guard import ReadOnlyTransport, token_paths
from core.sources.metrics_body import MAX_SERIES_PER_TYPE, read_metrics
from core.sources.retry import Clock, Rand, RetryPolicy, Sleep, in_effect, run_with_retry
from core.sources.runai_answers import malformed, status_error, unreadable
from core.sources.runai_fleet import FleetReads
from core.sources.runai_params import (
    MAX_CLUSTERS,
    MAX_LIMIT,
    MAX_SAMPLES,
    MAX_UNPAGED,
    base_url_of,
    check_filters,
    check_paging,
    check_sort_order,
    default_transport,
    filter_item,
    invalid_workload_id,
    iso,
    segment,
    spec_path,
)
from core.sources.tap import Tap
from core.sources.tokens import DEFAULT_REFRESH_MARGIN_S, ClientCredentialTokens, StaticTokens, token_source

if TYPE_CHECKING:  # loaded with the first history page: the picker never reads one
    from core.models.history_compact import CompactRecord

M = TypeVar("M", bound=ApiModel)
P = TypeVar("P")  # what a body parses to

DEFAULT_TIMEOUT = httpx.Timeout(connect=5.0, read=30.0, write=10.0, pool=5.0)
# One call (token, every attempt and the waits between them) ends within this, whatever the server does.
DEFAULT_CALL_DEADLINE_S = 60.0
USER_AGENT = "runai-triage/0.1 (read-only)"

# The request checks live in runai_params; these are re-exported because callers know them from here.
__all__ = ["MAX_LIMIT", "MAX_SAMPLES", "RunaiClient", "filter_item", "invalid_workload_id", "spec_path"]


class RunaiClient(FleetReads):
    """Read-only client of one Run:ai tenant. Use as `async with RunaiClient(url, creds) as client:` (the
    fleet's reads, the tenant-wide pods and the nodes, are in core.sources.runai_fleet)."""

    def __init__(
        self,
        base_url: str,
        credentials: Credentials,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        clock: Clock = time.time,
        sleep: Sleep = asyncio.sleep,
        rand: Rand = random.random,
        refresh_margin_s: float = DEFAULT_REFRESH_MARGIN_S,
        max_body_bytes: int = MAX_BODY_BYTES,
        request_deadline_s: float = DEFAULT_REQUEST_DEADLINE_S,
        call_deadline_s: float = DEFAULT_CALL_DEADLINE_S,
        tap: Tap | None = None,
    ) -> None:
        url = base_url_of(base_url)
        self.base_url = str(url).rstrip("/")
        self._timeout = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
        self._retry = retry or RetryPolicy()
        self._clock = clock
        self._sleep = sleep
        self._rand = rand
        if not call_deadline_s > 0:
            raise ValueError(f"call_deadline_s must be positive, got {call_deadline_s!r}")
        self._call_deadline_s = call_deadline_s
        inner = transport if transport is not None else default_transport(url)
        # The guard sits right above the network, where the bytes leave, so nothing above it (the deadline and
        # body cap, the client, code reaching past the client) can send a write.
        guarded = ReadOnlyTransport(inner, allowed_posts=token_paths(url.path))
        bounded: httpx.AsyncBaseTransport = BoundedTransport(
            guarded, max_body_bytes=max_body_bytes, deadline_s=request_deadline_s
        )
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            # A tap (`record`) sees the bounded answers the client reads; the guard stays below it, at the network.
            transport=tap.runai_transport(bounded, url.path) if tap is not None else bounded,
            timeout=self._timeout,
            follow_redirects=False,
            headers={"User-Agent": USER_AGENT, "Accept": "application/json", "Accept-Encoding": SUPPORTED_ENCODINGS},
        )
        self._tokens: StaticTokens | ClientCredentialTokens = token_source(
            credentials,
            self._http,
            self.base_url,
            clock=clock,
            sleep=sleep,
            rand=rand,
            retry=self._retry,
            refresh_margin_s=refresh_margin_s,
            read_timeout_s=lambda: self._timeout.read,
        )

    # -- lifecycle ---------------------------------------------------------------------------------
    async def __aenter__(self) -> RunaiClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    @property
    def http(self) -> httpx.AsyncClient:
        """The underlying httpx client (already behind the read-only guard)."""
        return self._http

    @property
    def tokens(self) -> StaticTokens | ClientCredentialTokens:
        return self._tokens

    # -- endpoints ---------------------------------------------------------------------------------
    async def list_workloads(
        self,
        *,
        filters: Sequence[str] | None = None,
        sort_by: str | None = None,
        sort_order: str | None = None,
        offset: int = 0,
        limit: int = 50,
        deleted: bool | None = None,
        search: str | None = None,
    ) -> Page[Workload]:
        """`GET /api/v1/workloads`; `filters` are items made by `filter_item`, joined into one `filterBy`."""
        check_paging(offset, limit)
        check_sort_order(sort_order)
        params = {
            "filterBy": check_filters(filters),
            "sortBy": sort_by,
            "sortOrder": sort_order,
            "offset": offset,
            "limit": limit,
            "deleted": deleted,
            "search": search,
        }
        return await self._get_page(
            "/api/v1/workloads", params, resource="workloads", key="workloads", model=Workload
        )

    async def count_workloads(self, filters: Sequence[str] | None = None, deleted: bool | None = None) -> int:
        path = "/api/v1/workloads/count"
        params = {"filterBy": check_filters(filters), "deleted": deleted}
        body = await self._get_json(path, params, resource="workloads")
        count = body.get("count") if isinstance(body, dict) else None
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            target = self._target(path, params)
            raise MalformedResponse("GET", target, 'expected {"count": <non-negative integer>}')
        return count

    async def get_workload(self, workload_id: str) -> Workload:
        path = f"/api/v1/workloads/{segment(workload_id)}"
        content = await self._get_bytes(path, {}, resource="workloads")
        try:
            return parse_object_bytes(content, Workload, path)
        except ShapeError as exc:
            raise self._unreadable(path, {}, content, exc) from None

    async def get_events(
        self, workload_id: str, *, offset: int = 0, limit: int = MAX_LIMIT, sort_order: str = "desc"
    ) -> Page[WorkloadEvent]:
        check_paging(offset, limit)
        check_sort_order(sort_order)
        path = f"/api/v1/workloads/{segment(workload_id)}/events"
        params = {"offset": offset, "limit": limit, "sortOrder": sort_order}
        return await self._get_page(
            path, params, resource="workload events", key="events", model=WorkloadEvent
        )

    async def get_spec(self, workload_id: str, workload_type: str | None) -> WorkloadSpecDoc:
        """The submitted spec from the kind-specific endpoint chosen by `workload_type`."""
        path = spec_path(workload_id, workload_type)
        body = await self._get_json(path, {}, resource="workload specs")
        if is_v2_document(body):  # a v2 / third-party kind: the manifest's pod templates, per replica role
            return spec_from_v2(body)
        return self._object(path, {}, body, WorkloadSpecDoc)

    async def get_pods(
        self, workload_id: str, *, deleted: bool | None = None, offset: int = 0, limit: int = MAX_LIMIT
    ) -> Page[RunaiPod]:
        check_paging(offset, limit)
        path = f"/api/v1/workloads/{segment(workload_id)}/pods"
        params = {"deleted": deleted, "offset": offset, "limit": limit}
        return await self._get_page(
            path, params, resource="workload pods", key="pods", model=RunaiPod
        )

    async def get_history(
        self, workload_id: str, *, offset: int = 0, limit: int = MAX_LIMIT
    ) -> Page[CompactRecord]:
        """A page of the workload's history, its records compact (a long history is tens of thousands)."""
        from core.models.history_compact import parse_history_bytes

        check_paging(offset, limit)
        path = f"/api/v1/workloads/{segment(workload_id)}/history"
        params = {"offset": offset, "limit": limit}
        return await self._get_parsed(
            path, params, "workload history", lambda raw, most: parse_history_bytes(raw, max_items=most)
        )

    async def get_metrics(
        self,
        workload_id: str,
        types: Sequence[str],
        start: datetime,
        end: datetime,
        samples: int = MAX_SAMPLES,
    ) -> MetricsResponse:
        """Sampled metrics; 207 (some types missing) is a success and simply has fewer series."""
        path = f"/api/v1/workloads/{segment(workload_id)}/metrics"
        return await self._metrics(path, types, start, end, samples)

    async def get_pod_metrics(
        self,
        workload_id: str,
        pod_id: str,
        types: Sequence[str],
        start: datetime,
        end: datetime,
        samples: int = MAX_SAMPLES,
    ) -> MetricsResponse:
        """One pod's own series (`podId` is the Run:ai pod id); same parameters and body as the workload's."""
        path = f"/api/v1/workloads/{segment(workload_id)}/pods/{segment(pod_id)}/metrics"
        return await self._metrics(path, types, start, end, samples)

    async def _metrics(
        self, path: str, types: Sequence[str], start: datetime, end: datetime, samples: int
    ) -> MetricsResponse:
        if isinstance(types, str) or not types or not all(isinstance(t, str) and t for t in types):
            raise ValueError("types must be a non-empty sequence of metric type names")
        if any("," in t for t in types):
            raise ValueError("a metric type name must not contain a comma")
        if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
            raise ValueError(f"samples must be an integer from 1 to {MAX_SAMPLES}, got {samples!r}")
        start_text, end_text = iso(start, "start"), iso(end, "end")
        if end <= start:
            raise ValueError("end must be after start")
        params = {
            "metricType": ",".join(types),
            "start": start_text,
            "end": end_text,
            "numberOfSamples": samples,
        }
        content = await self._get_bytes(path, params, resource="workload metrics", ok=(200, 207))
        try:
            response, cuts = read_metrics(content, len(types) * MAX_SERIES_PER_TYPE, samples, path)
        except ShapeError as exc:
            raise self._unreadable(path, params, content, exc) from None
        for cut in cuts:
            response.add_parse_problem(cut)
        return response

    # -- inference revisions (whether the workload-level feeds cover every revision is UNVERIFIED) ----------
    async def list_inference_revisions(
        self, workload_id: str, *, deleted: bool | None = None
    ) -> Page[InferenceRevision]:
        """`GET .../inferences/{id}/revisions`: not paged (the endpoint takes only `deleted`), one bare list."""
        path = f"/api/v1/workloads/inferences/{segment(workload_id)}/revisions"
        params = {"deleted": deleted}
        return await self._get_unpaged(path, params, "inference revisions", "revisions", InferenceRevision)

    async def get_revision_pods(self, revision_id: str, *, deleted: bool | None = None) -> Page[RunaiPod]:
        """A revision's pods: not paged (the endpoint takes only `deleted`); `deleted=True` gives only the deleted."""
        path = f"/api/v1/workloads/inferences/revisions/{segment(revision_id)}/pods"
        return await self._get_unpaged(path, {"deleted": deleted}, "revision pods", "pods", RunaiPod)

    async def get_revision_events(self, revision_id: str, *, limit: int = MAX_LIMIT) -> Page[WorkloadEvent]:
        return await self._revision_feed(revision_id, "events", "events", WorkloadEvent, limit)

    async def get_revision_history(self, revision_id: str, *, limit: int = MAX_LIMIT) -> Page[HistoryRecord]:
        return await self._revision_feed(revision_id, "history", "records", HistoryRecord, limit)

    async def _revision_feed(self, revision_id: str, feed: str, key: str, model: type[M], limit: int) -> Page[M]:
        check_paging(0, limit)
        path = f"/api/v1/workloads/inferences/revisions/{segment(revision_id)}/{feed}"
        params = {"offset": 0, "limit": limit}
        return await self._get_page(
            path, params, resource=f"revision {feed}", key=key, model=model
        )

    async def list_clusters_page(self) -> Page[Cluster]:
        """`GET /api/v1/clusters` with per-item problems kept (the body is a bare list, so `next` is None)."""
        path = "/api/v1/clusters"
        body = await self._get_json(path, {}, resource="clusters")
        try:
            return parse_list(body, Cluster, "clusters", max_items=MAX_CLUSTERS)
        except ShapeError as exc:
            raise self._malformed(path, {}, exc) from None

    async def list_clusters(self) -> list[Cluster]:
        return (await self.list_clusters_page()).items

    async def list_projects(
        self,
        *,
        filters: Sequence[str] | None = None,
        sort_by: str | None = None,
        sort_order: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> Page[Project]:
        check_paging(offset, limit)
        check_sort_order(sort_order)
        path = "/api/v1/org-unit/projects"
        params = {
            "filterBy": check_filters(filters),
            "sortBy": sort_by,
            "sortOrder": sort_order,
            "offset": offset,
            "limit": limit,
        }
        return await self._get_page(
            path, params, resource="projects", key="projects", model=Project
        )

    # -- plumbing ----------------------------------------------------------------------------------
    @staticmethod
    def _query(params: Mapping[str, Any]) -> dict[str, str]:
        query: dict[str, str] = {}
        for key, value in params.items():
            if value is None:
                continue
            query[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return query

    def _target(self, path: str, params: Mapping[str, Any]) -> str:
        return safe_target(path, urlencode(self._query(params)))

    async def _get_json(
        self, path: str, params: Mapping[str, Any], *, resource: str, ok: Sequence[int] = (200,)
    ) -> Any:
        content = await self._get_bytes(path, params, resource=resource, ok=ok)
        try:
            return parse_json(content, "body")
        except ShapeError as exc:
            raise self._unreadable(path, params, content, exc) from None

    async def _get_page(
        self, path: str, params: Mapping[str, Any], *, resource: str, key: str, model: type[M]
    ) -> Page[M]:
        return await self._get_parsed(
            path, params, resource, lambda raw, most: parse_page_bytes(raw, key, model, max_items=most)
        )

    async def _get_unpaged(
        self, path: str, params: Mapping[str, Any], resource: str, key: str, model: type[M]
    ) -> Page[M]:
        """A list the endpoint does not page: read whole, its items kept up to MAX_UNPAGED (a cut says so)."""
        return await self._get_parsed(
            path, params, resource, lambda raw, _: parse_page_bytes(raw, key, model, max_items=MAX_UNPAGED)
        )

    async def _get_parsed(
        self, path: str, params: Mapping[str, Any], resource: str, parse: Callable[[bytes, int | None], P]
    ) -> P:
        """A page read and parsed by ``parse`` (given the body and the limit asked for): a page longer than the
        limit is cut there (and says so)."""
        content = await self._get_bytes(path, params, resource=resource)
        limit = params.get("limit")
        try:
            return parse(content, limit if isinstance(limit, int) else None)
        except ShapeError as exc:
            raise self._unreadable(path, params, content, exc) from None

    def _unreadable(self, path: str, params: Mapping[str, Any], content: bytes, exc: ShapeError) -> MalformedResponse:
        return unreadable(self._target(path, params), content, exc, self._tokens.secrets())

    async def _get_bytes(
        self, path: str, params: Mapping[str, Any], *, resource: str, ok: Sequence[int] = (200,)
    ) -> bytes:
        query = self._query(params)
        target = self._target(path, params)
        limit, reason = self._call_limit()
        if limit <= 0:
            raise ApiTimeout("GET", target, 0.0, 0, reason)
        try:
            async with asyncio.timeout(limit) as scope:
                content = await self._exchange(path, query, target, resource, ok)
        except TimeoutError:
            if not scope.expired():
                raise
            raise ApiTimeout("GET", target, limit, 0, reason) from None
        return content

    def _call_limit(self) -> tuple[float, str]:
        """Seconds this call may take in all, and the reason to give when it runs out."""
        left = budget_remaining()
        if left is not None and left < self._call_deadline_s:
            return left, "the diagnosis time budget ran out before this read could finish"
        return self._call_deadline_s, (
            f"no complete answer within {self._call_deadline_s:g} s, retries included (the deadline for one read): "
            "the server is too slow or trickling its answers"
        )

    async def _exchange(
        self, path: str, query: dict[str, str], target: str, resource: str, ok: Sequence[int]
    ) -> bytes:
        """Token, GET with retries, one refresh-and-replay on a 401; the body of an accepted answer."""
        token = await self._tokens.token()
        response, attempts = await self._send_get(path, query, token, target)
        if response.status_code == 401:
            if not self._tokens.refreshable:
                raise self._tokens.refused("GET", target)
            # One refresh (shared with every call that saw the same 401) and one replay; never a loop.
            token = await self._tokens.refresh(token)
            response, attempts = await self._send_get(path, query, token, target)
            if response.status_code == 401:
                raise self._tokens.refused("GET", target)
        if response.status_code not in ok:
            raise self._status_error(target, resource, response, attempts)
        return response.content

    async def _send_get(
        self, path: str, query: dict[str, str], token: str, target: str
    ) -> tuple[httpx.Response, int]:
        headers = {"Authorization": f"Bearer {token}"}

        async def send() -> httpx.Response:
            return await self._http.get(path, params=query, headers=headers)

        outcome = await run_with_retry(
            send, method="GET", policy=in_effect(self._retry), sleep=self._sleep, rand=self._rand, clock=self._clock
        )
        if outcome.response is None:
            assert outcome.error is not None
            raise transport_failure(
                "GET", target, self.base_url, outcome.error, outcome.attempts, self._timeout.read
            ) from outcome.error
        return outcome.response, outcome.attempts

    def _status_error(self, target: str, resource: str, response: httpx.Response, attempts: int) -> ApiError:
        return status_error(target, resource, response, attempts, self._tokens.secrets())

    def _malformed(self, path: str, params: Mapping[str, Any], exc: ShapeError) -> MalformedResponse:
        return malformed(self._target(path, params), exc, self._tokens.secrets())

    def _object(self, path: str, params: Mapping[str, Any], body: Any, model: type[M]) -> M:
        try:
            return parse_object(body, model, path)
        except ShapeError as exc:
            raise self._malformed(path, params, exc) from None
