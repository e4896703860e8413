"""httpx transports that answer from a ControlPlane in-process, with the same timing behaviour as the network:
a response delayed past the client's read timeout becomes httpx.ReadTimeout (after waiting the timeout), and a
dropped connection becomes httpx.RemoteProtocolError."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qsl

import httpx

from core.sim.control_plane import ControlPlane, SimRequest, SimResponse

_DISCONNECTED = "Server disconnected without sending a response."


def to_sim_request(request: httpx.Request, body: bytes) -> SimRequest:
    query = tuple(parse_qsl(request.url.query.decode("ascii", errors="replace"), keep_blank_values=True))
    headers: dict[str, str] = {}
    for name, value in request.headers.multi_items():
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return SimRequest(request.method.upper(), request.url.path, query, headers, body)


def _read_timeout(request: httpx.Request) -> float | None:
    timeout = request.extensions.get("timeout") or {}
    value = timeout.get("read")
    return float(value) if value is not None else None


def _to_httpx(request: httpx.Request, answer: SimResponse) -> httpx.Response:
    return httpx.Response(
        answer.status,
        headers=answer.headers,
        content=answer.body,
        request=request,
        extensions={"http_version": b"HTTP/1.1"},
    )


class SimTransport(httpx.AsyncBaseTransport):
    def __init__(
        self, control_plane: ControlPlane, *, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    ) -> None:
        self.control_plane = control_plane
        self._sleep = sleep

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        answer = self.control_plane.handle(to_sim_request(request, body))
        read_timeout = _read_timeout(request)
        if read_timeout is not None and answer.delay_s > read_timeout:
            await self._sleep(read_timeout)
            raise httpx.ReadTimeout("timed out waiting for the simulated server", request=request)
        if answer.delay_s > 0:
            await self._sleep(answer.delay_s)
        if answer.drop_connection:
            raise httpx.RemoteProtocolError(_DISCONNECTED, request=request)
        return _to_httpx(request, answer)


class SimSyncTransport(httpx.BaseTransport):
    def __init__(self, control_plane: ControlPlane, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.control_plane = control_plane
        self._sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        answer = self.control_plane.handle(to_sim_request(request, body))
        read_timeout = _read_timeout(request)
        if read_timeout is not None and answer.delay_s > read_timeout:
            self._sleep(read_timeout)
            raise httpx.ReadTimeout("timed out waiting for the simulated server", request=request)
        if answer.delay_s > 0:
            self._sleep(answer.delay_s)
        if answer.drop_connection:
            raise httpx.RemoteProtocolError(_DISCONNECTED, request=request)
        return _to_httpx(request, answer)
