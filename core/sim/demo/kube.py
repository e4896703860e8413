"""Kubernetes (core/v1) objects as a demo story writes them: container states, conditions, nodes, taints and
events.

Kubernetes events are only kept when they are younger than the API server's 1 h TTL: a story that tries to
add an older one is a bug in the story, so it fails loudly while generating.
"""

from __future__ import annotations

from core.sim.demo.world import NODE_POOL, Json, ts, uid

EVENT_TTL_MINUTES = 60.0


def terminated(reason: str, exit_code: int, started: float, finished: float, message: str | None = None) -> Json:
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


def condition(kind: str, status: str, at: float, reason: str | None = None, message: str | None = None) -> Json:
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
    disk_pressure: bool = False,
    gpu: str = "NVIDIA-H100-80GB-HBM3",
    extra_conditions: list[Json] | None = None,
) -> Json:
    """A core/v1 Node as `read_node` returns it (the parts a diagnoser reads); `extra_conditions` are the ones
    node problem detectors add (GPU health, fabric), after the kubelet's."""
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
                    "status": ("True" if disk_pressure else "False") if ready == "True" else "Unknown",
                    "reason": ("KubeletHasDiskPressure" if disk_pressure else "KubeletHasNoDiskPressure")
                    if ready == "True"
                    else "NodeStatusUnknown",
                    "message": ("kubelet has disk pressure" if disk_pressure else "kubelet has no disk pressure")
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
                *(extra_conditions or []),
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


def other_pod(
    name: str,
    namespace: str,
    node_name: str,
    statuses: list[Json],
    *,
    phase: str,
    created: float,
    reason: str | None = None,
    message: str | None = None,
) -> Json:
    """A pod of another workload on the same node (a bystander a node-level fault also hit), as the pods list
    across namespaces returns it."""
    pod: Json = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid("pod", namespace, name),
            "creationTimestamp": ts(created),
            "labels": {"app": name.rsplit("-", 1)[0]},
        },
        "spec": {
            "nodeName": node_name,
            "restartPolicy": "Never",
            "containers": [{"name": s["name"], "image": s["image"]} for s in statuses],
        },
        "status": {"phase": phase, "containerStatuses": statuses},
    }
    if reason is not None:
        pod["status"]["reason"] = reason
    if message is not None:
        pod["status"]["message"] = message
    return pod
