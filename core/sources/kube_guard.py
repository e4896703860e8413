"""A read-only guard underneath the official Kubernetes client.

The Tier 2 source only calls read methods, and a test checks that by reading its code. This guard is the
second line: it sits on the urllib3 pool manager that every request of an ``ApiClient`` goes through, so
even a call nobody reviewed (``api_client.call_api("DELETE", ...)``, a raw ``rest_client.request("POST",
...)``) raises ``ReadOnlyViolation`` before a connection is opened or a byte is sent.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from kubernetes.client import ApiClient, Configuration

from core.sources.errors import ReadOnlyViolation
from core.sources.guard import assert_read_only

__all__ = ["ReadOnlyViolation", "guard_api_client", "is_guarded", "read_only_api_client"]


def _check(method: str, url: str) -> None:
    # Same rule as the Run:ai client's guard, with no POST allowed: credentials come from the kubeconfig, so
    # there is no token endpoint on this side.
    assert_read_only(str(method), urlsplit(str(url)).path, allowed_posts=())


def _guarded(send: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(send)
    def wrapper(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        _check(method, url)
        return send(method, url, *args, **kwargs)

    wrapper.__runai_read_only__ = True  # type: ignore[attr-defined]
    return wrapper


def guard_api_client(api_client: ApiClient) -> ApiClient:
    """Make every request of ``api_client`` pass the read-only check first; returns the same client.

    Both entry points of the pool manager are wrapped: ``request`` (what the REST client calls) and
    ``urlopen`` (what ``request`` and any direct caller end in). Idempotent.
    """
    pool = api_client.rest_client.pool_manager
    for name in ("request", "urlopen"):
        current = getattr(pool, name)
        if not getattr(current, "__runai_read_only__", False):
            setattr(pool, name, _guarded(current))
    return api_client


def is_guarded(api_client: ApiClient) -> bool:
    """True when both pool-manager entry points of ``api_client`` carry the guard."""
    pool = api_client.rest_client.pool_manager
    return all(getattr(getattr(pool, name), "__runai_read_only__", False) for name in ("request", "urlopen"))


def read_only_api_client(configuration: Configuration) -> ApiClient:
    """A new ``ApiClient`` on an explicit configuration, with the guard installed."""
    return guard_api_client(ApiClient(configuration=configuration))
