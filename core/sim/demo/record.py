"""What a demo story records: one workload's objects, written coherently (Run:ai workload, events, spec, pods,
history, metrics, faults, and the Kubernetes pod, events, node and log), and the verdict a correct engine must
give for it. Rendering them as API answers is core.sim.demo.runai's job; `Story` joins the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

from core.sim.demo.kube import condition, kube_event
from core.sim.demo.world import PROJECTS, Json, Project, ts, uid


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
    mem: tuple[str | None, str | None] | None = None  # this pod's own request/limit (a role's), else the story's
    reports_resources: bool = True  # False: the Run:ai pod carries no requestedResources (left to the spec)


@dataclass
class StoryRecord:
    """One hand-shaped workload and everything a real tenant would still hold about it, as recorded."""

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
    reports_pod_resources: bool = True  # False: the workload object carries no per-pod or workload resources
    events_null: bool = False
    extra_spec: Json = field(default_factory=dict)
    spec_top: Json = field(default_factory=dict)  # keys beside `spec` in the spec document (`masterSpec`, ...)
    events: list[Json] = field(default_factory=list)
    history: list[Json] = field(default_factory=list)
    pods: list[PodPlan] = field(default_factory=list)
    metrics: list[Json] = field(default_factory=list)
    pod_metrics: dict[str, list[Json]] = field(default_factory=dict)  # Run:ai pod id -> its own series
    inference_revisions: list[Json] = field(default_factory=list)
    spec_v2: Json | None = None
    kube_pods: list[Json] = field(default_factory=list)
    kube_events: list[Json] = field(default_factory=list)
    nodes: list[Json] = field(default_factory=list)
    logs: list[Json] = field(default_factory=list)
    faults: list[Json] = field(default_factory=list)
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
    def add_phase(self, at: float, phase: str, message: str = "") -> Self:
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
            self.history.append({"meta": {"creationTimestamp": ts(at), "type": "Event"}, "spec": {"event": event}})
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
        mem: tuple[str | None, str | None] | None = None,
        reports_resources: bool = True,
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
            mem,
            reports_resources,
        )
        self.pods.append(plan)
        return plan

    def add_series(self, metric: str, points: list[tuple[float, float]] | None) -> Self:
        """A stored metric series; `points` are (minutes ago, value); an empty list is an empty series."""
        values = None if points is None else [{"value": str(int(v)), "timestamp": ts(t)} for t, v in points]
        self.metrics.append({"type": metric, "labels": None, "values": values})
        return self

    def add_pod_series(self, plan: PodPlan, metric: str, points: list[tuple[float, float]]) -> Self:
        """One pod's own stored series (served at /workloads/{id}/pods/{podId}/metrics)."""
        values = [{"value": str(int(v)), "timestamp": ts(t)} for t, v in points]
        self.pod_metrics.setdefault(plan.uid, []).append({"type": metric, "labels": None, "values": values})
        return self

    def add_summed_series(self, metric: str, per_pod: dict[str, list[tuple[float, float]]]) -> Self:
        """Each pod's own series, and the workload's series as Run:ai reports it: their sum at each instant."""
        plans = {p.name: p for p in self.pods}
        total: dict[float, float] = {}
        for name, points in per_pod.items():
            self.add_pod_series(plans[name], metric, points)
            for t, v in points:
                total[t] = total.get(t, 0.0) + v
        return self.add_series(metric, sorted(total.items(), reverse=True))

    def add_fault(self, endpoint: str, status: int, *, times: int = 1, retry_after: int | None = None) -> Self:
        """A fault the simulator injects `times` times on this workload's `endpoint` (e.g. "pods")."""
        fault: Json = {"match": f"GET /api/v1/workloads/{self.id}/{endpoint}", "status": status, "times": times}
        if retry_after is not None:
            fault["retryAfter"] = retry_after
        self.faults.append(fault)
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
        mem = plan.mem or self.mem
        if mem[1] is not None:
            limits["memory"] = mem[1]
        if mem[0] is not None:
            requests["memory"] = mem[0]

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
                {"name": n, "image": "docker.io/amazon/aws-cli:2.17.0", "resources": {}} for n in init_containers
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
        self,
        at: float,
        node_name: str,
        reason: str,
        message: str,
        *,
        type_: str = "Warning",
        component: str = "kubelet",
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
            component=component,
            host=node_name,
        )
        self.kube_events.append(event)
        return event

    def add_log(self, pod: str, text: str, *, container: str = "main", previous: bool = False) -> Self:
        self.logs.append({"namespace": self.ns, "pod": pod, "container": container, "previous": previous, "text": text})
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
        findings: list[Json] | None = None,
        cites: str | None = None,
    ) -> Self:
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
        if findings is not None:
            exp["findings"] = findings
        if cites is not None:
            exp["cites"] = cites
        self.expectations.append(exp)
        return self
