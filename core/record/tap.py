"""The recording tap: every answer a tenant's clients read, kept as it arrived, for a case bundle.

Run:ai: a transport above the client's deadline and size bounds (so what is kept is exactly what the client
read, decompressed and capped) and above the read-only guard, which stays the last step before the network.
Kubernetes: the guarded pool manager's `request`, whose answers are wrapped so the bytes the source reads are
kept as it reads them. Token requests, request headers and anything but a GET are never kept: no credential
and no kubeconfig content can reach a recording.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qsl, urlsplit

import httpx

from core.sources.guard import token_paths

if TYPE_CHECKING:
    from kubernetes.client import ApiClient

Api = Literal["runai", "kube"]
# The Retry-After a server sent is replayed with its fault; no other header is ever kept.
_KEPT_HEADERS = ("retry-after",)


@dataclass(frozen=True, slots=True)
class Exchange:
    """One GET and what came back: a status and body, or no answer at all (`status` None, `error` says why).
    `complete` is False when the reader stopped before the end of the body (a cap, a deadline)."""

    api: Api
    path: str
    query: tuple[tuple[str, str], ...]
    status: int | None
    body: bytes = b""
    error: str | None = None
    complete: bool = True
    retry_after: str | None = None

    def param(self, name: str) -> str | None:
        return next((v for k, v in self.query if k == name), None)


def _relative(path: str, prefix: str) -> str:
    prefix = prefix.rstrip("/")
    return (path[len(prefix) :] or "/") if prefix and path.startswith(prefix + "/") else path


@dataclass
class RecordingTap:
    """Implements `core.sources.tap.Tap`. Thread-safe: Kubernetes reads run in worker threads."""

    exchanges: list[Exchange] = field(default_factory=list)
    kube_seen: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    def snapshot(self) -> list[Exchange]:
        with self._lock:
            return list(self.exchanges)

    def drain(self) -> list[Exchange]:
        """What was seen so far, forgotten here: one tenant can then record several diagnoses apart."""
        with self._lock:
            taken, self.exchanges = self.exchanges, []
            return taken

    # -- Run:ai ------------------------------------------------------------------------------------------
    def runai_transport(self, transport: httpx.AsyncBaseTransport, base_path: str) -> httpx.AsyncBaseTransport:
        return _RecordingTransport(transport, self, base_path)

    # -- Kubernetes --------------------------------------------------------------------------------------
    def kube_client(self, api_client: ApiClient) -> None:
        self.kube_seen = True
        pool = api_client.rest_client.pool_manager
        prefix = urlsplit(str(api_client.configuration.host or "")).path
        send = pool.request

        # `wraps` keeps the guard's mark: this only observes, and every call still goes through the guarded one.
        @functools.wraps(send)
        def request(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            parts = urlsplit(str(url))
            path = _relative(parts.path, prefix)
            query = tuple(parse_qsl(parts.query, keep_blank_values=True))
            keep = str(method).upper() == "GET"
            try:
                response = send(method, url, *args, **kwargs)
            except Exception as exc:
                if keep:
                    self.add(Exchange("kube", path, query, None, error=_words(exc)))
                raise
            if not keep:
                return response
            return _TeeResponse(response, functools.partial(self._kube_done, path, query))

        pool.request = request

    def _kube_done(
        self, path: str, query: tuple[tuple[str, str], ...], status: int, body: bytes, complete: bool,
        error: str | None, retry_after: str | None,
    ) -> None:
        self.add(Exchange("kube", path, query, status, body, error, complete, retry_after))


def _words(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


class _RecordingTransport(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, tap: RecordingTap, base_path: str) -> None:
        self._inner = inner
        self._tap = tap
        self._prefix = base_path
        self._token_paths = token_paths(base_path)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        keep = request.method.upper() == "GET" and path not in self._token_paths
        if not keep:
            return await self._inner.handle_async_request(request)
        rel = _relative(path, self._prefix)
        query = tuple(parse_qsl(request.url.query.decode("ascii", "replace"), keep_blank_values=True))
        try:
            response = await self._inner.handle_async_request(request)
        except Exception as exc:
            self._tap.add(Exchange("runai", rel, query, None, error=_words(exc)))
            raise
        try:
            body = await response.aread()
        except Exception as exc:
            await response.aclose()
            self._tap.add(Exchange("runai", rel, query, response.status_code, error=_words(exc), complete=False))
            raise
        retry_after = response.headers.get("retry-after")
        self._tap.add(Exchange("runai", rel, query, response.status_code, body, retry_after=retry_after))
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


Done = Callable[[int, bytes, bool, "str | None", "str | None"], None]


class _TeeResponse:
    """A urllib3 response whose bytes are kept as the reader takes them; reported once, when it is let go."""

    def __init__(self, inner: Any, done: Done) -> None:
        self._inner = inner
        self._done = done
        self._chunks: list[bytes] = []
        self._complete = False
        self._error: str | None = None
        self._reported = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def read(self, amt: int | None = None, *args: Any, **kwargs: Any) -> bytes:
        try:
            chunk = self._inner.read(amt, *args, **kwargs)
        except Exception as exc:
            self._error = _words(exc)
            raise
        if chunk:
            self._chunks.append(chunk)
        elif amt is None or amt > 0:
            self._complete = True
        if amt is None:
            self._complete = True
        return chunk

    @property
    def data(self) -> bytes:
        try:
            body = self._inner.data
        except Exception as exc:
            self._error = _words(exc)
            raise
        self._chunks = [body or b""]
        self._complete = True
        self._report()
        return body

    def _report(self) -> None:
        if self._reported:
            return
        self._reported = True
        headers = getattr(self._inner, "headers", None) or {}
        retry_after = next((str(v) for k, v in headers.items() if str(k).lower() in _KEPT_HEADERS), None)
        self._done(self._inner.status, b"".join(self._chunks), self._complete, self._error, retry_after)

    def release_conn(self) -> None:
        self._report()
        self._inner.release_conn()

    def close(self) -> None:
        self._report()
        self._inner.close()
