"""The signal vocabulary: kinds, the typed `Signal` and the seed's strength order.

A family (one module under core/diagnosis/signals/) holds the patterns of one kind of failure, the real
cluster strings it must recognise (`Example`s, checked by tests/unit/test_signal_families.py), its matcher,
and the rule rows of core/diagnosis/rules.py that its kinds feed; what it declares is in `family.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class SignalKind(StrEnum):
    OOM_KILLED = "OOM_KILLED"
    NODE_OOM_KILLING = "NODE_OOM_KILLING"
    GPU_OOM = "GPU_OOM"
    IMAGE_PULL = "IMAGE_PULL"
    INIT_FAILED = "INIT_FAILED"
    MOUNT_FAILED = "MOUNT_FAILED"
    APP_EXIT = "APP_EXIT"
    SIGKILLED = "SIGKILLED"
    # The seed's "exit 137 without OOMKilled": the same signal until something else explains the kill.
    EXIT_137_UNEXPLAINED = "SIGKILLED"
    SIGTERMED = "SIGTERMED"
    LIVENESS_KILL = "LIVENESS_KILL"
    # A readiness probe failing: the pod is taken out of service, never restarted. Corroborates only.
    READINESS_FAILED = "READINESS_FAILED"
    EVICTED = "EVICTED"
    NODE_LOST = "NODE_LOST"
    NODE_NOT_READY = "NODE_NOT_READY"
    NODE_DRAIN = "NODE_DRAIN"
    # The node's runtime could not create the pod's sandbox (FailedCreatePodSandBox): a start failure of the node.
    SANDBOX_FAILED = "SANDBOX_FAILED"
    NODE_PRESSURE = "NODE_PRESSURE"
    DISRUPTION_TARGET = "DISRUPTION_TARGET"
    PREEMPTED = "PREEMPTED"
    POLICY_IDLE_TIMEOUT = "POLICY_IDLE_TIMEOUT"
    POLICY_MAX_DURATION = "POLICY_MAX_DURATION"
    MANUAL_STOP = "MANUAL_STOP"
    CRASH_LOOP = "CRASH_LOOP"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    CREATE_CONTAINER_CONFIG_ERROR = "CREATE_CONTAINER_CONFIG_ERROR"
    START_ERROR = "START_ERROR"
    # Reason "Error" with no exit code: a failed container whose cause still needs status, history or logs.
    CONTAINER_ERROR = "CONTAINER_ERROR"
    # Faults under the workload (report-format "Infrastructure findings"): they decide no category (the seed's
    # taxonomy does), they raise a finding for the administrator.
    GPU_HARDWARE = "GPU_HARDWARE"
    GPU_DRIVER = "GPU_DRIVER"
    NETWORK_FABRIC = "NETWORK_FABRIC"
    ADMISSION_DENIED = "ADMISSION_DENIED"
    CONTROL_PLANE = "CONTROL_PLANE"


class ImagePullKind(StrEnum):
    NOT_FOUND = "NOT_FOUND"
    AUTHORIZATION = "AUTHORIZATION"
    NETWORK = "NETWORK"
    TLS = "TLS"
    RATE_LIMIT = "RATE_LIMIT"
    INVALID_NAME = "INVALID_NAME"
    NEVER_PULL = "NEVER_PULL"
    UNKNOWN_PULL = "UNKNOWN_PULL"


@dataclass(frozen=True)
class Signal:
    """One piece of failure evidence. ``detail`` is raw quoted text: sanitise and redact before showing it."""

    kind: SignalKind
    detail: str
    exit_code: int | None = None
    reason: str | None = None
    pull_kind: ImagePullKind | None = None
    container: str | None = None
    init: bool = False
    at: datetime | None = None
    # What ran out (Evicted, node pressure), or which PVC/Secret/ConfigMap/volume/image is involved.
    resource: str | None = None
    # A caveat for the reader, e.g. why an image-pull classification may be wrong.
    note: str | None = None
    # True when the same text is known to fit more than one cause (see ImagePullKind.AUTHORIZATION).
    ambiguous: bool = False
    # Where it came from (event source component, "containerStatuses", "node.conditions", ...).
    source: str | None = None
    # How many times an event says it happened (de-duplicated Kubernetes events).
    count: int | None = None
    # Who stopped the workload, for MANUAL_STOP.
    actor: str | None = None
    # The probe that failed (`startup`, `liveness`, `readiness`), for a probe's kill or failure.
    probe: str | None = None


# The seed's "strongest direct signal" order; preemption first because it routes the case elsewhere.
_RANK: tuple[SignalKind, ...] = (
    SignalKind.PREEMPTED,
    SignalKind.OOM_KILLED,
    SignalKind.IMAGE_PULL,
    SignalKind.INIT_FAILED,
    SignalKind.MOUNT_FAILED,
    SignalKind.CREATE_CONTAINER_CONFIG_ERROR,
    SignalKind.START_ERROR,
    SignalKind.GPU_OOM,
    SignalKind.APP_EXIT,
    SignalKind.NODE_OOM_KILLING,
    SignalKind.LIVENESS_KILL,
    SignalKind.EVICTED,
    SignalKind.NODE_LOST,
    SignalKind.NODE_NOT_READY,
    SignalKind.NODE_DRAIN,
    SignalKind.SANDBOX_FAILED,
    SignalKind.DISRUPTION_TARGET,
    SignalKind.DEADLINE_EXCEEDED,
    SignalKind.POLICY_IDLE_TIMEOUT,
    SignalKind.POLICY_MAX_DURATION,
    SignalKind.MANUAL_STOP,
    SignalKind.CRASH_LOOP,
    SignalKind.SIGTERMED,
    SignalKind.SIGKILLED,
    SignalKind.NODE_PRESSURE,
    SignalKind.CONTAINER_ERROR,
    SignalKind.READINESS_FAILED,
    SignalKind.GPU_HARDWARE,
    SignalKind.GPU_DRIVER,
    SignalKind.NETWORK_FABRIC,
    SignalKind.ADMISSION_DENIED,
    SignalKind.CONTROL_PLANE,
)
_RANK_INDEX: dict[SignalKind, int] = {kind: index for index, kind in enumerate(_RANK)}


def signal_rank(kind: SignalKind) -> int:
    """Position in the seed's strongest-signal order (0 = strongest)."""
    return _RANK_INDEX.get(kind, len(_RANK))


def rank_signals(signals: Iterable[Signal]) -> list[Signal]:
    """Signals strongest first; ties keep their input order."""
    return sorted(signals, key=lambda item: signal_rank(item.kind))
