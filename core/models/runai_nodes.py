"""A Run:ai node (`GET /api/v1/nodes`, `GET /api/v1/clusters/{clusterUuid}/nodes`; the SDK's `Node`).

Tolerant like every model here: each field optional, enum-like values kept as plain strings. `status` is Run:ai's
calculated one (`Ready`, `NotReady`, `Unknown`); a cordoned node is one whose taints hold Kubernetes' own
`node.kubernetes.io/unschedulable` (what `kubectl cordon` adds): the Run:ai node has no field of its own for it.
"""

from __future__ import annotations

from core.models.base import ApiModel, Number, Timestamp

NODE_STATUSES: frozenset[str] = frozenset({"Ready", "NotReady", "Unknown"})
# The taint `kubectl cordon` (spec.unschedulable) puts on a node.
CORDON_TAINT = "node.kubernetes.io/unschedulable"


class NodeTaint(ApiModel):
    key: str | None = None
    value: str | None = None
    effect: str | None = None

    def text(self) -> str:
        """`key=value:Effect`, as kubectl writes a taint."""
        value = f"={self.value}" if self.value else ""
        effect = f":{self.effect}" if self.effect else ""
        return f"{self.key or '?'}{value}{effect}"


class NodeConditionDetail(ApiModel):
    type: str | None = None
    reason: str | None = None
    message: str | None = None


class GpuInfo(ApiModel):
    gpu_type: str | None = None
    gpu_count: Number | None = None


class RunaiNode(ApiModel):
    id: str | None = None
    name: str | None = None
    cluster_uuid: str | None = None
    status: str | None = None
    conditions: list[NodeConditionDetail] | None = None
    taints: list[NodeTaint] | None = None
    node_pool: str | None = None
    gpu_info: GpuInfo | None = None
    created_at: Timestamp = None
    updated_at: Timestamp = None

    @property
    def cordoned(self) -> bool:
        return any(t.key == CORDON_TAINT for t in self.taints or [])

    @property
    def gpus(self) -> int | None:
        count = self.gpu_info.gpu_count if self.gpu_info is not None else None
        return int(count) if isinstance(count, int | float) and not isinstance(count, bool) and count >= 0 else None
