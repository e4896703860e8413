"""Every Run:ai answer read within a deadline and a size cap, whatever the server sends.

httpx bounds each socket operation (connect, one read) but not the whole answer: a server that trickles one
byte every few seconds never trips a per-read timeout, and a gzip body is inflated without limit. This
transport sits between the read-only guard and the network and bounds one request end to end:

- a wall-clock deadline from the moment the request is handed over until the last byte of the body, checked
  around the response head and around every body chunk (``asyncio.timeout_at``), so a trickle ends on time;
- a cap on the body *after* decompression: the transport decodes gzip/deflate itself, a bounded slice at a
  time (``decompressobj.decompress(data, max_length)``), so a gzip bomb never allocates more than the cap, and an
  endless chunked body stops at the cap too. The answer handed on carries no Content-Encoding, so httpx does
  not decode it a second time.

Both failures are httpx request errors (``DeadlineExceeded``, ``AnswerTooLarge``), so they travel through the
client and its retry loop like any other transport error and are not retried: a server that trickled or
flooded once will do it again.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator

import httpx

from core.sources.budget import remaining as budget_remaining

MAX_BODY_BYTES = 8 * 1024 * 1024
DEFAULT_REQUEST_DEADLINE_S = 30.0
# Decompressed output is produced at most this much at a time, so the cap is checked between slices.
_SLICE = 256 * 1024
SUPPORTED_ENCODINGS = "gzip, deflate"


class DeadlineExceeded(httpx.TimeoutException):
    """The whole answer (connect, head and body) did not arrive within the deadline."""

    def __init__(self, deadline_s: float, received: int, *, request: httpx.Request, budget: bool = False) -> None:
        self.deadline_s = deadline_s
        self.received = received
        self.budget = budget
        super().__init__(
            f"no complete answer within {deadline_s:g} s ({received} bytes of body received)", request=request
        )


class AnswerTooLarge(httpx.RequestError):
    """The body, after decompression, was larger than the cap."""

    def __init__(self, cap: int, *, request: httpx.Request) -> None:
        self.cap = cap
        super().__init__(f"body larger than {cap} bytes after decompression", request=request)


class _Decoder:
    """Inflates one content encoding a bounded slice at a time."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        # gzip: header and trailer checked; deflate: the zlib wrapper first, raw deflate if that fails.
        self._wbits = 16 + zlib.MAX_WBITS if encoding in ("gzip", "x-gzip") else zlib.MAX_WBITS
        self._inflater = zlib.decompressobj(self._wbits)
        self._started = False

    def feed(self, data: bytes, room: int) -> list[bytes]:
        out: list[bytes] = []
        pending = data
        while pending and not self._inflater.eof:
            try:
                piece = self._inflater.decompress(pending, max(1, min(room + 1, _SLICE)))
            except zlib.error:
                if self.encoding == "deflate" and not self._started:
                    self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._started = True
                    continue
                raise
            self._started = True
            room -= len(piece)
            out.append(piece)
            if room < 0:
                break  # one byte past the cap is proof enough; the rest is never inflated
            pending = self._inflater.unconsumed_tail
        return out

    def finish(self) -> bytes:
        return self._inflater.flush() if not self._inflater.eof else b""


def _encodings(header: str | None) -> list[str]:
    if not header:
        return []
    return [item.strip().lower() for item in header.split(",") if item.strip().lower() not in ("", "identity")]


class _BoundedStream(httpx.AsyncByteStream):
    def __init__(
        self,
        inner: httpx.AsyncByteStream,
        request: httpx.Request,
        decoder: _Decoder | None,
        cap: int,
        deadline: float,
        deadline_s: float,
        budget: bool,
    ) -> None:
        self._inner = inner
        self._request = request
        self._decoder = decoder
        self._cap = cap
        self._deadline = deadline
        self._deadline_s = deadline_s
        self._budget = budget
        self._raw = 0
        self._decoded = 0

    def _count(self, piece: bytes) -> bytes:
        self._decoded += len(piece)
        if self._decoded > self._cap:
            raise AnswerTooLarge(self._cap, request=self._request)
        return piece

    def _damaged(self, exc: zlib.error) -> httpx.DecodingError:
        encoding = self._decoder.encoding if self._decoder is not None else "?"
        return httpx.DecodingError(f"the {encoding} body is damaged ({exc})", request=self._request)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        chunks = self._inner.__aiter__()
        while True:
            try:
                async with asyncio.timeout_at(self._deadline):
                    chunk = await chunks.__anext__()
            except StopAsyncIteration:
                break
            except TimeoutError:
                raise DeadlineExceeded(
                    self._deadline_s, self._raw, request=self._request, budget=self._budget
                ) from None
            self._raw += len(chunk)
            if self._raw > self._cap:
                raise AnswerTooLarge(self._cap, request=self._request)
            if self._decoder is None:
                yield self._count(chunk)
                continue
            try:
                pieces = self._decoder.feed(chunk, self._cap - self._decoded)
            except zlib.error as exc:
                raise self._damaged(exc) from None
            for piece in pieces:
                yield self._count(piece)
        if self._decoder is not None:
            try:
                tail = self._decoder.finish()
            except zlib.error as exc:
                raise self._damaged(exc) from None
            if tail:
                yield self._count(tail)

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx.AsyncBaseTransport):
    """Wraps a transport; each request gets a total deadline and its body a cap after decompression.

    The deadline is the smaller of ``deadline_s`` and what is left of the diagnosis budget (``core.sources.budget``)
    when the request starts.
    """

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
        deadline_s: float = DEFAULT_REQUEST_DEADLINE_S,
    ) -> None:
        if max_body_bytes < 1 or deadline_s <= 0:
            raise ValueError("max_body_bytes and deadline_s must be positive")
        self._inner = inner
        self.max_body_bytes = max_body_bytes
        self.deadline_s = deadline_s

    @property
    def inner(self) -> httpx.AsyncBaseTransport:
        return self._inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        limit, budget = self.deadline_s, False
        left = budget_remaining()
        if left is not None and left < limit:
            limit, budget = max(left, 0.0), True
        deadline = asyncio.get_running_loop().time() + limit
        try:
            async with asyncio.timeout_at(deadline):
                response = await self._inner.handle_async_request(request)
        except TimeoutError:
            raise DeadlineExceeded(limit, 0, request=request, budget=budget) from None
        encodings = _encodings(response.headers.get("content-encoding"))
        decoder: _Decoder | None = None
        if len(encodings) > 1 or (encodings and encodings[0] not in ("gzip", "x-gzip", "deflate")):
            await response.aclose()
            raise httpx.DecodingError(
                f"unsupported content encoding {', '.join(encodings)!r} (asked for {SUPPORTED_ENCODINGS})",
                request=request,
            )
        if encodings:
            decoder = _Decoder(encodings[0])
        headers = [
            (name, value)
            for name, value in response.headers.multi_items()
            if name.lower() not in ("content-encoding", "content-length") or decoder is None
        ]
        assert isinstance(response.stream, httpx.AsyncByteStream)
        stream = _BoundedStream(
            response.stream, request, decoder, self.max_body_bytes, deadline, limit, budget
        )
        return httpx.Response(
            response.status_code, headers=headers, stream=stream, extensions=response.extensions, request=request
        )

    async def aclose(self) -> None:
        await self._inner.aclose()
