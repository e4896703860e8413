"""Building blocks for the demo tenant: the fixed clock, deterministic ids, and a `Story` that writes one
workload's objects (Run:ai workload, events, spec, pods, history, metrics, Kubernetes side) coherently.

Every timestamp is given in minutes before `DEMO_CAPTURED_AT`, so the whole tenant moves together if the
capture instant ever changes. Kubernetes events are only kept when they are younger than the API server's 1 h
TTL: a story that tries to add an older one is a bug in the story, so it fails loudly while generating.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

Json = dict[str, Any]

DEMO_CAPTURED_AT = "2026-11-30T12:00:00Z"
NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
DEMO_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://runai-triage.invalid/demo-tenant")
TENANT_ID = 4217
EVENT_TTL_MINUTES = 60.0


def uid(*parts: str) -> str:
    """A stable UUID for an object of the demo tenant, from the parts that name it."""
    return str(uuid.uuid5(DEMO_NAMESPACE, "/".join(parts)))


def ts(minutes_ago: float) -> str:
    """ISO-8601 UTC instant `minutes_ago` before the capture (fractions give seconds)."""
    moment = NOW - timedelta(seconds=round(minutes_ago * 60))
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


EAST = uid("cluster", "demo-east")
WEST = uid("cluster", "demo-west")
DEMO_CLUSTERS: list[Json] = [
    {"uuid": EAST, "name": "demo-east", "version": "2.24.0"},
    {"uuid": WEST, "name": "demo-west", "version": "2.23.2"},
]


@dataclass(frozen=True)
class Project:
    name: str
    id: str
    cluster: str
    namespace: str
    department: str


# Two projects use admin-linked namespaces, so "runai-<project>" would be the wrong guess for them.
PROJECTS: dict[str, Project] = {
    p.name: p
    for p in (
        Project("nlp", "101", EAST, "runai-nlp", "language"),
        Project("vision", "102", EAST, "runai-vision", "perception"),
        Project("speech", "103", EAST, "runai-speech", "language"),
        Project("research", "104", EAST, "ml-research", "research"),
        Project("robotics", "201", WEST, "runai-robotics", "perception"),
        Project("genai", "202", WEST, "genai-prod", "research"),
        Project("recsys", "203", WEST, "runai-recsys", "ads"),
    )
}

NODE_POOL = "default"

_KIND_CATEGORY = {"Training": "Train", "Distributed": "Train", "Workspace": "Build", "Inference": "Deploy"}
_KIND_PRIORITY = {
    "Training": ("train", 50),
    "Distributed": ("train", 50),
    "Workspace": ("build", 100),
    "Inference": ("inference", 125),
}


def project_json(p: Project) -> Json:
    return {
        "name": p.name,
        "id": p.id,
        "clusterId": p.cluster,
        "parentId": uid("department", p.department),
        "status": {"namespace": p.namespace, "phase": "Ready"},
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


# -- container states (core/v1) ------------------------------------------------------------------------------
def terminated(
    reason: str, exit_code: int, started: float, finished: float, message: str | None = None
) -> Json:
    state: Json = {
        "reason": reason,
        "exitCode": exit_code,
        "startedAt": ts(started),
        "finishedAt": ts(finished),
        "containerID": "containerd://" + uid("ctr", reason, str(started), str(finished)).replace("-", ""),
    }
    if message is not None:
        state["message"] = message
    return {"terminated": state}


def waiting(reason: str, message: str | None = None) -> Json:
    state: Json = {"reason": reason}
    if message is not None:
        state["message"] = message
    return {"waiting": state}


def running(started: float) -> Json:
    return {"running": {"startedAt": ts(started)}}


def cstatus(name: str, image: str, state: Json, last: Json | None = None, restarts: int = 0) -> Json:
    return {
        "name": name,
        "image": image,
        "imageID": "",
        "ready": "running" in state,
        "restartCount": restarts,
        "started": "running" in state,
        "state": state,
        "lastState": last or {},
    }


def condition(
    kind: str, status: str, at: float, reason: str | None = None, message: str | None = None
) -> Json:
    cond: Json = {"type": kind, "status": status, "lastTransitionTime": ts(at)}
    if reason is not None:
        cond["reason"] = reason
    if message is not None:
        cond["message"] = message
    return cond


def node(
    name: str,
    *,
    ready: str = "True",
    ready_since: float = 20000.0,
    taints: list[Json] | None = None,
    unschedulable: bool = False,
    memory_pressure: bool = False,
    gpu: str = "NVIDIA-H100-80GB-HBM3",
) -> Json:
    """A core/v1 Node as `read_node` returns it (the parts a diagnoser reads)."""
    ready_reason = {"True": "KubeletReady", "False": "KubeletNotReady", "Unknown": "NodeStatusUnknown"}[ready]
    ready_msg = {
        "True": "kubelet is posting ready status",
        "False": "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady",
        "Unknown": "Kubelet stopped posting node status.",
    }[ready]
    heartbeat = ts(0) if ready == "True" else ts(ready_since)
    mem_cond = (
        ("True", "KubeletHasInsufficientMemory", "kubelet has insufficient memory available")
        if memory_pressure
        else ("False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available")
    )
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": uid("node", name),
            "creationTimestamp": ts(90 * 24 * 60),
            "labels": {
                "nvidia.com/gpu.product": gpu,
                "node-role.kubernetes.io/runai-gpu-worker": "true",
                "run.ai/node-pool": NODE_POOL,
            },
        },
        "spec": {"taints": taints or [], "unschedulable": unschedulable},
        "status": {
            "conditions": [
                {
                    "type": "MemoryPressure",
                    "status": mem_cond[0] if ready == "True" else "Unknown",
                    "reason": mem_cond[1] if ready == "True" else "NodeStatusUnknown",
                    "message": mem_cond[2] if ready == "True" else "Kubelet stopped posting node status.",
                    "lastTransitionTime": ts(ready_since),
                    "lastHeartbeatTime": heartbeat,
                },
                {
                    "type": "DiskPressure",
                    "status": "False" if ready == "True" else "Unknown",
                    "reason": "KubeletHasNoDiskPressure" if ready == "True" else "NodeStatusUnknown",
                    "message": "kubelet has no disk pressure"
                    if ready == "True"
                    else "Kubelet stopped posting node status.",
                    "lastTransitionTime": ts(ready_since),
                    "lastHeartbeatTime": heartbeat,
                },
                {
                    "type": "Ready",
                    "status": ready,
                    "reason": ready_reason,
                    "message": ready_msg,
                    "lastTransitionTime": ts(ready_since),
                    "lastHeartbeatTime": heartbeat,
                },
            ],
            "capacity": {"cpu": "224", "memory": "2113683332Ki", "nvidia.com/gpu": "8"},
            "allocatable": {"cpu": "220", "memory": "2060000000Ki", "nvidia.com/gpu": "8"},
        },
    }


def taint(key: str, effect: str = "NoExecute", added: float | None = None) -> Json:
    t: Json = {"key": key, "effect": effect}
    if added is not None:
        t["timeAdded"] = ts(added)
    return t


def kube_event(
    key: str,
    *,
    at: float,
    reason: str,
    message: str,
    kind: str,
    name: str,
    namespace: str,
    obj_uid: str,
    type_: str = "Warning",
    component: str = "kubelet",
    host: str | None = None,
    count: int = 1,
    first: float | None = None,
) -> Json:
    """A core/v1 Event; refuses an event older than the API server would still hold."""
    first_at = at if first is None else first
    if first_at > EVENT_TTL_MINUTES and at > EVENT_TTL_MINUTES:
        raise ValueError(f"demo story {key}: Kubernetes event {reason} at -{at} min would have expired")
    event_ns = namespace or "default"
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{name}.{uid('kev', key, reason, str(at))[:16].replace('-', '')}",
            "namespace": event_ns,
            "uid": uid("kev", key, reason, str(at), message[:40]),
            "creationTimestamp": ts(first_at),
        },
        "involvedObject": {
            "apiVersion": "v1",
            "kind": kind,
            "name": name,
            "namespace": namespace,
            "uid": obj_uid,
        },
        "reason": reason,
        "message": message,
        "type": type_,
        "source": {"component": component, **({"host": host} if host else {})},
        "firstTimestamp": ts(first_at),
        "lastTimestamp": ts(at),
        "count": count,
        "eventTime": None,
        "reportingComponent": component,
        "reportingInstance": host or "",
    }


@dataclass
class PodPlan:
    """One pod of a story: the Run:ai view and, when it still exists in Kubernetes, the core/v1 view."""

    name: str
    uid: str
    node: str | None
    created: float
    k8s_phase: str
    k8s_updated: float
    containers: list[str]
    completed: float | None = None
    deleted: float | None = None


@dataclass
class Story:
    """One hand-shaped workload and everything a real tenant would still hold about it."""

    key: str
    name: str
    project: str
    phase: str
    phase_at: float
    created: float
    kind: str = "Training"
    phase_message: str = ""
    phase_reason: str | None = None
    k8s_phase: str | None = None
    submitted_by: str = "alice@example.com"
    image: str = "nvcr.io/nvidia/pytorch:24.05-py3"
    command: str = "python train.py"
    args: str = ""
    env: list[Json] = field(default_factory=list)
    mem: tuple[str | None, str | None] = ("32Gi", "32Gi")
    cpu: tuple[float, float] = (4, 8)
    gpu: float = 1
    restart_policy: str = "Never"
    backoff_limit: int = 0
    annotations: list[Json] = field(default_factory=list)
    storage: Json = field(default_factory=lambda: {"pvc": []})
    desired_phase: str = "Running"
    conditions: list[Json] = field(default_factory=list)
    pending_messages: list[Json] = field(default_factory=list)
    deleted_at: float | None = None
    completed_at: float | None = None
    running_pods: int = 0
    requested_pods: int = 1
    preemptible: bool = True
    running_seconds: int | None = None
    spec_present: bool = True
    events_null: bool = False
    extra_spec: Json = field(default_factory=dict)
    events: list[Json] = field(default_factory=list)
    history: list[Json] = field(default_factory=list)
    pods: list[PodPlan] = field(default_factory=list)
    metrics: list[Json] = field(default_factory=list)
    kube_pods: list[Json] = field(default_factory=list)
    kube_events: list[Json] = field(default_factory=list)
    nodes: list[Json] = field(default_factory=list)
    logs: list[Json] = field(default_factory=list)
    expectations: list[Json] = field(default_factory=list)

    # -- identity ------------------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return uid("workload", self.key)

    @property
    def proj(self) -> Project:
        return PROJECTS[self.project]

    @property
    def cluster(self) -> str:
        return self.proj.cluster

    @property
    def ns(self) -> str:
        return self.proj.namespace

    def pod_name(self, index: int = 0, role: str | None = None) -> str:
        return f"{self.name}-{role}-{index}" if role else f"{self.name}-0-{index}"

    def pod_uid(self, pod: str) -> str:
        return uid("pod", self.key, pod)

    # -- Run:ai side ---------------------------------------------------------------------------------------
    def add_phase(self, at: float, phase: str, message: str = "") -> Story:
        self.history.append(
            {
                "meta": {"creationTimestamp": ts(at), "type": "PhaseUpdate"},
                "spec": {"phaseUpdate": {"phase": phase, "phaseMessage": message}},
            }
        )
        return self

    def add_event(
        self,
        at: float,
        reason: str,
        message: str,
        *,
        type_: str = "Warning",
        source: str = "kubelet",
        pod: str | None = None,
        kind: str = "Pod",
        obj_name: str | None = None,
        obj_uid: str | None = None,
        in_events: bool = True,
        in_history: bool = True,
    ) -> Json:
        """A Run:ai event about this workload, listed by the events endpoint and/or kept in history."""
        target = obj_name or pod or self.pod_name()
        event: Json = {
            "id": uid("event", self.key, reason, str(at), message[:64]),
            "createdAt": ts(at),
            "type": type_,
            "clusterId": self.cluster,
            "reason": reason,
            "message": message,
            "source": source,
            "involvedObject": {
                "uid": obj_uid or (self.pod_uid(target) if kind == "Pod" else uid(kind, self.key, target)),
                "kind": kind,
                "name": target,
                "namespace": "" if kind == "Node" else self.ns,
            },
        }
        if in_events:
            self.events.append(event)
        if in_history:
            self.history.append(
                {"meta": {"creationTimestamp": ts(at), "type": "Event"}, "spec": {"event": event}}
            )
        return event

    def add_pod(
        self,
        *,
        node: str | None,
        created: float,
        k8s_phase: str,
        updated: float,
        index: int = 0,
        role: str | None = None,
        completed: float | None = None,
        deleted: float | None = None,
        containers: list[str] | None = None,
    ) -> PodPlan:
        name = self.pod_name(index, role)
        plan = PodPlan(
            name,
            self.pod_uid(name),
            node,
            created,
            k8s_phase,
            updated,
            containers or ["main"],
            completed,
            deleted,
        )
        self.pods.append(plan)
        return plan

    def add_series(self, metric: str, points: list[tuple[float, float]] | None) -> Story:
        """A stored metric series; `points` are (minutes ago, value); an empty list is an empty series."""
        values = None if points is None else [{"value": str(int(v)), "timestamp": ts(t)} for t, v in points]
        self.metrics.append({"type": metric, "labels": None, "values": values})
        return self

    # -- Kubernetes side -----------------------------------------------------------------------------------
    def add_kube_pod(
        self,
        plan: PodPlan,
        statuses: list[Json],
        *,
        phase: str,
        init_statuses: list[Json] | None = None,
        init_containers: list[str] | None = None,
        reason: str | None = None,
        message: str | None = None,
        conditions: list[Json] | None = None,
        annotations: dict[str, str] | None = None,
        env: list[Json] | None = None,
        deletion: float | None = None,
    ) -> Json:
        limits: Json = {"nvidia.com/gpu": str(int(self.gpu))} if self.gpu >= 1 else {}
        requests: Json = {"cpu": str(self.cpu[0])}
        if self.mem[1] is not None:
            limits["memory"] = self.mem[1]
        if self.mem[0] is not None:
            requests["memory"] = self.mem[0]

        def container(name: str, image: str) -> Json:
            c: Json = {"name": name, "image": image, "resources": {"requests": requests, "limits": limits}}
            if env is not None and name == plan.containers[0]:
                c["env"] = env
            return c

        pod: Json = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": plan.name,
                "namespace": self.ns,
                "uid": plan.uid,
                "creationTimestamp": ts(plan.created),
                "labels": {
                    "project": self.project,
                    "runai/queue": self.project,
                    "workloadName": self.name,
                    "runai/pod-group": f"pg-{self.name}-0",
                },
                "annotations": annotations or {},
            },
            "spec": {
                "nodeName": plan.node,
                "restartPolicy": "Always" if self.kind == "Inference" else self.restart_policy,
                "schedulerName": "kai-scheduler",
                "containers": [container(c, self.image) for c in plan.containers],
            },
            "status": {
                "phase": phase,
                "conditions": conditions
                if conditions is not None
                else [
                    condition("PodScheduled", "True", plan.created),
                ],
                "containerStatuses": statuses,
            },
        }
        if deletion is not None:
            pod["metadata"]["deletionTimestamp"] = ts(deletion)
        if init_containers:
            pod["spec"]["initContainers"] = [
                {"name": n, "image": "docker.io/amazon/aws-cli:2.17.0", "resources": {}}
                for n in init_containers
            ]
            pod["status"]["initContainerStatuses"] = init_statuses or []
        if reason is not None:
            pod["status"]["reason"] = reason
        if message is not None:
            pod["status"]["message"] = message
        self.kube_pods.append(pod)
        return pod

    def add_kube_event(
        self,
        at: float,
        reason: str,
        message: str,
        *,
        pod: str | None = None,
        type_: str = "Warning",
        component: str = "kubelet",
        host: str | None = None,
        count: int = 1,
        first: float | None = None,
    ) -> Json:
        target = pod or self.pod_name()
        event = kube_event(
            self.key,
            at=at,
            reason=reason,
            message=message,
            kind="Pod",
            name=target,
            namespace=self.ns,
            obj_uid=self.pod_uid(target),
            type_=type_,
            component=component,
            host=host,
            count=count,
            first=first,
        )
        self.kube_events.append(event)
        return event

    def add_node_event(
        self, at: float, node_name: str, reason: str, message: str, *, type_: str = "Warning"
    ) -> Json:
        event = kube_event(
            self.key,
            at=at,
            reason=reason,
            message=message,
            kind="Node",
            name=node_name,
            namespace="",
            obj_uid=uid("node", node_name),
            type_=type_,
            host=node_name,
        )
        self.kube_events.append(event)
        return event

    def add_log(self, pod: str, text: str, *, container: str = "main", previous: bool = False) -> Story:
        self.logs.append(
            {"namespace": self.ns, "pod": pod, "container": container, "previous": previous, "text": text}
        )
        return self

    # -- expectations --------------------------------------------------------------------------------------
    def expect(
        self,
        outcome: str,
        category: str | None,
        why: str,
        *,
        recurrence: int | None = None,
        intent: str = "terminal",
        lookup: str = "id",
        lookback: str = "24h",
        key: str | None = None,
        ask_cluster: str | None = None,
        memory: Json | None = None,
        detail: str | None = None,
    ) -> Story:
        if recurrence is None and outcome != "diagnosed":
            recurrence = 0
        exp: Json = {
            "key": key or self.key,
            "workloadId": self.id,
            "clusterId": ask_cluster or self.cluster,
            "name": self.name,
            "project": self.project,
            "intent": intent,
            "lookup": lookup,
            "lookback": lookback,
            "outcome": outcome,
            "category": category,
            "why": why,
            "recurrence": recurrence,
        }
        if memory is not None:
            exp["memory"] = memory
        if detail is not None:
            exp["detail"] = detail
        self.expectations.append(exp)
        return self

    # -- assembly ------------------------------------------------------------------------------------------
    def workload_json(self) -> Json:
        prio_class, prio = _KIND_PRIORITY.get(self.kind, ("train", 50))
        req = resources(self.mem, self.cpu, self.gpu)
        per_workload = resources(self.mem, self.cpu, self.gpu)
        per_workload["gpu"] = {"request": self.gpu * self.requested_pods}
        running = self.running_pods > 0
        allocated: Json = (
            {
                "gpu": self.gpu * self.running_pods,
                "cpu": self.cpu[0] * self.running_pods,
                "cpuMemory": self.mem[0] or "0",
            }
            if running
            else {"gpu": 0, "cpu": 0, "cpuMemory": "0"}
        )
        env_map = {e["name"]: e["value"] for e in self.env if "value" in e}
        updated = min([self.phase_at, *[p.k8s_updated for p in self.pods]])
        lived = max(0, int((self.created - self.phase_at) * 60))
        return {
            "type": self.kind,
            "name": self.name,
            "id": self.id,
            "source": "CLI",
            "priority": prio,
            "priorityClassName": prio_class,
            "clusterId": self.cluster,
            "projectName": self.project,
            "projectId": self.proj.id,
            "departmentName": self.proj.department,
            "departmentId": uid("department", self.proj.department),
            "namespace": self.ns,
            "createdAt": ts(self.created),
            "updatedAt": ts(updated),
            "phase": self.phase,
            "phaseMessage": self.phase_message,
            "phaseReason": self.phase_reason,
            "k8sPhase": self.k8s_phase or _default_k8s_phase(self.phase),
            "conditions": self.conditions,
            "tenantId": TENANT_ID,
            "runningPods": self.running_pods,
            "requestedPods": {
                "number": self.requested_pods,
                "min": self.requested_pods,
                "max": self.requested_pods,
            },
            "phaseUpdatedAt": ts(self.phase_at),
            "k8sPhaseUpdatedAt": ts(self.phase_at),
            "deletedAt": ts(self.deleted_at) if self.deleted_at is not None else None,
            "completedAt": ts(self.completed_at) if self.completed_at is not None else None,
            "category": _KIND_CATEGORY.get(self.kind, "Train"),
            "submittedBy": self.submitted_by,
            "images": [self.image],
            "command": self.command,
            "arguments": self.args,
            "environmentVariables": env_map,
            "podsRequestedResources": req,
            "workloadRequestedResources": per_workload,
            "allocatedResources": allocated,
            "requestedNodePools": [NODE_POOL],
            "currentNodePools": [NODE_POOL],
            "preemptible": self.preemptible,
            "totalRunningTimeSeconds": self.running_seconds if self.running_seconds is not None else lived,
            "totalPendingTimeSeconds": 60,
            "pendingSchedulingMessages": self.pending_messages,
        }

    def spec_json(self) -> Json:
        compute: Json = {
            "cpuCoreRequest": self.cpu[0],
            "cpuCoreLimit": self.cpu[1],
            "gpuDevicesRequest": int(self.gpu) if self.gpu >= 1 else None,
            "gpuRequestType": "portion",
            "gpuPortionRequest": self.gpu if self.gpu < 1 else 1.0,
        }
        if self.mem[0] is not None:
            compute["cpuMemoryRequest"] = self.mem[0]
        if self.mem[1] is not None:
            compute["cpuMemoryLimit"] = self.mem[1]
        inner: Json = {
            "image": self.image,
            "imagePullPolicy": "IfNotPresent",
            "command": self.command,
            "args": self.args,
            "environmentVariables": self.env,
            "compute": compute,
            "storage": self.storage,
            "restartPolicy": "Always" if self.kind == "Inference" else self.restart_policy,
            "backoffLimit": self.backoff_limit,
            "annotations": self.annotations,
            "labels": [{"name": "team", "value": self.proj.department}],
            **self.extra_spec,
        }
        return {
            "name": self.name,
            "requestedName": self.name,
            "workloadId": self.id,
            "projectId": self.proj.id,
            "departmentId": uid("department", self.proj.department),
            "clusterId": self.cluster,
            "createdBy": self.submitted_by,
            "createdAt": ts(self.created),
            "deletedAt": ts(self.deleted_at) if self.deleted_at is not None else None,
            "desiredPhase": self.desired_phase,
            "actualPhase": self.phase,
            "spec": inner,
        }

    def pods_json(self) -> list[Json]:
        out: list[Json] = []
        req = resources(self.mem, self.cpu, self.gpu)
        for p in self.pods:
            placed = p.node is not None
            out.append(
                {
                    "name": p.name,
                    "id": p.uid,
                    "workloadId": self.id,
                    "clusterId": self.cluster,
                    "projectId": self.proj.id,
                    "projectName": self.project,
                    "workloadName": self.name,
                    "createdAt": ts(p.created),
                    "updatedAt": ts(p.k8s_updated),
                    "k8sPhase": p.k8s_phase,
                    "k8sPhaseUpdatedAt": ts(p.k8s_updated),
                    "nodeName": p.node,
                    "priorityClassName": _KIND_PRIORITY.get(self.kind, ("train", 50))[0],
                    "tenantId": TENANT_ID,
                    "containers": [{"name": c, "image": self.image} for c in p.containers],
                    "currentNodePool": NODE_POOL,
                    "requestedNodePools": [NODE_POOL],
                    "requestedResources": req,
                    "allocatedResources": (
                        {"gpu": self.gpu, "cpu": self.cpu[0], "cpuMemory": self.mem[0] or "0"}
                        if placed
                        else {"gpu": 0, "cpu": 0, "cpuMemory": "0"}
                    ),
                    "completedAt": ts(p.completed) if p.completed is not None else None,
                    "deletedAt": ts(p.deleted) if p.deleted is not None else None,
                }
            )
        return out

    def entry(self) -> Json:
        """The bundle's workload entry; absent parts are left out so the endpoints answer as documented."""
        item: Json = {"workload": self.workload_json()}
        item["events"] = None if self.events_null else sorted(self.events, key=lambda e: e["createdAt"])
        item["spec"] = self.spec_json() if self.spec_present else None
        if self.pods:
            item["pods"] = self.pods_json()
        if self.history:
            item["history"] = sorted(self.history, key=lambda r: r["meta"]["creationTimestamp"])
        if self.metrics:
            item["metrics"] = self.metrics
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


def ramp(start: float, end: float, t0: float, t1: float, step_min: float = 0.5) -> list[tuple[float, float]]:
    """A linear memory ramp sampled every `step_min` minutes from t0 down to t1 minutes ago."""
    points: list[tuple[float, float]] = []
    n = max(1, round((t0 - t1) / step_min))
    for i in range(n + 1):
        frac = i / n
        points.append((t0 - (t0 - t1) * frac, start + (end - start) * frac))
    return points


def flat(value: float, t0: float, t1: float, step_min: float = 0.5) -> list[tuple[float, float]]:
    return ramp(value, value, t0, t1, step_min)


GI = 1024**3
