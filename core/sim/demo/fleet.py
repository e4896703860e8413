"""The demo tenant's nodes as Run:ai lists them (`GET /api/v1/clusters/{clusterUuid}/nodes`, the SDK's `Node`):
every node a pod of a story or a routine workload ran on, in the cluster those pods ran in.

A node a story gives as a Kubernetes object is listed in agreement with it: Run:ai's calculated status from its
Ready condition, its failing conditions (a Ready-like condition that is not True, a pressure that is), its
taints (and the cordon taint for `spec.unschedulable`), its pool label and GPU product. Any other node is a
healthy eight-GPU node of the default pool.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.sim.demo.story import Story
from core.sim.demo.world import NODE_POOL, Json, ts, uid

GPUS_PER_NODE = 8
DEFAULT_GPU = "NVIDIA-H100-80GB-HBM3"
CORDON = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
_STATUS = {"True": "Ready", "False": "NotReady"}
# Conditions whose True is the trouble (the rest are healthy when True).
_TROUBLE_WHEN_TRUE = frozenset({"MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"})


def failing(conditions: Iterable[Json]) -> list[Json]:
    """The conditions of a Kubernetes node that say it is in trouble, as Run:ai lists them."""
    out: list[Json] = []
    for c in conditions:
        kind, status = str(c.get("type") or ""), str(c.get("status") or "")
        bad = status == "True" if kind in _TROUBLE_WHEN_TRUE else status != "True"
        if bad:
            item: Json = {"type": kind, "reason": str(c.get("reason") or kind)}
            if c.get("message"):
                item["message"] = c["message"]
            out.append(item)
    return out


def runai_node(name: str, cluster: str, kube: Json | None) -> Json:
    labels = ((kube or {}).get("metadata") or {}).get("labels") or {}
    conditions = ((kube or {}).get("status") or {}).get("conditions") or []
    spec = (kube or {}).get("spec") or {}
    ready = next((str(c.get("status")) for c in conditions if c.get("type") == "Ready"), "True")
    taints = [{k: t[k] for k in ("key", "value", "effect") if t.get(k)} for t in spec.get("taints") or []]
    if spec.get("unschedulable") and not any(t.get("key") == CORDON["key"] for t in taints):
        taints.append(dict(CORDON))
    return {
        "id": uid("runai-node", cluster, name),
        "name": name,
        "clusterUuid": cluster,
        "status": _STATUS.get(ready, "Unknown"),
        "conditions": failing(conditions),
        "taints": taints,
        "nodePool": str(labels.get("run.ai/node-pool") or NODE_POOL),
        "gpuInfo": {"gpuType": str(labels.get("nvidia.com/gpu.product") or DEFAULT_GPU), "gpuCount": GPUS_PER_NODE},
        "createdAt": ts(90 * 24 * 60),
        "updatedAt": ts(0),
    }


def runai_nodes(stories: Iterable[Story], kube_nodes: Iterable[Json]) -> list[Json]:
    """Every node the stories' pods ran on, by cluster and name."""
    placed: dict[tuple[str, str], None] = {}
    for s in stories:
        for pod in s.pods:
            if pod.node:
                placed[(s.cluster, pod.node)] = None
    by_name = {str(n["metadata"]["name"]): n for n in kube_nodes}
    return [runai_node(name, cluster, by_name.get(name)) for cluster, name in sorted(placed)]
