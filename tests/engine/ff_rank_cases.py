"""Issue 31, point 3: a collective timeout points at the rank that hung, and at its node.

In a 65-pod PyTorchJob one worker's GPU fell off the bus (Xid 79, the node problem detector's node event and
condition) and the rank on it hung; ten minutes later another worker's NCCL watchdog fired and it exited 1 first,
the other 63 followed within a minute, and the operator deleted the hung worker at clean-up. In a 4-pod job a
rank's GPU stopped answering its driver (Xid 119, a GSP RPC timeout): the others timed out in Gloo and exited 1,
and the hung rank, deaf to SIGTERM, was killed after the grace period (exit 137). The look-alike: the same
timeouts, the hung rank's node clean, so there is no finding, only the rank named. And the timeouts seconds
apart: the ranks whose logs were not read exited 1 two and four seconds after the one that timed out, so they
show a plain exit; a plain exit does not outrank the timeout it came with (cascade.py), so the first failure
is still the rank that timed out, and the report still names the rank the collective waited for.
"""

from __future__ import annotations

from core.sim.demo.kit import Json, PodPlan, Story, condition, cstatus, node, running, terminated
from tests.engine.ff_node_cases import NCCL_VICTIM, XID79
from tests.engine.test_multipod_cases import S

Case = tuple[list[Story], Json, Json]
XID119 = (
    "NVRM: Xid (PCI:0000:b1:00): 119, pid=3311, name=python, Timeout after 6s of waiting for RPC response from "
    "GPU1 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20803118 0x8)."
)
GLOO = (
    "[rank0]: Traceback (most recent call last):\n"
    '[rank0]:   File "/workspace/train.py", line 188, in <module>\n'
    "[rank0]:     dist.all_reduce(metrics, group=cpu_group)\n"
    "[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting "
    "1800000ms for recv operation to complete\n"
)


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _job(key: str, name: str, pods: int, phase_at: float, **kw: object) -> Story:
    s = Story(key, name, "research", "Failed", phase_at=phase_at, created=600, kind="Distributed", gpu=8,
              requested_pods=pods, mem=("512Gi", "512Gi"), restart_policy="Never",
              command=f"torchrun --nnodes {pods} --nproc-per-node 8 train.py",
              extra_spec={"distributedFramework": "PyTorch", "numWorkers": pods - 1}, **kw)  # type: ignore[arg-type]
    s.add_phase(s.created, "Pending")
    s.add_phase(590, "Running")
    return s


def _exited(s: Story, role: str, index: int, node_name: str, end: float, log: str | None, message: str = "") -> PodPlan:
    """A rank that timed out itself and exited 1 (the operator's ExitedWithCode event names it)."""
    plan = s.add_pod(node=node_name, created=598, k8s_phase="Error", updated=end, role=role, index=index,
                     completed=end)
    s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", 1, 590, end, message or None))],
                   phase="Failed")
    s.add_event(end - S, "ExitedWithCode", f"Pod: {s.ns}.{plan.name} exited with code 1", type_="Normal",
                source="pytorchjob-controller", kind="PyTorchJob", obj_name=s.name)
    if log is not None:
        s.add_log(plan.name, log)
    return plan


def _failed_job_event(s: Story, at: float) -> None:
    s.add_event(at, "PyTorchJobFailed", f"PyTorchJob {s.ns}/{s.name} is failed because 1 Worker replica(s) failed.",
                type_="Normal", source="pytorchjob-controller", kind="PyTorchJob", obj_name=s.name)


def case_nccl_timeout_65_pods_xid79() -> Case:
    """65 pods (master-0, worker-0..63) on gpu-h-00..64; worker-41's GPU on gpu-h-42 fell off the bus at 11:46;
    worker-7 timed out first at 11:56:00, the others from 11:56:12 to 11:56:49 (the collectives they waited in
    started a little later); worker-41 deleted at clean-up at 11:57."""
    s = _job("ff-rank-01", "mixtral-pt", 65, phase_at=3.5)
    first = _exited(s, "worker", 7, "gpu-h-08", 4.0, NCCL_VICTIM.format(r=67, clock="11:56:00.004"))
    others = [("master", 0)] + [("worker", i) for i in range(64) if i not in (7, 41)]
    for k, (role, index) in enumerate(others):
        node_name = f"gpu-h-{0 if role == 'master' else index + 1:02d}"
        _exited(s, role, index, node_name, 4.0 - (12 + k * 0.6) * S, None)
    hung = s.add_pod(node="gpu-h-42", created=598, k8s_phase="Running", updated=590, role="worker", index=41,
                     deleted=3)
    _failed_job_event(s, 3.6)
    s.phase_message = f"Workload failed: pod {first.name} container main terminated (Error), exit code 1"
    s.add_phase(3.5, "Failed", s.phase_message)
    s.add_kube_event(3.1, "Killing", "Stopping container main", pod=hung.name, type_="Normal", host="gpu-h-42")
    s.nodes += [node("gpu-h-08"), node("gpu-h-42", extra_conditions=[
        condition("AcceleratedHardwareReady", "False", 14, "NvidiaXID79Error", XID79)])]
    s.add_node_event(14, "gpu-h-42", "NvidiaXID79Error", XID79, component="kernel-monitor")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1, "firstFailure": first.name,
        "evidence": [f"Hung rank: pod {hung.name} (worker) on node gpu-h-42 did not time out itself"],
        "findings": [{"kind": "gpu-hardware", "node": "gpu-h-42", "owner": "administrator", "explains": True}],
        "recommendations": ["gpu-h-42", "cordon"], "noRecommendations": ["Fix the code"],
        "paths": [r"^/api/v1/nodes/gpu-h-42$"], "queries": [["/pods", "deleted=true"]],
    }


def case_gloo_timeout_killed_rank_xid119() -> Case:
    """4 pods; worker-2's GPU on gpu-f-03 stopped answering (Xid 119) at 11:10 and its rank hung in the driver;
    the others timed out in Gloo 30 min later and exited 1; worker-2, deaf to SIGTERM, was SIGKILLed."""
    s = _job("ff-rank-02", "bloom-ft", 4, phase_at=19.5)
    first = _exited(s, "master", 0, "gpu-f-01", 20.0, GLOO, GLOO.splitlines()[-1])
    _exited(s, "worker", 0, "gpu-f-02", 20.0 - 13 * S, None, GLOO.replace("rank0", "rank8").splitlines()[-1])
    _exited(s, "worker", 1, "gpu-f-04", 20.0 - 15 * S, None, GLOO.replace("rank0", "rank16").splitlines()[-1])
    hung = s.add_pod(node="gpu-f-03", created=598, k8s_phase="Error", updated=19.0, role="worker", index=2,
                     completed=19.0)
    s.add_kube_pod(hung, [cstatus("main", s.image, terminated("Error", 137, 590, 19.0))], phase="Failed")
    s.add_kube_event(19.5, "Killing", "Stopping container main", pod=hung.name, type_="Normal", host="gpu-f-03")
    _failed_job_event(s, 19.6)
    s.phase_message = f"Workload failed: pod {first.name} container main terminated (Error), exit code 1"
    s.add_phase(19.5, "Failed", s.phase_message)
    s.nodes += [node("gpu-f-01"), node("gpu-f-03")]
    s.add_node_event(50, "gpu-f-03", "NvidiaXID119Error", XID119, component="kernel-monitor")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1, "firstFailure": first.name,
        "evidence": [f"Hung rank: pod {hung.name} (worker) on node gpu-f-03", "SIGKILL (exit 137)"],
        "findings": [{"kind": "gpu-hardware", "node": "gpu-f-03", "explains": True}],
        "recommendations": ["gpu-f-03"], "paths": [r"^/api/v1/nodes/gpu-f-03$"],
    }


def _nccl_four(key: str, name: str, rack: str, after_s: tuple[int, int]) -> tuple[Story, PodPlan, PodPlan]:
    """4 pods on gpu-<rack>-01..04: worker-1's NCCL watchdog fires at 11:50:00 and it exits 1 first; master-0 and
    worker-0 exit 1 `after_s` seconds later with nothing read that says why; worker-2 hung in the collective and
    was deleted at clean-up."""
    s = _job(key, name, 4, phase_at=9.5)
    first = _exited(s, "worker", 1, f"gpu-{rack}-03", 10.0, NCCL_VICTIM.format(r=16, clock="11:50:00.120"))
    _exited(s, "master", 0, f"gpu-{rack}-01", 10.0 - after_s[0] * S, None)
    _exited(s, "worker", 0, f"gpu-{rack}-02", 10.0 - after_s[1] * S, None)
    return s, first, _hung_then_failed(s, rack, first.name)


def _hung_then_failed(s: Story, rack: str, failed_pod: str) -> PodPlan:
    """worker-2 on gpu-<rack>-04 hung in the collective and was deleted at clean-up a minute later; the job
    failed, its phase message naming `failed_pod`."""
    hung = s.add_pod(node=f"gpu-{rack}-04", created=598, k8s_phase="Running", updated=590, role="worker", index=2,
                     deleted=9)
    s.add_kube_pod(hung, [cstatus("main", s.image, running(590))], phase="Running", deletion=9)
    _failed_job_event(s, 9.6)
    s.phase_message = f"Workload failed: pod {failed_pod} container main terminated (Error), exit code 1"
    s.add_phase(9.5, "Failed", s.phase_message)
    return hung


def case_nccl_timeout_hung_rank_node_clean() -> Case:
    """The look-alike: the same NCCL timeouts and a rank deleted at clean-up, but its node shows nothing: the
    report names the rank it waited for and raises no finding."""
    s, first, hung = _nccl_four("ff-rank-03", "qwen-dpo", "g", (14, 16))
    s.nodes += [node("gpu-g-03"), node("gpu-g-04")]
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1, "firstFailure": first.name,
        "evidence": [f"Hung rank: pod {hung.name} (worker) on node gpu-g-04"],
        "noText": ["gpu-hardware", "Not the workload's fault"], "paths": [r"^/api/v1/nodes/gpu-g-04$"],
    }


def case_nccl_timeouts_seconds_apart() -> Case:
    """4 pods; worker-1's NCCL watchdog fired at 11:50:00; master-0 and worker-0 exited 1 at 11:50:02 and
    11:50:04 with nothing read that says why (their logs are not read); worker-2 hung and was deleted at
    clean-up. Within the ten seconds the pods' times are compared by what they show."""
    s, first, hung = _nccl_four("ff-rank-04", "gemma-sft", "k", (2, 4))
    s.nodes += [node("gpu-k-03"), node("gpu-k-04", extra_conditions=[
        condition("AcceleratedHardwareReady", "False", 14, "NvidiaXID79Error", XID79)])]
    s.add_node_event(14, "gpu-k-04", "NvidiaXID79Error", XID79, component="kernel-monitor")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1, "firstFailure": first.name,
        "evidence": [f"Hung rank: pod {hung.name} (worker) on node gpu-k-04 did not time out itself"],
        "findings": [{"kind": "gpu-hardware", "node": "gpu-k-04", "explains": True}],
        "recommendations": ["gpu-k-04"], "paths": [r"^/api/v1/nodes/gpu-k-04$"],
    }


def _master_exits_first(key: str, name: str, rack: str, master_log: str | None) -> tuple[Story, PodPlan, PodPlan]:
    """4 pods on gpu-<rack>-01..04: master-0 exits 1 at 11:50:00 with a log that says nothing (`master_log`);
    worker-0 and worker-1 exit 1 two and five seconds later, their NCCL watchdogs having fired after ten minutes
    in a collective; worker-2 hung in it."""
    s = _job(key, name, 4, phase_at=9.5)
    _exited(s, "master", 0, f"gpu-{rack}-01", 10.0, master_log)
    timed_out = _exited(s, "worker", 0, f"gpu-{rack}-02", 10.0 - 2 * S, NCCL_VICTIM.format(r=8, clock="11:50:01.870"))
    _exited(s, "worker", 1, f"gpu-{rack}-03", 10.0 - 5 * S, NCCL_VICTIM.format(r=16, clock="11:50:04.910"))
    return s, timed_out, _hung_then_failed(s, rack, f"{name}-master-0")


def case_nccl_timeout_after_master_exit_log_empty() -> Case:
    """master-0 exits 1 first, its log empty; the two workers that end 2 and 5 s after it show, in logs read only
    because the first failure says nothing, the NCCL watchdog timeout that explains the episode: the first failure
    is the earliest of them, and the rank they waited for, and its node (an Xid 79), are named."""
    s, timed_out, hung = _master_exits_first("ff-rank-05", "olmo-pt", "m", "")
    s.nodes += [node("gpu-m-01"), node("gpu-m-04", extra_conditions=[
        condition("AcceleratedHardwareReady", "False", 14, "NvidiaXID79Error", XID79)])]
    s.add_node_event(14, "gpu-m-04", "NvidiaXID79Error", XID79, component="kernel-monitor")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1, "firstFailure": timed_out.name,
        "evidence": [f"Hung rank: pod {hung.name} (worker) on node gpu-m-04 did not time out itself",
                     f"Pod {timed_out.name}: Log line 3 of container main", "Watchdog caught collective operation"],
        "findings": [{"kind": "gpu-hardware", "node": "gpu-m-04", "explains": True}],
        "recommendations": ["gpu-m-04"], "paths": [r"^/api/v1/nodes/gpu-m-04$"],
    }


def case_master_exit_peer_logs_fail() -> Case:
    """The same episode, but master-0's log and the workers' logs answer HTTP 500: nothing read shows the
    timeout, so the first failure stays master-0's plain exit, and every failed log read is stated as one."""
    s, _, _ = _master_exits_first("ff-rank-06", "olmo-sft", "n", None)
    s.nodes += [node("gpu-n-01")]
    faults = [{"match": f"GET /api/v1/namespaces/{s.ns}/pods/{name}/log", "status": 500, "times": 9}
              for name in (f"{s.name}-master-0", f"{s.name}-worker-0", f"{s.name}-worker-1")]
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1, "firstFailure": f"{s.name}-master-0",
        "missing": [f"log of container main in pod {pod}: the API server failed (HTTP 500)"
                    for pod in (f"{s.name}-master-0", f"{s.name}-worker-0", f"{s.name}-worker-1")],
        "notes": ["the logs of the 2 pods that ended within 10 s of it were asked for too (2 of them could not be "
                  "read"],
        "noEvidence": ["Hung rank", "Log line"], "noText": ["NCCL watchdog timeout"],
        "bundle": {"faults": faults},
    }


CASES = {
    "rank-nccl-timeout-65-pods-xid79": case_nccl_timeout_65_pods_xid79,
    "rank-gloo-timeout-killed-rank-xid119": case_gloo_timeout_killed_rank_xid119,
    "rank-nccl-timeout-hung-rank-node-clean": case_nccl_timeout_hung_rank_node_clean,
    "rank-nccl-timeouts-seconds-apart": case_nccl_timeouts_seconds_apart,
    "rank-nccl-timeout-after-master-exit-log-empty": case_nccl_timeout_after_master_exit_log_empty,
    "rank-master-exit-peer-logs-fail": case_master_exit_peer_logs_fail,
}
