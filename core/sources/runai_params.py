"""What the Run:ai client sends, checked before it is sent: filters, workload ids, paging, the tenant URL.

A value that could escape its place in a URL (a path-like id, a comma inside a filter value whose escaping the
API leaves unspecified) is refused with a message saying what to do instead; nothing is guessed.
"""

from __future__ import annotations

import re
import ssl
import urllib.request
from collections.abc import Sequence
from datetime import UTC, datetime
from urllib.parse import quote

import httpx

from core.models.kinds import spec_segment
from core.sources.errors import clean_text

MAX_LIMIT = 500
# The cluster list has no paging; a tenant has a handful, so anything past this is not a real answer.
MAX_CLUSTERS = 1000
# Nor have an inference's revisions and a revision's pods: a list past this is cut, and says so.
MAX_UNPAGED = 1000
MAX_SAMPLES = 1000
FILTER_OPS: tuple[str, ...] = ("==", "!=", "<=", ">=", "=@", "!@", "=^", "=$")
DATE_FILTER_OPS: tuple[str, ...] = ("==", "!=", "<=", ">=")
# Never sent through a proxy: the local simulator and port-forwards live here.
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})

_FIELD_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,63}$")
# Workload ids are UUIDs; anything path-like (slashes, dots only, spaces) is refused so an id cannot escape
# its path segment.
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")


def filter_item(field: str, op: str, value: str | int | float | datetime) -> str:
    """One `filterBy` item, `<field><op><value>`, checked before it is sent.

    How the API escapes a comma inside a value is UNVERIFIED (commas separate items), so a value containing
    one is refused rather than guessed at; callers filter such names on the client side instead.
    """
    if not isinstance(field, str) or not _FIELD_RE.match(field):
        raise ValueError(f"filter field {clean_text(str(field), 64)!r} is not a plain field name")
    if op not in FILTER_OPS:
        raise ValueError(f"filter operator {clean_text(str(op), 8)!r} is not one of {' '.join(FILTER_OPS)}")
    if isinstance(value, datetime):
        if op not in DATE_FILTER_OPS:
            raise ValueError(f"filter on date field {field!r}: operator {op!r} is not one of == != <= >=")
        text = iso(value, f"filter value for {field!r}")
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int | float):
        text = str(value)
    elif isinstance(value, str):
        text = value
    else:
        raise ValueError(f"filter value for {field!r} must be text, a number or a datetime")
    if "," in text:
        raise ValueError(
            f"filter value for {field!r} contains a comma; how the API escapes commas in filterBy is "
            "UNVERIFIED, so filter this value on the client side instead"
        )
    if not text or any(ch in text for ch in "\r\n\x00"):
        raise ValueError(f"filter value for {field!r} is empty or contains a line break or NUL")
    return f"{field}{op}{text}"


def check_filters(filters: Sequence[str] | None) -> str | None:
    if not filters:
        return None
    if isinstance(filters, str):
        raise ValueError("filters must be a sequence of items such as ['name==bert'], not one string")
    for index, item in enumerate(filters):
        if not isinstance(item, str) or not item:
            raise ValueError(f"filters[{index}] must be a non-empty string")
        if "," in item:
            raise ValueError(
                f"filters[{index}] contains a comma; items are comma-separated and the escaping is UNVERIFIED"
            )
        if not any(op in item for op in FILTER_OPS):
            ops = " ".join(FILTER_OPS)
            raise ValueError(f"filters[{index}] {clean_text(item, 80)!r} has no operator ({ops})")
    return ",".join(filters)


def iso(value: datetime, what: str) -> str:
    if value.tzinfo is None:
        raise ValueError(f"{what} must be timezone-aware (a naive datetime has no defined instant)")
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def invalid_workload_id(workload_id: object, what: str = "workload id") -> str | None:
    """Why ``workload_id`` cannot be sent as an id (a workload's, or ``what``), or None when it can. The command
    line checks ids with this before anything is read, the client again before each request."""
    if not isinstance(workload_id, str) or not _ID_RE.fullmatch(workload_id):
        text = clean_text(str(workload_id), 80)
        return (
            f"{what} '{text}' is not a valid id: expected a UUID such as "
            "9c272e2c-4cbd-59c9-ad76-2b982958772c (letters, digits, '.', '_', ':' and '-', at most 128 characters)"
        )
    return None


def segment(workload_id: str) -> str:
    problem = invalid_workload_id(workload_id)
    if problem:
        raise ValueError(problem)
    return quote(workload_id, safe="")


def spec_path(workload_id: str, workload_type: str | None) -> str:
    """The spec endpoint for a workload: the kind-specific one from `type` (any spelling: core/sources/kinds.py),
    else the v2 one."""
    part = segment(workload_id)
    kind = spec_segment(workload_type)
    if kind is None:
        return f"/api/v2/workloads/{part}"
    return f"/api/v1/workloads/{kind}/{part}"


def check_paging(offset: int, limit: int) -> None:
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ValueError(f"offset must be a non-negative integer, got {offset!r}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}")


def check_sort_order(sort_order: str | None) -> None:
    if sort_order is not None and sort_order not in ("asc", "desc"):
        raise ValueError(f"sort_order must be 'asc' or 'desc', got {clean_text(str(sort_order), 16)!r}")


def base_url_of(base_url: str) -> httpx.URL:
    """Parse and check the tenant URL; credentials in it are refused without echoing them."""
    try:
        url = httpx.URL(base_url.strip())
    except (httpx.InvalidURL, TypeError):
        raise ValueError("base URL is not a valid URL") from None
    if url.scheme not in ("https", "http") or not url.host:
        raise ValueError("base URL must be an http(s) URL with a host, e.g. https://<tenant>.run.ai")
    if url.userinfo:
        raise ValueError("base URL must not carry a user name or password; pass credentials separately")
    try:
        port = url.port
    except (httpx.InvalidURL, ValueError):
        raise ValueError("base URL has an invalid port") from None
    if port is not None and not 1 <= port <= 65535:
        raise ValueError(f"base URL port {port} is out of range (1-65535)")
    if url.query or url.fragment:
        raise ValueError("base URL must not have a query string or fragment")
    return url.copy_with(path=url.path.rstrip("/") or "")


def default_transport(url: httpx.URL) -> httpx.AsyncBaseTransport:
    """A network transport that still honours the usual proxy variables (a custom transport disables
    httpx's own environment proxy handling, and the guard always supplies one)."""
    proxies = urllib.request.getproxies()
    proxy = proxies.get(url.scheme) or proxies.get("all")
    if proxy and (url.host in _LOOPBACK_HOSTS or urllib.request.proxy_bypass(url.host)):
        proxy = None
    if url.scheme == "http" and not (proxy or "").lower().startswith("https:"):
        # Plain HTTP all the way: no TLS, so no CA bundle to read (tens of milliseconds at every start).
        return httpx.AsyncHTTPTransport(proxy=proxy or None, trust_env=True, verify=_no_tls_context())
    return httpx.AsyncHTTPTransport(proxy=proxy or None, trust_env=True)


def _no_tls_context() -> ssl.SSLContext:
    """A context for a transport that never speaks TLS: verification on and no trusted certificate, so TLS, if
    it were ever attempted, fails rather than goes unverified."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
