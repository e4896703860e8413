"""A real HTTP/1.1 server on loopback in front of a ControlPlane, for clients that need a socket (the
kubernetes client, `serve`, end-to-end tests). Delays are slept in the handler thread; a dropped connection
is an RST. Each request's head has a deadline, an idle connection is closed, and the threads serving
connections are capped (core.sim.connections)."""

from __future__ import annotations

import contextlib
import http
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from core.sim.connections import (
    HEAD_DEADLINE_S,
    IDLE_S,
    MAX_THREADS,
    SLOT_WAIT_S,
    Deadlines,
    cut_reading,
    refuse_busy,
)
from core.sim.control_plane import ControlPlane, SimRequest, SimResponse
from core.sim.fault_kinds import Shape

_MAX_BODY = 1 << 20  # token requests are tiny; refuse to buffer anything unreasonable
_KNOWN_STATUSES = frozenset(int(s) for s in http.HTTPStatus)


class _Server(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5. A diagnosis's history read-ahead opens up to a dozen
    # connections at once (the picker's and scan's reads beside it more): past the backlog the kernel drops
    # the SYN and the client waits about a second to retry it. The kernel caps this at somaxconn.
    request_queue_size = 128
    daemon_threads = True
    block_on_close = False  # stop() must not wait for a handler sleeping through an injected hang
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        plane: ControlPlane,
        stopping: threading.Event,
        limits: tuple[float, float, int] = (HEAD_DEADLINE_S, IDLE_S, MAX_THREADS),
    ) -> None:
        self.plane = plane
        self.stopping = stopping
        self.head_deadline_s, self.idle_s, max_threads = limits
        self.slots = threading.BoundedSemaphore(max_threads)
        self.deadlines = Deadlines(stopping)
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # A connection beyond the cap waits briefly for a thread, then is told to come back (503, Retry-After).
        if not self.slots.acquire(timeout=SLOT_WAIT_S):
            refuse_busy(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: object, client_address: object) -> None:
        # Clients hanging up mid-answer are normal in fault tests; stay quiet.
        return


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body leave in separate writes; with Nagle's algorithm on, the body then waits for the
    # client's delayed ACK (about 40 ms on Linux) on every keep-alive request.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        return

    # -- deadlines: the request (line, headers, body) within HEAD_DEADLINE_S, nothing at all for IDLE_S ----------
    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_s)  # also bounds a write to a client that never reads
        self._late = False
        self._served = 0

    def handle_one_request(self) -> None:
        # The first request's deadline runs from the connection's start; a later one's from its first byte.
        if self._served and not self._next_request_begins():
            self.close_connection = True
            return
        self._served += 1
        self.server.deadlines.arm(id(self), self.server.head_deadline_s, self._cut)
        try:
            super().handle_one_request()
        finally:
            self.server.deadlines.disarm(id(self))

    def _next_request_begins(self) -> bool:
        try:
            return bool(self.rfile.peek(1))  # returns what is buffered, or waits up to IDLE_S for a byte
        except OSError:  # the idle time passed, or the client went away
            return False

    def _cut(self) -> None:
        self._late = True
        cut_reading(self.connection)

    def parse_request(self) -> bool:
        if not self._late and super().parse_request() and not self._late:
            return True
        if self._late:
            self._too_late()
        return False

    def _too_late(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError, ValueError):
            self.send_error(
                408, "Request Timeout", f"the request did not arrive within {self.server.head_deadline_s:g} s"
            )

    def _serve(self) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > _MAX_BODY:
            self.send_error(400, "bad Content-Length")
            self.close_connection = True
            return
        body = self.rfile.read(length) if length else b""
        self.server.deadlines.disarm(id(self))  # the request is in: what follows is the answer, faults included
        if self._late or len(body) < length:
            self._too_late()
            return
        parts = urlsplit(self.path)
        query = tuple(parse_qsl(parts.query, keep_blank_values=True))
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = SimRequest(self.command.upper(), unquote(parts.path) or "/", query, headers, body)
        answer = self.server.plane.handle(request)
        if answer.delay_s > 0 and self.server.stopping.wait(answer.delay_s):
            self._reset()
            return
        if answer.drop_connection:
            self._reset()
            return
        if answer.shape is not None:
            self._send_shaped(answer)
            return
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(answer.body)

    def _send_shaped(self, answer: SimResponse) -> None:
        """Put a fault kind's answer on the wire as its Shape says (see core.sim.fault_kinds)."""
        shape = answer.shape
        assert shape is not None
        self.close_connection = True  # whatever was sent, this connection is not reused
        if shape.raw is not None:
            self.wfile.write(shape.raw)
            self.wfile.flush()
            return
        headers = {k: v for k, v in answer.headers.items() if k.lower() not in ("content-length", "connection")}
        if shape.chunks is not None:
            headers["Transfer-Encoding"] = "chunked"
        else:
            headers["Content-Length"] = str(len(answer.body))
        headers["Connection"] = "close"
        reason = http.HTTPStatus(answer.status).phrase if answer.status in _KNOWN_STATUSES else "Status"
        head = f"HTTP/1.1 {answer.status} {reason}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self._write(head.encode("latin-1") + b"\r\n", shape if shape.head_too else None)
        if shape.chunks is not None:
            for chunk in shape.chunks():
                if not chunk:
                    continue
                self._write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n", None)
                if shape.interval_s and self.server.stopping.wait(shape.interval_s):
                    return
            self._write(b"0\r\n\r\n", None)
            return
        body = answer.body[: len(answer.body) // 2] if shape.truncate else answer.body
        self._write(body, shape if shape.interval_s else None)

    def _write(self, data: bytes, trickle: Shape | None) -> None:
        """Write ``data`` at once, or a few bytes at a time with a pause between (stopping when the server does)."""
        if trickle is None or not trickle.interval_s:
            self.wfile.write(data)
            self.wfile.flush()
            return
        step = max(trickle.piece, 1)
        for start in range(0, len(data), step):
            self.wfile.write(data[start : start + step])
            self.wfile.flush()
            if self.server.stopping.wait(trickle.interval_s):
                return

    def _reset(self) -> None:
        # SO_LINGER with a zero timeout makes close() send RST: the client sees a reset, not a clean EOF.
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass
        self.close_connection = True

    def handle(self) -> None:
        try:
            super().handle()
        except (OSError, ValueError):
            # Socket already reset or closed by the client: nothing left to answer.
            self.close_connection = True

    def finish(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            super().finish()

    do_GET = _serve
    do_POST = _serve
    do_PUT = _serve
    do_PATCH = _serve
    do_DELETE = _serve
    do_HEAD = _serve
    do_OPTIONS = _serve


class LoopbackServer:
    def __init__(
        self,
        control_plane: ControlPlane,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        head_deadline_s: float = HEAD_DEADLINE_S,
        idle_s: float = IDLE_S,
        max_threads: int = MAX_THREADS,
    ) -> None:
        self.control_plane = control_plane
        self.host = host
        self._requested_port = port
        self._limits = (head_deadline_s, idle_s, max_threads)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("LoopbackServer is not started")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> str:
        if self._server is None:
            self._stopping.clear()
            self._server = _Server((self.host, self._requested_port), self.control_plane, self._stopping, self._limits)
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.05},
                name="sim-loopback",
                daemon=True,
            )
            self._thread.start()
        return self.url

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()  # wakes handlers sleeping through a delay
        server.deadlines.stop()
        server.shutdown()
        server.server_close()
        if thread is not None:
            thread.join(timeout=2.0)
        self._server = None
        self._thread = None

    def __enter__(self) -> LoopbackServer:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
