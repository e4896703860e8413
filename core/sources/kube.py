"""Tier 2: Kubernetes evidence (pod, previous logs, events, node) through the official ``kubernetes`` client.

Every read goes through ``CoreV1Api`` read methods only, with ``_preload_content=False`` so the raw bytes are
parsed by our own tolerant models (unknown fields kept, bad fields reported, nothing lost), and with an
explicit ``(connect, read)`` timeout. Every failure the API or the network can produce comes back as a
``Missing`` whose ``why`` a user can act on; nothing here raises for them.

The client is synchronous; the ``async`` methods run it in a worker thread so the engine can issue reads
concurrently.

Worst-case time of one read: the connection's retry policy allows two attempts, and only when the first one
failed to connect or got a 5xx, so the response head takes at most ``2 * (connect + read)``; the body is then
read against a further budget of ``read`` seconds, each socket read itself bounded by ``read``, so at most
``2 * connect + 4 * read`` in all (46 s with the defaults 3 s / 10 s; a plain hang costs ``connect + read``).
A log read that falls back from the previous to the current instance makes two such reads.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import urllib3
from kubernetes.client import CoreV1Api
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import (
    ConnectTimeoutError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)

from core.models import safe_json
from core.models.base import preview
from core.models.kube import ContainerStatus, K8sEvent, K8sNode, K8sPod
from core.models.pages import ShapeError, parse_json, parse_object, parse_page
from core.safety.untrusted import clean_log
from core.sources.errors import body_excerpt
from core.sources.evidence import Missing
from core.sources.kube_config import KubeConnection, KubeSettings, KubeUnavailable, build_configuration
from core.sources.kube_guard import ReadOnlyViolation, read_only_api_client
from core.sources.kube_types import SOURCE_LOGS, ContainerChoice, KubeEvents, LogExcerpt
from core.sources.namespace import NamespaceChoice, is_namespace_name

# Names used in the report for where a piece of evidence came from (the kubectl equivalent of the read).
SOURCE_POD = "kubectl describe pod"
SOURCE_EVENTS = "kubectl get events"
SOURCE_NODE = "kubectl describe node"

LOG_TAIL_LINES = 500
LOG_LIMIT_BYTES = 1024 * 1024
# The API server may overshoot limitBytes slightly; anything beyond this is not read at all.
_LOG_READ_CAP = LOG_LIMIT_BYTES + 64 * 1024
MAX_LOG_LINE_CHARS = 2000
# The marker core.safety puts at the end of a line it had to cut.
_CUT_MARKER = re.compile(r"… \[\+\d+ chars\]$")
# A pod, node or event list far beyond this is not something a diagnosis needs to read whole.
MAX_JSON_BYTES = 16 * 1024 * 1024
EVENTS_TTL = timedelta(hours=1)
_CHUNK = 64 * 1024

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

    def __init__(self, connection: KubeConnection, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._connection = connection
        self._timeout = connection.timeout
        self._clock = clock
        self._api_client = read_only_api_client(connection.configuration)
        self._api = CoreV1Api(self._api_client)

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
                    name, ns, _preload_content=False, _request_timeout=self._timeout
                ),
                MAX_JSON_BYTES,
            )
            return parse_object(parse_json(raw, "pod"), K8sPod, "pod")
        except Exception as exc:  # every failure becomes a gap; see _explain for which ones are expected
            assumed = choice is not None and choice.assumed
            return self._explain(exc, what, SOURCE_POD, not_found=_pod_not_found(name, ns, assumed))

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
        if _terminated_without_restart(pod, choice.name):
            # The instance that failed is the current one: asking for --previous would only earn a 400 and a
            # second round trip.
            note = "the container never restarted, so its current instance is the one that failed"
            try:
                data = self._log_bytes(name, ns, choice.name, previous=False)
                return _excerpt(data, choice, previous=False, note=note)
            except Exception as exc:
                return self._explain(exc, f"log of container {choice.name} in pod {name}", SOURCE_LOGS,
                                     not_found=not_found)
        try:
            data = self._log_bytes(name, ns, choice.name, previous=True)
            return _excerpt(data, choice, previous=True, note=None)
        except ApiException as exc:
            if exc.status != 400:
                return self._explain(exc, what, SOURCE_LOGS, not_found=not_found)
            first = _status_message(exc)
        except Exception as exc:
            return self._explain(exc, what, SOURCE_LOGS, not_found=not_found)
        # 400 on --previous: there is no earlier instance (never restarted, or still waiting). The current
        # instance is the next best thing, labelled so nobody mistakes it for the crashed one.
        note = f"no previous instance (the API server said: {first}); this is the current instance's log"
        try:
            data = self._log_bytes(name, ns, choice.name, previous=False)
            return _excerpt(data, choice, previous=False, note=note)
        except ApiException as exc:
            if exc.status == 400:
                why = (
                    f"no log for container {choice.name}: previous instance: {_log_400(first)}; "
                    f"current instance: {_log_400(_status_message(exc))}"
                )
                return Missing(f"log of container {choice.name} in pod {name}", why, SOURCE_LOGS)
            return self._explain(exc, f"log of container {choice.name} in pod {name}", SOURCE_LOGS,
                                 not_found=not_found)
        except Exception as exc:
            return self._explain(exc, f"log of container {choice.name} in pod {name}", SOURCE_LOGS,
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
                    namespace, field_selector=selector, _preload_content=False, _request_timeout=self._timeout
                ),
                MAX_JSON_BYTES,
            )
            events, problems = _parse_events(raw)
        except Exception as exc:
            return self._explain(exc, what, SOURCE_EVENTS, not_found=f"namespace {namespace} not found (404)")
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
                    field_selector=selector, _preload_content=False, _request_timeout=self._timeout
                ),
                MAX_JSON_BYTES,
            )
            events, problems = _parse_events(raw)
        except Exception as exc:
            why = "the events endpoint was not found (404)"
            return self._explain(exc, what, SOURCE_EVENTS, not_found=why)
        return _expired_or(KubeEvents(_by_time(events), selector, 0, problems), what, failed_at, now, ttl)

    def read_node(self, name: str) -> K8sNode | Missing:
        bad = _invalid_name(name, "node")
        if bad:
            return Missing(f"node {preview(name)}", bad, SOURCE_NODE)
        what = f"node {name}"
        try:
            raw = self._body(
                lambda: self._api.read_node(name, _preload_content=False, _request_timeout=self._timeout),
                MAX_JSON_BYTES,
            )
            return parse_object(parse_json(raw, "node"), K8sNode, "node")
        except Exception as exc:
            why = f"node {name} not found (404): it may have left the cluster (scale-down, repair)"
            return self._explain(exc, what, SOURCE_NODE, not_found=why)

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
                _preload_content=False,
                _request_timeout=self._timeout,
            ),
            _LOG_READ_CAP,
            overflow_ok=True,
        )

    def _body(self, call: Callable[[], Any], cap: int, *, overflow_ok: bool = False) -> bytes:
        """Send the request and read at most ``cap`` bytes of the answer within the read budget."""
        response: urllib3.BaseHTTPResponse = call()
        deadline = self._clock() + self._timeout[1]
        chunks: list[bytes] = []
        size = 0
        complete = False
        try:
            while size < cap:
                chunk = response.read(min(_CHUNK, cap - size))
                if not chunk:
                    complete = True
                    return b"".join(chunks)
                chunks.append(chunk)
                size += len(chunk)
                if self._clock() > deadline:
                    raise _BodyTooSlow(self._timeout[1], size)
            if overflow_ok:
                return b"".join(chunks)
            raise _BodyTooLarge(cap)
        finally:
            if not complete:
                # Unread bytes would poison the next request on a reused connection: drop it instead.
                response.close()
            response.release_conn()

    def _explain(self, exc: Exception, what: str, source: str, *, not_found: str) -> Missing:
        """Turn any read failure into a Missing with an actionable why."""
        if isinstance(exc, ReadOnlyViolation):
            raise exc  # a refused write is a bug to surface, never an evidence gap
        connect, read = self._timeout
        host = _host(self._connection.configuration.host)
        if isinstance(exc, ApiException):
            status = exc.status or 0
            message = _status_message(exc)
            if status == 401:
                why = (
                    f"credentials refused (401): check the kubeconfig user of {self._connection.origin}"
                    " (expired or wrong token or certificate)"
                )
            elif status == 403:
                why = _forbidden_why(message)
            elif status == 404:
                why = not_found
            elif status == 400:
                why = f"the API server refused the request (400): {message}"
            elif status == 429:
                why = f"the API server is rate-limiting this client (429): {message}"
            elif 500 <= status <= 599:
                why = f"the API server failed (HTTP {status}) on both attempts: {message}"
            elif status == 0:
                why = f"TLS or transport error talking to {host}: {_first_line(str(exc.reason))}"
            else:
                why = f"unexpected HTTP {status} from the API server: {message}"
            return Missing(what, why, source)
        return Missing(what, _network_why(exc, host, connect, read), source)


def open_kube_source(
    settings: KubeSettings, env: Mapping[str, str] | None = None
) -> KubeSource | KubeUnavailable:
    """Build the connection from settings (see ``build_configuration``) and a source on it."""
    connection = build_configuration(settings) if env is None else build_configuration(settings, env)
    if isinstance(connection, KubeUnavailable):
        return connection
    return KubeSource(connection)


# -- container choice --------------------------------------------------------------------------
def is_sidecar(name: str) -> bool:
    return name in KNOWN_SIDECARS or name.startswith(_SIDECAR_PREFIXES)


def choose_log_container(pod: K8sPod) -> ContainerChoice | None:
    """The container whose log explains the failure.

    Order: the failing init container; the pod's default-container annotation; the container that
    terminated badly (non-zero exit or OOMKilled, now or in its previous instance), skipping known sidecars;
    otherwise the first container that is not a sidecar (or the only one).
    """
    status = pod.status
    init_statuses = (status.init_container_statuses if status else None) or []
    for cs in init_statuses:
        failure = _failure(cs)
        if cs.name and failure:
            return ContainerChoice(cs.name, f"init container {cs.name} failed ({failure})", init=True)

    spec_names = [c.name for c in ((pod.spec.containers if pod.spec else None) or []) if c.name]
    statuses = {cs.name: cs for cs in ((status.container_statuses if status else None) or []) if cs.name}
    names = spec_names or list(statuses)

    annotations = (pod.metadata.annotations if pod.metadata else None) or {}
    wanted = annotations.get(DEFAULT_CONTAINER_ANNOTATION)
    if wanted and wanted in names:
        return ContainerChoice(wanted, f"pod annotation {DEFAULT_CONTAINER_ANNOTATION}")

    failed = [(n, _failure(statuses[n])) for n in names if n in statuses and _failure(statuses[n])]
    # A sidecar that failed is still a candidate, but only after every workload container.
    failed.sort(key=lambda item: is_sidecar(item[0]))
    if failed:
        name, failure = failed[0]
        return ContainerChoice(name, f"container {name} {failure}")

    candidates = [n for n in names if not is_sidecar(n)] or names
    if not candidates:
        return None
    if len(candidates) == 1:
        return ContainerChoice(candidates[0], "the only workload container")
    return ContainerChoice(candidates[0], "the first workload container (none terminated with an error)")


def _terminated_without_restart(pod: K8sPod, container: str) -> bool:
    status = pod.status
    if status is None:
        return False
    for cs in (status.container_statuses or []) + (status.init_container_statuses or []):
        if cs.name == container:
            return cs.restart_count == 0 and cs.state is not None and cs.state.terminated is not None
    return False


def _failure(cs: ContainerStatus) -> str | None:
    """How this container failed (current or previous instance), or None when it did not."""
    for label, state in (("", cs.state), ("previous instance ", cs.last_state)):
        term = state.terminated if state is not None else None
        if term is None:
            continue
        if term.reason == "OOMKilled":
            return f"{label}OOMKilled (exit {term.exit_code})"
        if term.exit_code not in (None, 0):
            return f"{label}exited {term.exit_code}" + (f" ({term.reason})" if term.reason else "")
    waiting = cs.state.waiting if cs.state is not None else None
    if waiting is not None and waiting.reason in ("CrashLoopBackOff", "RunContainerError"):
        return f"is in {waiting.reason}"
    return None


# -- helpers -----------------------------------------------------------------------------------
class _BodyTooLarge(Exception):
    def __init__(self, cap: int) -> None:
        super().__init__(f"body larger than {cap} bytes")
        self.cap = cap


class _BodyTooSlow(Exception):
    def __init__(self, budget: float, size: int) -> None:
        super().__init__(f"body not complete after {budget}s ({size} bytes)")


def _excerpt(data: bytes, choice: ContainerChoice, *, previous: bool, note: str | None) -> LogExcerpt:
    over_limit = len(data) >= LOG_LIMIT_BYTES
    # clean_log decodes with replacement, redacts credentials, makes control sequences visible and cuts
    # overlong lines with a marker: log text is written by whoever controls the workload.
    lines = clean_log(data[:LOG_LIMIT_BYTES], max_line=MAX_LOG_LINE_CHARS)
    cut = any(_CUT_MARKER.search(line) for line in lines)
    # Reaching the line or byte bound means older output was left out.
    truncated = over_limit or cut or len(lines) >= LOG_TAIL_LINES
    return LogExcerpt(choice.name, previous, lines, truncated, note, choice.reason)


def _parse_events(raw: bytes) -> tuple[list[K8sEvent], list[str]]:
    body = parse_json(raw, "event list")
    if isinstance(body, dict) and body.get("items") is None and "items" in body:
        body = {**body, "items": []}  # Go encodes an empty list as null
    page = parse_page(body, "items", K8sEvent)
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
    hours, rest = divmod(int(age.total_seconds()), 3600)
    return f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min"


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


def _status_message(exc: ApiException) -> str:
    """The ``message`` of a Kubernetes Status body, sanitised and short; the raw excerpt otherwise."""
    body = exc.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if not body:
        return f"no detail ({exc.reason})" if exc.reason else "no detail"
    try:
        data = safe_json.loads(body)
    except ValueError:
        return body_excerpt(body)
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return body_excerpt(data["message"])
    return body_excerpt(body)


def _forbidden_why(message: str) -> str:
    match = _RBAC_DENIAL.search(message)
    if match is None:
        return f"RBAC denies this read (403): {message}"
    where = f" in namespace {match['namespace']}" if match["namespace"] else ""
    if match["cluster"]:
        where = " at cluster scope"
    return f"RBAC denies {match['verb']} on {match['resource']}{where} (403)"


def _log_400(message: str) -> str:
    if "previous terminated container" in message:
        return f"no previous terminated instance ({message})"
    if "waiting to start" in message:
        return f"the container is still waiting to start ({message})"
    return message


def _network_why(exc: Exception, host: str, connect: float, read: float) -> str:
    """The why for a failure below HTTP (timeouts, refused connections, broken answers, bad bodies)."""
    reason = exc.reason if isinstance(exc, MaxRetryError) else exc
    if isinstance(reason, ReadTimeoutError) or isinstance(exc, _BodyTooSlow):
        return f"read timeout after {read:g}s: the API server at {host} did not answer"
    if isinstance(reason, NewConnectionError):
        # Checked before ConnectTimeoutError, its base class in urllib3 2: a refusal is not a timeout.
        return f"API server unreachable at {host}: {_connect_detail(reason)} (after one retry)"
    if isinstance(reason, ConnectTimeoutError):
        return f"connect timeout after {connect:g}s: API server at {host} unreachable"
    if isinstance(reason, ProtocolError):
        return f"the connection to {host} broke before a complete answer: {_first_line(str(reason))}"
    if isinstance(exc, MaxRetryError):
        return f"API server unreachable at {host}: {_first_line(str(reason))}"
    if isinstance(exc, urllib3.exceptions.HTTPError):
        return f"HTTP failure talking to {host}: {type(exc).__name__}"
    if isinstance(exc, _BodyTooLarge):
        return f"malformed answer: body larger than {exc.cap // (1024 * 1024)} MiB"
    if isinstance(exc, ShapeError):
        return f"malformed answer: {exc}"
    if isinstance(exc, OSError):
        return f"network error talking to {host}: {exc.strerror or type(exc).__name__}"
    # Anything else is a bug on our side or in the client; it is still reported, never raised.
    return f"unexpected failure ({type(exc).__name__}): {_first_line(str(exc))}"


def _connect_detail(error: NewConnectionError) -> str:
    text = str(error)
    known_causes = ("Connection refused", "Name or service not known", "No route to host", "unreachable")
    for known in known_causes:
        if known.lower() in text.lower():
            return known.lower()
    return "connection failed"


def _host(url: str | None) -> str:
    return (url or "?").split("://", 1)[-1].rstrip("/") or "?"


def _first_line(text: str) -> str:
    stripped = text.strip()
    line = stripped.splitlines()[0] if stripped else "no detail"
    return body_excerpt(line)


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
