"""Suite-wide read-only audit: every audited ControlPlane's request log, so a test session can prove that no
code path issued a write. The logs themselves are kept (not the planes), so they outlive collected servers."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from core.sim.control_plane import RecordedRequest

# The only non-GET calls a read-only tool may make: fetching a token.
ALLOWED_WRITES: frozenset[tuple[str, str]] = frozenset({("POST", "/api/v1/token"), ("POST", "/api/v2/token")})

_lock = threading.Lock()
_logs: list[list[RecordedRequest]] = []


def register(log: list[RecordedRequest]) -> None:
    """Called by ControlPlane(audited=True) with the list it appends every request to."""
    with _lock:
        _logs.append(log)


def all_requests() -> list[RecordedRequest]:
    with _lock:
        logs = list(_logs)
    out: list[RecordedRequest] = []
    for log in logs:
        out.extend(list(log))
    return out


def write_violations() -> list[RecordedRequest]:
    """Requests that were not GET, apart from POSTs to the two token endpoints."""
    return [
        r
        for r in all_requests()
        if r.method != "GET" and (r.method, r.path.rstrip("/")) not in ALLOWED_WRITES
    ]
