"""A story rendered as the Run:ai REST API answers for it: the workload, its submitted spec, its pods, and the
bundle entry that holds them (with its events, history and metrics)."""

from __future__ import annotations

from core.sim.demo.record import StoryRecord
from core.sim.demo.world import NODE_POOL, TENANT_ID, Json, ts, uid

_KIND_CATEGORY = {"Training": "Train", "Distributed": "Train", "Workspace": "Build", "Inference": "Deploy"}
_KIND_PRIORITY = {
    "Training": ("train", 50),
    "Distributed": ("train", 50),
    "Workspace": ("build", 100),
    "Inference": ("inference", 125),
}


def resources(mem: tuple[str | None, str | None], cpu: tuple[float, float], gpu: float) -> Json:
    """A Run:ai `requestedResources` block; memory stays the quantity string it was submitted as."""
    cpu_memory: Json = {}
    if mem[0] is not None:
        cpu_memory["request"] = mem[0]
    if mem[1] is not None:
        cpu_memory["limit"] = mem[1]
    return {
        "gpuRequestType": "portion",
        "gpu": {"request": gpu},
        "cpu": {"request": cpu[0], "limit": cpu[1]},
        "cpuMemory": cpu_memory,
    }


def workload_json(s: StoryRecord) -> Json:
    prio_class, prio = _KIND_PRIORITY.get(s.kind, ("train", 50))
    req = resources(s.mem, s.cpu, s.gpu)
    per_workload = resources(s.mem, s.cpu, s.gpu)
    per_workload["gpu"] = {"request": s.gpu * s.requested_pods}
    running = s.running_pods > 0
    allocated: Json = (
        {
            "gpu": s.gpu * s.running_pods,
            "cpu": s.cpu[0] * s.running_pods,
            "cpuMemory": s.mem[0] or "0",
        }
        if running
        else {"gpu": 0, "cpu": 0, "cpuMemory": "0"}
    )
    env_map = {e["name"]: e["value"] for e in s.env if "value" in e}
    updated = min([s.phase_at, *[p.k8s_updated for p in s.pods]])
    lived = max(0, int((s.created - s.phase_at) * 60))
    body: Json = {
        "type": s.kind,
        "name": s.name,
        "id": s.id,
        "source": "CLI",
        "priority": prio,
        "priorityClassName": prio_class,
        "clusterId": s.cluster,
        "projectName": s.project,
        "projectId": s.proj.id,
        "departmentName": s.proj.department,
        "departmentId": uid("department", s.proj.department),
        "namespace": s.ns,
        "createdAt": ts(s.created),
        "updatedAt": ts(updated),
        "phase": s.phase,
        "phaseMessage": s.phase_message,
        "phaseReason": s.phase_reason,
        "k8sPhase": s.k8s_phase or _default_k8s_phase(s.phase),
        "conditions": s.conditions,
        "tenantId": TENANT_ID,
        "runningPods": s.running_pods,
        "requestedPods": {
            "number": s.requested_pods,
            "min": s.requested_pods,
            "max": s.requested_pods,
        },
        "phaseUpdatedAt": ts(s.phase_at),
        "k8sPhaseUpdatedAt": ts(s.phase_at),
        "deletedAt": ts(s.deleted_at) if s.deleted_at is not None else None,
        "completedAt": ts(s.completed_at) if s.completed_at is not None else None,
        "category": _KIND_CATEGORY.get(s.kind, "Train"),
        "submittedBy": s.submitted_by,
        "images": [s.image],
        "command": s.command,
        "arguments": s.args,
        "environmentVariables": env_map,
        "podsRequestedResources": req,
        "workloadRequestedResources": per_workload,
        "allocatedResources": allocated,
        "requestedNodePools": [NODE_POOL],
        "currentNodePools": [NODE_POOL],
        "preemptible": s.preemptible,
        "totalRunningTimeSeconds": s.running_seconds if s.running_seconds is not None else lived,
        "totalPendingTimeSeconds": 60,
        "pendingSchedulingMessages": s.pending_messages,
    }
    source_api = {"sourceApi": "WorkloadsV2"} if s.spec_v2 is not None else {}
    return (
        body
        | source_api
        | ({} if s.reports_pod_resources else {"podsRequestedResources": None, "workloadRequestedResources": None})
    )


def spec_json(s: StoryRecord) -> Json:
    compute: Json = {
        "cpuCoreRequest": s.cpu[0],
        "cpuCoreLimit": s.cpu[1],
        "gpuDevicesRequest": int(s.gpu) if s.gpu >= 1 else None,
        "gpuRequestType": "portion",
        "gpuPortionRequest": s.gpu if s.gpu < 1 else 1.0,
    }
    if s.mem[0] is not None:
        compute["cpuMemoryRequest"] = s.mem[0]
    if s.mem[1] is not None:
        compute["cpuMemoryLimit"] = s.mem[1]
    container: Json = {
        "image": s.image,
        "imagePullPolicy": "IfNotPresent",
        "command": s.command,
        "args": s.args or None,  # the API sends null or a non-empty string, never ""
        "environmentVariables": s.env,
        "compute": compute,
        "storage": s.storage,
    }
    labels = {"annotations": s.annotations, "labels": [{"name": "team", "value": s.proj.department}]}
    if s.kind == "DistributedInference":
        # Image, command and compute sit under `leader` and `worker` (each a role's spec), not at the top.
        roles = {
            role: {**{k: v for k, v in container.items() if k not in ("image", "command", "args", "compute")},
                   **labels, **part}
            for role, part in s.extra_spec.items()
            if role in ("leader", "worker") and isinstance(part, dict)
        }
        others = {k: v for k, v in s.extra_spec.items() if k not in roles}
        inner: Json = {**_restart_fields(s), **others, **roles}
    else:
        inner = {**container, **_restart_fields(s), **labels, **s.extra_spec}
    return {
        "name": s.name,
        "requestedName": s.name,
        "workloadId": s.id,
        "projectId": s.proj.id,
        "departmentId": uid("department", s.proj.department),
        "clusterId": s.cluster,
        "createdBy": s.submitted_by,
        "createdAt": ts(s.created),
        "deletedAt": ts(s.deleted_at) if s.deleted_at is not None else None,
        "desiredPhase": s.desired_phase,
        "actualPhase": s.phase,
        "spec": inner,
        **s.spec_top,
    }


# A distributed inference restarts its group or nothing (the SDK's `DistributedInferenceRestartPolicy`).
_GROUP_RESTART_POLICIES = ("RecreateGroupOnPodRestart", "None")


def _restart_fields(s: StoryRecord) -> Json:
    """`restartPolicy` and `backoffLimit` where the kind's spec has them: trainings, workspaces and distributed
    trainings; an inference spec has neither, and a distributed inference only its own group policy."""
    if s.kind == "Inference":
        return {}
    if s.kind == "DistributedInference":
        policy = s.restart_policy if s.restart_policy in _GROUP_RESTART_POLICIES else _GROUP_RESTART_POLICIES[0]
        return {"restartPolicy": policy}
    return {"restartPolicy": s.restart_policy, "backoffLimit": s.backoff_limit}


def pods_json(s: StoryRecord) -> list[Json]:
    out: list[Json] = []
    for p in s.pods:
        placed = p.node is not None
        mem = p.mem or s.mem
        req = resources(mem, s.cpu, s.gpu)
        out.append(
            {
                "name": p.name,
                "id": p.uid,
                "workloadId": s.id,
                "clusterId": s.cluster,
                "projectId": s.proj.id,
                "projectName": s.project,
                "workloadName": s.name,
                "createdAt": ts(p.created),
                "updatedAt": ts(p.k8s_updated),
                "k8sPhase": p.k8s_phase,
                "k8sPhaseUpdatedAt": ts(p.k8s_updated),
                "nodeName": p.node,
                "priorityClassName": _KIND_PRIORITY.get(s.kind, ("train", 50))[0],
                "tenantId": TENANT_ID,
                "containers": [{"name": c, "image": s.image} for c in p.containers],
                "currentNodePool": NODE_POOL,
                "requestedNodePools": [NODE_POOL],
                "requestedResources": req,
                "allocatedResources": (
                    {"gpu": s.gpu, "cpu": s.cpu[0], "cpuMemory": mem[0] or "0"}
                    if placed
                    else {"gpu": 0, "cpu": 0, "cpuMemory": "0"}
                ),
                "completedAt": ts(p.completed) if p.completed is not None else None,
                "deletedAt": ts(p.deleted) if p.deleted is not None else None,
            }
        )
        if not p.reports_resources:
            del out[-1]["requestedResources"]
    return out


def revision_json(s: StoryRecord, revision_id: str, name: str, phase: str, created: float, image: str) -> Json:
    """One item of `GET /workloads/inferences/{id}/revisions` (the SDK's `Revision`): a workload phase, the
    revision's org ids and images."""
    return {
        "type": "Inference",
        "name": name,
        "id": revision_id,
        "workloadId": s.id,
        "tenantId": TENANT_ID,
        "clusterId": s.cluster,
        "projectId": s.proj.id,
        "departmentId": uid("department", s.proj.department),
        "createdAt": ts(created),
        "images": [image],
        "phase": phase,
    }


def revision_pod_json(
    s: StoryRecord, name: str, created: float, updated: float, k8s_phase: str, node: str, image: str | None = None
) -> Json:
    """A pod of one revision (`/workloads/inferences/revisions/{id}/pods`, the SDK's `Pod`)."""
    return {
        "name": name,
        "id": uid("pod", s.key, name),
        "workloadId": s.id,
        "clusterId": s.cluster,
        "projectId": s.proj.id,
        "projectName": s.project,
        "workloadName": s.name,
        "tenantId": TENANT_ID,
        "priorityClassName": _KIND_PRIORITY.get(s.kind, ("inference", 125))[0],
        "createdAt": ts(created),
        "updatedAt": ts(updated),
        "k8sPhase": k8s_phase,
        "k8sPhaseUpdatedAt": ts(updated),
        "nodeName": node,
        "containers": [{"name": "main", "image": image or s.image}],
    }


def v2_document(s: StoryRecord, manifest: Json) -> Json:
    """`GET /api/v2/workloads/{id}` for a workload submitted as a Kubernetes manifest (the SDK's
    `WorkloadV2GetResponse`): its metadata names the manifest's group, version and kind."""
    group, _, version = str(manifest.get("apiVersion") or "").rpartition("/")
    return {
        "workload": {
            "metadata": {
                "name": s.name,
                "projectId": s.proj.id,
                "id": s.id,
                "gvk": {"group": group, "version": version, "kind": str(manifest.get("kind") or "")},
                "projectName": s.project,
                "clusterId": s.cluster,
                "tenantId": TENANT_ID,
                "departmentId": uid("department", s.proj.department),
                "departmentName": s.proj.department,
                "createdAt": ts(s.created),
                "createdBy": s.submitted_by,
                "updatedAt": ts(s.created),
                "updatedBy": s.submitted_by,
            },
            "desiredPhase": "Running",
            "workloadManifest": manifest,
            "rawManifest": manifest,
        },
        "syncInfo": {"status": "Synced", "message": ""},
    }


def entry(s: StoryRecord) -> Json:
    """The bundle's workload entry; absent parts are left out so the endpoints answer as documented."""
    item: Json = {"workload": s.workload_json()}
    item["events"] = None if s.events_null else sorted(s.events, key=lambda e: e["createdAt"])
    item["spec"] = s.spec_json() if s.spec_present else None
    if s.pods:
        item["pods"] = s.pods_json()
    if s.history:
        item["history"] = sorted(s.history, key=lambda r: r["meta"]["creationTimestamp"])
    if s.metrics:
        item["metrics"] = s.metrics
    if s.pod_metrics:
        item["podMetrics"] = s.pod_metrics
    if s.spec_v2 is not None:
        item["specV2"] = s.spec_v2
    if s.inference_revisions:
        item["inferenceRevisions"] = s.inference_revisions
    return item


def _default_k8s_phase(phase: str) -> str:
    return {
        "Completed": "Succeeded",
        "Failed": "Failed",
        "Running": "Running",
        "Stopped": "Succeeded",
        "Creating": "Pending",
        "Initializing": "Pending",
        "Resuming": "Pending",
    }.get(phase, "Pending")
