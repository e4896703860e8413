"""Which container's log explains a failed pod, and whether its current instance is the one that failed."""

from __future__ import annotations

from core.models.kube import ContainerStatus, K8sPod
from core.sources.kube_types import ContainerChoice

DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"
# Mesh and platform helpers that run next to the workload; their logs rarely explain its failure.
KNOWN_SIDECARS = frozenset({"istio-proxy", "linkerd-proxy", "vault-agent", "cloud-sql-proxy"})
_SIDECAR_PREFIXES = ("runai-sidecar",)


def is_sidecar(name: str) -> bool:
    return name in KNOWN_SIDECARS or name.startswith(_SIDECAR_PREFIXES)


def choose_log_container(pod: K8sPod) -> ContainerChoice | None:
    """The container whose log explains the failure.

    Order: the failing init container; the pod's default-container annotation; the container that
    terminated badly (non-zero exit or OOMKilled, now or in its previous instance), skipping known sidecars;
    otherwise the first container that is not a sidecar (or the only one).
    """
    status = pod.status
    init_statuses = (status.init_container_statuses if status else None) or []
    for cs in init_statuses:
        failure = _failure(cs)
        if cs.name and failure:
            return ContainerChoice(cs.name, f"init container {cs.name} failed ({failure})", init=True)

    spec_names = [c.name for c in ((pod.spec.containers if pod.spec else None) or []) if c.name]
    statuses = {cs.name: cs for cs in ((status.container_statuses if status else None) or []) if cs.name}
    names = spec_names or list(statuses)

    annotations = (pod.metadata.annotations if pod.metadata else None) or {}
    wanted = annotations.get(DEFAULT_CONTAINER_ANNOTATION)
    if wanted and wanted in names:
        return ContainerChoice(wanted, f"pod annotation {DEFAULT_CONTAINER_ANNOTATION}")

    failed = [(n, _failure(statuses[n])) for n in names if n in statuses and _failure(statuses[n])]
    # A sidecar that failed is still a candidate, but only after every workload container.
    failed.sort(key=lambda item: is_sidecar(item[0]))
    if failed:
        name, failure = failed[0]
        return ContainerChoice(name, f"container {name} {failure}")

    candidates = [n for n in names if not is_sidecar(n)] or names
    if not candidates:
        return None
    if len(candidates) == 1:
        return ContainerChoice(candidates[0], "the only workload container")
    return ContainerChoice(candidates[0], "the first workload container (none terminated with an error)")


def terminated_without_restart(pod: K8sPod, container: str) -> bool:
    status = pod.status
    if status is None:
        return False
    for cs in (status.container_statuses or []) + (status.init_container_statuses or []):
        if cs.name == container:
            return cs.restart_count == 0 and cs.state is not None and cs.state.terminated is not None
    return False


def _failure(cs: ContainerStatus) -> str | None:
    """How this container failed (current or previous instance), or None when it did not."""
    for label, state in (("", cs.state), ("previous instance ", cs.last_state)):
        term = state.terminated if state is not None else None
        if term is None:
            continue
        if term.reason == "OOMKilled":
            return f"{label}OOMKilled (exit {term.exit_code})"
        if term.exit_code not in (None, 0):
            return f"{label}exited {term.exit_code}" + (f" ({term.reason})" if term.reason else "")
    waiting = cs.state.waiting if cs.state is not None else None
    if waiting is not None and waiting.reason in ("CrashLoopBackOff", "RunContainerError"):
        return f"is in {waiting.reason}"
    return None
