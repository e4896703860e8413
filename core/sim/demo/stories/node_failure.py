"""NODE_FAILURE: a node that stopped answering (NotReady, unreachable taint, NodeLost), a drain through the
Eviction API, and a kubelet eviction under node memory pressure; the restart policy steers the advice.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
    condition,
    cstatus,
    error_message,
    lifecycle,
    node,
    running,
    taint,
    terminated,
)


def node_notready_onfailure() -> Story:
    s = Story(
        "node-notready",
        "detr-train",
        "vision",
        "Failed",
        phase_at=20,
        created=200,
        restart_policy="OnFailure",
        backoff_limit=0,
        command="python train_detr.py",
        submitted_by="marco@example.com",
    )
    pod = s.add_pod(node="gpu-e-11", created=198, k8s_phase="Unknown", updated=20, completed=20)
    msg = f"Node gpu-e-11 which was running pod {pod.name} is unresponsive"
    s.phase_message = f"Workload failed: pod {pod.name} was lost (NodeLost)"
    lifecycle(s, 195, 20, "Failed", s.phase_message)
    s.add_event(26, "NodeNotReady", "Node is not ready", pod=pod.name)
    s.add_event(
        21,
        "TaintManagerEviction",
        f"Marking for deletion Pod {s.ns}/{pod.name}",
        type_="Normal",
        source="taint-eviction-controller",
        pod=pod.name,
    )
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, running(195))],
        phase="Running",
        reason="NodeLost",
        message=msg,
        deletion=21,
        conditions=[
            condition("Ready", "False", 26, "NodeLost", msg),
            condition(
                "DisruptionTarget",
                "True",
                21,
                "DeletionByTaintManager",
                "Taint manager: deleting due to NoExecute taint",
            ),
        ],
    )
    s.nodes.append(
        node(
            "gpu-e-11",
            ready="Unknown",
            ready_since=26,
            taints=[
                taint("node.kubernetes.io/unreachable", "NoExecute", 26),
                taint("node.kubernetes.io/unreachable", "NoSchedule", 26),
            ],
        )
    )
    s.add_node_event(26, "gpu-e-11", "NodeNotReady", "Node gpu-e-11 status is now: NodeNotReady", type_="Normal")
    s.add_kube_event(
        21,
        "TaintManagerEviction",
        f"Marking for deletion Pod {s.ns}/{pod.name}",
        pod=pod.name,
        type_="Normal",
        component="taint-eviction-controller",
    )
    return s.expect(
        "diagnosed",
        "NODE_FAILURE",
        "pod NodeLost on gpu-e-11 (Ready Unknown, unreachable NoExecute taint, NodeNotReady); "
        "restartPolicy OnFailure -> retry on a healthy node",
        recurrence=1,
        detail="OnFailure",
    )


def node_drain_never() -> Story:
    s = Story(
        "node-drain",
        "grasp-net",
        "robotics",
        "Failed",
        phase_at=45,
        created=400,
        restart_policy="Never",
        command="python train_grasp.py",
        submitted_by="kenji@example.com",
    )
    pod = s.add_pod(node="gpu-w-05", created=398, k8s_phase="Error", updated=45, completed=45)
    s.phase_message = error_message(pod.name, 143)
    lifecycle(s, 395, 45, "Failed", s.phase_message)
    s.add_event(46, "Killing", "Stopping container main", type_="Normal", pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, terminated("Error", 143, 395, 45))],
        phase="Failed",
        conditions=[
            condition("DisruptionTarget", "True", 46, "EvictionByEvictionAPI", "Eviction API: evicting"),
            condition("Ready", "False", 45, "PodFailed"),
        ],
    )
    s.add_kube_event(46, "Killing", "Stopping container main", pod=pod.name, type_="Normal", host="gpu-w-05")
    s.nodes.append(
        node(
            "gpu-w-05",
            unschedulable=True,
            taints=[taint("node.kubernetes.io/unschedulable", "NoSchedule", 47)],
        )
    )
    s.add_node_event(
        47,
        "gpu-w-05",
        "NodeNotSchedulable",
        "Node gpu-w-05 status is now: NodeNotSchedulable",
        type_="Normal",
    )
    return s.expect(
        "diagnosed",
        "NODE_FAILURE",
        "node gpu-w-05 cordoned (unschedulable, NodeNotSchedulable) and the pod evicted via the "
        "Eviction API (drain), exit 143; restartPolicy Never -> resubmit",
        recurrence=1,
        detail="Never",
    )


def evicted_memory_pressure() -> Story:
    s = Story(
        "evicted-mem-pressure",
        "graph-embed",
        "research",
        "Failed",
        phase_at=30,
        created=260,
        mem=("16Gi", None),
        command="python embed_graph.py",
        submitted_by="priya@example.com",
    )
    pod = s.add_pod(node="gpu-e-12", created=258, k8s_phase="Evicted", updated=30, completed=30)
    msg = (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 81204Ki. Container main "
        "was using 61Gi, request is 16Gi, has larger consumption of memory."
    )
    s.phase_message = f"Workload failed: pod {pod.name} was evicted"
    lifecycle(s, 255, 30, "Failed", s.phase_message)
    s.add_event(30.2, "Evicted", msg, pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, terminated("Error", 137, 255, 30))],
        phase="Failed",
        reason="Evicted",
        message=msg,
        conditions=[
            condition(
                "DisruptionTarget",
                "True",
                30.2,
                "TerminationByKubelet",
                "The node was low on resource: memory.",
            )
        ],
    )
    s.add_kube_event(30.2, "Evicted", msg, pod=pod.name, host="gpu-e-12")
    s.nodes.append(node("gpu-e-12", memory_pressure=True, ready_since=31))
    s.add_node_event(31, "gpu-e-12", "EvictionThresholdMet", "Attempting to reclaim memory")
    s.add_node_event(
        31,
        "gpu-e-12",
        "NodeHasInsufficientMemory",
        "Node gpu-e-12 status is now: NodeHasInsufficientMemory",
        type_="Normal",
    )
    return s.expect(
        "diagnosed",
        "NODE_FAILURE",
        "pod Evicted by the kubelet for node memory pressure (not OOMKilled, not preemption): a node "
        "eviction; note the container used 61Gi over a 16Gi request",
        recurrence=1,
        findings=[{"kind": "node-pressure", "node": "gpu-e-12", "explains": True}],
    )


FAMILY = Family(
    "node-failure",
    stories=(
        node_notready_onfailure,
        node_drain_never,
        evicted_memory_pressure,
    ),
)
