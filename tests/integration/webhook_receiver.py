"""An incoming webhook on loopback for the tests of `watch --post`, real HTTP on a port of its own.

It keeps every body it accepted, and can be told how to behave: fail the next posts (a status, a Retry-After),
`hang` (read the request, never answer), `trickle` (send the status line and headers, then one byte of the body
every `trickle_s`), or go `down` (its socket closed: connections are refused) and come back `up` on the same
port. A receiver that keeps the keys it saw (`keys()`) is how a chat would drop a repeat.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        owner = self.server.owner
        mode = owner.arrived(self.command, self.path, body, dict(self.headers))
        if mode == "hang":
            owner.released.wait(30)
            return
        if mode == "trickle":  # the status line, then the headers one byte at a time: never a whole answer
            self._trickle(b"HTTP/1.1 200 OK\r\n", b"X-Slow: " + b"o" * 200)
            return
        if mode == "trickle-body":  # accepted: a whole head, then the body one byte at a time
            owner.answer(body)
            self._trickle(b"HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n", b"o" * 200)
            return
        if owner.delay_s:
            time.sleep(owner.delay_s)
        status, headers = owner.answer(body)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        answer = b"ok" if status < 300 else b"invalid_payload" if status == 400 else b"error"
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def _trickle(self, head: bytes, rest: bytes) -> None:
        owner = self.server.owner
        try:
            self.wfile.write(head)
            self.wfile.flush()
            for byte in rest:
                if owner.released.wait(owner.trickle_s):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        except OSError:
            return

    do_GET = do_POST
    do_PUT = do_POST


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: Receiver, port: int) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", port), _Handler)


class Receiver:
    def __init__(self, port: int = 0) -> None:
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []  # (method, path) of everything that arrived
        self.headers: list[dict[str, str]] = []
        self.posted: list[dict[str, Any]] = []  # the bodies accepted, in order
        self.arrivals: list[float] = []  # time.monotonic() of each arrival
        self.modes: list[str] = []  # how the receiver behaved for each arrival
        self.fail_next = 0
        self.fail_status = 500
        self.retry_after: str | None = None
        self.mode = "ok"  # ok | hang | trickle
        self.trickle_s = 0.05
        self.delay_s = 0.0  # how long an answer takes
        self.released = threading.Event()
        self._server: _Server | None = _Server(self, port)
        self.port = self._server.server_address[1]
        self._thread: threading.Thread | None = None

    @classmethod
    def on_port(cls, port: int) -> Receiver:
        return cls(port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/T000/B000/secret-part"

    @property
    def is_up(self) -> bool:
        return self._server is not None

    def arrived(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> str:
        with self.lock:
            self.requests.append((method, path))
            self.headers.append(headers)
            self.arrivals.append(time.monotonic())
            self.modes.append(self.mode)
            return self.mode

    def answer(self, body: bytes) -> tuple[int, dict[str, str]]:
        with self.lock:
            if self.fail_next > 0:
                self.fail_next -= 1
                return self.fail_status, ({"Retry-After": self.retry_after} if self.retry_after else {})
            self.posted.append(json.loads(body))
            return 200, {}

    def texts(self) -> list[str]:
        with self.lock:
            return [str(item.get("text")) for item in self.posted]

    def keys(self) -> list[str]:
        """The stable key of each accepted post, from wherever its dialect keeps it."""
        with self.lock:
            return [_key_of(item) for item in self.posted]

    def behave(self, mode: str) -> None:
        """ok, hang, trickle or trickle-body; hanging and trickling requests in progress are let go when it changes."""
        self.released.set()
        self.released = threading.Event()
        self.mode = mode

    def down(self) -> None:
        """Close the socket: connections are refused until `up`."""
        if self._server is None:
            return
        server, self._server = self._server, None
        self.released.set()
        server.shutdown()
        server.server_close()

    def up(self) -> None:
        if self._server is not None:
            return
        for _ in range(50):
            try:
                self._server = _Server(self, self.port)
                break
            except OSError:
                time.sleep(0.05)
        assert self._server is not None, "the receiver's port was taken while it was down"
        self._start()

    def _start(self) -> None:
        assert self._server is not None
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    def __enter__(self) -> Receiver:
        self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self.down()


def _key_of(body: dict[str, Any]) -> str:
    for holder in (body, body.get("props") or {}, (body.get("metadata") or {}).get("event_payload") or {}):
        value = holder.get("runai_triage_key") or holder.get("key")
        if isinstance(value, str):
            return value
    return ""


def refused_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
