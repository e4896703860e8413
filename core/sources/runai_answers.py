"""What a Run:ai answer that cannot be used becomes: the error a caller reports, worded for the user.

Kept apart from the client (core.sources.runai), which only decides when an answer is one of these.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

import httpx

from core.models.pages import ShapeError
from core.sources.errors import (
    ApiError,
    ForbiddenError,
    MalformedResponse,
    NotFoundError,
    clean_text,
    error_fields,
    scrub_secrets,
)
from core.sources.retry import parse_retry_after

HTML_ANSWER = (
    "expected JSON, got an HTML page: the base URL may point at the Run:ai web UI or a login proxy rather than "
    "the API (use the tenant URL, e.g. https://<tenant>.run.ai, and check any proxy in between)"
)


def status_error(
    target: str, resource: str, response: httpx.Response, attempts: int, secrets: Iterable[str]
) -> ApiError:
    """The error for an answer outside the statuses asked for (its body's message, credentials scrubbed)."""
    status = response.status_code
    message, details = error_fields(response.content, secrets)
    if attempts > 1:
        message = f"{message} (gave up after {attempts} attempts)"
    if status == 403:
        return ForbiddenError("GET", target, resource, message, details)
    if status == 404:
        return NotFoundError("GET", target, 404, message, details)
    if 300 <= status < 400:
        return ApiError("GET", target, status, "unexpected redirect (redirects are not followed)", None)
    error = ApiError("GET", target, status, message, details)
    # Kept for a caller that reads again later (a live view): it waits at least this long.
    error.retry_after = parse_retry_after(response.headers.get("retry-after"), datetime.now(UTC))
    return error


def malformed(target: str, exc: ShapeError, secrets: Iterable[str]) -> MalformedResponse:
    """A body of the wrong shape: the parser's own account of it, credentials scrubbed, cut to a line."""
    return MalformedResponse("GET", target, clean_text(scrub_secrets(str(exc), secrets), 300))


def unreadable(target: str, content: bytes, exc: ShapeError, secrets: Iterable[str]) -> MalformedResponse:
    """A body that did not parse: an HTML page (a UI or proxy answering instead of the API) said as such."""
    if content.lstrip()[:1] == b"<":
        return MalformedResponse("GET", target, HTML_ANSWER)
    return malformed(target, exc, secrets)
