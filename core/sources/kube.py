"""Tier 2: Kubernetes evidence (pod, previous logs, events, node) through the official ``kubernetes`` client.

Every read goes through the six GET reads of ``CoreReads`` (``kube_core_v1``: the requests ``CoreV1Api`` sends,
without loading its 250 models) and comes back unread, so the raw bytes are parsed by our own tolerant models
(unknown fields kept, bad fields reported, nothing lost), with an explicit ``(connect, read)`` timeout. Every
failure the API or the network can produce comes back as a ``Missing`` whose ``why`` a user can act on; nothing
here raises for them.

The client is synchronous; the ``async`` methods run it in a worker thread so the engine can issue reads
concurrently.

Worst-case time of one read: its deadline (``KubeSettings.deadline``, 20 s by default, or what is left of the
diagnosis budget if less) covers connecting, the response head, the retry urllib3 may make and the whole body;
a watchdog shuts the socket when it passes (``kube_deadline``), so a server trickling one byte every few seconds
is cut off on time. A log read that falls back from the previous to the current instance makes two such reads.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import urllib3
from kubernetes.client.exceptions import ApiException

from core.models.base import preview
from core.models.kube import K8sEvent, K8sNode, K8sPod
from core.models.pages import ShapeError, parse_json, parse_object, parse_page
from core.plural import duration
from core.safety.untrusted import clean_log
from core.sources.budget import remaining as budget_remaining
from core.sources.evidence import Missing
from core.sources.kube_config import KubeConnection, KubeSettings, KubeUnavailable, build_configuration
from core.sources.kube_containers import choose_log_container, terminated_without_restart
from core.sources.kube_core_v1 import CoreReads
from core.sources.kube_deadline import ReadDeadline
from core.sources.kube_explain import BodyTooLarge, ReadTooSlow, explain, host_of, log_400, status_message
from core.sources.kube_guard import read_only_api_client
from core.sources.kube_types import EVENTS_TTL, SOURCE_LOGS, ContainerChoice, KubeEvents, LogExcerpt, NodePods
from core.sources.namespace import NamespaceChoice, is_namespace_name
from core.sources.tap import Tap

# Names used in the report for where a piece of evidence came from (the kubectl equivalent of the read).
SOURCE_POD = "kubectl describe pod"
SOURCE_EVENTS = "kubectl get events"
SOURCE_NODE = "kubectl describe node"
SOURCE_NODE_PODS = "kubectl get pods --all-namespaces --field-selector spec.nodeName"
# A node runs at most 110 pods by the kubelet's default: one page of this size holds them all.
NODE_PODS_LIMIT = 500

LOG_TAIL_LINES = 500
LOG_LIMIT_BYTES = 1024 * 1024
# The API server may overshoot limitBytes slightly; anything beyond this is not read at all.
_LOG_READ_CAP = LOG_LIMIT_BYTES + 64 * 1024
MAX_LOG_LINE_CHARS = 2000
# The marker core.safety puts at the end of a line it had to cut.
_CUT_MARKER = re.compile(r"… \[\+\d+ chars\]$")
# A pod, node or event list far beyond this is not something a diagnosis needs to read whole.
MAX_JSON_BYTES = 16 * 1024 * 1024
_CHUNK = 64 * 1024
_HTML_ANSWER = "got an HTML page (Content-Type text/html): a proxy or login page in front of the API server?"

DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"
# Mesh and platform helpers that run next to the workload; their logs rarely explain its failure.
KNOWN_SIDECARS = frozenset({"istio-proxy", "linkerd-proxy", "vault-agent", "cloud-sql-proxy"})
_SIDECAR_PREFIXES = ("runai-sidecar",)

# DNS-1123 subdomain (pods, nodes) and label (containers): anything else is refused before any request.
_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_RBAC_DENIAL = re.compile(
    r'cannot (?P<verb>[a-z]+) resource "(?P<resource>[^"]+)"(?: in API group "[^"]*")?'
    r'(?: in the namespace "(?P<namespace>[^"]+)"| (?P<cluster>at the cluster scope))?'
)


class KubeSource:
    """Read-only Tier 2 reads. Build with a ``KubeConnection``; close when done."""

    def __init__(self, connection: KubeConnection, tap: Tap | None = None) -> None:
        self._connection = connection
        self._timeout = connection.timeout
        self._deadline_s = connection.deadline
        self._api_client = read_only_api_client(connection.configuration)
        if tap is not None:
            tap.kube_client(self._api_client)
        self._api = CoreReads(self._api_client)

    @property
    def origin(self) -> str:
        return self._connection.origin

    def close(self) -> None:
        self._api_client.close()

    # -- async API (what the engine calls) ---------------------------------------------------------
    async def pod(self, namespace: str | NamespaceChoice, name: str) -> K8sPod | Missing:
        """``read_namespaced_pod``; a 404 under an assumed namespace says the namespace may be wrong."""
        return await asyncio.to_thread(self.read_pod, namespace, name)

    async def logs(self, pod: K8sPod, container: str | None = None) -> LogExcerpt | Missing:
        """The previous instance's log of the container that explains the failure (or ``container``)."""
        return await asyncio.to_thread(self.read_logs, pod, container)

    async def pod_events(
        self,
        namespace: str,
        pod_name: str,
        pod_uid: str | None = None,
        *,
        failed_at: datetime | None = None,
        now: datetime | None = None,
        ttl: timedelta = EVENTS_TTL,
    ) -> KubeEvents | Missing:
        """Events about one pod, without those of older pods that had the same name."""
        return await asyncio.to_thread(
            self.read_pod_events, namespace, pod_name, pod_uid, failed_at=failed_at, now=now, ttl=ttl
        )

    async def node_events(
        self,
        node_name: str,
        *,
        failed_at: datetime | None = None,
        now: datetime | None = None,
        ttl: timedelta = EVENTS_TTL,
    ) -> KubeEvents | Missing:
        """Events whose involved object is the node (OOM kills, NotReady, evictions often live only there)."""
        return await asyncio.to_thread(
            self.read_node_events, node_name, failed_at=failed_at, now=now, ttl=ttl
        )

    async def node(self, name: str) -> K8sNode | Missing:
        """``read_node``; called only when the engine asks (node-failure evidence)."""
        return await asyncio.to_thread(self.read_node, name)

    async def node_pods(self, node_name: str, limit: int = NODE_PODS_LIMIT) -> NodePods | Missing:
        """The pods on one node, in every namespace (``list_pod_for_all_namespaces`` by field selector): one
        request, one page; called only for a node-level infrastructure finding."""
        return await asyncio.to_thread(self.read_node_pods, node_name, limit)

    # -- synchronous reads -------------------------------------------------------------------------
    def read_pod(self, namespace: str | NamespaceChoice, name: str) -> K8sPod | Missing:
        choice = namespace if isinstance(namespace, NamespaceChoice) else None
        ns = choice.namespace if choice is not None else namespace
        what = f"pod {preview(name)}"
        if ns is None:
            reason = choice.source if choice is not None else "no namespace given"
            return Missing(what, f"no namespace to look in: {reason}", SOURCE_POD)
        bad = _invalid_name(name, "pod") or _invalid_namespace(ns)
        if bad:
            return Missing(what, bad, SOURCE_POD)
        what = f"pod {name} in namespace {ns}"
        try:
            raw = self._body(
                lambda: self._api.read_namespaced_pod(
                    name, ns, _request_timeout=self._timeout
                ),
                MAX_JSON_BYTES,
            )
            return parse_object(parse_json(raw, "pod"), K8sPod, "pod")
        except Exception as exc:  # every failure becomes a gap; see _explain for which ones are expected
            assumed = choice is not None and choice.assumed
            return self._gap(exc, what, SOURCE_POD, not_found=_pod_not_found(name, ns, assumed))

    def read_logs(self, pod: K8sPod, container: str | None = None) -> LogExcerpt | Missing:
        meta = pod.metadata
        name, ns = (meta.name, meta.namespace) if meta is not None else (None, None)
        if not name or not ns:
            return Missing("container log", "the pod object carries no name or namespace", SOURCE_LOGS)
        choice = ContainerChoice(container, "asked for") if container else choose_log_container(pod)
        if choice is None:
            return Missing(f"log of pod {name}", "the pod lists no containers", SOURCE_LOGS)
        bad = _invalid_name(name, "pod") or _invalid_namespace(ns) or _invalid_container(choice.name)
        if bad:
            return Missing(f"log of pod {preview(name)}", bad, SOURCE_LOGS)
        what = f"previous log of container {choice.name} in pod {name}"
        not_found = f"pod {name} not found in namespace {ns} (404): it was probably deleted"
        if terminated_without_restart(pod, choice.name):
            # The instance that failed is the current one: asking for --previous would only earn a 400 and a
            # second round trip.
            note = "the container never restarted, so its current instance is the one that failed"
            try:
                data = self._log_bytes(name, ns, choice.name, previous=False)
                return _excerpt(data, choice, previous=False, note=note)
            except Exception as exc:
                return self._gap(exc, f"log of container {choice.name} in pod {name}", SOURCE_LOGS,
                                     not_found=not_found)
        try:
            data = self._log_bytes(name, ns, choice.name, previous=True)
            return _excerpt(data, choice, previous=True, note=None)
        except ApiException as exc:
            if exc.status != 400:
                return self._gap(exc, what, SOURCE_LOGS, not_found=not_found)
            first = status_message(exc)
        except Exception as exc:
            return self._gap(exc, what, SOURCE_LOGS, not_found=not_found)
        # 400 on --previous: there is no earlier instance (never restarted, or still waiting). The current
        # instance is the next best thing, labelled so nobody mistakes it for the crashed one.
        note = f"no previous instance (the API server said: {first}); this is the current instance's log"
        try:
            data = self._log_bytes(name, ns, choice.name, previous=False)
            return _excerpt(data, choice, previous=False, note=note)
        except ApiException as exc:
            if exc.status == 400:
                why = (
                    f"no log for container {choice.name}: previous instance: {log_400(first)}; "
                    f"current instance: {log_400(status_message(exc))}"
                )
                return Missing(f"log of container {choice.name} in pod {name}", why, SOURCE_LOGS)
            return self._gap(exc, f"log of container {choice.name} in pod {name}", SOURCE_LOGS,
                                 not_found=not_found)
        except Exception as exc:
            return self._gap(exc, f"log of container {choice.name} in pod {name}", SOURCE_LOGS,
                                 not_found=not_found)

    def read_pod_events(
        self,
        namespace: str,
        pod_name: str,
        pod_uid: str | None = None,
        *,
        failed_at: datetime | None = None,
        now: datetime | None = None,
        ttl: timedelta = EVENTS_TTL,
    ) -> KubeEvents | Missing:
        bad = _invalid_name(pod_name, "pod") or _invalid_namespace(namespace)
        if bad:
            return Missing(f"Kubernetes events of pod {preview(pod_name)}", bad, SOURCE_EVENTS)
        what = f"Kubernetes events of pod {pod_name} in namespace {namespace}"
        selector = f"involvedObject.name={pod_name},involvedObject.namespace={namespace}"
        try:
            raw = self._body(
                lambda: self._api.list_namespaced_event(
                    namespace, field_selector=selector, _request_timeout=self._timeout
                ),
                MAX_JSON_BYTES,
            )
            events, problems = _parse_events(raw)
        except Exception as exc:
            return self._gap(exc, what, SOURCE_EVENTS, not_found=f"namespace {namespace} not found (404)")
        kept = [e for e in events if not _is_stale(e, pod_uid)]
        found = KubeEvents(_by_time(kept), selector, len(events) - len(kept), problems)
        return _expired_or(found, what, failed_at, now, ttl)

    def read_node_events(
        self,
        node_name: str,
        *,
        failed_at: datetime | None = None,
        now: datetime | None = None,
        ttl: timedelta = EVENTS_TTL,
    ) -> KubeEvents | Missing:
        bad = _invalid_name(node_name, "node")
        if bad:
            return Missing(f"Kubernetes events of node {preview(node_name)}", bad, SOURCE_EVENTS)
        what = f"Kubernetes events of node {node_name}"
        selector = f"involvedObject.kind=Node,involvedObject.name={node_name}"
        try:
            raw = self._body(
                lambda: self._api.list_event_for_all_namespaces(
                    field_selector=selector, _request_timeout=self._timeout
                ),
                MAX_JSON_BYTES,
            )
            events, problems = _parse_events(raw)
        except Exception as exc:
            why = "the events endpoint was not found (404)"
            return self._gap(exc, what, SOURCE_EVENTS, not_found=why)
        return _expired_or(KubeEvents(_by_time(events), selector, 0, problems), what, failed_at, now, ttl)

    def read_node(self, name: str) -> K8sNode | Missing:
        bad = _invalid_name(name, "node")
        if bad:
            return Missing(f"node {preview(name)}", bad, SOURCE_NODE)
        what = f"node {name}"
        try:
            raw = self._body(
                lambda: self._api.read_node(name, _request_timeout=self._timeout),
                MAX_JSON_BYTES,
            )
            return parse_object(parse_json(raw, "node"), K8sNode, "node")
        except Exception as exc:
            why = f"node {name} not found (404): it may have left the cluster (scale-down, repair)"
            return self._gap(exc, what, SOURCE_NODE, not_found=why)

    def read_node_pods(self, node_name: str, limit: int = NODE_PODS_LIMIT) -> NodePods | Missing:
        bad = _invalid_name(node_name, "node")
        if bad:
            return Missing(f"pods on node {preview(node_name)}", bad, SOURCE_NODE_PODS)
        what = f"pods on node {node_name} (all namespaces)"
        selector = f"spec.nodeName={node_name}"
        try:
            raw = self._body(
                lambda: self._api.list_pod_for_all_namespaces(
                    field_selector=selector, limit=limit, _request_timeout=self._timeout
                ),
                MAX_JSON_BYTES,
            )
            body = _list_body(raw, "pod list")
            page = parse_page(body, "items", K8sPod, max_items=limit)
        except Exception as exc:
            return self._gap(exc, what, SOURCE_NODE_PODS, not_found="the pods endpoint was not found (404)")
        meta = body.get("metadata") if isinstance(body, dict) else None
        more = isinstance(meta, dict) and bool(meta.get("continue"))
        return NodePods(node_name, page.items, limit, more, [p.message for p in page.problems])

    # -- plumbing ----------------------------------------------------------------------------------
    def _log_bytes(self, name: str, ns: str, container: str, *, previous: bool) -> bytes:
        return self._body(
            lambda: self._api.read_namespaced_pod_log(
                name,
                ns,
                container=container,
                previous=previous,
                tail_lines=LOG_TAIL_LINES,
                limit_bytes=LOG_LIMIT_BYTES,
                _request_timeout=self._timeout,
            ),
            _LOG_READ_CAP,
            overflow_ok=True,
        )

    def _body(self, call: Callable[[], Any], cap: int, *, overflow_ok: bool = False) -> bytes:
        """Send the request and read at most ``cap`` bytes of the answer, all within the read's deadline."""
        seconds, budget = self._deadline_s, False
        left = budget_remaining()
        if left is not None and left < seconds:
            seconds, budget = left, True
        if seconds <= 0:
            raise ReadTooSlow(0.0, 0, budget=True)
        chunks: list[bytes] = []
        with ReadDeadline(seconds, budget=budget) as scope:
            try:
                self._read_capped(call, cap, overflow_ok, chunks)
            except Exception as exc:
                if scope.expired:
                    raise ReadTooSlow(seconds, sum(map(len, chunks)), budget=budget) from exc
                raise
            if scope.expired:
                # A socket shut at the deadline can look like the end of a body sent without a length.
                raise ReadTooSlow(seconds, sum(map(len, chunks)), budget=budget)
        return b"".join(chunks)

    @staticmethod
    def _read_capped(call: Callable[[], Any], cap: int, overflow_ok: bool, chunks: list[bytes]) -> None:
        """Read the answer of ``call()`` into ``chunks``, at most ``cap`` bytes."""
        response: urllib3.BaseHTTPResponse = call()
        size = 0
        complete = False
        try:
            if "html" in (response.headers.get("content-type") or "").lower():
                # The API server never answers in HTML; a proxy or a login page in front of it does (and a log
                # read would otherwise pass the page off as the container's output).
                raise ShapeError(_HTML_ANSWER)
            while size < cap:
                chunk = response.read(min(_CHUNK, cap - size))
                if not chunk:
                    complete = True
                    return
                chunks.append(chunk)
                size += len(chunk)
            if overflow_ok:
                return
            raise BodyTooLarge(cap)
        finally:
            if not complete:
                # Unread bytes would poison the next request on a reused connection: drop it instead.
                response.close()
            response.release_conn()

    def _gap(self, exc: Exception, what: str, source: str, *, not_found: str) -> Missing:
        return explain(
            exc,
            what,
            source,
            not_found=not_found,
            host=host_of(self._connection.configuration.host),
            origin=self._connection.origin,
            timeout=self._timeout,
        )

def open_kube_source(
    settings: KubeSettings, env: Mapping[str, str] | None = None, tap: Tap | None = None
) -> KubeSource | KubeUnavailable:
    """Build the connection from settings (see ``build_configuration``) and a source on it."""
    connection = build_configuration(settings) if env is None else build_configuration(settings, env)
    if isinstance(connection, KubeUnavailable):
        return connection
    return KubeSource(connection, tap)


# -- helpers -----------------------------------------------------------------------------------
def _excerpt(data: bytes, choice: ContainerChoice, *, previous: bool, note: str | None) -> LogExcerpt:
    over_limit = len(data) >= LOG_LIMIT_BYTES
    # clean_log decodes with replacement, redacts credentials, makes control sequences visible and cuts
    # overlong lines with a marker: log text is written by whoever controls the workload.
    lines = clean_log(data[:LOG_LIMIT_BYTES], max_line=MAX_LOG_LINE_CHARS)
    cut = any(_CUT_MARKER.search(line) for line in lines)
    # Reaching the line or byte bound means older output was left out.
    truncated = over_limit or cut or len(lines) >= LOG_TAIL_LINES
    return LogExcerpt(choice.name, previous, lines, truncated, note, choice.reason)


def _list_body(raw: bytes, what: str) -> Any:
    body = parse_json(raw, what)
    if isinstance(body, dict) and body.get("items") is None and "items" in body:
        body = {**body, "items": []}  # Go encodes an empty list as null
    return body


def _parse_events(raw: bytes) -> tuple[list[K8sEvent], list[str]]:
    page = parse_page(_list_body(raw, "event list"), "items", K8sEvent)
    return page.items, [p.message for p in page.problems]


def _is_stale(event: K8sEvent, pod_uid: str | None) -> bool:
    # An event without a uid cannot be told apart, so it is kept rather than silently dropped.
    uid = event.involved_object.uid if event.involved_object is not None else None
    return bool(pod_uid) and bool(uid) and uid != pod_uid


def _event_time(event: K8sEvent) -> datetime | None:
    series_time = event.series.last_observed_time if event.series is not None else None
    return series_time or event.last_timestamp or event.event_time or event.first_timestamp


def _by_time(events: Iterable[K8sEvent]) -> list[K8sEvent]:
    floor = datetime.min.replace(tzinfo=UTC)
    return sorted(events, key=lambda e: _event_time(e) or floor)


def _expired_or(
    found: KubeEvents, what: str, failed_at: datetime | None, now: datetime | None, ttl: timedelta
) -> KubeEvents | Missing:
    if found.items or failed_at is None:
        return found
    failed_at = failed_at if failed_at.tzinfo is not None else failed_at.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    age = now - failed_at
    if age <= ttl:
        return found
    minutes = int(ttl.total_seconds() // 60)
    return Missing(
        what,
        f"no events came back, and the failure ({failed_at.isoformat()}) is {_age(age)} old: "
        f"kube-apiserver keeps events {minutes} min by default, so they have likely expired "
        "(not: nothing happened); Run:ai history outlives them"
        + (f" ({found.dropped_stale} events of an older pod with the same name were left out)"
           if found.dropped_stale else ""),
        SOURCE_EVENTS,
    )


def _age(age: timedelta) -> str:
    """How old, in the unit a person reads it in (`45 min`, `3 h 5 min`, `4 days`), never `109 h 51 min`."""
    return duration(age.total_seconds())


def _pod_not_found(name: str, ns: str, assumed: bool) -> str:
    if assumed:
        return (
            f"pod {name} not found in namespace {ns} (404), but that namespace was only assumed "
            f"(runai-<project>): the namespace may be wrong; the project may use another one"
        )
    return (
        f"pod {name} not found in namespace {ns} (404): the pod was probably deleted; Run:ai history and "
        "events may still tell what happened"
    )


def _invalid_name(name: Any, kind: str) -> str | None:
    if not isinstance(name, str) or not name or len(name) > 253 or _SUBDOMAIN.fullmatch(name) is None:
        return f"{preview(name)} is not a valid {kind} name; nothing was requested"
    return None


def _invalid_namespace(ns: Any) -> str | None:
    if not isinstance(ns, str) or not is_namespace_name(ns):
        return f"{preview(ns)} is not a valid namespace name; nothing was requested"
    return None


def _invalid_container(name: Any) -> str | None:
    if not isinstance(name, str) or not is_namespace_name(name):
        return f"{preview(name)} is not a valid container name; nothing was requested"
    return None
