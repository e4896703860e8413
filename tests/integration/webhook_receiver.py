"""An incoming webhook on loopback for the tests of `watch --post`: it keeps every body it was sent, and can be
told to fail the next posts (with a status and a Retry-After) to test retries."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        status, headers = self.server.answer(self.command, self.path, body)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_GET = do_POST
    do_PUT = do_POST


class Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str]] = []  # (method, path) of everything that arrived
        self.posted: list[dict[str, Any]] = []  # the bodies accepted
        self.fail_next = 0
        self.fail_status = 500
        self.retry_after: str | None = None
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hooks/T000/B000/secret-part"

    def answer(self, method: str, path: str, body: bytes) -> tuple[int, dict[str, str]]:
        with self.lock:
            self.requests.append((method, path))
            if self.fail_next > 0:
                self.fail_next -= 1
                return self.fail_status, ({"Retry-After": self.retry_after} if self.retry_after else {})
            self.posted.append(json.loads(body))
            return 200, {}

    def texts(self) -> list[str]:
        with self.lock:
            return [str(item.get("text")) for item in self.posted]

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()
