"""httpx transports that answer from a ControlPlane in-process, with the same timing behaviour as the network:
a response delayed past the client's read timeout becomes httpx.ReadTimeout (after waiting the timeout), and a
dropped connection becomes httpx.RemoteProtocolError."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from urllib.parse import parse_qsl

import httpx

from core.sim.control_plane import ControlPlane, SimRequest, SimResponse
from core.sim.fault_kinds import Shape

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
        if answer.shape is not None:
            return await self._shaped(request, answer)
        return _to_httpx(request, answer)

    async def _shaped(self, request: httpx.Request, answer: SimResponse) -> httpx.Response:
        """A fault kind's answer as the network would deliver it (see core.sim.fault_kinds)."""
        shape = answer.shape
        assert shape is not None
        if shape.raw is not None:
            raise httpx.RemoteProtocolError("illegal status line: the server did not answer in HTTP", request=request)
        if shape.head_too and shape.interval_s:
            # The head arrives a few bytes at a time: the response is only handed over once it is complete.
            await self._sleep(shape.interval_s * 64 / max(shape.piece, 1))
        headers = {k: v for k, v in answer.headers.items() if k.lower() != "content-length"}
        stream = _ShapedStream(request, answer.body, shape, self._sleep)
        return httpx.Response(
            answer.status, headers=headers, stream=stream, request=request, extensions={"http_version": b"HTTP/1.1"}
        )


class _ShapedStream(httpx.AsyncByteStream):
    def __init__(
        self, request: httpx.Request, body: bytes, shape: Shape, sleep: Callable[[float], Awaitable[None]]
    ) -> None:
        self._request = request
        self._body = body
        self._shape = shape
        self._sleep = sleep

    async def __aiter__(self) -> AsyncIterator[bytes]:
        shape = self._shape
        if shape.chunks is not None:
            for chunk in shape.chunks():
                yield chunk
                await self._sleep(shape.interval_s)
            return
        if shape.truncate:
            yield self._body[: len(self._body) // 2]
            raise httpx.RemoteProtocolError(
                "peer closed connection without sending complete message body", request=self._request
            )
        if not shape.interval_s:
            yield self._body
            return
        step = max(shape.piece, 1)
        for start in range(0, len(self._body), step):
            yield self._body[start : start + step]
            await self._sleep(shape.interval_s)


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
        if answer.shape is not None and (answer.shape.raw is not None or answer.shape.truncate):
            raise httpx.RemoteProtocolError("the simulated answer is not complete HTTP", request=request)
        if answer.shape is not None and (answer.shape.chunks is not None or answer.shape.interval_s):
            raise ValueError("streamed and trickled fault kinds need SimTransport or the loopback server")
        return _to_httpx(request, answer)
