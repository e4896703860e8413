"""The simulated Run:ai control plane + Kubernetes API: one request handler over a case bundle, no I/O.

Order of checks for every request: token endpoints (which need no token), then authentication, then injected
faults, then routing (404 unknown path, 405 known path with another method), then the route itself. The
handler only computes the answer; waiting (latency, hangs) is left to the transports so handle() stays fast.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping

from core.sim import audit
from core.sim.bundle import CaseBundle, show
from core.sim.exchange import (
    RecordedRequest,
    Route,
    RouteContext,
    SimRequest,
    SimResponse,
    api_error,
    kube_status,
)
from core.sim.faults import Fault, apply_fault, match_template
from core.sim.fleet_routes import FLEET_ROUTES
from core.sim.kube_routes import KUBE_ROUTES
from core.sim.runai_routes import RUNAI_ROUTES
from core.sim.tokens import TokenIssuer, oauth2_error, token_answer

TOKEN_PATHS: dict[str, str] = {"/api/v2/token": "v2", "/api/v1/token": "v1"}
# Requests a plane remembers by default (`requests`): enough for any test's look at what was asked.
LOG_LIMIT = 100_000
_KUBE_PREFIXES = ("/api/v1/namespaces", "/api/v1/nodes", "/api/v1/events", "/api/v1/pods", "/apis", "/version")
# Paths both APIs have: Run:ai's tenant-wide node list and Kubernetes' node list. On a real tenant they are two
# hosts; this one server tells them apart by the token the request carries.
SHARED_PATHS = frozenset({"/api/v1/nodes"})


def is_kube_path(path: str) -> bool:
    """Whether `path` is the Kubernetes API's (for a path both have, `SHARED_PATHS`: the token decides)."""
    return path in ("/api", "/api/v1") or path.startswith(_KUBE_PREFIXES)


def _bearer(headers: Mapping[str, str]) -> str | None:
    value = headers.get("authorization")
    if not value:
        return None
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _fault_response(fault: Fault, *, kube: bool) -> SimResponse:
    outcome = apply_fault(fault, kube)
    return SimResponse(
        outcome.status,
        dict(outcome.headers),
        outcome.body,
        delay_s=outcome.extra_delay_s,
        drop_connection=outcome.drop_connection,
        shape=outcome.shape,
    )


def _reshaped(answer: SimResponse, fault: Fault | None, *, kube: bool) -> SimResponse:
    """The route's answer as a fault made from it would send it (trickled, truncated, planted, ...)."""
    if fault is None:
        return answer
    outcome = apply_fault(fault, kube)
    shape = outcome.shape
    if shape is None or shape.transform is None:
        return answer
    status, body = shape.transform(answer.status, answer.body)
    return SimResponse(status, dict(answer.headers), body, delay_s=outcome.extra_delay_s, shape=shape)


# The session of the program that serves a tenant to itself (the app's simulator, `--demo`, `--case`): its client
# holds a ready token it cannot refresh, so the token lasts as long as any such process could run. Tokens from
# the token endpoint, and the one `serve` prints, keep the hour a real tenant gives.
SESSION_TTL_S = 365 * 86400.0


class ControlPlane:
    def __init__(
        self,
        bundle: CaseBundle,
        *,
        latency_ms: float = 0.0,
        token_ttl_s: float = 3600.0,
        token_versions: frozenset[str] = frozenset({"v1", "v2"}),
        clock: Callable[[], float] = time.time,
        audited: bool = True,
        log_limit: int = LOG_LIMIT,
        log_sink: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        self.bundle = bundle
        self.latency_ms = latency_ms
        self.token_versions = frozenset(token_versions)
        self._tokens = TokenIssuer(token_ttl_s, clock)
        self._lock = threading.Lock()
        # The most recent requests, for tests and tools that ask what was asked; older ones go (a simulator that
        # runs for days must not grow with its requests). `log_sink` is handed every request as it is answered.
        self._log: deque[RecordedRequest] = deque(maxlen=max(0, log_limit))
        self._sink = log_sink
        self._faults: list[Fault] = [f.fresh() for f in bundle.faults]
        self._runai_routes: list[Route] = [*FLEET_ROUTES, *RUNAI_ROUTES]
        self._kube_routes: list[Route] = KUBE_ROUTES
        self.kube_token = "sim-kube-" + secrets.token_hex(16)
        self._audited = audited

    # -- public API ------------------------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._log)

    def clear_requests(self) -> None:
        """Forget this instance's recent requests (the audit has counted them already)."""
        with self._lock:
            self._log.clear()

    @property
    def has_kubernetes(self) -> bool:
        return self.bundle.kubernetes is not None

    def issue_token(self, subject: str = "sim-user", ttl_s: float | None = None) -> str:
        """A token for `subject`, valid for the plane's token lifetime (an hour, as a real tenant's) or `ttl_s`."""
        with self._lock:
            return self._tokens.issue(subject, ttl_s)

    def revoke_tokens(self) -> None:
        with self._lock:
            self._tokens.revoke_all()

    def handle(self, request: SimRequest) -> SimResponse:
        with self._lock:
            try:
                response = self._dispatch(request)
            except Exception as exc:  # a bug in a route must not take the transport down with it
                response = api_error(500, f"simulator error: {type(exc).__name__}: {show(str(exc))}")
            recorded = RecordedRequest(
                request.method.upper(),
                request.path,
                tuple(request.query),
                0 if response.drop_connection else response.status,
                kube=self._is_kube(request),
            )
            self._log.append(recorded)
        if self._audited:
            audit.record(recorded)
        if self._sink is not None:
            self._sink(recorded)
        response.delay_s += max(self.latency_ms, 0.0) / 1000.0
        return response

    # -- internals -------------------------------------------------------------------------------------------
    def _dispatch(self, request: SimRequest) -> SimResponse:
        method = request.method.upper()
        path = request.path if request.path == "/" else request.path.rstrip("/")
        version = TOKEN_PATHS.get(path)
        if version is not None:
            if version not in self.token_versions:
                return api_error(404, f"no such endpoint: {path}")
            fault = self._take_fault(method, path)
            if fault is not None and not fault.from_route:
                return _fault_response(fault, kube=False)
            if method != "POST":
                allow = {"Allow": "POST"}
                answer = oauth2_error(405, "invalid_request", f"method {method} not allowed on {path}", allow)
            else:
                answer = self._token(version, request)
            return _reshaped(answer, fault, kube=False)

        kube = self._is_kube(request)
        token = _bearer(request.headers)
        if kube:
            if token != self.kube_token:
                return kube_status(401, "Unauthorized", "Unauthorized")
        else:
            problem = "missing bearer token" if token is None else self._tokens.check(token)
            if problem is not None:
                return api_error(401, f"unauthorized: {problem}")

        fault = self._take_fault(method, path)
        if fault is not None and not fault.from_route:
            return _fault_response(fault, kube=kube)
        return _reshaped(self._route(method, path, request, kube), fault, kube=kube)

    def _route(self, method: str, path: str, request: SimRequest, kube: bool) -> SimResponse:
        routes = self._kube_routes if kube else self._runai_routes
        allowed: set[str] = set()
        for route in routes:
            params = match_template(route.template, path)
            if params is None:
                continue
            if method in route.methods:
                return route.handler(RouteContext(self.bundle, params, request))
            allowed |= route.methods
        if allowed:
            allow = {"Allow": ", ".join(sorted(allowed))}
            if kube:
                return kube_status(
                    405,
                    "MethodNotAllowed",
                    "the server does not allow this method on the requested resource",
                    None,
                    allow,
                )
            return api_error(405, f"method {method} not allowed on {path}", allow)
        if kube:
            return kube_status(404, "NotFound", "the server could not find the requested resource")
        return api_error(404, f"no such endpoint: {path}")

    def _is_kube(self, request: SimRequest) -> bool:
        path = request.path if request.path == "/" else request.path.rstrip("/")
        if path in SHARED_PATHS:
            return _bearer(request.headers) == self.kube_token
        return is_kube_path(path)

    def _take_fault(self, method: str, path: str) -> Fault | None:
        for fault in self._faults:
            if fault.remaining > 0 and fault.matches(method, path):
                fault.remaining -= 1
                return fault
        return None

    def _token(self, version: str, request: SimRequest) -> SimResponse:
        return token_answer(version, request.body, self._tokens)


# The records a transport hands over and gets back live in core.sim.exchange; named here too, beside the plane
# that answers them.
__all__ = [
    "SHARED_PATHS",
    "TOKEN_PATHS",
    "ControlPlane",
    "RecordedRequest",
    "SimRequest",
    "SimResponse",
    "is_kube_path",
]
