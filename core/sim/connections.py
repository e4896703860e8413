"""What bounds the loopback server's connections: a deadline for each request's head, an idle limit between
requests, and a cap on the threads that serve them.

A handler thread serves one connection. Without bounds a client that sends its headers a byte at a time, stops
half way, or sends a bare `GET /` line (HTTP/0.9, after which the server still waits for headers) holds its
thread for ever, and enough of them hold the process. So:

- `HEAD_DEADLINE_S`: the request line, the headers and the body of a request must arrive within this many
  seconds, counted from the connection's start for its first request and from the first byte for a later one;
  past it the server answers 408 and closes. The time is counted by one watchdog thread (`Deadlines`), which
  cuts the reading side of a late connection (a `recv` waiting byte by byte never times out on its own);
- `IDLE_S`: a kept-alive connection that sends nothing for this long is closed, as any HTTP server does;
- `MAX_THREADS`: at most this many connections are served at once; one more waits `SLOT_WAIT_S` for a slot and
  is then answered 503 with Retry-After, so the accept loop never stalls for long.

Injected faults (a hang, a trickle) are answers, not requests: the deadline stops once the request is read.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable

HEAD_DEADLINE_S = 5.0
IDLE_S = 60.0
MAX_THREADS = 128
SLOT_WAIT_S = 0.5
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class Deadlines:
    """One thread that cuts the reading side of each connection whose request is not in by its deadline."""

    def __init__(self, stopping: threading.Event) -> None:
        self._stopping = stopping
        self._armed: dict[int, tuple[float, Callable[[], None]]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def arm(self, key: int, seconds: float, expire: Callable[[], None]) -> None:
        """Call `expire` in `seconds` unless `disarm(key)` comes first."""
        with self._lock:
            self._armed[key] = (time.monotonic() + seconds, expire)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sim-deadlines", daemon=True)
                self._thread.start()
        self._wake.set()

    def disarm(self, key: int) -> None:
        with self._lock:
            self._armed.pop(key, None)

    @property
    def armed(self) -> int:
        with self._lock:
            return len(self._armed)

    def stop(self) -> None:
        self._wake.set()

    def _run(self) -> None:
        while not self._stopping.is_set():
            now = time.monotonic()
            with self._lock:
                due = [key for key, (at, _) in self._armed.items() if at <= now]
                expired = [self._armed.pop(key)[1] for key in due]
                soonest = min((at for at, _ in self._armed.values()), default=None)
            for expire in expired:
                with contextlib.suppress(OSError):
                    expire()
            self._wake.wait(1.0 if soonest is None else max(0.0, soonest - time.monotonic()))
            self._wake.clear()


def cut_reading(connection: socket.socket) -> None:
    """End the reading side: a `recv` waiting on it returns at once with nothing; answers can still be written."""
    connection.shutdown(socket.SHUT_RD)


def refuse_busy(connection: socket.socket) -> None:
    """Answer 503 (with Retry-After) to a connection there is no thread for, without waiting on the client."""
    with contextlib.suppress(OSError):
        connection.settimeout(1.0)
        connection.sendall(BUSY)
