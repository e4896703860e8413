"""The read-only guard underneath the official Kubernetes client, at every layer a request can enter.

The Tier 2 source only calls read methods, and a test checks that by reading its code. This guard is the
second line, so that no future code can write even by reaching past the client:

- the connection (the pool's own connection class, with ``_GuardedConnection`` mixed in): ``putrequest`` is
  where the request line is formed for every request urllib3 or ``http.client`` sends, and nothing is on the
  wire before the headers end, so a write, a websocket upgrade or an exec/attach/port-forward/proxy path is
  refused there before a byte leaves;
- the connection pools (``pool.urlopen``) and the pool manager (``request``/``urlopen``): the same check
  before a pool hands out a connection, so a refused call does not even open one;
- the ``ApiClient``: its ``call_api``/``request`` cannot be swapped, which is how ``kubernetes.stream`` reroutes
  a call to a websocket; and ``websocket.WebSocket.connect`` refuses outright, because nothing in runai-triage
  ever opens a websocket (exec, attach and port-forward all run that way).

Every refusal raises ``ReadOnlyViolation``. Connections also register with the read deadline of the thread
(``kube_deadline``), which is how a trickling answer is cut off on time.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from kubernetes.client import ApiClient, Configuration
from urllib3.connectionpool import HTTPConnectionPool

from core.sources.errors import ReadOnlyViolation, safe_target
from core.sources.guard import assert_read_only
from core.sources.kube_deadline import attach_current

__all__ = ["ReadOnlyViolation", "guard_api_client", "is_guarded", "read_only_api_client"]

# Subresources that run commands or tunnel traffic into a pod, node or service, even when asked with GET.
_TUNNEL_PATH = re.compile(r"/(pods|nodes|services)/[^/]+/(exec|attach|portforward|proxy)(/|$)")
_MARK = "__runai_read_only__"


def check(method: str, url: str) -> None:
    """Raise ``ReadOnlyViolation`` unless this is a GET of a plain read path."""
    path = urlsplit(str(url)).path
    # Same rule as the Run:ai client's guard, with no POST allowed: credentials come from the kubeconfig, so
    # there is no token endpoint on this side.
    assert_read_only(str(method), path, allowed_posts=())
    if _TUNNEL_PATH.search(path):
        raise ReadOnlyViolation(str(method).upper(), safe_target(path))


class _GuardedConnection:
    """Mixed into the pool's own connection class (plain, TLS or SOCKS): the check at the request line."""

    def putrequest(self, method: str, url: str, *args: Any, **kwargs: Any) -> None:
        check(method, url)
        attach_current(getattr(self, "sock", None))  # a kept-alive connection's socket
        super().putrequest(method, url, *args, **kwargs)  # type: ignore[misc]

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        attach_current(getattr(self, "sock", None))

    def putheader(self, header: str, *values: Any) -> None:
        if str(header).strip().lower() == "upgrade":
            raise ReadOnlyViolation("GET", "(a websocket or protocol upgrade)")
        super().putheader(header, *values)  # type: ignore[misc]


class _GuardedPool:
    """Mixed into the pool manager's pool class: the check before a connection is taken (for https, before the
    TLS handshake)."""

    def urlopen(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        check(method, url)
        return super().urlopen(method, url, *args, **kwargs)  # type: ignore[misc]


_GUARDED: dict[type, type] = {}


def guarded_pool_class(base: type[HTTPConnectionPool]) -> type[HTTPConnectionPool]:
    """A subclass of ``base`` (whatever the pool manager uses: plain, proxy or SOCKS pools) whose urlopen and
    connections carry the guard. One class per base, made once."""
    if getattr(base, _MARK, False):
        return base
    made = _GUARDED.get(base)
    if made is None:
        connection = type(f"Guarded{base.ConnectionCls.__name__}", (_GuardedConnection, base.ConnectionCls), {})
        made = type(
            f"Guarded{base.__name__}", (_GuardedPool, base), {"ConnectionCls": connection, _MARK: True}
        )
        _GUARDED[base] = made
    return made


def _guarded(send: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(send)
    def wrapper(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        check(method, url)
        return send(method, url, *args, **kwargs)

    setattr(wrapper, _MARK, True)
    return wrapper


class _ReadOnlyApiClient(ApiClient):
    """An ApiClient whose request entry points cannot be replaced (``kubernetes.stream`` replaces them)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("call_api", "request") and getattr(self, "_runai_sealed", False):
            raise ReadOnlyViolation("GET", f"(replacing ApiClient.{name}: a websocket call such as exec)")
        super().__setattr__(name, value)


def _refuse_websocket(*args: Any, **kwargs: Any) -> None:
    raise ReadOnlyViolation("GET", "(a websocket connection: exec, attach and port-forward are never opened)")


def _seal_websockets() -> None:
    # Process-wide and idempotent: runai-triage has no use for a websocket, so none may be opened.
    try:
        from websocket import _core
    except ImportError:
        return
    if not getattr(_core.WebSocket.connect, _MARK, False):
        setattr(_refuse_websocket, _MARK, True)
        _core.WebSocket.connect = _refuse_websocket  # type: ignore[method-assign]


def guard_api_client(api_client: ApiClient) -> ApiClient:
    """Install the guard on ``api_client``'s pool manager: guarded pools and connections for every scheme,
    and both of its own entry points wrapped. Returns the same client; idempotent."""
    pool = api_client.rest_client.pool_manager
    pool.pool_classes_by_scheme = {
        scheme: guarded_pool_class(cls) for scheme, cls in pool.pool_classes_by_scheme.items()
    }
    pool.clear()  # pools made before the guard (none in practice) would keep the plain classes
    for name in ("request", "urlopen"):
        current = getattr(pool, name)
        if not getattr(current, _MARK, False):
            setattr(pool, name, _guarded(current))
    _seal_websockets()
    return api_client


def is_guarded(api_client: ApiClient) -> bool:
    """True when the pool manager's entry points and pool classes all carry the guard."""
    pool = api_client.rest_client.pool_manager
    entry_points = all(getattr(getattr(pool, name), _MARK, False) for name in ("request", "urlopen"))
    classes = pool.pool_classes_by_scheme
    return entry_points and all(getattr(classes.get(s), _MARK, False) for s in ("http", "https"))


def read_only_api_client(configuration: Configuration) -> ApiClient:
    """A new ``ApiClient`` on an explicit configuration, with every layer of the guard installed."""
    client = guard_api_client(_ReadOnlyApiClient(configuration=configuration))
    object.__setattr__(client, "_runai_sealed", True)
    return client
