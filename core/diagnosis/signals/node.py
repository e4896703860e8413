"""The node: eviction, a node lost, NotReady, rebooted, drained or cordoned; and a pod's DisruptionTarget
condition other than preemption (the seed's NODE_FAILURE, "not preemption").

Eviction (`The node was low on resource: memory`, ephemeral-storage, emptyDir) names what ran out. Node
pressure itself is the node-pressure family's (it decides nothing). FailedScheduling texts that mention
not-ready nodes are the scheduler's, not a failure. `node_signals` reads a Node object: its Ready condition,
NoExecute taints and cordon here, its pressure conditions (node_pressure) and the health conditions node problem
detectors set (node_health).
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import Signal, SignalKind, rank_signals
from core.diagnosis.signals.node_health import health_conditions
from core.diagnosis.signals.node_pressure import pressure_conditions
from core.diagnosis.signals.text import Collector, Text, as_text, canonical_reason, detail, rx
from core.models.kube import K8sNode

K = SignalKind

EVICTION_RE = rx(
    r"the node was low on resource|has larger consumption of|ephemeral local storage usage exceeds"
    r"|usage of emptydir volume \"[^\"\n]{0,253}\" exceeds|the node had condition: \["
)
_LOW_ON_RE = rx(r"low on resource: ([a-z][a-z0-9-]{0,63}(?:[./][a-z0-9-]{1,63}){0,3})")
_LARGER_CONSUMPTION_RE = rx(r"larger consumption of ([a-z][a-z0-9-]{0,63})")
_HAD_CONDITION_RE = rx(r"had condition: \[([A-Za-z, ]{1,128})\]")
_EPHEMERAL_RE = rx(r"ephemeral local storage|emptydir volume")
_NODE_LOST_RE = rx(r"which was running pod \S{1,512} is unresponsive")
_NODE_NOT_READY_RE = rx(r"status is now: nodenotready|\bnode is not ready\b")
_NODE_NOT_SCHED_RE = rx(r"status is now: nodenotschedulable")
_DRAIN_RE = rx(
    r"\bcordon(?:ed|ing)?\b|\bnode\b.{0,40}\bdrain(?:ed|ing)?\b|\bdrain(?:ed|ing)?\b.{0,40}\bnode\b|disrupting node"
)
_DISRUPTION_REASONS = frozenset(
    {
        "terminationbykubelet",
        "evictionbyevictionapi",
        "deletionbytaintmanager",
        "deletionbypodgc",
        "taintmanagereviction",
    }
)


def match(t: Text, out: Collector) -> None:
    r, m = t.r, t.m
    if r == "evicted" or EVICTION_RE.search(m):
        low = _LOW_ON_RE.search(m) or _LARGER_CONSUMPTION_RE.search(m)
        resource = low.group(1) if low else None
        if resource is None and _EPHEMERAL_RE.search(m):
            resource = "ephemeral-storage"
        if resource is None and (had := _HAD_CONDITION_RE.search(m)) is not None:
            resource = had.group(1).strip()
        out.add(K.EVICTED, reason="Evicted", resource=resource)
    if t.scheduling:
        return
    if r == "nodelost" or _NODE_LOST_RE.search(m):
        out.add(K.NODE_LOST, reason="NodeLost")
    if r == "removingnode":
        out.add(K.NODE_LOST, reason="RemovingNode", note="the node was removed from the cluster")
    if r == "nodenotready" or _NODE_NOT_READY_RE.search(m):
        out.add(K.NODE_NOT_READY, reason="NodeNotReady")
    if r == "rebooted":
        out.add(K.NODE_NOT_READY, reason="Rebooted", note="the node rebooted; its containers restarted")
    if r == "nodenotschedulable" or _NODE_NOT_SCHED_RE.search(m) or _DRAIN_RE.search(m):
        out.add(K.NODE_DRAIN, reason=canonical_reason(r))
    if r in _DISRUPTION_REASONS:
        out.add(K.DISRUPTION_TARGET, reason=canonical_reason(r))


_NODE_TAINTS = {"node.kubernetes.io/not-ready": "NotReady", "node.kubernetes.io/unreachable": "Unreachable"}


def node_signals(node: K8sNode) -> list[Signal]:
    """Signals from one Kubernetes node: Ready, pressure and health conditions, NoExecute taints, cordon."""
    signals: list[Signal] = []
    for condition in (node.status.conditions if node.status else None) or []:
        status = as_text(condition.status)
        text = detail(as_text(condition.reason), as_text(condition.message))
        if condition.type == "Ready" and status in {"False", "Unknown"}:
            signals.append(
                Signal(
                    kind=K.NODE_NOT_READY,
                    detail=text or f"Ready={status}",
                    reason=condition.reason or f"Ready={status}",
                    at=condition.last_transition_time,
                    source="node.status.conditions[Ready]",
                    note="the kubelet stopped reporting" if status == "Unknown" else None,
                )
            )
    for taint in (node.spec.taints if node.spec else None) or []:
        if taint.key in _NODE_TAINTS and taint.effect == "NoExecute":
            signals.append(
                Signal(
                    kind=K.NODE_NOT_READY,
                    detail=f"taint {taint.key}:NoExecute",
                    reason=_NODE_TAINTS[taint.key],
                    at=taint.time_added,
                    source="node.spec.taints",
                    note="pods without a matching toleration are evicted (after 300 s by default)",
                )
            )
    if node.spec is not None and node.spec.unschedulable:
        signals.append(
            Signal(
                kind=K.NODE_DRAIN,
                detail="spec.unschedulable: true (cordoned)",
                reason="Unschedulable",
                source="node.spec.unschedulable",
            )
        )
    signals += pressure_conditions(node) + health_conditions(node)
    return rank_signals(signals)


EXAMPLES = (
    example(
        "Evicted",
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 52Mi. Container main "
        "was using 30Gi, request is 1Gi, has larger consumption of memory.",
        K.EVICTED,
        resource="memory",
    ),
    example(
        "Evicted",
        "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 2Gi.",
        K.EVICTED,
        resource="ephemeral-storage",
    ),
    example(
        "Evicted",
        "Pod ephemeral local storage usage exceeds the total limit of containers 1Gi.",
        K.EVICTED,
        resource="ephemeral-storage",
    ),
    example(
        "Evicted",
        "The node had condition: [DiskPressure]. ",
        K.EVICTED,
        resource="DiskPressure",
    ),
    example("NodeLost", "Node gpu-node-3 which was running pod train-0-0 is unresponsive", K.NODE_LOST),
    example("NodeNotReady", "Node gpu-node-3 status is now: NodeNotReady", K.NODE_NOT_READY),
    example("NodeNotReady", "Node is not ready", K.NODE_NOT_READY),
    example("NodeNotSchedulable", "Node gpu-node-3 status is now: NodeNotSchedulable", K.NODE_DRAIN),
    example(None, "Node gpu-node-3 cordoned for maintenance and drained", K.NODE_DRAIN),
    example("Rebooted", "Node gpu-node-3 has been rebooted, boot id: 0c4f", K.NODE_NOT_READY, reason="Rebooted"),
    example("RemovingNode", "Node gpu-node-3 event: Removing Node gpu-node-3 from Controller", K.NODE_LOST),
    example("DeletionByTaintManager", "Taint manager: deleting due to NoExecute taint", K.DISRUPTION_TARGET),
    example("EvictionByEvictionAPI", "Eviction API: evicting", K.DISRUPTION_TARGET),
    example("DeletionByPodGC", "PodGC: node no longer exists", K.DISRUPTION_TARGET),
    example("TerminationByKubelet", "Kubelet: pod was terminated", K.DISRUPTION_TARGET),
    # Healthy nodes and the scheduler's wording are not node failures.
    example("KubeletHasSufficientMemory", "kubelet has sufficient memory available", None),
    example("KubeletHasNoDiskPressure", "kubelet has no disk pressure", None),
    example("KubeletReady", "kubelet is posting ready status", None),
    example("NodeReady", "Node gpu-node-1 status is now: NodeReady", None),
    example("NodeSchedulable", "Node gpu-node-1 status is now: NodeSchedulable", None),
    example(
        "FailedScheduling",
        "0/3 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/not-ready: }",
        None,
    ),
    example("Scheduled", "Successfully assigned runai-nlp/train-0-0 to gpu-node-1", None),
)

FAMILY = Family(
    name="node",
    kinds=frozenset({K.EVICTED, K.NODE_LOST, K.NODE_NOT_READY, K.NODE_DRAIN, K.DISRUPTION_TARGET}),
    match=match,
    examples=EXAMPLES,
    rows={
        kind: "node-failure" for kind in (K.EVICTED, K.NODE_LOST, K.NODE_NOT_READY, K.NODE_DRAIN, K.DISRUPTION_TARGET)
    },
)
