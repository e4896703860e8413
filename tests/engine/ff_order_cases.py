"""Issue 23, class 2: a failure in a pod since replaced, and one order by time for every pod that ended.

A PyTorchJob worker is OOM-killed and recreated under the same name (the operator deletes a failed replica's pod
and makes it anew): the pod that failed is listed only among the deleted pods, beside a Pending replacement of
the same name, and its OOM kill is told by the deleted pod, the events and the history. The peers exit 1 a few
seconds later (gloo's `Connection reset by peer`, a closed rendezvous), and the workload's phase message names
one of them.
"""

from __future__ import annotations

from core.sim.demo.kit import GI, Json, PodPlan, Story, cstatus, node, ramp, terminated, uid, waiting
from tests.engine.test_rule_cases import lifecycle

S = 1 / 60
Case = tuple[list[Story], Json, Json]

RESET = (
    "[rank{r}]: epoch 2 step 17400 loss 0.613\n"
    "[rank{r}]: Traceback (most recent call last):\n"
    '[rank{r}]:   File "/workspace/train.py", line 211, in <module>\n'
    "[rank{r}]:     dist.all_reduce(grad)\n"
    "[rank{r}]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
    "[10.233.71.18]:14592\n"
)
RENDEZVOUS = (
    "[E socket.cpp:957] [c10d] The client socket has timed out after 900s while trying to connect to "
    "(detr-ddp-master-0, 29500).\n"
    "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n"
)


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _replacement(s: Story, gone: PodPlan, created: float) -> PodPlan:
    """The pod the operator made anew under the same name: a new id, Pending, not yet placed."""
    again = s.add_pod(node=None, created=created, k8s_phase="Pending", updated=created, role="worker", index=2)
    again.uid = uid("pod", s.key, gone.name, "replacement")
    s.add_kube_pod(again, [cstatus("main", s.image, waiting("ContainerCreating"))], phase="Pending")
    return again


def _job(key: str, name: str, phase_at: float) -> Story:
    return Story(key, name, "vision", "Failed", phase_at=phase_at, created=phase_at + 95, kind="Distributed", gpu=4,
                 requested_pods=4, mem=("96Gi", "96Gi"), restart_policy="OnFailure", backoff_limit=0,
                 command="torchrun --nnodes 4 --nproc-per-node 4 train.py",
                 extra_spec={"distributedFramework": "PyTorch", "numWorkers": 3})


def case_oom_in_replaced_pod() -> Case:
    """worker-2 OOM-killed at 11:08:42 and replaced; its peers lose it and exit 1 at 11:08:48-11:08:52."""
    s = _job("ff-order-01", "detr-ddp", 50.5)
    oom_at = 51 + 18 * S  # 11:08:42
    gone = s.add_pod(node="gpu-o-22", created=145, k8s_phase="OOMKilled", updated=oom_at, role="worker", index=2,
                     completed=oom_at, deleted=oom_at - 3 * S)
    victims: list[PodPlan] = []
    for i, (role, index) in enumerate((("master", 0), ("worker", 0), ("worker", 1))):
        end = oom_at - (6 + 2 * i) * S  # 11:08:48, :50, :52
        plan = s.add_pod(node=f"gpu-o-2{i + 5}", created=145, k8s_phase="Error", updated=end, role=role, index=index,
                         completed=end)
        log = RENDEZVOUS if role == "master" else RESET.format(r=4 * i)
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", 1, 140, end))], phase="Failed")
        s.add_log(plan.name, log)
        s.nodes.append(node(plan.node or ""))
        victims.append(plan)
    _replacement(s, gone, oom_at - 4 * S)
    s.add_pod_series(gone, "CPU_MEMORY_USAGE_BYTES", ramp(70 * GI, 102_900_000_000, 139, oom_at + 0.5, step_min=1))
    s.add_event(oom_at, "OOMKilled", "Container main was OOM killed", pod=gone.name, obj_uid=gone.uid)
    s.add_event(oom_at - 3 * S, "SuccessfulDelete", f"Deleted pod: {gone.name}", type_="Normal",
                source="pytorchjob-controller", kind="PyTorchJob", obj_name=s.name)
    s.add_event(oom_at - 4 * S, "SuccessfulCreate", f"Created pod: {gone.name}", type_="Normal",
                source="pytorchjob-controller", kind="PyTorchJob", obj_name=s.name)
    s.phase_message = f"Workload failed: pod {victims[0].name} container main terminated (Error), exit code 1"
    lifecycle(s, 140, 50.5, "Failed", s.phase_message)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "OOM_KILLED", "recurrence": 1,
        "firstFailure": gone.name, "orderSorted": True,
        "queries": [["/pods", "deleted=true"]],
        "evidence": [f"First failure: pod {gone.name}", "OOMKilled"],
        "memory": {"limitBytes": 96 * GI, "peakBytes": 102_900_000_000, "pod": gone.name},
    }


def case_cause_recorded_after_its_victim() -> Case:
    """worker-2 OOM-killed; the control plane records its end 3 s after a peer's container (read precisely from
    Kubernetes) stopped on the lost connection. Recorded times are listed as they are, in order; the OOM kill is
    still the first failure, and the peer recorded earlier is said to be a consequence recorded before it."""
    s = _job("ff-order-02", "sam-ddp", 40.5)
    oom_at = 41
    gone = s.add_pod(node="gpu-o-32", created=135, k8s_phase="OOMKilled", updated=oom_at, role="worker", index=2,
                     completed=oom_at, deleted=oom_at - 5 * S)
    for i, (role, index) in enumerate((("master", 0), ("worker", 0), ("worker", 1))):
        end = oom_at + 3 * S if i == 1 else oom_at - (4 + i) * S
        plan = s.add_pod(node=f"gpu-o-3{i + 5}", created=135, k8s_phase="Error", updated=end, role=role, index=index,
                         completed=end)
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", 1, 130, end))], phase="Failed")
        s.add_log(plan.name, RESET.format(r=4 * i))
        s.nodes.append(node(plan.node or ""))
    _replacement(s, gone, oom_at - 6 * S)
    s.add_event(oom_at, "OOMKilled", "Container main was OOM killed", pod=gone.name, obj_uid=gone.uid)
    s.phase_message = "PyTorchJob vision/sam-ddp is failed because 1 Worker replica(s) failed."
    lifecycle(s, 130, 40.5, "Failed", s.phase_message)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "OOM_KILLED", "recurrence": 1,
        "firstFailure": gone.name, "orderSorted": True,
        "notes": ["recorded 3 s before the first failure"],
    }


CASES = {
    "oom-in-replaced-pod": case_oom_in_replaced_pod,
    "cause-recorded-after-its-victim": case_cause_recorded_after_its_victim,
}
