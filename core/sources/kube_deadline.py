"""A wall-clock deadline for one Kubernetes read, enforced where the bytes arrive.

The kubernetes client reads through urllib3 in a worker thread; its timeouts bound each socket operation, so a
server that trickles one byte every few seconds (in the headers or in the body) never trips them. A
``ReadDeadline`` bounds the whole read instead: every socket a connection opens or sends a request on inside the
``with`` block is registered (the guarded connection class in ``kube_guard`` does that), and when the deadline
passes a watchdog thread shuts those sockets down. The blocked read then returns at once with an error, and the caller,
seeing ``expired``, reports "no complete answer within N s" rather than a broken connection.

Sockets are registered, not connections: ``http.client`` drops a connection's socket into the response it hands
over when the server will close afterwards. They are shut down, not closed: the reading thread still owns the
file descriptor and closes it itself, so no descriptor is reused under it; the list is forgotten when the
block ends.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType
from typing import Any

_current = threading.local()
# After the deadline, sockets that appear later (a retry that was still connecting) are shut down too.
_RECHECK_S = 0.05


class ReadDeadline:
    """``with ReadDeadline(seconds) as scope:`` around one read; ``scope.expired`` afterwards."""

    def __init__(self, seconds: float, *, budget: bool = False) -> None:
        self.seconds = max(seconds, 0.0)
        # True when the limit was what was left of the diagnosis budget, not the read's own deadline.
        self.budget = budget
        self.expired = False
        self._sockets: list[Any] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._watchdog = threading.Thread(target=self._watch, name="kube-read-deadline", daemon=True)
        self._outer: ReadDeadline | None = None

    def __enter__(self) -> ReadDeadline:
        self._outer = getattr(_current, "scope", None)
        _current.scope = self
        self._watchdog.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._done.set()
        _current.scope = self._outer
        with self._lock:
            self._sockets.clear()

    def attach(self, sock: Any) -> None:
        """Called by a connection of this thread that connected, or is about to send a request, on ``sock``."""
        with self._lock:
            if not any(known is sock for known in self._sockets):
                self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def _watch(self) -> None:
        if self._done.wait(self.seconds):
            return
        with self._lock:
            self.expired = True
        while True:
            with self._lock:
                sockets = list(self._sockets)
            for sock in sockets:
                _shut(sock)
            if self._done.wait(_RECHECK_S):
                return


def attach_current(sock: Any) -> None:
    """Register ``sock`` with the deadline of the read running in this thread, if there is one."""
    scope = getattr(_current, "scope", None)
    if scope is not None and sock is not None:
        scope.attach(sock)


def _shut(sock: Any) -> None:
    if sock is not None and not isinstance(sock, socket.socket):
        sock = getattr(sock, "socket", None)  # urllib3's SSLTransport (TLS inside a proxy tunnel) wraps one
    if sock is None:
        return
    # The plain socket's shutdown, also for a TLS socket: ssl.SSLSocket.shutdown would tear down the TLS state
    # under the thread that is reading it. An error means it was already closed.
    with contextlib.suppress(OSError, TypeError, ValueError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
