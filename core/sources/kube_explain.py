"""Why a Kubernetes read failed, in words a user can act on. Every failure of a Tier 2 read becomes a Missing."""

from __future__ import annotations

import re

import urllib3
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import (
    ConnectTimeoutError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)

from core.models import safe_json
from core.models.pages import ShapeError
from core.sources.errors import body_excerpt
from core.sources.evidence import Missing
from core.sources.kube_guard import ReadOnlyViolation

_RBAC_DENIAL = re.compile(
    r'cannot (?P<verb>[a-z]+) resource "(?P<resource>[^"]+)"(?: in API group "[^"]*")?'
    r'(?: in the namespace "(?P<namespace>[^"]+)"| (?P<cluster>at the cluster scope))?'
)


class BodyTooLarge(Exception):
    def __init__(self, cap: int) -> None:
        super().__init__(f"body larger than {cap} bytes")
        self.cap = cap


class ReadTooSlow(Exception):
    """The read's deadline (or the diagnosis budget) passed before the answer was complete."""

    def __init__(self, seconds: float, size: int, *, budget: bool = False) -> None:
        super().__init__(f"answer not complete after {seconds:g} s ({size} bytes)")
        self.seconds = seconds
        self.size = size
        self.budget = budget


def explain(
    exc: Exception,
    what: str,
    source: str,
    *,
    not_found: str,
    host: str,
    origin: str,
    timeout: tuple[float, float],
) -> Missing:
    """Turn any read failure into a Missing with an actionable why; a refused write is re-raised (a bug to
    surface, never an evidence gap)."""
    if isinstance(exc, ReadOnlyViolation):
        raise exc
    if isinstance(exc, ApiException):
        status = exc.status or 0
        message = status_message(exc)
        if status == 401:
            why = (
                f"credentials refused (401): check the kubeconfig user of {origin}"
                " (expired or wrong token or certificate)"
            )
        elif status == 403:
            why = _forbidden_why(message)
        elif status == 404:
            why = not_found
        elif status == 400:
            why = f"the API server refused the request (400): {message}"
        elif status == 429:
            why = f"the API server is rate-limiting this client (429): {message}"
        elif 500 <= status <= 599:
            why = f"the API server failed (HTTP {status}) on both attempts: {message}"
        elif status == 0:
            why = f"TLS or transport error talking to {host}: {first_line(str(exc.reason))}"
        else:
            why = f"unexpected HTTP {status} from the API server: {message}"
        return Missing(what, why, source)
    connect, read = timeout
    return Missing(what, _network_why(exc, host, connect, read), source)


def status_message(exc: ApiException) -> str:
    """The ``message`` of a Kubernetes Status body, sanitised and short; the raw excerpt otherwise."""
    body = exc.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if not body:
        return f"no detail ({exc.reason})" if exc.reason else "no detail"
    try:
        data = safe_json.loads(body)
    except ValueError:
        return body_excerpt(body)
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return body_excerpt(data["message"])
    return body_excerpt(body)


def _forbidden_why(message: str) -> str:
    match = _RBAC_DENIAL.search(message)
    if match is None:
        return f"RBAC denies this read (403): {message}"
    where = f" in namespace {match['namespace']}" if match["namespace"] else ""
    if match["cluster"]:
        where = " at cluster scope"
    return f"RBAC denies {match['verb']} on {match['resource']}{where} (403)"


def log_400(message: str) -> str:
    if "previous terminated container" in message:
        return f"no previous terminated instance ({message})"
    if "waiting to start" in message:
        return f"the container is still waiting to start ({message})"
    return message


def _network_why(exc: Exception, host: str, connect: float, read: float) -> str:
    """The why for a failure below HTTP (timeouts, refused connections, broken answers, bad bodies)."""
    reason = exc.reason if isinstance(exc, MaxRetryError) else exc
    if isinstance(exc, ReadTooSlow):
        if exc.budget:
            return (
                f"not read in full: the diagnosis time budget ran out ({exc.seconds:.3g} s were left for this read, "
                f"{exc.size} bytes had arrived)"
            )
        return (
            f"no complete answer within {exc.seconds:g} s (the deadline for the whole read; {exc.size} bytes of "
            f"the body had been read): the API server at {host} is too slow or trickling its answer"
        )
    if isinstance(reason, ReadTimeoutError):
        return f"read timeout after {read:g}s: the API server at {host} did not answer"
    if isinstance(reason, NewConnectionError):
        # Checked before ConnectTimeoutError, its base class in urllib3 2: a refusal is not a timeout.
        return f"API server unreachable at {host}: {_connect_detail(reason)} (after one retry)"
    if isinstance(reason, ConnectTimeoutError):
        return f"connect timeout after {connect:g}s: API server at {host} unreachable"
    if isinstance(reason, ProtocolError):
        return (
            f"the API server at {host} was reached but answered badly (not a network problem): "
            f"{first_line(str(reason))}"
        )
    if isinstance(exc, MaxRetryError):
        return f"API server unreachable at {host}: {first_line(str(reason))}"
    if isinstance(exc, urllib3.exceptions.HTTPError):
        return f"HTTP failure talking to {host}: {type(exc).__name__}"
    if isinstance(exc, BodyTooLarge):
        return f"malformed answer: body larger than {exc.cap // (1024 * 1024)} MiB"
    if isinstance(exc, ShapeError):
        return f"malformed answer: {exc}"
    if isinstance(exc, OSError):
        return f"network error talking to {host}: {exc.strerror or type(exc).__name__}"
    # Anything else is a bug on our side or in the client; it is still reported, never raised.
    return f"unexpected failure ({type(exc).__name__}): {first_line(str(exc))}"


def _connect_detail(error: NewConnectionError) -> str:
    text = str(error)
    known_causes = ("Connection refused", "Name or service not known", "No route to host", "unreachable")
    for known in known_causes:
        if known.lower() in text.lower():
            return known.lower()
    return "connection failed"


def host_of(url: str | None) -> str:
    return (url or "?").split("://", 1)[-1].rstrip("/") or "?"


def first_line(text: str) -> str:
    stripped = text.strip()
    line = stripped.splitlines()[0] if stripped else "no detail"
    return body_excerpt(line)
