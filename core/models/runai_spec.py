"""Models of a workload's submitted spec (`GET /api/v1/workloads/{type}/{id}` and the v2 document): image,
command, environment, compute, storage, per role. Shapes from docs/runai-api.md; every field optional, as in
core/models/runai.py, which re-exports these names.
"""

from __future__ import annotations

from typing import Any

from core.models.base import ApiModel, LooseStr, Number, Timestamp
from core.models.quantity import quantity_to_bytes

# A CPU/GPU amount is a JSON number; a memory amount is a quantity string ("24Gi"), occasionally a number.
Amount = Number | str


def _bytes_or_none(value: Amount | None) -> int | None:
    if value is None:
        return None
    return quantity_to_bytes(value)


class SecretRef(ApiModel):
    name: str | None = None
    key: str | None = None


class EnvVar(ApiModel):
    """One ``spec.environmentVariables[]`` item; values from secrets/config maps are references only."""

    name: str | None = None
    value: str | None = None
    secret: SecretRef | None = None
    config_map: SecretRef | None = None
    exclude: bool | None = None


class NameValue(ApiModel):
    name: str | None = None
    value: str | None = None


class Compute(ApiModel):
    cpu_core_request: Number | None = None
    cpu_core_limit: Number | None = None
    cpu_memory_request: Amount | None = None
    cpu_memory_limit: Amount | None = None
    gpu_devices_request: Number | None = None
    gpu_request_type: str | None = None
    gpu_portion_request: Number | None = None
    gpu_portion_limit: Number | None = None
    gpu_memory_request: Amount | None = None
    gpu_memory_limit: Amount | None = None
    large_shm_request: bool | None = None
    extended_resources: list[Any] | None = None

    def memory_request_bytes(self) -> int | None:
        """``cpuMemoryRequest`` in bytes, None when not set; raises QuantityError when malformed."""
        return _bytes_or_none(self.cpu_memory_request)

    def memory_limit_bytes(self) -> int | None:
        """``cpuMemoryLimit`` in bytes, None when not set; raises QuantityError when malformed."""
        return _bytes_or_none(self.cpu_memory_limit)


class PvcVolume(ApiModel):
    name: str | None = None
    claim_name: str | None = None
    path: str | None = None
    existing_pvc: bool | None = None
    read_only: bool | None = None


class NfsVolume(ApiModel):
    server: str | None = None
    path: str | None = None
    mount_path: str | None = None


class S3Volume(ApiModel):
    bucket: str | None = None
    url: str | None = None
    path: str | None = None


class GitVolume(ApiModel):
    repository: str | None = None
    branch: str | None = None
    path: str | None = None


class LooseItem(ApiModel):
    """A storage entry whose shape the docs leave open; every key stays in ``model_extra``."""


class Storage(ApiModel):
    pvc: list[PvcVolume] | None = None
    nfs: list[NfsVolume] | None = None
    s3: list[S3Volume] | None = None
    git: list[GitVolume] | None = None
    host_path: list[LooseItem] | None = None
    config_map_volume: list[LooseItem] | None = None
    secret_volume: list[LooseItem] | None = None
    empty_dir_volume: list[LooseItem] | None = None
    data_volume: list[LooseItem] | None = None


class SubmittedSpec(ApiModel):
    """The ``spec`` object of a kind-specific workload document, as submitted."""

    image: str | None = None
    image_pull_policy: str | None = None
    image_pull_secrets: list[Any] | None = None
    command: str | None = None
    args: str | None = None
    working_dir: str | None = None
    environment_variables: list[EnvVar] | None = None
    compute: Compute | None = None
    storage: Storage | None = None
    restart_policy: str | None = None
    backoff_limit: int | None = None
    completions: int | None = None
    parallelism: int | None = None
    preemptibility: str | None = None
    priority_class: str | None = None
    node_pools: list[str] | None = None
    tolerations: list[Any] | None = None
    annotations: list[NameValue] | None = None
    labels: list[NameValue] | None = None
    probes: Any = None
    security: Any = None
    terminate_after_preemption: bool | None = None
    termination_grace_period_seconds: Number | None = None
    distributed_framework: str | None = None
    num_workers: int | None = None
    min_replicas: int | None = None
    max_replicas: int | None = None
    # Distributed inference keeps image, command and compute per role, not at the top of `spec`.
    leader: SubmittedSpec | None = None
    worker: SubmittedSpec | None = None
    workers: int | None = None
    # Where a distributed spec puts these is UNVERIFIED beside the top level: read both.
    master_spec_same_as_worker: bool | None = None
    master_spec: SubmittedSpec | None = None

    def annotation(self, name: str) -> str | None:
        """Value of the first annotation with exactly this name, or None."""
        for item in self.annotations or []:
            if item.name == name:
                return item.value
        return None


class WorkloadSpecDoc(ApiModel):
    """Top level of ``/api/v1/workloads/{trainings|workspaces|distributed|inferences}/{id}``."""

    name: str | None = None
    workload_id: str | None = None
    project_id: LooseStr = None
    department_id: LooseStr = None
    cluster_id: str | None = None
    created_by: str | None = None
    created_at: Timestamp = None
    deleted_at: Timestamp = None
    desired_phase: str | None = None
    actual_phase: str | None = None
    spec: SubmittedSpec | None = None
    # Distributed: `spec` describes the workers, `masterSpec` the master unless `masterSpecSameAsWorker`.
    master_spec_same_as_worker: bool | None = None
    master_spec: SubmittedSpec | None = None
    # Filled from a v2 document (core/models/spec_v2.py): each replica role's spec, and the manifest's kind.
    roles: dict[str, SubmittedSpec] | None = None
    manifest_kind: str | None = None
    sync_status: str | None = None

    def role_specs(self) -> dict[str, SubmittedSpec]:
        """Each replica role's submitted spec, when roles differ (empty for a one-role workload)."""
        if self.roles:
            return dict(self.roles)
        spec = self.spec
        if spec is None:
            return {}
        if spec.leader is not None or spec.worker is not None:
            return {role: s for role, s in (("leader", spec.leader), ("worker", spec.worker)) if s is not None}
        master = self.master_spec or spec.master_spec
        same = self.master_spec_same_as_worker
        if same is None:
            same = spec.master_spec_same_as_worker
        if master is not None and same is not True:
            return {"master": master, "worker": spec}
        return {}

    def spec_for(self, role: str | None) -> SubmittedSpec | None:
        """The spec that applies to a pod of `role`; None when roles differ and the pod's is not known."""
        roles = self.role_specs()
        if not roles:
            return self.spec
        if len(roles) == 1:
            return next(iter(roles.values()))
        return roles.get(role) if role is not None else None
