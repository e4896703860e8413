"""How Tier 2 connects to Kubernetes: an explicit client configuration, or a one-line reason why not.

Resolution order: ``--kubeconfig``; the first existing file of ``KUBECONFIG``; ``~/.kube/config``; the pod's
service account when running in a cluster. The result is always a fresh ``kubernetes.client.Configuration``
handed to our own ``ApiClient``: the client library's process-wide default is never read or set, so two
connections (or a test and the developer's shell) cannot leak into each other, and the kubeconfig file is
never written back (no token persistence).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from kubernetes.client import Configuration
from kubernetes.config.config_exception import ConfigException
from kubernetes.config.incluster_config import InClusterConfigLoader
from kubernetes.config.kube_config import KubeConfigLoader
from urllib3.util.retry import Retry

from core.models.base import preview
from core.safety.untrusted import redacted
from core.sources.kube_login import LoginProblem, settle_login
from core.sources.kube_types import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_READ_DEADLINE,
    DEFAULT_READ_TIMEOUT,
    KUBE_OFF,
    KubeSettings,
    KubeUnavailable,
)
from core.usage import Namer, Opt, sentence

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
# Status codes worth one more try: the API server or a proxy in front of it was briefly unavailable.
RETRY_STATUSES = frozenset({500, 502, 503, 504})
_UNAVAILABLE = "Tier 2 unavailable: "
# The options a reason names, as data: each front end says them its way (KubeSettings.named; KUBE_OFF too).
KUBECONFIG = Opt("kubeconfig", plainly="the kubeconfig given")
KUBE_CONTEXT = Opt("kube_context", plainly="the context to use")


@dataclass(frozen=True, slots=True)
class KubeConnection:
    """A ready client configuration plus where it came from (for the report) and the per-call timeouts."""

    configuration: Configuration
    origin: str
    context: str | None
    timeout: tuple[float, float] = field(default=(DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT))
    deadline: float = DEFAULT_READ_DEADLINE


def bounded_retry() -> Retry:
    """One retry at most, only for GET, only on a refused/failed connect or a 5xx answer, with no sleeping.

    urllib3's default (3 retries) would quadruple every timeout; a read timeout is never retried because the
    server may still be working on the first request. ``Retry-After`` is ignored so a hostile or confused
    server cannot park us, and redirects are not followed (the 3xx is reported instead).
    """
    return Retry(
        total=1,
        connect=1,
        read=0,
        status=1,
        other=0,
        redirect=False,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"GET"}),
        backoff_factor=0,
        raise_on_status=False,
        respect_retry_after_header=False,
    )


def build_configuration(
    settings: KubeSettings,
    env: Mapping[str, str] = os.environ,
    *,
    home: Path | None = None,
    service_account_dir: Path = SERVICE_ACCOUNT_DIR,
) -> KubeConnection | KubeUnavailable:
    """Resolve settings into a connection, or say in one line why Tier 2 is unavailable. Never raises.

    ``env`` stands in for the process environment and ``home`` for the user's home directory (default: the
    ``HOME`` in ``env``, else the real home), so tests never touch the developer's files.
    """
    if not settings.enabled:
        return KubeUnavailable(KUBE_OFF.worded(settings.named))
    try:
        found = _resolve(settings, env, home, service_account_dir)
    except Exception as exc:  # documented never to raise: whatever the client library does, it is a reason
        return KubeUnavailable(_UNAVAILABLE + f"the Kubernetes client could not be set up ({_problem(exc)})")
    if isinstance(found, KubeConnection):
        return dataclasses.replace(found, deadline=settings.deadline)
    return found


def _resolve(
    settings: KubeSettings, env: Mapping[str, str], home: Path | None, service_account_dir: Path
) -> KubeConnection | KubeUnavailable:
    timeout = (settings.connect_timeout, settings.read_timeout)

    if settings.in_cluster is True:
        return _in_cluster(env, service_account_dir, timeout)

    searched: list[str] = []
    path = _find_kubeconfig(settings, env, home, searched)
    if path is not None:
        return _from_kubeconfig(path, settings.context, timeout, env, settings.login_timeout, settings.named)
    if settings.kubeconfig is not None:
        return KubeUnavailable(
            sentence(_UNAVAILABLE, f"no kubeconfig found at {settings.kubeconfig} (", KUBECONFIG, ")")
            .worded(settings.named)
        )
    if settings.context is not None:
        return KubeUnavailable(
            _UNAVAILABLE + f"context {settings.context} was asked for but no kubeconfig found at "
            + ", ".join(searched)
        )
    if settings.in_cluster is None and env.get("KUBERNETES_SERVICE_HOST"):
        return _in_cluster(env, service_account_dir, timeout)
    tail = "" if settings.in_cluster is False else " and not in a cluster (KUBERNETES_SERVICE_HOST unset)"
    return KubeUnavailable(_UNAVAILABLE + "no kubeconfig found at " + ", ".join(searched) + tail)


def _find_kubeconfig(
    settings: KubeSettings, env: Mapping[str, str], home: Path | None, searched: list[str]
) -> Path | None:
    if settings.kubeconfig is not None:
        explicit = settings.kubeconfig.expanduser()
        return explicit if explicit.is_file() else None
    listed = env.get("KUBECONFIG", "")
    if listed:
        for item in listed.split(os.pathsep):
            if not item:
                continue
            candidate = Path(item).expanduser()
            searched.append(f"{candidate} (KUBECONFIG)")
            if candidate.is_file():
                return candidate
        # kubectl ignores ~/.kube/config when KUBECONFIG is set; so do we.
        return None
    base = home if home is not None else Path(env["HOME"]) if env.get("HOME") else Path.home()
    default = base / ".kube" / "config"
    searched.append(str(default))
    return default if default.is_file() else None


def _new_configuration() -> Configuration:
    # A plain constructor in this client version: it does not copy the process-wide default (never set here).
    configuration = Configuration()
    configuration.retries = bounded_retry()
    return configuration


def _from_kubeconfig(
    path: Path, context: str | None, timeout: tuple[float, float], env: Mapping[str, str], login_timeout: float,
    named: Namer | None = None,
) -> KubeConnection | KubeUnavailable:
    def unreadable(why: str) -> KubeUnavailable:
        return KubeUnavailable(_UNAVAILABLE + f"kubeconfig unreadable: {path}: {why}")

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return unreadable("not UTF-8 text")
    except OSError as exc:
        return unreadable(exc.strerror or type(exc).__name__)
    try:
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return unreadable(f"not valid YAML{where}")
    if not isinstance(data, dict):
        return unreadable(f"expected a mapping at the top level, got {type(data).__name__}")

    names = _context_names(data.get("contexts"))
    if context is not None and context not in names:
        listed = ", ".join(preview(n) for n in names) if names else "none"
        return KubeUnavailable(
            _UNAVAILABLE + f"context {preview(context)} not in kubeconfig {path} (contexts: {listed})"
        )
    active = context if context is not None else data.get("current-context")
    if not active:
        return unreadable(sentence("no current-context set; pass ", KUBE_CONTEXT).worded(named))
    if not isinstance(active, str) or active not in names:
        return unreadable(f"current-context {preview(active)} is not one of its contexts")

    try:
        settled = settle_login(data, active, path.parent, env, login_timeout)
    except LoginProblem as exc:
        return KubeUnavailable(_UNAVAILABLE + str(exc))
    configuration = _new_configuration()
    try:
        # No config_persister: a refreshed token must never be written back into the user's file.
        KubeConfigLoader(
            config_dict=settled.data, active_context=active, config_base_path=str(path.parent)
        ).load_and_set(configuration)
    except ConfigException as exc:
        return unreadable(_first_line(str(exc)))
    except Exception as exc:
        # The loader indexes the YAML directly; a wrong shape surfaces as KeyError, TypeError and the like.
        return unreadable(f"malformed ({_problem(exc)})")
    if not configuration.host:
        return unreadable(f"context {active} names no cluster server")
    # The library's own hook would log in again its way (see kube_login); only ours may, and only for exec.
    configuration.refresh_api_key_hook = settled.refresh
    return KubeConnection(configuration, f"kubeconfig {path}, context {active}", active, timeout)


def _context_names(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        return []
    return [item["name"] for item in raw if isinstance(item, dict) and isinstance(item.get("name"), str)]


def _in_cluster(
    env: Mapping[str, str], service_account_dir: Path, timeout: tuple[float, float]
) -> KubeConnection | KubeUnavailable:
    if not env.get("KUBERNETES_SERVICE_HOST"):
        return KubeUnavailable(_UNAVAILABLE + "in-cluster requested but KUBERNETES_SERVICE_HOST is unset")
    configuration = _new_configuration()
    loader = InClusterConfigLoader(
        token_filename=str(service_account_dir / "token"),
        cert_filename=str(service_account_dir / "ca.crt"),
        environ=dict(env),
    )
    try:
        loader.load_and_set(configuration)
    except ConfigException as exc:
        return KubeUnavailable(
            _UNAVAILABLE
            + f"in-cluster service account unusable ({service_account_dir}): {_first_line(str(exc))}"
        )
    except OSError as exc:
        return KubeUnavailable(
            _UNAVAILABLE + f"in-cluster service account unreadable ({service_account_dir}): "
            f"{exc.strerror or type(exc).__name__}"
        )
    return KubeConnection(configuration, f"in-cluster service account ({service_account_dir})", None, timeout)


def _problem(exc: Exception) -> str:
    return f"{type(exc).__name__}: {_first_line(str(exc))}"


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "no detail"
    return line if len(line) <= 200 else redacted(line[:10_000])[:200] + "..."  # redacted before it is cut
