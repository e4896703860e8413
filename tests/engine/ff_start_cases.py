"""Issue 31, point 6: a start failure that is not scheduling keeps a Pending workload in scope.

The pod is placed (bound to a node) and cannot start there: the node's container runtime refuses its socket, so
the kubelet cannot make the pod's sandbox (`FailedCreatePodSandBox`) and the pod stays `ContainerCreating`; the
network plugin cannot give it an address; or the node goes NotReady under a pod still at `Init:0/1`. These are
direct failed-pod signals, not a wait for resources: the workload is diagnosed, its pod and node read, and the
node that stopped it is the verdict (NODE_FAILURE). The scheduler's own message about not-ready nodes, on a pod
not placed anywhere, stays a scheduling wait (the last case).
"""

from __future__ import annotations

from core.sim.demo.kit import Json, Story, cstatus, node, taint, waiting

Case = tuple[list[Story], Json, Json]
RUNTIME_DOWN = (
    "Failed to create pod sandbox: rpc error: code = Unavailable desc = connection error: desc = \"transport: "
    "Error while dialing: dial unix /run/containerd/containerd.sock: connect: connection refused\""
)
CALICO = (
    "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "
    "\"5b0e2c4d9f1a\": plugin type=\"calico\" failed (add): error adding host side routes for interface: "
    "cali3f2a1b0c9d8, error: route (Ifindex: 41, Dst: 10.244.7.14/32, Scope: link) already exists for an interface "
    "other than 'cali3f2a1b0c9d8': route (Ifindex: 37, Dst: 10.244.7.14/32, Scope: link)"
)


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _pending(key: str, name: str, created: float, node_name: str, k8s_phase: str) -> tuple[Story, str]:
    s = Story(key, name, "speech", "Pending", phase_at=created - 0.1, created=created, gpu=2,
              command="python train_asr.py")
    pod = s.add_pod(node=node_name, created=created - 0.2, k8s_phase=k8s_phase, updated=created - 0.5)
    s.add_phase(s.created, "Pending")
    s.add_event(created - 0.3, "Scheduled", f"Successfully assigned {s.ns}/{pod.name} to {node_name}",
                type_="Normal", source="kai-scheduler", pod=pod.name)
    return s, pod.name


def _not_ready(name: str, since: float, message: str, *, status: str = "False") -> Json:
    made = node(name, ready=status, ready_since=since,
                taints=[taint("node.kubernetes.io/not-ready" if status == "False" else "node.kubernetes.io/unreachable",
                              "NoExecute", since)])
    ready = next(c for c in made["status"]["conditions"] if c["type"] == "Ready")
    ready["message"] = message
    return made


def case_sandbox_runtime_down() -> Case:
    """containerd on gpu-e-50 stopped answering 26 min ago: every sandbox the kubelet asks for fails with the
    socket refused, the pod has sat in ContainerCreating since, and the node has just been marked NotReady
    (container runtime down)."""
    s, pod = _pending("ff-start-01", "whisper-large-ft", 26, "gpu-e-50", "ContainerCreating")
    for at in (25.5, 24, 21, 14, 6):
        s.add_event(at, "FailedCreatePodSandBox", RUNTIME_DOWN, pod=pod)
    plan = s.pods[0]
    s.add_kube_pod(plan, [cstatus("main", s.image, waiting("ContainerCreating"))], phase="Pending")
    s.add_kube_event(1, "FailedCreatePodSandBox", RUNTIME_DOWN, pod=pod, count=21, first=25.5, host="gpu-e-50")
    s.nodes.append(_not_ready("gpu-e-50", 2, "container runtime is down, PLEG is not healthy: pleg was last seen "
                              "active 3m12s ago; threshold is 3m0s"))
    s.add_node_event(2, "gpu-e-50", "NodeNotReady", "Node gpu-e-50 status is now: NodeNotReady", type_="Normal",
                     component="kubelet")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "NODE_FAILURE",
        "evidence": ["Failed to create pod sandbox", "containerd.sock"],
        "reason": ["connection refused"],
        "recommendations": ["could not create the pod's sandbox", "container runtime cannot be reached", "gpu-e-50",
                            "crictl"],
        "noRecommendations": ["Fix the code"], "paths": [r"^/api/v1/nodes/gpu-e-50$"],
    }


def case_init_stuck_node_not_ready() -> Case:
    """The pod was bound to gpu-e-51 and was running its init container (Init:0/1) when the node stopped
    reporting: the node controller marked it NotReady and the pod is stuck there (it tolerates unreachable
    nodes for an hour, so nothing evicts it yet)."""
    s, pod = _pending("ff-start-02", "conformer-xl", 14, "gpu-e-51", "Init:0/1")
    s.add_event(8, "NodeNotReady", "Node is not ready", source="node-controller", pod=pod)
    plan = s.pods[0]
    fetching = cstatus("fetch-shards", "docker.io/amazon/aws-cli:2.17.0", {"running": {}})
    s.add_kube_pod(plan, [cstatus("main", s.image, waiting("PodInitializing"))], phase="Pending",
                   init_containers=["fetch-shards"], init_statuses=[fetching])
    s.add_kube_event(8, "NodeNotReady", "Node is not ready", pod=pod, component="node-controller")
    s.nodes.append(_not_ready("gpu-e-51", 8, "Kubelet stopped posting node status.", status="Unknown"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "NODE_FAILURE",
        "evidence": ["Node is not ready"],
        "recommendations": ["went NotReady under the pod before it started", "gpu-e-51"],
        "paths": [r"^/api/v1/nodes/gpu-e-51$"],
    }


def case_sandbox_network_plugin() -> Case:
    """calico on gpu-e-52 cannot add the pod's route (a stale route of a deleted pod holds its address): the
    sandbox is never made; the node itself is Ready."""
    s, pod = _pending("ff-start-03", "hubert-distill", 18, "gpu-e-52", "ContainerCreating")
    for at in (17.5, 15, 9, 2):
        s.add_event(at, "FailedCreatePodSandBox", CALICO, pod=pod)
    plan = s.pods[0]
    s.add_kube_pod(plan, [cstatus("main", s.image, waiting("ContainerCreating"))], phase="Pending")
    s.add_kube_event(2, "FailedCreatePodSandBox", CALICO, pod=pod, count=14, first=17.5, host="gpu-e-52")
    s.nodes.append(node("gpu-e-52"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "NODE_FAILURE",
        "evidence": ["failed to setup network for sandbox"],
        "recommendations": ["network plugin", "gpu-e-52"],
    }


def case_scheduler_not_ready_nodes_is_a_wait() -> Case:
    """The look-alike: a pod not placed anywhere, the scheduler saying some nodes are not ready: a wait."""
    s = Story("ff-start-04", "wav2vec-sweep-9", "speech", "Pending", phase_at=9.9, created=10)
    s.add_phase(s.created, "Pending")
    s.add_pod(node=None, created=9.8, k8s_phase="Pending", updated=9.8)
    s.add_event(9, "FailedScheduling", "0/12 nodes are available: 3 node(s) had untolerated taint "
                "{node.kubernetes.io/not-ready: }, 9 Insufficient nvidia.com/gpu. preemption: 0/12 nodes are "
                "available: 12 No preemption victims found for incoming pod.", source="kai-scheduler",
                pod=s.pod_name())
    return [s], _req(s), {"outcome": "pending", "category": None, "recurrence": 0, "noPaths": [r"/history$"]}


CASES = {
    "start-sandbox-runtime-down": case_sandbox_runtime_down,
    "start-init-stuck-node-not-ready": case_init_stuck_node_not_ready,
    "start-sandbox-network-plugin": case_sandbox_network_plugin,
    "start-scheduler-not-ready-nodes-is-a-wait": case_scheduler_not_ready_nodes_is_a_wait,
}
