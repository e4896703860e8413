"""Node pressure: the kubelet running short of memory, disk (nodefs / imagefs / ephemeral storage) or PIDs on
the node, as its events and the node's conditions say.

Real wording: node events `EvictionThresholdMet` "Attempting to reclaim ephemeral-storage",
`NodeHasDiskPressure` / "Node gpu-3 status is now: NodeHasDiskPressure", `FreeDiskSpaceFailed` "Failed to
garbage collect required amount of images. Attempted to free 21474836480 bytes, but only found 0 bytes eligible
to free.", and node conditions DiskPressure / MemoryPressure / PIDPressure = True. Pressure alone decides
nothing (the eviction it causes is the node family's `Evicted`); with or without one, it is a `node-pressure`
finding for the administrator.

Also here: telling a node-pressure eviction ("The node was low on resource: memory", "The node had condition:
[DiskPressure]") from a pod that outgrew its own ephemeral-storage limit (the pod's owner's to fix), and
reading the container's use against its request from the eviction message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import Signal, SignalKind, rank_signals
from core.diagnosis.signals.text import Collector, Text, as_text, canonical_reason, detail, rx
from core.models.kube import K8sNode

K = SignalKind

_PRESSURE_EVENTS: dict[str, str] = {
    "nodehasinsufficientmemory": "memory",
    "nodehasdiskpressure": "ephemeral-storage",
    "nodehasinsufficientpid": "pids",
}
_PRESSURE_STATUS_RE = rx(r"status is now: (nodehasinsufficientmemory|nodehasdiskpressure|nodehasinsufficientpid)")
_RECLAIM_RESOURCE_RE = rx(r"attempting to reclaim ([a-z][a-z0-9-]{0,63})")
_DISK_GC_RE = rx(r"failed to garbage collect required amount of images|(?:nodefs|imagefs)\.available")
_DISK_GC_REASONS = frozenset({"freediskspacefailed", "imagegcfailed"})
_PRESSURE_CONDITIONS = {"MemoryPressure": "memory", "DiskPressure": "ephemeral-storage", "PIDPressure": "pids"}

# An eviction the node's shortage caused (the administrator's), not the pod's own limit (its owner's).
_NODE_SHORT_RE = rx(r"the node was low on resource|the node had condition: \[[A-Za-z, ]{0,64}Pressure")
_USAGE_RE = re.compile(
    r"Container (?P<container>[a-z0-9][-a-z0-9.]{0,62}) was using (?P<used>[0-9.]{1,20}[A-Za-z]{0,3}), "
    r"request is (?P<request>[0-9.]{1,20}[A-Za-z]{0,3}), has larger consumption of (?P<resource>[a-z][a-z-]{0,40})"
)


def match(t: Text, out: Collector) -> None:
    r, m = t.r, t.m
    pressure = _PRESSURE_STATUS_RE.search(m)
    reclaim = _RECLAIM_RESOURCE_RE.search(m)
    if r in _PRESSURE_EVENTS:
        out.add(K.NODE_PRESSURE, reason=canonical_reason(r), resource=_PRESSURE_EVENTS[r])
    elif pressure is not None:
        key = pressure.group(1).lower()
        out.add(K.NODE_PRESSURE, reason=canonical_reason(key), resource=_PRESSURE_EVENTS[key])
    elif r == "evictionthresholdmet" or reclaim is not None:
        out.add(K.NODE_PRESSURE, reason=canonical_reason(r), resource=reclaim.group(1) if reclaim else None)
    elif r in _DISK_GC_REASONS or _DISK_GC_RE.search(m):
        out.add(K.NODE_PRESSURE, reason=t.reason or None, resource="ephemeral-storage")


def pressure_conditions(node: K8sNode) -> list[Signal]:
    """The node's MemoryPressure, DiskPressure and PIDPressure conditions that are True."""
    signals: list[Signal] = []
    for condition in (node.status.conditions if node.status else None) or []:
        if condition.type in _PRESSURE_CONDITIONS and as_text(condition.status) == "True":
            signals.append(
                Signal(
                    kind=K.NODE_PRESSURE,
                    detail=detail(as_text(condition.reason), as_text(condition.message)) or f"{condition.type}=True",
                    reason=condition.reason or condition.type,
                    resource=_PRESSURE_CONDITIONS[condition.type],
                    at=condition.last_transition_time,
                    source=f"node.status.conditions[{condition.type}]",
                )
            )
    return rank_signals(signals)


def node_short(eviction_text: str) -> bool:
    """Whether an eviction message says the node ran short (not that the pod outgrew its own limit)."""
    return bool(_NODE_SHORT_RE.search(eviction_text))


@dataclass(frozen=True, slots=True)
class EvictionUsage:
    """What the kubelet measured when it evicted: the container's use against its request."""

    container: str
    used: str
    request: str
    resource: str


def eviction_usage(eviction_text: str) -> EvictionUsage | None:
    found = _USAGE_RE.search(eviction_text)
    if found is None:
        return None
    return EvictionUsage(found["container"], found["used"], found["request"], found["resource"])


EXAMPLES = (
    example(
        "NodeHasInsufficientMemory",
        "Node gpu-node-3 status is now: NodeHasInsufficientMemory",
        K.NODE_PRESSURE,
        resource="memory",
    ),
    example("EvictionThresholdMet", "Attempting to reclaim memory", K.NODE_PRESSURE, resource="memory"),
    example(
        "EvictionThresholdMet", "Attempting to reclaim ephemeral-storage", K.NODE_PRESSURE, resource="ephemeral-storage"
    ),
    example(
        "NodeHasDiskPressure",
        "Node gpu-node-3 status is now: NodeHasDiskPressure",
        K.NODE_PRESSURE,
        resource="ephemeral-storage",
    ),
    example(
        "FreeDiskSpaceFailed",
        "Failed to garbage collect required amount of images. Attempted to free 21474836480 bytes, but only found 0 "
        "bytes eligible to free.",
        K.NODE_PRESSURE,
        resource="ephemeral-storage",
    ),
    example("NodeHasInsufficientPID", "Node gpu-node-3 status is now: NodeHasInsufficientPID", K.NODE_PRESSURE),
    # A healthy node says so in the same words' neighbourhood.
    example("NodeHasSufficientMemory", "Node gpu-node-3 status is now: NodeHasSufficientMemory", None),
    example("NodeHasNoDiskPressure", "Node gpu-node-3 status is now: NodeHasNoDiskPressure", None),
)

FAMILY = Family(
    name="node-pressure",
    kinds=frozenset({K.NODE_PRESSURE}),
    match=match,
    examples=EXAMPLES,
)
