"""Suite-wide read-only audit: every audited ControlPlane's request log, so a test session can prove that no
code path issued a write. The logs themselves are kept (not the planes), so they outlive collected servers.

A simulator in another process (the program's own simulator process, a headless command run as a subprocess)
cannot hand its log over in memory: where RUNAI_TRIAGE_AUDIT_DIR names a directory and this process keeps no log
of its own (`keep_in_memory` was not called: the test session's processes call it), every audited plane also
appends each request it answers, one line `METHOD path status`, to a file of its process in that directory.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from core.sim.exchange import RecordedRequest

# The only non-GET calls a read-only tool may make: fetching a token.
ALLOWED_WRITES: frozenset[tuple[str, str]] = frozenset({("POST", "/api/v1/token"), ("POST", "/api/v2/token")})

AUDIT_DIR_ENV = "RUNAI_TRIAGE_AUDIT_DIR"

_lock = threading.Lock()
_logs: list[list[RecordedRequest]] = []
_in_memory = False
_file: IO[str] | None = None


def register(log: list[RecordedRequest]) -> None:
    """Called by ControlPlane(audited=True) with the list it appends every request to."""
    with _lock:
        _logs.append(log)


def keep_in_memory() -> None:
    """This process judges its own planes' logs (a test session): they are not written to the directory."""
    global _in_memory
    _in_memory = True


def requested() -> bool:
    """Whether a test session reads this process's requests; outside one, the program's simulator process is not
    audited (its planes still keep their own request log, as every plane does)."""
    return bool(os.environ.get(AUDIT_DIR_ENV))


def record(request: RecordedRequest) -> None:
    """Called by every audited plane for each request it answered: the line for another process to read."""
    global _file
    if _in_memory:
        return
    folder = os.environ.get(AUDIT_DIR_ENV)
    if not folder:
        return
    line = f"{request.method} {request.path} {request.status}\n"
    with _lock:
        try:
            if _file is None:
                _file = open(Path(folder) / f"{os.getpid()}.log", "a", encoding="utf-8", buffering=1)  # noqa: SIM115
            _file.write(line)
        except OSError:  # the directory is gone (the session ended): nobody is left to read it
            return


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
