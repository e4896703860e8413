"""Models of the core/v1 Kubernetes objects the diagnoser reads (Pod, Event, Node), from raw camelCase JSON.

These parse the API server's JSON (or a case bundle), not the ``kubernetes`` client's Python objects, so the
same model serves recordings, the simulated server and a live cluster read with ``_preload_content=False``.
"""

from __future__ import annotations

from pydantic import Field

from core.models.base import ApiModel, Timestamp

POD_PHASES: frozenset[str] = frozenset({"Pending", "Running", "Succeeded", "Failed", "Unknown"})
K8S_EVENT_TYPES: frozenset[str] = frozenset({"Normal", "Warning"})
TAINT_EFFECTS: frozenset[str] = frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute"})
NODE_CONDITION_TYPES: frozenset[str] = frozenset(
    {"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"}
)


class OwnerReference(ApiModel):
    api_version: str | None = None
    kind: str | None = None
    name: str | None = None
    uid: str | None = None
    controller: bool | None = None


class ObjectMeta(ApiModel):
    name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    creation_timestamp: Timestamp = None
    deletion_timestamp: Timestamp = None
    labels: dict[str, str | None] | None = None
    annotations: dict[str, str | None] | None = None
    owner_references: list[OwnerReference] | None = None


class ContainerStateWaiting(ApiModel):
    reason: str | None = None
    message: str | None = None


class ContainerStateRunning(ApiModel):
    started_at: Timestamp = None


class ContainerStateTerminated(ApiModel):
    exit_code: int | None = None
    signal: int | None = None
    reason: str | None = None
    message: str | None = None
    started_at: Timestamp = None
    finished_at: Timestamp = None
    container_id: str | None = Field(default=None, alias="containerID")


class ContainerState(ApiModel):
    """At most one of the three is set; an empty ``{}`` (e.g. no previous instance) has none."""

    waiting: ContainerStateWaiting | None = None
    running: ContainerStateRunning | None = None
    terminated: ContainerStateTerminated | None = None

    def is_empty(self) -> bool:
        return self.waiting is None and self.running is None and self.terminated is None


class ContainerStatus(ApiModel):
    name: str | None = None
    state: ContainerState | None = None
    last_state: ContainerState | None = None
    ready: bool | None = None
    restart_count: int | None = None
    image: str | None = None
    image_id: str | None = Field(default=None, alias="imageID")
    container_id: str | None = Field(default=None, alias="containerID")
    started: bool | None = None


class ResourceRequirements(ApiModel):
    limits: dict[str, str | int | float] | None = None
    requests: dict[str, str | int | float] | None = None


class Container(ApiModel):
    name: str | None = None
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    resources: ResourceRequirements | None = None


class PodSpec(ApiModel):
    node_name: str | None = None
    restart_policy: str | None = None
    containers: list[Container] | None = None
    init_containers: list[Container] | None = None


class PodCondition(ApiModel):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    last_transition_time: Timestamp = None


class PodStatus(ApiModel):
    phase: str | None = None
    reason: str | None = None
    message: str | None = None
    conditions: list[PodCondition] | None = None
    container_statuses: list[ContainerStatus] | None = None
    init_container_statuses: list[ContainerStatus] | None = None
    start_time: Timestamp = None


class K8sPod(ApiModel):
    metadata: ObjectMeta | None = None
    spec: PodSpec | None = None
    status: PodStatus | None = None


class EventInvolvedObject(ApiModel):
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None
    uid: str | None = None


class EventSeries(ApiModel):
    count: int | None = None
    last_observed_time: Timestamp = None


class EventSource(ApiModel):
    component: str | None = None
    host: str | None = None


class K8sEvent(ApiModel):
    metadata: ObjectMeta | None = None
    involved_object: EventInvolvedObject | None = None
    reason: str | None = None
    message: str | None = None
    type: str | None = None
    count: int | None = None
    first_timestamp: Timestamp = None
    last_timestamp: Timestamp = None
    event_time: Timestamp = None
    series: EventSeries | None = None
    source: EventSource | None = None
    reporting_component: str | None = None

    @property
    def occurrences(self) -> int | None:
        """Times the event happened: ``series.count`` (new API) or ``count`` (old); None if unknown."""
        if self.series is not None and self.series.count is not None:
            return self.series.count
        return self.count


class K8sEventList(ApiModel):
    items: list[K8sEvent] | None = None


class NodeCondition(ApiModel):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None
    last_transition_time: Timestamp = None
    last_heartbeat_time: Timestamp = None


class Taint(ApiModel):
    key: str | None = None
    value: str | None = None
    effect: str | None = None
    time_added: Timestamp = None


class NodeSpec(ApiModel):
    taints: list[Taint] | None = None
    unschedulable: bool | None = None


class NodeStatus(ApiModel):
    conditions: list[NodeCondition] | None = None
    capacity: dict[str, str | int | float] | None = None
    allocatable: dict[str, str | int | float] | None = None


class K8sNode(ApiModel):
    metadata: ObjectMeta | None = None
    spec: NodeSpec | None = None
    status: NodeStatus | None = None

    def condition(self, condition_type: str) -> NodeCondition | None:
        """The node condition of this type (e.g. "Ready"), or None when the node does not report it."""
        for item in (self.status.conditions if self.status else None) or []:
            if item.type == condition_type:
                return item
        return None
