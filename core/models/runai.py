"""Models of the Run:ai control-plane objects (shapes from docs/runai-api.md and the example bundles).

Every field is optional so that a partly malformed object still parses; ``Workload.missing_required()``
says which of the keys the docs call required are absent. Enum-like values stay plain strings: compare them
with the frozensets below instead of rejecting a value a newer control plane may send.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from pydantic import Field

from core.models.base import ApiModel, LooseStr, Number, Timestamp
from core.models.runai_spec import (
    Amount,
    _bytes_or_none,
)

WORKLOAD_PHASES: frozenset[str] = frozenset(
    {
        "Creating",
        "Initializing",
        "Resuming",
        "Pending",
        "Deleting",
        "Running",
        "Updating",
        "Stopped",
        "Stopping",
        "Degraded",
        "Failed",
        "Completed",
        "Terminating",
        "Unknown",
    }
)
"""The 14 workload phases the Run:ai API documents."""

SEED_EXTRA_PHASES: frozenset[str] = frozenset({"Crashed", "Succeeded", "Suspended"})
"""Phase names the seed workflow uses that the API does not document; tolerated, never required."""

TERMINAL_PHASES: frozenset[str] = frozenset({"Failed", "Completed", "Stopped", "Crashed", "Succeeded"})
"""Phases after which the workload will not run again on its own."""

PHASE_REASONS: frozenset[str] = frozenset({"NonPreemptibleOverQuota", "OverLimit"})
WORKLOAD_SOURCES: frozenset[str] = frozenset({"CLI", "Control-plane", "Other"})
EVENT_TYPES: frozenset[str] = frozenset({"Normal", "Warning"})
CONDITION_STATUSES: frozenset[str] = frozenset({"True", "False", "Unknown"})
RESTART_POLICIES: frozenset[str] = frozenset({"Always", "Never", "OnFailure"})
HISTORY_RECORD_TYPES: frozenset[str] = frozenset({"Event", "PhaseUpdate"})
WORKLOAD_KINDS: frozenset[str] = frozenset({"Training", "Workspace", "Distributed", "Inference"})
"""Common values of ``Workload.type``; the API treats it as free text, so compare case-insensitively."""

METRIC_TYPES: frozenset[str] = frozenset(
    {
        "CPU_MEMORY_USAGE_BYTES",
        "CPU_MEMORY_LIMIT_BYTES",
        "CPU_MEMORY_REQUEST_BYTES",
        "CPU_USAGE_CORES",
        "GPU_UTILIZATION",
        "GPU_MEMORY_USAGE_BYTES",
        "GPU_MEMORY_REQUEST_BYTES",
        "POD_COUNT",
        "RUNNING_POD_COUNT",
    }
)

REQUIRED_WORKLOAD_KEYS: tuple[str, ...] = ("id", "name", "clusterId", "projectName", "phase")



class Condition(ApiModel):
    type: str | None = None
    status: str | None = None
    message: str | None = None
    reason: str | None = None
    last_transition_time: Timestamp = None


class ResourceValue(ApiModel):
    """``{request, limit}``: numbers for cores and GPUs, quantity strings for memory."""

    request: Amount | None = None
    limit: Amount | None = None


class ResourceSet(ApiModel):
    """Requested resources of a workload or pod (``workloadRequestedResources`` etc.)."""

    gpu_request_type: str | None = None
    gpu: ResourceValue | None = None
    gpu_memory: ResourceValue | None = None
    cpu: ResourceValue | None = None
    cpu_memory: ResourceValue | None = None
    extended_resources: list[Any] | None = None

    def memory_request_bytes(self) -> int | None:
        """CPU memory request in bytes, None when not set; raises QuantityError when malformed."""
        return _bytes_or_none(self.cpu_memory.request if self.cpu_memory else None)

    def memory_limit_bytes(self) -> int | None:
        """CPU memory limit in bytes, None when not set; raises QuantityError when malformed."""
        return _bytes_or_none(self.cpu_memory.limit if self.cpu_memory else None)


class AllocatedResources(ApiModel):
    gpu: Number | None = None
    gpu_memory: Amount | None = None
    cpu: Number | None = None
    cpu_memory: Amount | None = None
    extended_resources: list[Any] | None = None

    def memory_bytes(self) -> int | None:
        """Allocated CPU memory in bytes, None when not set; raises QuantityError when malformed."""
        return _bytes_or_none(self.cpu_memory)


class RequestedPods(ApiModel):
    number: int | None = None
    min: int | None = None
    max: int | None = None
    parallelism: int | None = None
    completions: int | None = None


class PendingSchedulingMessage(ApiModel):
    node_pool: str | None = None
    phase_reason: str | None = None
    reason: str | None = None
    org_type: str | None = None
    user_message: str | None = None


class InvolvedObject(ApiModel):
    uid: str | None = None
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None


class WorkloadEvent(ApiModel):
    """A Run:ai event (``/workloads/{id}/events`` and inside history records)."""

    created_at: Timestamp = None
    type: str | None = None
    cluster_id: str | None = None
    message: str | None = None
    id: str | None = None
    reason: str | None = None
    source: str | None = None
    involved_object: InvolvedObject | None = None


class Workload(ApiModel):
    """``GET /api/v1/workloads`` item and ``GET /api/v1/workloads/{id}`` body."""

    id: str | None = None
    name: str | None = None
    type: str | None = None
    cluster_id: str | None = None
    project_name: str | None = None
    project_id: LooseStr = None
    department_name: str | None = None
    department_id: LooseStr = None
    namespace: str | None = None
    submitted_by: str | None = None
    source: str | None = None
    priority: Number | None = None
    priority_class_name: str | None = None
    category: str | None = None
    preemptible: bool | None = None
    phase: str | None = None
    phase_message: str | None = None
    phase_reason: str | None = None
    k8s_phase: str | None = Field(default=None, alias="k8sPhase")
    conditions: list[Condition] | None = None
    created_at: Timestamp = None
    updated_at: Timestamp = None
    phase_updated_at: Timestamp = None
    k8s_phase_updated_at: Timestamp = Field(default=None, alias="k8sPhaseUpdatedAt")
    completed_at: Timestamp = None
    deleted_at: Timestamp = None
    running_pods: int | None = None
    requested_pods: RequestedPods | None = None
    workload_requested_resources: ResourceSet | None = None
    pods_requested_resources: ResourceSet | None = None
    allocated_resources: AllocatedResources | None = None
    images: list[str] | None = None
    command: str | None = None
    arguments: str | None = None
    environment_variables: dict[str, Any] | None = None
    datasources: list[Any] | None = None
    requested_node_pools: list[str] | None = None
    current_node_pools: list[str] | None = None
    distributed_framework: str | None = None
    total_pending_time_seconds: Number | None = None
    total_running_time_seconds: Number | None = None
    guaranteed_runtime_ends_at: Timestamp = None
    pending_scheduling_messages: list[PendingSchedulingMessage] | None = None

    def missing_required(self) -> list[str]:
        """Wire names of the required keys (id, name, clusterId, projectName, phase) that are absent."""
        values = {
            "id": self.id,
            "name": self.name,
            "clusterId": self.cluster_id,
            "projectName": self.project_name,
            "phase": self.phase,
        }
        return [key for key in REQUIRED_WORKLOAD_KEYS if values[key] in (None, "")]


class Cluster(ApiModel):
    uuid: str | None = None
    name: str | None = None
    version: str | None = None
    status: Any = None
    last_liveness: Timestamp = None


class ProjectStatus(ApiModel):
    namespace: str | None = None


class Project(ApiModel):
    name: str | None = None
    id: LooseStr = None
    cluster_id: str | None = None
    status: ProjectStatus | None = None


# Kind-specific spec (/api/v1/workloads/trainings/{id} and siblings).


class PodContainer(ApiModel):
    name: str | None = None
    image: str | None = None
    started_at: Timestamp = None


class RunaiPod(ApiModel):
    """``GET /api/v1/workloads/{id}/pods`` item."""

    name: str | None = None
    id: str | None = None
    workload_id: str | None = None
    cluster_id: str | None = None
    project_id: LooseStr = None
    created_at: Timestamp = None
    containers: list[PodContainer] | None = None
    k8s_phase: str | None = Field(default=None, alias="k8sPhase")
    k8s_phase_updated_at: Timestamp = Field(default=None, alias="k8sPhaseUpdatedAt")
    updated_at: Timestamp = None
    node_name: str | None = None
    completed_at: Timestamp = None
    deleted_at: Timestamp = None
    current_node_pool: str | None = None
    requested_node_pools: list[str] | None = None
    requested_resources: ResourceSet | None = None
    allocated_resources: AllocatedResources | None = None
    project_name: str | None = None
    workload_name: str | None = None
    priority_class_name: str | None = None
    measurements: Any = None


class HistoryMeta(ApiModel):
    creation_timestamp: Timestamp = None
    type: str | None = None


class PhaseUpdate(ApiModel):
    phase: str | None = None
    phase_message: str | None = None


class HistorySpec(ApiModel):
    event: WorkloadEvent | None = None
    phase_update: PhaseUpdate | None = None


class HistoryRecord(ApiModel):
    """``GET /api/v1/workloads/{id}/history`` item: an event or a phase change."""

    meta: HistoryMeta | None = None
    spec: HistorySpec | None = None

    @property
    def timestamp(self) -> datetime | None:
        """``meta.creationTimestamp``, falling back to the event's ``createdAt``; None when neither parsed."""
        if self.meta is not None and self.meta.creation_timestamp is not None:
            return self.meta.creation_timestamp
        if self.spec is not None and self.spec.event is not None:
            return self.spec.event.created_at
        return None

    @property
    def is_event(self) -> bool:
        """True when the record carries an event (by its type, else by content)."""
        record_type = self.meta.type if self.meta else None
        if record_type is not None:
            return record_type == "Event"
        return self.spec is not None and self.spec.event is not None

    @property
    def is_phase_update(self) -> bool:
        """True when the record carries a phase change (by its type, else by content)."""
        record_type = self.meta.type if self.meta else None
        if record_type is not None:
            return record_type == "PhaseUpdate"
        return self.spec is not None and self.spec.phase_update is not None


class MetricSample(ApiModel):
    value: LooseStr = None
    timestamp: Timestamp = None

    def number(self) -> float | None:
        """The sample as a finite float; None for "NaN", "+Inf", empty or non-numeric text."""
        if self.value is None:
            return None
        try:
            parsed = float(self.value)
        except ValueError:
            return None
        return parsed if math.isfinite(parsed) else None


class MetricSeries(ApiModel):
    type: str | None = None
    labels: dict[str, Any] | None = None
    values: list[MetricSample] | None = None


class MetricsResponse(ApiModel):
    """``GET /api/v1/workloads/{id}/metrics`` body (200, or 207 with some types missing)."""

    measurements: list[MetricSeries] | None = None

    def series(self, metric_type: str) -> list[MetricSeries]:
        """All series of one metric type (there can be several, one per label set)."""
        return [item for item in self.measurements or [] if item.type == metric_type]


class InferenceRevision(ApiModel):
    """One revision of an inference (`/workloads/inferences/{id}/revisions`), as the SDK's `Revision` has it: a
    workload's fields for the revision, its `phase` one of the workload phases. Read tolerantly all the same (an
    older shape's `status` object is still understood)."""

    id: str | None = None
    revision_id: str | None = None
    name: str | None = None
    workload_id: str | None = None
    created_at: Timestamp = None
    deleted_at: Timestamp = None
    phase: str | None = None
    phase_message: str | None = None
    phase_updated_at: Timestamp = None
    running_pods: int | None = None
    images: list[str] | None = None
    status: Any = None

    @property
    def key(self) -> str | None:
        return self.id or self.revision_id

    def state(self) -> str | None:
        """Its phase, else a status given as text or as `{phase|state|status}`."""
        if self.phase:
            return self.phase
        if isinstance(self.status, str):
            return self.status
        if isinstance(self.status, dict):
            for key in ("phase", "state", "status"):
                if isinstance(self.status.get(key), str):
                    return str(self.status[key])
        return None


class ApiErrorBody(ApiModel):
    """The error body Run:ai answers with: ``{"code", "message", "details"?}``."""

    code: int | None = None
    message: str | None = None
    details: str | None = None
