"""Errors raised by the Run:ai REST client.

Every error names the HTTP method and the request path (plus its query, which never carries secrets because
the client never puts credentials in a URL). No error ever holds a header, a token or a client secret:
messages built from response bodies go through `body_excerpt`, which drops known secrets and token-shaped
strings and neutralises control characters, because an error body is text chosen by whoever runs the server.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from core.models import safe_json

EXCERPT_LIMIT = 200

# Query parameter names that would be secrets if anyone ever passed them; dropped from every error target.
_SECRET_PARAM = re.compile(r"(token|secret|password|passwd|auth|key|credential|session)", re.IGNORECASE)

# Token-shaped strings a hostile or careless server might echo back in an error body.
_TOKEN_PATTERNS = (
    re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(\.[A-Za-z0-9_-]*)?"),
    re.compile(r"(?i)(client_?secret|access_?token|refresh_?token|id_?token|password)(\"?\s*[:=]\s*\"?)[^\s\",&}]+"),
)

_ZERO_WIDTH = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"}


def scrub_secrets(text: str, secrets: Iterable[str] = ()) -> str:
    """Remove the given secret values and anything token-shaped from `text`."""
    for ch in _ZERO_WIDTH:
        text = text.replace(ch, "")
    # Longest first so a secret that contains another is removed whole.
    for secret in sorted((s for s in secrets if s and len(s) >= 4), key=len, reverse=True):
        text = text.replace(secret, "<redacted>")
    text = _TOKEN_PATTERNS[0].sub(lambda m: f"{m.group(1)} <redacted>", text)
    text = _TOKEN_PATTERNS[1].sub("<redacted-jwt>", text)
    text = _TOKEN_PATTERNS[2].sub(lambda m: f"{m.group(1)}{m.group(2)}<redacted>", text)
    return text


def clean_text(text: str, limit: int = EXCERPT_LIMIT) -> str:
    """Make untrusted text safe for one line of a message.

    Line breaks become spaces; every other control or format character (ESC, C1, bidi overrides, zero-width)
    is shown as a visible escape such as `\\x1b` or `\\u202e`, so tampering shows instead of acting.
    """
    out: list[str] = []
    for ch in text:
        if ch in "\n\r\t":
            out.append(" ")
        elif unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp", "Cs"}:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    cleaned = re.sub(r"\s{2,}", " ", "".join(out)).strip()
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - 1].rstrip() + "…"
    return cleaned


def body_excerpt(body: bytes | str, secrets: Iterable[str] = (), limit: int = EXCERPT_LIMIT) -> str:
    """A short, sanitised, secret-free excerpt of a response body."""
    # Only the head matters; decoding a huge body in full would waste time on text nobody reads.
    head = body[: limit * 8]
    body = head.decode("utf-8", errors="replace") if isinstance(head, bytes) else head
    excerpt = clean_text(scrub_secrets(body, secrets), limit)
    return excerpt or "<empty body>"


def safe_target(path: str, query: str | None = None) -> str:
    """`path?query` with any secret-looking parameter dropped, for use in messages."""
    path = clean_text(path, 300)
    if not query:
        return path
    kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if not _SECRET_PARAM.search(k)]
    if not kept:
        return path
    return f"{path}?{clean_text(urlencode(kept, safe=',=:@<>!^$'), 300)}"


def error_fields(body: bytes | str, secrets: Iterable[str] = ()) -> tuple[str, str | None]:
    """(message, details) from a documented error body (`{"code", "message", "details"?}`, or OAuth2's
    `{"error", "error_description"?}`), else an excerpt."""
    try:
        data: Any = safe_json.loads(body)
    except (ValueError, TypeError):
        return body_excerpt(body, secrets), None
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        message = body_excerpt(data["message"], secrets)
        details = data.get("details")
        detail_text = body_excerpt(details, secrets) if isinstance(details, str) and details else None
        return message, detail_text
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        # The OAuth2 error body of the v2 token endpoint: {"error", "error_description"?}.
        description = data.get("error_description")
        text = data["error"] + (f": {description}" if isinstance(description, str) and description else "")
        return body_excerpt(text, secrets), None
    return body_excerpt(body, secrets), None


class RunaiError(Exception):
    """Base of every error the Run:ai client raises. `str()` is `METHOD /path: what happened`."""

    def __init__(self, message: str, *, method: str | None = None, path: str | None = None) -> None:
        self.message = message
        self.method = method
        self.path = path
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.method and self.path:
            return f"{self.method} {self.path}: {self.message}"
        if self.path:
            return f"{self.path}: {self.message}"
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class ApiError(RunaiError):
    """The API answered with an error status. `retry_after`: the seconds its `Retry-After` asked for, if any."""

    retry_after: float | None = None

    def __init__(
        self,
        method: str,
        path: str,
        status: int | None,
        message: str,
        details: str | None = None,
    ) -> None:
        self.status = status
        self.details = details
        self.api_message = message
        text = f"answered {status}: {message}" if status is not None else message
        if details:
            text = f"{text} ({details})"
        super().__init__(text, method=method, path=path)


class AuthError(ApiError):
    """The credentials were refused (401), or no token could be obtained."""


class ForbiddenError(ApiError):
    """403: the access key is valid but lacks a role that can read the resource."""

    def __init__(
        self, method: str, path: str, resource: str, message: str, details: str | None = None
    ) -> None:
        self.resource = resource
        super().__init__(
            method,
            path,
            403,
            f"the access key lacks a role that can read {resource} (server said: {message})",
            details,
        )


class NotFoundError(ApiError):
    """404: the resource does not exist (or, for kind-specific specs, the kind did not match)."""


class UnreachableError(RunaiError):
    """The connection to the control plane could not be made (or kept) at all."""

    def __init__(self, method: str, path: str, base_url: str, reason: str, attempts: int) -> None:
        self.base_url = base_url
        self.reason = reason
        self.attempts = attempts
        super().__init__(
            f"could not reach {base_url} after {attempts} attempt(s): {reason}. "
            "Check the base URL (RUNAI_BASE_URL), the network or VPN, and any proxy settings",
            method=method,
            path=path,
        )


class ApiTimeout(RunaiError):
    """The server accepted the connection but did not answer in time.

    ``reason`` replaces the default wording when the limit was a total deadline or the diagnosis budget rather
    than one silent socket read.
    """

    def __init__(
        self, method: str, path: str, timeout_s: float | None, attempts: int, reason: str | None = None
    ) -> None:
        self.timeout_s = timeout_s
        self.attempts = attempts
        limit = f" within {timeout_s:g} s" if timeout_s is not None else ""
        text = reason or f"no answer{limit} after {attempts} attempt(s); the control plane may be overloaded"
        super().__init__(text, method=method, path=path)


class MalformedResponse(RunaiError):
    """The body was not JSON, or not the documented shape. `problem` says what was expected and what came."""

    def __init__(self, method: str | None, path: str, problem: str) -> None:
        self.problem = problem
        super().__init__(f"malformed response: {problem}", method=method, path=path)


class BodyTooLarge(MalformedResponse):
    """The answer was larger than the cap (counted after decompression); it was not read."""

    def __init__(self, method: str, path: str, cap: int) -> None:
        self.cap = cap
        super().__init__(
            method,
            path,
            f"the answer is larger than {_size(cap)} once decompressed, more than any real answer to this read; "
            "reading stopped there",
        )


class BrokenAnswer(MalformedResponse):
    """The server was reached but what came back was not a valid HTTP answer (garbage, cut short, reset)."""

    def __init__(self, method: str, path: str, base_url: str, reason: str, attempts: int) -> None:
        self.base_url = base_url
        self.reason = reason
        self.attempts = attempts
        self.problem = reason
        # Not worded as a malformed body: nothing usable arrived at all.
        RunaiError.__init__(
            self,
            f"{base_url} was reached but answered badly after {attempts} attempt(s): {reason}. This is not a "
            "network or VPN problem: the server, or a proxy in front of it, sent something that is not a "
            "complete HTTP answer",
            method=method,
            path=path,
        )


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB" if count >= 1024 * 1024 and count % (1024 * 1024) == 0 else f"{count} bytes"


class ReadOnlyViolation(RunaiError):
    """A request that could change state was attempted; it was stopped before leaving the process."""

    def __init__(self, method: str, path: str) -> None:
        super().__init__(
            "refused: runai-triage is read-only and only sends GET (and POST to the token endpoints)",
            method=method,
            path=path,
        )


def transport_failure(
    method: str,
    target: str,
    base_url: str,
    error: Exception,
    attempts: int,
    read_timeout_s: float | None,
) -> RunaiError:
    """The client error for a request that never got a complete HTTP answer."""
    # Imported here so the error classes stay usable without the HTTP stack loaded.
    import httpx

    from core.sources.bounded import AnswerTooLarge, DeadlineExceeded

    if isinstance(error, AnswerTooLarge):
        return BodyTooLarge(method, target, error.cap)
    if isinstance(error, DeadlineExceeded):
        if error.budget:
            reason = (
                f"the diagnosis time budget ran out ({error.deadline_s:.3g} s were left for this read); "
                "the reads before it were slow"
            )
        else:
            reason = (
                f"no complete answer within {error.deadline_s:g} s (the deadline for connecting, the headers and "
                f"the whole body; {error.received} bytes of the body had been read): the server is too slow or "
                "trickling"
            )
        return ApiTimeout(method, target, error.deadline_s, attempts, reason)
    if isinstance(error, httpx.DecodingError):
        detail = clean_text(str(error), 160) if str(error) else "bad content encoding"
        return MalformedResponse(method, target, f"the body could not be decoded: {detail}")
    if isinstance(error, httpx.TimeoutException) and not isinstance(error, httpx.ConnectTimeout):
        timeout = None if isinstance(error, httpx.PoolTimeout) else read_timeout_s
        return ApiTimeout(method, target, timeout, attempts)
    reason = clean_text(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__, 160)
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        # The connection was made; what came back (or did not) is the server's doing, not the network's.
        return BrokenAnswer(method, target, base_url, _answer_problem(error, reason), attempts)
    return UnreachableError(method, target, base_url, reason, attempts)


def _answer_problem(error: Exception, reason: str) -> str:
    text = str(error).lower()
    if "without sending a response" in text or "connection reset" in text:
        return f"the connection was closed or reset before a complete answer ({reason})"
    if "incomplete" in text or "peer closed" in text:
        return f"the body was cut short ({reason})"
    return f"not a valid HTTP answer ({reason})"
