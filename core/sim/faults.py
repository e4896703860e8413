"""Injected failures: a bundle's `faults` list turned into matchers the control plane consults per request."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from core.sim.fault_kinds import FROM_ROUTE, Shape, shape_for

# "<METHOD> <path template>": an upper-case HTTP verb, one space, an absolute path.
_MATCH_RE = re.compile(r"^([A-Z]+) (/\S*)$")
_PLACEHOLDER_RE = re.compile(r"^\{[A-Za-z_][A-Za-z0-9_]*\}$")


def parse_match(text: str) -> tuple[str, str] | None:
    """Split a fault's `match` into (method, template); None when it does not have the documented shape."""
    m = _MATCH_RE.match(text)
    if m is None:
        return None
    return m.group(1), m.group(2)


def match_template(template: str, path: str) -> dict[str, str] | None:
    """The `{name}` values when `path` fits `template` (a placeholder is one non-empty segment), else None."""
    want = template.rstrip("/").split("/")
    got = path.rstrip("/").split("/")
    if len(want) != len(got):
        return None
    params: dict[str, str] = {}
    for w, g in zip(want, got, strict=True):
        if _PLACEHOLDER_RE.match(w):
            if not g:
                return None
            params[w[1:-1]] = g
        elif w != g:
            return None
    return params


def template_matches(template: str, path: str) -> bool:
    return match_template(template, path) is not None


@dataclass
class Fault:
    """One injected failure. The first `times` matching requests get it; later ones are answered normally."""

    method: str
    template: str
    status: int
    times: int
    retry_after: float | None = None
    delay_ms: int | None = None
    body: str | None = None
    # A kind from core.sim.fault_kinds (trickle, gzip-bomb, ...) and its parameters; None = the plain fault.
    kind: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    remaining: int = field(init=False)

    def __post_init__(self) -> None:
        self.remaining = max(self.times, 0)

    def matches(self, method: str, path: str) -> bool:
        return method.upper() == self.method and template_matches(self.template, path)

    def fresh(self) -> Fault:
        """A copy with the counter reset, so two servers built from one bundle do not share consumption."""
        return Fault(
            self.method,
            self.template,
            self.status,
            self.times,
            self.retry_after,
            self.delay_ms,
            self.body,
            self.kind,
            dict(self.params),
        )

    @property
    def from_route(self) -> bool:
        """True when the fault reshapes the route's normal answer rather than replacing it."""
        return self.kind in FROM_ROUTE


@dataclass(frozen=True)
class FaultOutcome:
    """What a consumed fault does to the response; the control plane turns it into a SimResponse."""

    status: int
    headers: dict[str, str]
    body: bytes
    extra_delay_s: float
    drop_connection: bool
    shape: Shape | None = None


def _retry_after_value(seconds: float) -> str:
    # Retry-After is delta-seconds; keep a fractional value readable rather than rounding it away.
    return str(int(seconds)) if float(seconds).is_integer() else repr(float(seconds))


def apply_fault(fault: Fault, kube: bool) -> FaultOutcome:
    """Describe the response a fault produces. `kube` picks the Kubernetes Status error body shape."""
    delay = (fault.delay_ms or 0) / 1000.0
    if fault.kind is not None:
        shape = shape_for(fault.kind, fault.params)
        return FaultOutcome(shape.status, dict(shape.headers), shape.body or b"", delay, False, shape)
    if fault.status == 0:
        # status 0 = no HTTP answer at all: with delayMs a hang then a reset, without it an immediate reset.
        return FaultOutcome(0, {}, b"", delay, True)
    headers: dict[str, str] = {"Content-Type": "application/json"}
    if fault.retry_after is not None:
        headers["Retry-After"] = _retry_after_value(fault.retry_after)
    if fault.body is not None:
        body = fault.body.encode("utf-8", errors="surrogatepass")
    elif fault.status >= 400:
        message = f"injected fault: HTTP {fault.status}"
        if kube:
            body = json.dumps(
                {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "metadata": {},
                    "status": "Failure",
                    "message": message,
                    "reason": "TooManyRequests" if fault.status == 429 else "InternalError",
                    "code": fault.status,
                }
            ).encode()
        else:
            body = json.dumps({"code": fault.status, "message": message}).encode()
    else:
        body = b"{}"
    return FaultOutcome(fault.status, headers, body, delay, False)
