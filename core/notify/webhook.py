"""Posting a report to an incoming webhook (Slack, Mattermost): the one write runai-triage makes, and only there.

This is not a Run:ai client and shares nothing with one. It has its own httpx client, whose transport
(`OnePostTransport`) lets exactly one kind of request leave: a POST of a JSON body to the one URL it was given.
Any other method, host, port, path or query is refused before a byte is sent, and redirects are not followed.
The tenant clients keep their own read-only guard untouched (core.sources.guard): nothing here can widen it,
and this package never imports them (an import-linter contract says so).

The body is `{"text": ...}`, the shape Slack and Mattermost incoming webhooks accept, cut at MAX_TEXT
characters. A post is tried at most ATTEMPTS times: again after a 429 (after its `Retry-After`, up to
MAX_WAIT_S), a 5xx or a connection that failed; never after another 4xx, which a retry would not change. Every
wait and attempt is bounded, so a dead receiver costs at most a known time and never stops the caller.

The URL of an incoming webhook is itself a secret (whoever has it can post to the channel), so no message here
ever shows more of it than its scheme and host.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

MAX_TEXT = 30_000
ATTEMPTS = 3
TIMEOUT_S = 10.0
BACKOFF_S = (1.0, 2.0)
MAX_WAIT_S = 30.0
USER_AGENT = "runai-triage/0.1 (watch --post)"
CUT = "\n\n_(cut: the whole report is in the watch's output)_"


class WebhookRefused(Exception):
    """A request the webhook client may not send (anything but the one POST): refused before it left."""


def check_url(url: str) -> str:
    """The URL, if it can be posted to (http or https, a host, no user:password part); ValueError otherwise."""
    text = (url or "").strip()
    try:
        parts = urlsplit(text)
        port = parts.port  # a port that is not a number raises here
    except ValueError:
        raise ValueError("--post: not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        raise ValueError("--post: give an http:// or https:// URL of an incoming webhook")
    if parts.username is not None or parts.password is not None:
        raise ValueError("--post: a URL with a user name or password is not used; incoming webhooks need none")
    return text


def where(url: str) -> str:
    """The URL as messages may show it: scheme and host only (the path of a webhook URL is its secret)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


class OnePostTransport(httpx.AsyncBaseTransport):
    """Lets through a POST to exactly `url` and refuses everything else, before the inner transport sees it."""

    def __init__(self, inner: httpx.AsyncBaseTransport, url: str) -> None:
        self._inner = inner
        self._url = httpx.URL(url)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        wanted = self._url
        same = (request.url.scheme, request.url.host, request.url.port, request.url.raw_path) == (
            wanted.scheme, wanted.host, wanted.port, wanted.raw_path
        )
        if request.method != "POST" or not same:
            raise WebhookRefused(f"{request.method} to {where(str(request.url))}: only the one POST to the webhook")
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@dataclass(frozen=True, slots=True)
class PostResult:
    ok: bool
    attempts: int
    status: int | None = None
    problem: str | None = None  # why it failed, in words (never the URL's path)


def payload(text: str) -> bytes:
    """The JSON body, the text cut at MAX_TEXT characters with a note."""
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - len(CUT)] + CUT
    return json.dumps({"text": text}, ensure_ascii=False).encode("utf-8")


class WebhookPoster:
    def __init__(
        self,
        url: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        timeout_s: float = TIMEOUT_S,
    ) -> None:
        self.url = check_url(url)
        self.where = where(self.url)
        self._sleep = sleep
        inner = transport or httpx.AsyncHTTPTransport()
        self._http = httpx.AsyncClient(
            transport=OnePostTransport(inner, self.url),
            timeout=httpx.Timeout(timeout_s),
            follow_redirects=False,
            headers={"User-Agent": USER_AGENT},
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def post(self, text: str) -> PostResult:
        """Post `text` as `{"text": ...}`; tried at most ATTEMPTS times, every failure said in `problem`."""
        body = payload(text)
        problem = "not sent"
        status: int | None = None
        for attempt in range(1, ATTEMPTS + 1):
            wait: float | None = None
            try:
                response = await self._http.post(
                    self.url, content=body, headers={"Content-Type": "application/json"}
                )
            except WebhookRefused:
                raise
            except httpx.HTTPError as exc:
                status, problem = None, f"{type(exc).__name__} from {self.where}"
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return PostResult(True, attempt, status)
                problem = f"{self.where} answered {status}"
                if status == 429:
                    wait = _retry_after(response)
                elif status < 500:
                    return PostResult(False, attempt, status, problem + " (not retried: a retry would not change it)")
            if attempt < ATTEMPTS:
                await self._sleep(min(MAX_WAIT_S, wait if wait is not None else BACKOFF_S[attempt - 1]))
        return PostResult(False, ATTEMPTS, status, f"{problem}, after {ATTEMPTS} attempts")


def _retry_after(response: httpx.Response) -> float | None:
    value = (response.headers.get("retry-after") or "").strip()
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
