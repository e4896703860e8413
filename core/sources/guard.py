"""The read-only guard: the last check before a request leaves the process.

The Run:ai client wraps whatever transport it uses in `ReadOnlyTransport`, so a write cannot be sent even by
code that reaches past the client to its `httpx.AsyncClient`. `assert_read_only` is the same rule as a plain
function for the synchronous Kubernetes side.
"""

from __future__ import annotations

from collections.abc import Iterable

import httpx

from core.sources.errors import ReadOnlyViolation, safe_target

TOKEN_PATHS: frozenset[str] = frozenset({"/api/v1/token", "/api/v2/token"})


def token_paths(prefix: str = "") -> frozenset[str]:
    """The token endpoint paths under a base URL's path prefix (e.g. "/runai" for a self-hosted UI path)."""
    prefix = prefix.rstrip("/")
    return frozenset(prefix + p for p in TOKEN_PATHS)


def assert_read_only(method: str, path: str, *, allowed_posts: Iterable[str] = TOKEN_PATHS) -> None:
    """Raise `ReadOnlyViolation` unless this is a GET, or a POST to exactly one of `allowed_posts`."""
    verb = method.upper()
    if verb == "GET":
        return
    if verb == "POST" and path in frozenset(allowed_posts):
        return
    raise ReadOnlyViolation(verb, safe_target(path))


class ReadOnlyTransport(httpx.AsyncBaseTransport):
    """Wraps a real transport; refuses every write before the inner transport sees it."""

    def __init__(
        self, inner: httpx.AsyncBaseTransport, *, allowed_posts: Iterable[str] = TOKEN_PATHS
    ) -> None:
        self._inner = inner
        self._allowed_posts = frozenset(allowed_posts)

    @property
    def inner(self) -> httpx.AsyncBaseTransport:
        return self._inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        # `raw_path` would include the query; the rule is about the path alone, and a POST with a query string
        # to a token path is still only a token request.
        assert_read_only(request.method, request.url.path, allowed_posts=self._allowed_posts)
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()
