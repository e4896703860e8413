"""Posting to an incoming webhook (Slack, Mattermost, any receiver of a JSON `text`): the one write runai-triage
makes, and only here.

This is not a Run:ai client and shares nothing with one. It has its own httpx client, whose transport
(`OnePostTransport`) lets exactly one kind of request leave: a POST of a JSON body to the one URL it was given.
Any other method, host, port, path or query is refused before a byte is sent, and redirects are not followed.
The tenant clients keep their own read-only guard untouched (core.sources.guard): nothing here can widen it,
and this package never imports them (an import-linter contract says so).

One `post` is one attempt, inside a deadline for the whole exchange (connecting, sending, the status line, the
headers, and for a refusal the start of its body): `httpx.Timeout` bounds each read, so a receiver that trickles
a byte at a time would hold a post for as long as it trickles, and the deadline is what stops it. A 2xx status
is the receiver's yes: the body after it is not read. A refused connection fails at once. Whether and when
to try again is the courier's decision (core.notify.courier), which keeps the post in its outbox meanwhile:
`PostResult.retry` says whether a retry could change the answer, `retry_after` what the receiver asked for.

The URL of an incoming webhook is itself a secret (whoever has it can post to the channel), so no message here
ever shows more of it than its scheme and host.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from core.notify.dialects import body_of
from core.usage import Opt, UsageError

DEADLINE_S = 15.0
# What the client may do, as the tenant client's says "(read-only)": it posts to a webhook.
USER_AGENT = "runai-triage/0.1 (webhook post)"
# Enough of a receiver's answer to quote why it refused a post (Slack answers `invalid_payload`, ...).
ANSWER_BYTES = 2048
# Answers that say this body can never be accepted: sending it again would get the same answer.
REJECTED = frozenset({400, 413, 415, 422})


# The option that gives the URL, as data: the command line says it as its flag.
POST = Opt("post", plainly="the webhook URL")


class WebhookRefused(Exception):
    """A request the webhook client may not send (anything but the one POST): refused before it left."""


def check_url(url: str) -> str:
    """The URL, if it can be posted to (http or https, a host, no user:password part); UsageError (a ValueError)
    otherwise, naming the option as data."""
    text = (url or "").strip()
    try:
        parts = urlsplit(text)
        port = parts.port  # a port that is not a number raises here
    except ValueError:
        raise UsageError(POST, ": not a URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or port == 0:
        raise UsageError(POST, ": give an http:// or https:// URL of an incoming webhook")
    if parts.username is not None or parts.password is not None:
        raise UsageError(POST, ": a URL with a user name or password is not used; incoming webhooks need none")
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
    status: int | None = None
    problem: str | None = None  # why it failed, in words (never the URL's path)
    retry: bool = True  # False: the receiver refused this body for good; sending it again would not change that
    retry_after: float | None = None  # seconds the receiver asked to wait (429, 503)


class WebhookPoster:
    """Posts to one webhook URL in one dialect (core.notify.dialects), one attempt per `post`."""

    def __init__(
        self,
        url: str,
        dialect: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        deadline_s: float = DEADLINE_S,
    ) -> None:
        self.url = check_url(url)
        self.where = where(self.url)
        self.dialect = dialect
        self.deadline_s = deadline_s
        inner = transport or httpx.AsyncHTTPTransport()
        self._http = httpx.AsyncClient(
            transport=OnePostTransport(inner, self.url),
            timeout=httpx.Timeout(deadline_s),
            follow_redirects=False,
            headers={"User-Agent": USER_AGENT},
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def post(self, text: str, key: str) -> PostResult:
        """Post `text` (already in this poster's dialect) with its stable `key`, in the body where the dialect
        has a place for it and as the `Idempotency-Key` header, so a receiver can drop a repeat."""
        body = body_of(text, self.dialect, key)
        headers = {"Content-Type": "application/json", "Idempotency-Key": key}
        try:
            async with asyncio.timeout(self.deadline_s):
                async with self._http.stream("POST", self.url, content=body, headers=headers) as response:
                    # A 2xx status is the receiver's yes: its body (a word, or a trickle) is not waited for.
                    answer = b"" if 200 <= response.status_code < 300 else await _first_bytes(response)
        except WebhookRefused:
            raise
        except TimeoutError:
            return PostResult(False, problem=f"{self.where} did not answer within {self.deadline_s:g} s")
        except httpx.ConnectError:
            return PostResult(False, problem=f"{self.where} refused the connection or could not be reached")
        except httpx.HTTPError as exc:
            return PostResult(False, problem=f"{type(exc).__name__} from {self.where}")
        status = response.status_code
        if 200 <= status < 300:
            return PostResult(True, status)
        said = _said(answer)
        problem = f"{self.where} answered {status}" + (f" ({said})" if said else "")
        if status in REJECTED:
            return PostResult(False, status, problem, retry=False)
        return PostResult(False, status, problem, retry_after=_retry_after(response))


async def _first_bytes(response: httpx.Response) -> bytes:
    """The start of the answer; the rest is not read (a receiver's answer is a word or two)."""
    kept = b""
    async for chunk in response.aiter_raw():
        kept += chunk[: ANSWER_BYTES - len(kept)]
        if len(kept) >= ANSWER_BYTES:
            break
    return kept


def _said(answer: bytes) -> str:
    text = answer.decode("utf-8", "replace")
    shown = "".join(ch if ch.isprintable() else " " for ch in text).strip()
    return shown[:120] + ("..." if len(shown) > 120 else "")


def _retry_after(response: httpx.Response) -> float | None:
    value = (response.headers.get("retry-after") or "").strip()
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
