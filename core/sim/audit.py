"""Suite-wide read-only audit: what every audited ControlPlane answered, so a test session can prove that no code
path issued a write. Counted as the requests are answered, not kept: a plane's own log is a ring of its recent
requests (core.sim.control_plane), and a long run must not grow with the requests it made. What the audit keeps is
the count and the requests that break the rule (a write, a Secret read), which a clean session has none of.

A simulator in another process (the program's own simulator process, a headless command run as a subprocess)
cannot hand its tally over in memory: where RUNAI_TRIAGE_AUDIT_DIR names a directory and this process does not
judge its own planes (`keep_in_memory` was not called: the test session's processes call it), every audited plane
also appends each request it answers, one line `METHOD path status`, to a file of its process in that directory.
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
# Offending requests kept at most (each fails the session; the count says how many more there were).
MAX_KEPT = 1000

_lock = threading.Lock()
_in_memory = False
_file: IO[str] | None = None
_counted = 0
_writes: list[RecordedRequest] = []
_secret_reads: list[RecordedRequest] = []


def is_write(method: str, path: str) -> bool:
    return method != "GET" and (method, path.rstrip("/")) not in ALLOWED_WRITES


def is_secret_read(path: str) -> bool:
    return "/secrets" in path


def keep_in_memory() -> None:
    """This process judges its own planes (a test session): their requests are tallied here, not written out."""
    global _in_memory
    _in_memory = True


def requested() -> bool:
    """Whether a test session reads this process's requests; outside one, the program's simulator process is not
    audited (its planes still keep their own recent requests, as every plane does)."""
    return bool(os.environ.get(AUDIT_DIR_ENV))


def record(request: RecordedRequest) -> None:
    """Called by every audited plane for each request it answered: tallied (a test session), or the line for
    another process to read (a process that session started), or nothing at all (outside a session)."""
    global _file, _counted
    if _in_memory:
        with _lock:
            _counted += 1
            if is_write(request.method, request.path) and len(_writes) < MAX_KEPT:
                _writes.append(request)
            if is_secret_read(request.path) and len(_secret_reads) < MAX_KEPT:
                _secret_reads.append(request)
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


def counted() -> int:
    """How many requests the audited planes of this process answered."""
    with _lock:
        return _counted


def write_violations() -> list[RecordedRequest]:
    """Requests that were not GET, apart from POSTs to the two token endpoints."""
    with _lock:
        return list(_writes)


def secret_reads() -> list[RecordedRequest]:
    """Requests for a Secret (never read by the tool)."""
    with _lock:
        return list(_secret_reads)
