"""The order a workload's pods ended in: the first failure, the pods torn down after it, and what the verdict may
rest on. Built from real shapes (Run:ai pods and events, core/v1 pods) and real framework and kubelet strings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from core.diagnosis.cascade import (
    attribute,
    cause_observations,
    order_terminations,
    pod_role,
    teardown_signs,
)
from core.diagnosis.kube_evidence import pod_observations
from core.diagnosis.observations import from_event, from_phase_message, from_runai_pod
from core.diagnosis.rules import classify
from core.models.kube import K8sPod
from core.models.runai import RunaiPod, WorkloadEvent

T0 = datetime(2026, 11, 30, 11, 25, 0, tzinfo=UTC)
NCCL = (
    "[rank3]:[E1130 11:25:00.412 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=18231, OpType=ALLREDUCE, NumelIn=262144000, NumelOut=262144000, "
    "Timeout(ms)=600000) ran for 600071 milliseconds before timing out."
)
MPIRUN = (
    "Primary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job "
    "has been aborted."
)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def iso(seconds: float) -> str:
    return at(seconds).strftime("%Y-%m-%dT%H:%M:%SZ")


def runai_pod(name: str, phase: str, ended: float | None, *, deleted: float | None = None) -> RunaiPod:
    body: dict[str, Any] = {"name": name, "id": f"id-{name}", "k8sPhase": phase, "nodeName": f"node-{name[-1]}"}
    if ended is not None:
        body.update(completedAt=iso(ended), k8sPhaseUpdatedAt=iso(ended))
    if deleted is not None:
        body["deletedAt"] = iso(deleted)
    return RunaiPod.model_validate(body)


def event(pod: str, seconds: float, reason: str, message: str) -> WorkloadEvent:
    return WorkloadEvent.model_validate(
        {
            "createdAt": iso(seconds),
            "type": "Warning",
            "reason": reason,
            "message": message,
            "source": "kubelet",
            "involvedObject": {"kind": "Pod", "name": pod, "namespace": "runai-nlp"},
        }
    )


def k8s_pod(name: str, reason: str, code: int, finished: float, message: str | None = None) -> K8sPod:
    terminated: dict[str, Any] = {"reason": reason, "exitCode": code, "finishedAt": iso(finished)}
    if message:
        terminated["message"] = message
    return K8sPod.model_validate(
        {
            "metadata": {"name": name, "namespace": "runai-nlp"},
            "spec": {"nodeName": f"node-{name[-1]}", "containers": [{"name": "pytorch"}]},
            "status": {
                "phase": "Failed",
                "containerStatuses": [{"name": "pytorch", "state": {"terminated": terminated}, "restartCount": 0}],
            },
        }
    )


def test_teardown_lines_from_frameworks_and_runtimes_are_recognised() -> None:
    assert teardown_signs([NCCL]) == ("NCCL watchdog timeout",)
    assert teardown_signs([MPIRUN]) == ("mpirun: another process failed",)
    assert teardown_signs(
        ["RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection reset by peer"]
    ) == ("connection reset by peer",)
    assert "ChildFailedError" in teardown_signs(
        ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED"]
    )
    assert teardown_signs(["torch.distributed.elastic.rendezvous.api.RendezvousClosedError"]) == ("rendezvous closed",)
    # An application's own error is no sign of a peer's failure.
    assert teardown_signs(["FileNotFoundError: [Errno 2] No such file or directory: '/data/x'"]) == ()


def test_roles_come_from_the_pod_name_after_the_workload_name() -> None:
    assert pod_role("llama-70b-dist-master-0", "llama-70b-dist") == "master"
    assert pod_role("llama-70b-dist-worker-12", "llama-70b-dist") == "worker"
    assert pod_role("bench-launcher-x7k2p", "bench") == "launcher"
    assert pod_role("worker-pool-0-0", "worker-pool") is None  # the role word is the workload's own name
    assert pod_role("train-0-0", "train") is None


def test_the_oom_killed_pod_is_first_and_the_sigtermed_peers_are_its_consequences() -> None:
    pods = [
        runai_pod("job-master-0", "Error", 4),
        runai_pod("job-worker-0", "Error", 5),
        runai_pod("job-worker-1", "OOMKilled", 0),
    ]
    k8s = {
        "job-master-0": k8s_pod("job-master-0", "Error", 143, 4),
        "job-worker-0": k8s_pod("job-worker-0", "Error", 143, 5),
        "job-worker-1": k8s_pod("job-worker-1", "OOMKilled", 137, 0),
    }
    observations = [o for p in pods for o in from_runai_pod(p, "get_workload_pods")]
    observations += [o for pod in k8s.values() for o in pod_observations(pod)]
    order = order_terminations(pods, observations, k8s_pods=k8s, workload_name="job")
    assert [(e.pod, e.first) for e in order.entries] == [
        ("job-worker-1", True),
        ("job-master-0", False),
        ("job-worker-0", False),
    ]
    first = order.first
    assert first is not None and first.role == "worker" and first.how.startswith("OOMKilled (exit 137)")
    assert order.entries[1].teardown == ("SIGTERM",) and order.entries[1].how == "SIGTERM (exit 143)"
    assert order.cascade


def test_a_peer_killed_first_by_the_clock_is_not_taken_for_the_cause() -> None:
    # The operator's SIGTERM reached worker-0 a little before Run:ai recorded worker-3's crash.
    pods = [runai_pod("j-worker-0", "Error", 0), runai_pod("j-worker-3", "Error", 8)]
    k8s = {"j-worker-0": k8s_pod("j-worker-0", "Error", 143, 0), "j-worker-3": k8s_pod("j-worker-3", "Error", 1, 8)}
    observations = [o for pod in k8s.values() for o in pod_observations(pod)]
    order = order_terminations(pods, observations, k8s_pods=k8s)
    assert order.first is not None and order.first.pod == "j-worker-3"


def test_an_nccl_timeout_exit_beats_plain_sigterms_in_the_same_second() -> None:
    pods = [runai_pod(f"d-worker-{i}", "Error", 0) for i in range(3)]
    k8s = {
        "d-worker-0": k8s_pod("d-worker-0", "Error", 143, 0),
        "d-worker-1": k8s_pod("d-worker-1", "Error", 1, 0, message=NCCL),
        "d-worker-2": k8s_pod("d-worker-2", "Error", 143, 0),
    }
    observations = [o for pod in k8s.values() for o in pod_observations(pod)]
    order = order_terminations(pods, observations, k8s_pods=k8s)
    assert order.first is not None and order.first.pod == "d-worker-1"
    assert order.first.teardown == ("NCCL watchdog timeout",)


def test_the_verdict_rests_on_the_first_failure_not_on_its_victims() -> None:
    # worker-2's node was lost; the others then timed out in NCCL and exited 1 (an application exit).
    pods = [
        runai_pod("r-worker-2", "Failed", 0),
        runai_pod("r-worker-0", "Error", 600),
        runai_pod("r-worker-1", "Error", 601),
    ]
    events = [
        event("r-worker-2", 0, "NodeLost", "Node gpu-7 which was running pod r-worker-2 is unresponsive"),
        event("r-worker-0", 600, "Failed", "container pytorch terminated with exit code 1"),
        event("r-worker-1", 601, "Failed", "container pytorch terminated with exit code 1"),
    ]
    observations = [o for e in events for o in from_event(e, "get_workload_status")]
    assert classify(observations).category == "CRASH_APP_ERROR"  # everything together: the victims win
    order = order_terminations(pods, observations, window=(at(-3600), at(900)))
    assert order.first is not None and order.first.pod == "r-worker-2"
    assert classify(cause_observations(observations, order)).category == "NODE_FAILURE"


def test_terminations_of_an_earlier_run_are_outside_the_window() -> None:
    pods = [runai_pod("p-0-0", "OOMKilled", -7200, deleted=-7190), runai_pod("p-0-1", "Error", 0)]
    observations = [o for p in pods for o in from_runai_pod(p, "get_workload_pods")]
    order = order_terminations(pods, observations, window=(at(-3600), at(120)))
    assert [e.pod for e in order.entries] == ["p-0-1"]
    assert not order.cascade


def test_phase_messages_are_attributed_to_the_one_pod_they_name() -> None:
    obs = from_phase_message("Failed", "Workload failed: pod x-worker-1 container main terminated (OOMKilled)",
                             "get_workload_status", T0)
    named = attribute(obs, ["x-worker-1", "x-worker-10", "x-master-0"])
    assert {o.pod for o in named} == {"x-worker-1"}
    both = from_phase_message("Failed", "pods x-worker-1 and x-master-0 failed with exit code 1", "s", T0)
    assert {o.pod for o in attribute(both, ["x-worker-1", "x-master-0"])} == {None}


def test_a_deleted_running_peer_reads_as_torn_down() -> None:
    pods = [runai_pod("g-worker-1", "OOMKilled", 0), runai_pod("g-master-0", "Running", None, deleted=6)]
    observations = [o for p in pods for o in from_runai_pod(p, "get_workload_pods")]
    order = order_terminations(pods, observations)
    assert [e.pod for e in order.entries] == ["g-worker-1", "g-master-0"]
    assert order.entries[1].how == "deleted while running" and order.entries[1].deleted


def test_the_training_operators_namespace_dot_name_is_attributed_to_its_pod() -> None:
    operator = WorkloadEvent.model_validate(
        {"createdAt": iso(600), "type": "Normal", "reason": "ExitedWithCode", "source": "pytorchjob-controller",
         "message": "Pod: runai-nlp.r-worker-0 exited with code 1",
         "involvedObject": {"kind": "PyTorchJob", "name": "r", "namespace": "runai-nlp"}}
    )
    named = attribute(from_event(operator, "get_workload_status"), ["r-worker-0", "r-worker-2"])
    assert {o.pod for o in named} == {"r-worker-0"}


def test_the_category_follows_a_first_failure_with_a_cause_of_its_own() -> None:
    # The lost node's pod first; an exit code the workload's status reports without naming a pod decides nothing.
    pods = [runai_pod("n-worker-2", "Unknown", 0), runai_pod("n-worker-0", "Error", 600)]
    observations = from_event(
        event("n-worker-2", 0, "NodeLost", "Node gpu-7 which was running pod n-worker-2 is unresponsive"),
        "get_workload_status",
    ) + from_phase_message("Failed", "Workload failed: exit code 1", "get_workload_status", at(610))
    observations = attribute(observations, ["n-worker-2", "n-worker-0"])
    order = order_terminations(pods, observations, window=(at(-3600), at(900)))
    assert order.first is not None and order.first.pod == "n-worker-2"
    assert classify(cause_observations(observations, order)).category == "NODE_FAILURE"


def test_a_pod_replaced_under_its_name_is_read_as_the_one_that_ended() -> None:
    gone = runai_pod("s-worker-2", "OOMKilled", 0, deleted=3)
    again = RunaiPod.model_validate({"name": "s-worker-2", "id": "id-new", "k8sPhase": "Pending"})
    peer = runai_pod("s-worker-0", "Error", 6)
    replacement = K8sPod.model_validate(
        {"metadata": {"name": "s-worker-2", "uid": "id-new"}, "spec": {"containers": [{"name": "pytorch"}]},
         "status": {"phase": "Pending"}}
    )
    observations = [o for p in (gone, again, peer) for o in from_runai_pod(p, "get_workload_pods")]
    order = order_terminations([again, peer, gone], observations, k8s_pods={"s-worker-2": replacement})
    first = order.first
    assert first is not None and (first.pod, first.pod_id, first.deleted) == ("s-worker-2", "id-s-worker-2", True)
    assert first.replaced_by == "id-new" and first.node == "node-2"


def test_pods_are_listed_in_the_order_of_their_recorded_ends_with_the_cause_marked() -> None:
    # worker-2's OOM kill reaches the control plane 3 s after its peer's container (read to the second) stopped.
    pods = [runai_pod("t-worker-2", "OOMKilled", 3), runai_pod("t-worker-0", "Error", 0)]
    k8s = {"t-worker-0": k8s_pod("t-worker-0", "Error", 1, 0, message="Connection closed by peer")}
    observations = [o for p in pods for o in from_runai_pod(p, "get_workload_pods")]
    observations += pod_observations(k8s["t-worker-0"])
    order = order_terminations(pods, observations, k8s_pods=k8s)
    assert [(e.pod, e.first) for e in order.entries] == [("t-worker-0", False), ("t-worker-2", True)]
