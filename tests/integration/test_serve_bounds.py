"""The simulator holds nothing without bound: `runai-triage serve` under 50 clients x 200 requests, three rounds,
ends within 10 MB of where it started (no request is kept in its memory; `--request-log` still has them all);
a request whose head arrives slowly, stops half way, or is a bare HTTP/0.9 line is answered 408 or closed once
its deadline passes; an idle kept-alive connection is closed; the threads serving connections are capped.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.sim.bundle import load_bundle
from core.sim.control_plane import ControlPlane
from core.sim.loopback import LoopbackServer
from core.sim.tokens import MAX_LIVE_TOKENS, TokenIssuer
from tests.integration.test_serve_cli import OOM_CASE, _start, _stop

MB = 1024 * 1024
CLIENTS, REQUESTS, ROUNDS = 50, 200, 3


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def _round(url: str, token: str) -> list[int]:
    """CLIENTS clients at once, each REQUESTS reads on a kept-alive connection; the statuses they got."""
    statuses: list[int] = []
    lock = threading.Lock()

    def client(n: int) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        # What a picker asks again and again: a page of the list, newest first.
        page = {"limit": "5", "offset": "0", "sortBy": "phaseUpdatedAt", "sortOrder": "desc", "deleted": "false"}
        with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
            got = [http.get("/api/v1/workloads", params=page).status_code for _ in range(REQUESTS)]
        with lock:
            statuses.extend(got)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def test_serve_under_load_ends_within_10_mb_of_its_start_and_logs_every_request(tmp_path: Path) -> None:
    request_log = tmp_path / "requests.jsonl"
    proc, lines = _start("--case", str(OOM_CASE), "--request-log", str(request_log))
    try:
        output = "\n".join(lines)
        url = re.search(r"at (http://127\.0\.0\.1:\d+)", output)
        token = re.search(r"RUNAI_BEARER_TOKEN=(\S+)", output)
        assert url and token, output
        _round(url.group(1), token.group(1))  # warm-up: every route and thread the rounds use, once
        start = _status(proc.pid, "VmRSS") * 1024
        after: list[int] = []
        for _ in range(ROUNDS):
            statuses = _round(url.group(1), token.group(1))
            assert statuses.count(200) == CLIENTS * REQUESTS
            after.append(_status(proc.pid, "VmRSS") * 1024)
        threads = _status(proc.pid, "Threads")
    finally:
        _stop(proc)
    print(f"\nserve RSS: start {start / MB:.1f} MiB, after each round " + ", ".join(f"{a / MB:.1f}" for a in after))
    assert after[-1] - start <= 10 * MB, (start, after)
    assert after[-1] - after[0] <= 2 * MB, (start, after)  # and the last two rounds leave nothing behind
    assert threads < CLIENTS + 10  # the clients' connections have ended: their threads with them
    logged = request_log.read_text().splitlines()
    assert len(logged) == (ROUNDS + 1) * CLIENTS * REQUESTS
    assert json.loads(logged[-1])["status"] == 200


# -- deadlines ---------------------------------------------------------------------------------------------------
@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    plane = ControlPlane(load_bundle(OOM_CASE))
    with LoopbackServer(plane, head_deadline_s=1.0, idle_s=1.5) as running:
        yield running


def _connect(server: LoopbackServer) -> socket.socket:
    sock = socket.create_connection((server.host, server.port), timeout=15)
    sock.settimeout(15)  # a server that held the connection past this fails the test
    return sock


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (raises TimeoutError if it never does)."""
    got = b""
    while chunk := sock.recv(4096):
        got += chunk
    return got


def _trickle(sock: socket.socket, data: bytes, stop: threading.Event) -> None:
    for byte in data:
        if stop.wait(0.3):
            return
        with contextlib.suppress(OSError):
            sock.send(bytes([byte]))


def test_five_slow_or_half_sent_requests_are_closed_after_the_deadline(server: LoopbackServer) -> None:
    slow = [_connect(server) for _ in range(5)]
    stop = threading.Event()
    slow[0].send(b"GET /api/v1/clusters HTTP/1.1\r\n")  # then the headers, a byte every 0.3 s
    trickler = threading.Thread(target=_trickle, args=(slow[0], b"Host: x\r\nAccept: */*\r\n" * 20, stop))
    trickler.start()
    slow[1].send(b"GET /api/v1/clu")  # half a request line, then nothing
    slow[2].send(b"GET /\r\n")  # a bare HTTP/0.9 line: the server would wait for headers
    slow[3].send(b"POST /api/v2/token HTTP/1.1\r\nContent-Length: 100\r\n\r\ngrant_type")  # a body cut short
    # slow[4] sends nothing at all.
    started = time.monotonic()
    try:
        # Meanwhile a proper request on its own connection is answered at once.
        answer = httpx.get(f"{server.url}/api/v1/clusters", timeout=5)
        assert answer.status_code == 401  # (no token: answered, not held)
        endings = [_until_closed(sock) for sock in slow]
    finally:
        stop.set()
        trickler.join()
        for sock in slow:
            sock.close()
    assert time.monotonic() - started < 10  # each closed at its 1 s deadline, not held
    assert endings[0].startswith(b"HTTP/1.1 408") and endings[3].startswith(b"HTTP/1.1 408")
    assert b"408" in endings[1] or endings[1] == b""
    assert endings[4] == b""  # nothing asked, nothing answered: closed
    deadline = time.monotonic() + 5
    while server._server is not None and server._server.deadlines.armed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server._server is not None and server._server.deadlines.armed == 0


def test_an_idle_kept_alive_connection_is_closed(server: LoopbackServer) -> None:
    sock = _connect(server)
    sock.send(b"GET /api/v1/clusters HTTP/1.1\r\nHost: x\r\n\r\n")
    first = b""
    while b"\r\n\r\n" not in first or not first.endswith(b"}"):  # the whole answer (a JSON body)
        first += sock.recv(4096)
    assert first.startswith(b"HTTP/1.1 401")
    started = time.monotonic()
    assert _until_closed(sock) == b""  # no second request: closed after idle_s
    assert time.monotonic() - started < 10
    sock.close()


def test_connections_beyond_the_thread_cap_are_told_to_come_back() -> None:
    plane = ControlPlane(load_bundle(OOM_CASE))
    with LoopbackServer(plane, head_deadline_s=30, idle_s=30, max_threads=3) as server:
        before = threading.active_count()
        held = [_connect(server) for _ in range(3)]
        for sock in held:
            sock.send(b"GET /api/v1/clu")  # each holds a thread until its deadline
        time.sleep(0.3)
        extra = _connect(server)
        refused = _until_closed(extra)
        assert refused.startswith(b"HTTP/1.1 503") and b"Retry-After: 1" in refused
        assert threading.active_count() <= before + 3 + 1  # three handlers and the deadline watchdog
        for sock in held:
            sock.close()
        time.sleep(0.3)
        assert httpx.get(f"{server.url}/api/v1/clusters", timeout=5).status_code == 401  # a slot again
        extra.close()


def test_the_token_table_is_bounded_and_still_tells_expired_from_forged() -> None:
    now = [1000.0]
    issuer = TokenIssuer(60, lambda: now[0])
    first = issuer.issue("a")
    now[0] += 61
    assert issuer.check(first) == "token expired"
    for _ in range(MAX_LIVE_TOKENS + 50):
        issuer.issue("b")
    assert len(issuer._valid) <= MAX_LIVE_TOKENS
    now[0] += 200  # two lifetimes on: forgotten
    issuer.issue("c")
    assert len(issuer._valid) == 1
