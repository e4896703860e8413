"""Health conditions that node problem detectors put on a node, beside the kubelet's own.

NVIDIA's and the clouds' detectors each name theirs: EKS's monitoring agent sets `AcceleratedHardwareReady`
False with reasons such as `NvidiaXID79Error` or `NvidiaDoubleBitError`, AKS's detector `GPUMissing`,
`GPUXIDErrors`, NVLink and InfiniBand link-flapping conditions, others their own. No list can be complete, so a
condition is read by its polarity (a `...Ready` / `...Healthy` type that is not True, any other type that is
True) and by its words: the GPU hardware, driver and fabric families read its type, reason and message, and a
failing condition about GPUs or the fabric that none of them recognises is still reported as what it is.
"""

from __future__ import annotations

from core.diagnosis.signals import fabric, gpu_driver, gpu_hardware
from core.diagnosis.signals.model import Signal, SignalKind
from core.diagnosis.signals.text import Collector, as_text, detail, prepare, rx
from core.models.kube import K8sNode

K = SignalKind
# The kubelet's own conditions are read by the node and node-pressure families.
KUBELET_CONDITIONS = frozenset({"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"})
_POSITIVE_TYPE_RE = rx(r"(?:ready|healthy|ok|available)$")
_GPU_WORDS_RE = rx(r"gpu|\bxid|nvlink|\becc\b|dcgm|nvidia|accelerat|nvml")
_FABRIC_WORDS_RE = rx(r"infiniband|\bib\b|\bibv?_|rdma|roce|\befa\b|mlx\d|link[\s-]?flap")
_FAMILIES = (gpu_hardware.match, gpu_driver.match, fabric.match)


def failing(condition_type: str, status: str) -> bool:
    """A problem condition is True; a `...Ready` or `...Healthy` condition is a problem when it is not True."""
    if _POSITIVE_TYPE_RE.search(condition_type):
        return status in {"False", "Unknown"}
    return status == "True"


def health_conditions(node: K8sNode) -> list[Signal]:
    signals: list[Signal] = []
    for condition in (node.status.conditions if node.status else None) or []:
        kind_name, status = as_text(condition.type), as_text(condition.status)
        if not kind_name or kind_name in KUBELET_CONDITIONS or not failing(kind_name, status):
            continue
        reason, message = as_text(condition.reason), as_text(condition.message)
        source = f"node.status.conditions[{kind_name}]"
        text = prepare(f"{kind_name} {reason}".strip(), message, source, "Node")
        out = Collector(detail(reason, message) or f"{kind_name}={status}", source, False)
        for matcher in _FAMILIES:
            matcher(text, out)
        found = list(out.items.values())
        words = f"{kind_name} {reason} {message}"
        if not found and _GPU_WORDS_RE.search(words):
            out.add(K.GPU_HARDWARE, reason=reason or kind_name, note=f"GPU health check {kind_name} is {status}")
        elif not found and _FABRIC_WORDS_RE.search(words):
            out.add(K.NETWORK_FABRIC, reason=reason or kind_name, note=f"fabric health check {kind_name} is {status}")
        for signal in out.items.values():
            signals.append(
                Signal(
                    kind=signal.kind,
                    detail=f"{kind_name}={status}: {signal.detail}",
                    reason=signal.reason,
                    note=signal.note,
                    resource=signal.resource,
                    at=condition.last_transition_time,
                    source=source,
                )
            )
    return signals
