"""What each pod of a workload shows about its end, gathered from every read: the Run:ai pods (live and
deleted), the observations attributed to them, the pods Tier 2 described, and more lines per pod.

A pod's name is not its identity: an operator that recreates a failed replica gives the new pod the old name
(`x-worker-2` deleted, `x-worker-2` Pending beside it). Of the instances that share a name, the one that ended
in the failure's window speaks for the name; a live instance with another id is its replacement, and what
Kubernetes says about the replacement is not taken for the pod that failed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from core.diagnosis.observations import Observation, quote
from core.diagnosis.signals import SignalKind
from core.models.kube import K8sPod
from core.models.runai import RunaiPod

K = SignalKind
# Phases of a pod that has not failed (Run:ai's k8sPhase carries kubectl-style strings as well).
HEALTHY_PHASES = frozenset(
    {"running", "succeeded", "completed", "pending", "containercreating", "podinitializing", "terminating", ""}
)
# Kinds that say something about a pod without dating its end: they add no time of their own.
WEAK_KINDS = frozenset(
    {K.CONTAINER_ERROR, K.CRASH_LOOP, K.NODE_PRESSURE, K.DISRUPTION_TARGET, K.PREEMPTED, K.READINESS_FAILED}
)
Window = tuple[datetime | None, datetime | None]


def pod_key(name: object) -> str:
    """A pod's name as every part of the diagnosis compares it: cleaned where it enters, like all cluster text."""
    return quote(name, 120)


@dataclass
class PodEnd:
    """One pod (by name): the instance that speaks for it, and every sign of its end."""

    name: str
    pod_id: str | None = None
    node: str | None = None
    k8s_phase: str | None = None
    deleted: bool = False
    replaced_by: str | None = None  # the id of a live pod of the same name that is not this one
    times: list[tuple[datetime, str]] = dataclasses.field(default_factory=list)
    observations: list[Observation] = dataclasses.field(default_factory=list)
    texts: list[str] = dataclasses.field(default_factory=list)
    exit_codes: list[int] = dataclasses.field(default_factory=list)
    failed_container: bool = False


def inside(at: datetime | None, window: Window) -> bool:
    start, end = window
    if at is None:
        return False
    return (start is None or at > start) and (end is None or at <= end)


def failing_phase(pod: RunaiPod) -> bool:
    return (pod.k8s_phase or "").strip().lower() not in HEALTHY_PHASES


def _end_of(pod: RunaiPod) -> datetime | None:
    """When this instance ended, as Run:ai records it (None while it has not)."""
    failing = failing_phase(pod)
    times = [pod.completed_at] if failing else []
    if failing:
        times.append(pod.k8s_phase_updated_at)
    if not failing:
        times.append(pod.deleted_at)
    known = [t for t in times if t is not None]
    return min(known) if known else None


def speaking_instance(instances: Sequence[RunaiPod], window: Window) -> RunaiPod:
    """Of the pods that share a name, the one that ended first inside the window; else the first that ended at
    all; else the newest (nothing of that name ended)."""
    ended = [(end, p) for p in instances if (end := _end_of(p)) is not None]
    in_window = [pair for pair in ended if inside(pair[0], window)]
    pool = in_window or ended
    if pool:
        return min(pool, key=lambda pair: pair[0])[1]
    return instances[-1]


def k8s_terminations(pod: K8sPod) -> list[tuple[datetime | None, int | None, str, str]]:
    """Each terminated container instance the pod still shows: (finishedAt, exit code, reason, message)."""
    status = pod.status
    out: list[tuple[datetime | None, int | None, str, str]] = []
    if status is None:
        return out
    for cs in (status.init_container_statuses or []) + (status.container_statuses or []):
        for state in (cs.state, cs.last_state):
            term = state.terminated if state is not None else None
            if term is None:
                continue
            code = term.exit_code if term.exit_code is not None else (128 + term.signal if term.signal else None)
            reason = term.reason if isinstance(term.reason, str) else ""
            message = term.message if isinstance(term.message, str) else ""
            out.append((term.finished_at, code, reason, message))
    return out


def same_instance(item: PodEnd, pod: K8sPod) -> bool:
    """Whether the pod Kubernetes answered for this name is the instance that speaks for it. Only a name with a
    live replacement is in doubt: there the answer is the replacement unless it carries the speaking instance's
    own id (a deleted pod is normally gone from Kubernetes)."""
    if item.replaced_by is None:
        return True
    uid = pod.metadata.uid if pod.metadata is not None else None
    return bool(uid) and uid == item.pod_id


def _runai(found: dict[str, PodEnd], pods: Sequence[RunaiPod], window: Window) -> None:
    groups: dict[str, list[RunaiPod]] = {}
    for pod in pods:
        if pod.name:
            groups.setdefault(pod_key(pod.name), []).append(pod)
    for key, instances in groups.items():
        pod = speaking_instance(instances, window)
        item = found.setdefault(key, PodEnd(key))
        item.pod_id, item.node = pod.id, pod.node_name
        item.deleted = pod.deleted_at is not None
        item.replaced_by = next(
            (p.id for p in instances if p is not pod and p.deleted_at is None and p.id and p.id != pod.id), None
        )
        failing = failing_phase(pod)
        item.k8s_phase = (pod.k8s_phase or "").strip() or None
        if pod.completed_at is not None and failing:
            item.times.append((pod.completed_at, "pod completedAt"))
        if failing and pod.k8s_phase_updated_at is not None:
            item.times.append((pod.k8s_phase_updated_at, "pod k8sPhaseUpdatedAt"))
        if pod.deleted_at is not None and not failing:
            item.times.append((pod.deleted_at, "pod deletedAt"))


def gather(
    pods: Sequence[RunaiPod],
    observations: Sequence[Observation],
    k8s_pods: Mapping[str, K8sPod],
    texts: Mapping[str, Sequence[str]],
    window: Window,
) -> dict[str, PodEnd]:
    """Every pod's signs of its end, by name; times outside `window` (start exclusive) are left out."""
    found: dict[str, PodEnd] = {}
    _runai(found, pods, window)
    for obs in observations:
        if obs.pod is None or obs.kind is K.PREEMPTED:
            continue
        item = found.setdefault(obs.pod, PodEnd(obs.pod))
        item.observations.append(obs)
        item.texts.append(obs.signal.detail)
        if obs.signal.exit_code is not None:
            item.exit_codes.append(obs.signal.exit_code)
        if obs.at is not None and obs.kind not in WEAK_KINDS:
            item.times.append((obs.at, obs.source))
    for name, k8s in k8s_pods.items():
        key = pod_key(name)
        item = found.setdefault(key, PodEnd(key))
        if not same_instance(item, k8s):  # a replacement under the same name: none of this is the failed pod's
            continue
        if k8s.spec is not None and k8s.spec.node_name:
            item.node = item.node or k8s.spec.node_name
        for finished, code, reason, message in k8s_terminations(k8s):
            if (code in (None, 0)) and reason.lower() in ("", "completed"):
                continue
            item.failed_container = True
            if code is not None:
                item.exit_codes.append(code)
            if message:
                item.texts.append(message)
            if finished is not None:
                item.times.append((finished, "container finishedAt"))
    for name, lines in texts.items():
        if pod_key(name) in found:
            found[pod_key(name)].texts.extend(lines)
    for item in found.values():
        item.times = [(at, where) for at, where in item.times if inside(at, window)]
    return found
