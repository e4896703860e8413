"""What passes between a transport, the simulated control plane and its route tables: the request and response
records, what a route handler is given, and the response helpers every route module shares (Run:ai's error body
and a Kubernetes `Status`). Apart from `control_plane`, which imports the route tables that import these."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.sim.bundle import CaseBundle
from core.sim.fault_kinds import Shape


@dataclass(frozen=True)
class SimRequest:
    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    headers: Mapping[str, str]  # lower-cased names
    body: bytes = b""


@dataclass
class SimResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    delay_s: float = 0.0
    drop_connection: bool = False  # connection reset: no response at all
    # How a fault kind puts the answer on the wire (core.sim.fault_kinds.Shape); None = plainly.
    shape: Shape | None = None


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    status: int  # 0 when the connection was dropped
    kube: bool = False  # asked of the Kubernetes API (with its token), not of Run:ai's


@dataclass(frozen=True)
class RouteContext:
    """What a route handler gets: the bundle, the `{name}` path values, and the request."""

    bundle: CaseBundle
    params: dict[str, str]
    request: SimRequest

    @property
    def query(self) -> tuple[tuple[str, str], ...]:
        return self.request.query


RouteHandler = Callable[[RouteContext], SimResponse]


@dataclass(frozen=True)
class Route:
    template: str
    handler: RouteHandler
    methods: frozenset[str] = field(default_factory=lambda: frozenset({"GET"}))


# -- response helpers shared by the route modules ------------------------------------------------------------
def json_response(status: int, payload: Any, headers: dict[str, str] | None = None) -> SimResponse:
    out = {"Content-Type": "application/json"}
    out.update(headers or {})
    return SimResponse(status, out, json.dumps(payload, separators=(",", ":")).encode("utf-8"))


def api_error(status: int, message: str, headers: dict[str, str] | None = None) -> SimResponse:
    """The Run:ai error body `{"code", "message"}`."""
    return json_response(status, {"code": status, "message": message}, headers)


def kube_status(
    code: int,
    reason: str,
    message: str,
    details: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> SimResponse:
    """A Kubernetes `Status` failure body, as kube-apiserver writes it."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
    }
    if details is not None:
        body["details"] = details
    body["code"] = code
    return json_response(code, body, headers)
