"""Issue 23, class 1: a node lost under the pod that failed first of a multi-pod job.

Built from the node lifecycle controller's and the taint manager's own words (`Node is not ready`, `Marking for
deletion Pod ns/name`, `DeletionByTaintManager`), the kubeflow training operator's events (`ExitedWithCode`,
`PyTorchJobFailed`) and the NCCL watchdog lines the surviving ranks print ten minutes later.
"""

from __future__ import annotations

from core.sim.demo.kit import Json, PodPlan, Story, condition, cstatus, node, running, taint, terminated
from tests.engine.test_multipod_cases import Case, S
from tests.engine.test_rule_cases import lifecycle

NCCL_VICTIM = (
    "[rank{r}]: step 9120 loss 1.882\n"
    "[rank{r}]:[E1130 {clock} ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=50211, OpType=ALLREDUCE, NumelIn=262144000, NumelOut=262144000, Timeout(ms)=600000) ran for "
    "600071 milliseconds before timing out.\n"
    "[rank{r}]:[E1130 {clock} ProcessGroupNCCL.cpp:1413] [PG 0 Rank {r}] Process group watchdog thread terminated "
    "with exception: [Rank {r}] Watchdog caught collective operation timeout\n"
    "torch.distributed.DistBackendError: NCCL communicator was aborted on rank {r}.\n"
)
XID79 = "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _operator_events(s: Story, victims: list[tuple[str, float]], job_kind: str = "PyTorchJob") -> None:
    """The training operator's events on the job: each pod's exit, then the job's failure."""
    for pod, at in victims:
        s.add_event(at, "ExitedWithCode", f"Pod: {s.ns}.{pod} exited with code 1", type_="Normal",
                    source="pytorchjob-controller", kind=job_kind, obj_name=s.name)
    s.add_event(victims[-1][1] - S, f"{job_kind}Failed",
                f"{job_kind} {s.ns}/{s.name} is failed because 1 Worker replica(s) failed.",
                type_="Normal", source="pytorchjob-controller", kind=job_kind, obj_name=s.name)


def _lost_by_the_node_controller(s: Story, lost: PodPlan, not_ready: float, marked: float) -> None:
    """The node lifecycle controller's event on the lost pod, then the taint manager's after the toleration."""
    s.add_event(not_ready, "NodeNotReady", "Node is not ready", source="node-controller", pod=lost.name)
    s.add_event(marked, "TaintManagerEviction", f"Marking for deletion Pod {s.ns}/{lost.name}", type_="Normal",
                source="taint-eviction-controller", pod=lost.name)


def _victims(s: Story, nodes: list[str], at: float, clock: str, skip: int) -> list[tuple[str, float]]:
    """Every pod but the lost one: its rank's NCCL watchdog fires, and it exits 1 (the order they end in is
    the order their watchdogs fired)."""
    out: list[tuple[str, float]] = []
    for i, node_name in enumerate(nodes):
        if i == skip:
            continue
        role, index = ("master", 0) if i == 0 else ("worker", i - 1)
        end = at - i * 2 * S
        plan = s.add_pod(node=node_name, created=118, k8s_phase="Error", updated=end, role=role, index=index,
                         completed=end)
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", 1, 115, end))], phase="Failed")
        s.add_log(plan.name, NCCL_VICTIM.format(r=8 * i, clock=clock))
        s.nodes.append(node(node_name))
        out.append((plan.name, end))
    return out


def case_node_notready_taint_eviction() -> Case:
    """4 pods; worker-1's node stops answering (NotReady), the taint manager marks the pod for deletion after
    its 300 s toleration, and the other three time out in NCCL ten minutes after the node went quiet and exit 1.
    The lost pod's own status still says Running (its kubelet is gone); its node, its events and its
    DisruptionTarget condition say what happened. Restart policy OnFailure: a retry can land elsewhere."""
    s = Story("ff-node-01", "llama-ft-ddp", "nlp", "Failed", phase_at=29.5, created=120, kind="Distributed", gpu=8,
              requested_pods=4, mem=("256Gi", "256Gi"), restart_policy="OnFailure", backoff_limit=3,
              command="torchrun --nnodes 4 --nproc-per-node 8 finetune.py",
              extra_spec={"distributedFramework": "PyTorch", "numWorkers": 3})
    nodes = ["gpu-n-10", "gpu-n-11", "gpu-n-12", "gpu-n-13"]
    lost = s.add_pod(node="gpu-n-12", created=118, k8s_phase="Running", updated=115, role="worker", index=1)
    victims = _victims(s, nodes, 30.0, "11:30:00.412", skip=2)
    _operator_events(s, victims)
    s.phase_message = f"Workload failed: pod {victims[-1][0]} container main terminated (Error), exit code 1"
    lifecycle(s, 115, 29.5, "Failed", s.phase_message)
    _lost_by_the_node_controller(s, lost, 40, 35)
    s.add_kube_pod(
        lost, [cstatus("main", s.image, running(115))], phase="Running", deletion=35,
        conditions=[condition("Ready", "False", 40),
                    condition("DisruptionTarget", "True", 35, "DeletionByTaintManager",
                              "Taint manager: deleting due to NoExecute taint")],
    )
    s.add_kube_event(40, "NodeNotReady", "Node is not ready", pod=lost.name, component="node-controller")
    s.add_kube_event(35, "TaintManagerEviction", f"Marking for deletion Pod {s.ns}/{lost.name}", pod=lost.name,
                     type_="Normal", component="taint-eviction-controller")
    s.nodes.append(node("gpu-n-12", ready="Unknown", ready_since=40,
                        taints=[taint("node.kubernetes.io/unreachable", "NoExecute", 40),
                                taint("node.kubernetes.io/unreachable", "NoSchedule", 40)]))
    s.add_node_event(40, "gpu-n-12", "NodeNotReady", "Node gpu-n-12 status is now: NodeNotReady", type_="Normal",
                     component="node-controller")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "NODE_FAILURE", "recurrence": 1,
        "firstFailure": lost.name, "orderSorted": True,
        "evidence": [f"First failure: pod {lost.name}", "gpu-n-12"],
        "recommendations": ["OnFailure", "gpu-n-12"], "noRecommendations": ["Fix the code"],
        "paths": [r"^/api/v1/nodes/gpu-n-12$"],
    }


def case_xid79_node_down() -> Case:
    """4 pods; the GPU of worker-0's node falls off the bus (Xid 79) and the node goes down with it: NotReady,
    the pod lost and, once the node was removed, garbage-collected (only the deleted pods list it). The other
    three exit 1 when their NCCL watchdogs fire. Restart policy Never: the workload must be resubmitted."""
    s = Story("ff-node-02", "sd3-pretrain", "research", "Failed", phase_at=21.5, created=150, kind="Distributed",
              gpu=8, requested_pods=4, mem=("512Gi", "512Gi"), restart_policy="Never",
              command="torchrun --nnodes 4 --nproc-per-node 8 train_sd3.py",
              extra_spec={"distributedFramework": "PyTorch", "numWorkers": 3})
    nodes = ["gpu-x-30", "gpu-x-31", "gpu-x-32", "gpu-x-33"]
    lost = s.add_pod(node="gpu-x-31", created=148, k8s_phase="Unknown", updated=27, role="worker", index=0,
                     completed=27, deleted=24)
    victims = _victims(s, nodes, 22.0, "11:38:00.090", skip=1)
    _operator_events(s, victims)
    s.phase_message = f"Workload failed: pod {victims[0][0]} container main terminated (Error), exit code 1"
    lifecycle(s, 145, 21.5, "Failed", s.phase_message)
    _lost_by_the_node_controller(s, lost, 32, 27)
    s.add_event(24, "NodeLost", f"Node gpu-x-31 which was running pod {lost.name} is unresponsive",
                source="node-controller", pod=lost.name)
    s.nodes.append(node("gpu-x-31", ready="Unknown", ready_since=32,
                        taints=[taint("node.kubernetes.io/unreachable", "NoExecute", 32)],
                        extra_conditions=[condition("AcceleratedHardwareReady", "False", 33, "NvidiaXID79Error",
                                                    XID79)]))
    s.add_node_event(33, "gpu-x-31", "NvidiaXID79Error", XID79, component="kernel-monitor")
    s.add_node_event(32, "gpu-x-31", "NodeNotReady", "Node gpu-x-31 status is now: NodeNotReady", type_="Normal",
                     component="node-controller")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "NODE_FAILURE", "recurrence": 1,
        "firstFailure": lost.name, "orderSorted": True,
        "evidence": [f"First failure: pod {lost.name}"],
        "recommendations": ["Resubmit", "gpu-x-31"], "noRecommendations": ["Fix the code"],
        "queries": [["/pods", "deleted=true"]], "findings": [{"kind": "gpu-hardware", "node": "gpu-x-31"}],
    }


CASES = {
    "node-notready-taint-eviction": case_node_notready_taint_eviction,
    "xid79-node-down": case_xid79_node_down,
}
