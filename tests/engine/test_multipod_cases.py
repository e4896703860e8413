"""One case bundle per point of issue 10 (tests/cases/multipod/*.json), each diagnosed over real HTTP.

Written by the builders below from the demo kit (real Run:ai and core/v1 shapes) with real PyTorchJob, MPIJob,
torchrun, NCCL and kubelet strings. Each bundle carries its `expect` block (the checks of test_rule_cases, plus
`firstFailure`, `queries` and `otherSubmissionsFailed`). The files must equal what the builders produce;
regenerate with `.venv/bin/python -m tests.engine.test_multipod_cases --write`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.diagnosis.engine import UnknownCluster
from core.models.report import Report
from core.sim.control_plane import RecordedRequest
from core.sim.demo.kit import (
    GI,
    Json,
    Story,
    condition,
    cstatus,
    flat,
    lifecycle,
    node,
    ramp,
    revision_json,
    revision_pod_json,
    running,
    taint,
    terminated,
    ts,
    uid,
    v2_document,
    waiting,
)
from tests.engine.mp_fold_cases import case_fold_nine_pods_exit_one, case_fold_three_workers_oom_no_samples
from tests.engine.test_rule_cases import (
    assert_cases_on_disk,
    build_from,
    check,
    diagnose_bundle,
    error_message,
    oom_message,
    write_cases,
)

CASES_DIR = Path(__file__).resolve().parents[1] / "cases" / "multipod"
S = 1 / 60  # a second, in the stories' minutes-ago units
Case = tuple[list[Story], Json, Json]

NCCL = (
    "[rank{r}]:[E1130 11:20:31.508 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=4412, OpType=ALLREDUCE, NumelIn=65536000, NumelOut=65536000, Timeout(ms)=600000) ran for "
    "600090 milliseconds before timing out.\n"
    "torch.distributed.DistBackendError: NCCL communicator was aborted on rank {r}.\n"
)
CHILD_FAILED = (
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
    "============================================================\n"
    "train.py FAILED\n"
    "------------------------------------------------------------\n"
    "Root Cause (first observed failure):\n"
    "[0]:\n"
    "  time      : 2026-11-30_11:40:00\n"
    "  host      : seq2seq-worker-1\n"
    "  rank      : 9 (local_rank: 1)\n"
    "  exitcode  : -9 (pid: 413)\n"
    "  error_file: <N/A>\n"
    "  traceback : Signal 9 (SIGKILL) received by PID 413\n"
    "============================================================\n"
)
RENDEZVOUS = (
    "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n"
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection reset by peer\n"
)
MPIRUN = (
    "[1,3]<stderr>:ValueError: could not broadcast input array from shape (512,) into shape (256,)\n"
    "--------------------------------------------------------------------------\n"
    "Primary job  terminated normally, but 1 process returned\n"
    "a non-zero exit code. Per user-direction, the job has been aborted.\n"
    "--------------------------------------------------------------------------\n"
    "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
    "the job to be terminated. The first process to do so was:\n\n"
    "  Process name: [[4402,1],3]\n"
    "  Exit code:    1\n"
)


def diagnosed(category: str, **expect: Any) -> Json:
    """The `expect` block of a diagnosed case counted once in its own history."""
    return {"outcome": "diagnosed", "category": category, "recurrence": 1, **expect}


def _req(s: Story, **extra: Any) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id, **extra}


def _job(key: str, name: str, pods: int, *, project: str = "nlp", phase_at: float = 30, **kw: Any) -> Story:
    s = Story(
        key,
        name,
        project,
        "Failed",
        phase_at=phase_at,
        created=phase_at + 90,
        kind="Distributed",
        gpu=8,
        requested_pods=pods,
        command="torchrun train.py",
        **kw,
    )
    lifecycle(s, phase_at + 80, phase_at, "Failed", "")
    return s


def _fail_message(s: Story, message: str) -> None:
    s.phase_message = message
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = message


# -- 1. memory per pod -----------------------------------------------------------------------------------------
def _oom_job(key: str, name: str, *, own_series: bool) -> Story:
    s = _job(key, name, 4, mem=("48Gi", "48Gi"))
    pods = [
        s.add_pod(
            node=f"gpu-m-{key[-2:]}{i}",
            created=115,
            k8s_phase="OOMKilled" if i == 2 else "Error",
            updated=30 if i == 2 else 30 - 5 * S,
            role="worker",
            index=i,
            completed=30 if i == 2 else 30 - 5 * S,
        )
        for i in range(4)
    ]
    _fail_message(s, oom_message(pods[2].name))
    s.add_event(30, "OOMKilled", "Container main was OOM killed", pod=pods[2].name)
    for plan in pods:
        state = terminated("OOMKilled", 137, 110, 30) if plan is pods[2] else terminated("Error", 143, 110, 30 - 5 * S)
        s.add_kube_pod(plan, [cstatus("main", s.image, state)], phase="Failed")
        s.nodes.append(node(plan.node or ""))
    series = {p.name: flat(30 * GI, 108, 30.5, step_min=1) for p in pods}
    series[pods[2].name] = ramp(30 * GI, 51_500_000_000, 108, 30.5, step_min=1)
    if own_series:
        s.add_summed_series("CPU_MEMORY_USAGE_BYTES", series)
    else:  # the workload's series (a sum over the 4 pods) only: no pod has a series of its own
        s.add_series("CPU_MEMORY_USAGE_BYTES", [(t, 3 * 30 * GI + v) for t, v in series[pods[2].name]])
        s.pod_metrics[pods[2].uid] = [{"type": "CPU_MEMORY_USAGE_BYTES", "labels": None, "values": []}]
    return s


def case_per_pod_memory() -> Case:
    s = _oom_job("mp-mem-01", "ranker-ddp", own_series=True)
    return (
        [s],
        _req(s),
        diagnosed(
            "OOM_KILLED",
            memory={"limitBytes": 48 * GI, "peakBytes": 51_500_000_000, "pod": "ranker-ddp-worker-2"},
            paths=[r"/pods/[^/]+/metrics$"],
            noPaths=[r"^/api/v1/workloads/[^/]+/metrics$"],
            evidence=["Pod ranker-ddp-worker-2 (worker) peak CPU memory"],
            firstFailure="ranker-ddp-worker-2",
        ),
    )


def case_per_pod_memory_no_samples() -> Case:
    s = _oom_job("mp-mem-02", "ranker-ddp2", own_series=False)
    return (
        [s],
        _req(s),
        diagnosed(
            "OOM_KILLED",
            memory={"limitBytes": 48 * GI, "peakBytes": None, "pod": "ranker-ddp2-worker-2"},
            missing=["CPU-memory peak of pod ranker-ddp2-worker-2", "is a sum over its 4 pods"],
            noPaths=[r"^/api/v1/workloads/[^/]+/metrics$"],
        ),
    )


def case_per_pod_memory_oom_storm() -> Case:
    """Six of eight workers OOM-killed within seconds: a diagnosis reads at most four pods' own series (the first
    OOM kill among them) and says how many it left."""
    s = _job("mp-mem-03", "moe-ddp", 8, mem=("48Gi", "48Gi"))
    pods = [
        s.add_pod(node=f"gpu-s-0{i}", created=115, k8s_phase="OOMKilled" if i < 6 else "Error", updated=30 - i * S,
                  role="worker", index=i, completed=30 - i * S)
        for i in range(8)
    ]
    first = pods[0]  # the earliest end (30 minutes ago; the others end seconds after it)
    _fail_message(s, oom_message(first.name))
    for i, plan in enumerate(pods):
        reason, code = ("OOMKilled", 137) if i < 6 else ("Error", 143)
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated(reason, code, 110, 30 - i * S))], phase="Failed")
        s.nodes.append(node(plan.node or ""))
    s.add_summed_series("CPU_MEMORY_USAGE_BYTES", {p.name: ramp(30 * GI, 51_000_000_000, 108, 30.5, step_min=1)
                                                    for p in pods})
    return (
        [s],
        _req(s),
        diagnosed(
            "OOM_KILLED",
            memory={"limitBytes": 48 * GI, "peakBytes": 51_000_000_000},
            podMetricReads=4,
            notes=["2 more failed pods qualified for a memory read but were not read"],
            firstFailure=first.name,
        ),
    )


# -- 2. pods that came and went --------------------------------------------------------------------------------
def case_deleted_pod_explains() -> Case:
    s = Story(
        "mp-deleted-01",
        "asr-finetune",
        "speech",
        "Failed",
        phase_at=20,
        created=90,
        mem=("32Gi", "32Gi"),
        restart_policy="OnFailure",
        backoff_limit=1,
    )
    s.add_pod(node="gpu-m-30", created=88, k8s_phase="OOMKilled", updated=24, index=0, completed=24, deleted=23.9)
    replacement = s.add_pod(node="gpu-m-31", created=23.8, k8s_phase="Running", updated=23, index=1)
    s.add_phase(s.created, "Pending").add_phase(85, "Running")
    s.add_phase(20, "Failed", "Job has reached the specified backoff limit")
    s.add_kube_pod(replacement, [cstatus("main", s.image, running(23))], phase="Running")
    s.nodes.append(node("gpu-m-31"))
    return (
        [s],
        _req(s),
        diagnosed(
            "OOM_KILLED",
            queries=[["/pods", "deleted=true"]],
            notes=["the deleted pods were read beside the live ones"],
        ),
    )


# -- 3. first failure and its consequences ---------------------------------------------------------------------
def case_cascade_node_lost_first() -> Case:
    """The node of worker-1 was lost; ten minutes later the others' NCCL watchdogs fired and they exited 1."""
    s = _job("mp-cascade-01", "vit-huge-ddp", 6, mem=("256Gi", "256Gi"), phase_at=20)
    _fail_message(s, error_message("vit-huge-ddp-worker-3", 1))
    lost = None
    for i in range(6):
        role, index = ("master", 0) if i == 0 else ("worker", i - 1)
        if index == 1 and role == "worker":
            lost = s.add_pod(
                node="gpu-m-41", created=105, k8s_phase="Unknown", updated=32, role=role, index=index, completed=27
            )
            continue
        at = 21 - i * S
        plan = s.add_pod(
            node=f"gpu-m-4{i + 2}", created=105, k8s_phase="Error", updated=at, role=role, index=index, completed=at
        )
        s.add_kube_pod(
            plan,
            [cstatus("main", s.image, terminated("Error", 1, 100, at, message=NCCL.format(r=8 * i)))],
            phase="Failed",
        )
        s.nodes.append(node(plan.node or ""))
    assert lost is not None
    s.add_event(32, "NodeNotReady", "Node is not ready", source="node-controller", pod=lost.name)
    s.add_kube_pod(
        lost,
        [cstatus("main", s.image, running(100))],
        phase="Running",
        reason="NodeLost",
        message=f"Node gpu-m-41 which was running pod {lost.name} is unresponsive",
        conditions=[condition("Ready", "False", 32, "NodeNotReady")],
        deletion=27,
    )
    s.nodes.append(
        node("gpu-m-41", ready="Unknown", ready_since=32, taints=[taint("node.kubernetes.io/unreachable", added=32)])
    )
    return (
        [s],
        _req(s),
        diagnosed(
            "NODE_FAILURE",
            firstFailure="vit-huge-ddp-worker-1",
            evidence=["First failure: pod vit-huge-ddp-worker-1"],
            paths=[r"^/api/v1/nodes/gpu-m-41$"],
        ),
    )


def case_cascade_childfailed_kernel_oom() -> Case:
    """torchrun on worker-1 reports ChildFailedError (rank 9 got SIGKILL) and exits 1; the kernel's OOM kill is on
    its node; the master is SIGTERMed and worker-0 loses its rendezvous after it."""
    s = _job("mp-cascade-02", "seq2seq", 3, mem=("64Gi", "64Gi"), project="robotics")
    first = s.add_pod(node="gpu-m-51", created=115, k8s_phase="Error", updated=30, role="worker", index=1, completed=30)
    master = s.add_pod(
        node="gpu-m-50", created=115, k8s_phase="Error", updated=30 - 6 * S, role="master", completed=30 - 6 * S
    )
    other = s.add_pod(
        node="gpu-m-52",
        created=115,
        k8s_phase="Error",
        updated=30 - 8 * S,
        role="worker",
        index=0,
        completed=30 - 8 * S,
    )
    _fail_message(s, error_message(master.name, 143))
    s.add_kube_pod(first, [cstatus("main", s.image, terminated("Error", 1, 110, 30))], phase="Failed")
    s.add_log(first.name, "step 5100 loss 0.77\n" + CHILD_FAILED)
    s.add_kube_pod(master, [cstatus("main", s.image, terminated("Error", 143, 110, 30 - 6 * S))], phase="Failed")
    s.add_kube_pod(
        other, [cstatus("main", s.image, terminated("Error", 1, 110, 30 - 8 * S, message=RENDEZVOUS))], phase="Failed"
    )
    s.add_node_event(
        30 + 2 * S,
        "gpu-m-51",
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 413 (python) total-vm:88173512kB, anon-rss:66801240kB, "
        "file-rss:70912kB, shmem-rss:0kB, UID:1000 pgtables:130220kB oom_score_adj:-997",
    )
    for plan in (first, master, other):
        s.nodes.append(node(plan.node or ""))
    return (
        [s],
        _req(s),
        diagnosed(
            "OOM_KILLED",
            firstFailure="seq2seq-worker-1",
            evidence=["OOMKilling"],
            noEvidence=["Pod seq2seq-master-0 k8sPhase: OOMKilled"],
        ),
    )


def case_cascade_mpi_launcher() -> Case:
    s = _job(
        "mp-cascade-03",
        "hvd-resnet",
        5,
        mem=("32Gi", "32Gi"),
        phase_at=25,
        extra_spec={"distributedFramework": "MPI", "numWorkers": 4},
    )
    launcher = s.add_pod(node="gpu-m-60", created=110, k8s_phase="Error", updated=25, role="launcher", completed=25)
    _fail_message(s, error_message(launcher.name, 1))
    for i in range(4):
        s.add_pod(
            node=f"gpu-m-6{i + 1}",
            created=110,
            k8s_phase="Running",
            updated=110,
            role="worker",
            index=i,
            deleted=25 - 2 * S,
        )
    s.add_kube_pod(launcher, [cstatus("main", s.image, terminated("Error", 1, 105, 25))], phase="Failed")
    s.add_log(launcher.name, MPIRUN)
    s.nodes.append(node("gpu-m-60"))
    return (
        [s],
        _req(s),
        diagnosed(
            "CRASH_APP_ERROR",
            firstFailure="hvd-resnet-launcher-0",
            evidence=["could not broadcast input array"],
            recommendations=["could not broadcast"],
        ),
    )


# -- 4. every workload kind's spec -----------------------------------------------------------------------------
def case_spec_master_role() -> Case:
    """The master (its own masterSpec: 16Gi) is OOM-killed; the pods report no resources of their own."""
    s = _job(
        "mp-spec-01",
        "detr-train",
        3,
        mem=("64Gi", "64Gi"),
        project="vision",
        spec_top={
            "masterSpecSameAsWorker": False,
            "masterSpec": {
                "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                "command": "torchrun train.py",
                "compute": {"cpuMemoryRequest": "16Gi", "cpuMemoryLimit": "16Gi"},
            },
        },
    )
    master = s.add_pod(
        node="gpu-m-70",
        created=115,
        k8s_phase="OOMKilled",
        updated=30,
        role="master",
        completed=30,
        reports_resources=False,
    )
    for i in range(2):
        s.add_pod(
            node=f"gpu-m-7{i + 1}",
            created=115,
            k8s_phase="Error",
            updated=30 - 4 * S,
            role="worker",
            index=i,
            completed=30 - 4 * S,
            reports_resources=False,
        )
    _fail_message(s, oom_message(master.name))
    s.add_kube_pod(master, [cstatus("main", s.image, terminated("OOMKilled", 137, 110, 30))], phase="Failed")
    s.nodes.append(node("gpu-m-70"))
    s.reports_pod_resources = False
    return (
        [s],
        _req(s),
        diagnosed(
            "OOM_KILLED",
            memory={"limitBytes": 16 * GI, "pod": "detr-train-master-0"},
            evidence=[
                "Submitted CPU memory request/limit (master): 16Gi / 16Gi",
                "Submitted CPU memory request/limit (worker): 64Gi / 64Gi",
            ],
        ),
    )


def case_spec_distributed_inference() -> Case:
    s = Story(
        "mp-spec-02",
        "mixtral-serve",
        "genai",
        "Failed",
        phase_at=15,
        created=300,
        kind="DistributedInference",
        gpu=8,
        requested_pods=2,
        mem=("48Gi", "48Gi"),
        image="vllm/vllm-openai:v0.6.3",
        extra_spec={
            "leader": {
                "image": "vllm/vllm-openai:v0.6.3",
                "command": "vllm serve mixtral",
                "compute": {"cpuMemoryRequest": "80Gi", "cpuMemoryLimit": "80Gi"},
            },
            "worker": {
                "image": "vllm/vllm-openai:v0.6.3",
                "command": "ray start --block",
                "compute": {"cpuMemoryRequest": "48Gi", "cpuMemoryLimit": "48Gi"},
            },
        },
    )
    lifecycle(s, 290, 15, "Failed", "")
    leader = s.add_pod(
        node="gpu-m-80",
        created=295,
        k8s_phase="Error",
        updated=15 - 3 * S,
        role="leader",
        completed=15 - 3 * S,
        reports_resources=False,
    )
    worker = s.add_pod(
        node="gpu-m-81",
        created=295,
        k8s_phase="OOMKilled",
        updated=15,
        role="worker",
        index=1,
        completed=15,
        reports_resources=False,
    )
    _fail_message(s, oom_message(worker.name))
    s.add_kube_pod(worker, [cstatus("main", s.image, terminated("OOMKilled", 137, 290, 15))], phase="Failed")
    s.add_kube_pod(leader, [cstatus("main", s.image, terminated("Error", 143, 290, 15 - 3 * S))], phase="Failed")
    s.nodes += [node("gpu-m-80"), node("gpu-m-81")]
    s.reports_pod_resources = False
    return (
        [s],
        _req(s),
        diagnosed(
            "OOM_KILLED",
            firstFailure="mixtral-serve-worker-1",
            memory={"limitBytes": 48 * GI, "pod": "mixtral-serve-worker-1"},
            paths=[r"^/api/v1/workloads/distributed-inferences/"],
            evidence=["Submitted image (leader): vllm/vllm-openai:v0.6.3", "Submitted command (worker): ray start"],
        ),
    )


def case_spec_v2_mpijob() -> Case:
    s = Story(
        "mp-spec-03",
        "allreduce-bench",
        "research",
        "Failed",
        phase_at=22,
        created=60,
        kind="MPIJob",
        gpu=8,
        requested_pods=3,
        spec_present=False,
    )

    def template(image: str, command: list[str], memory: str) -> Json:
        container = {
            "name": "mpi",
            "image": image,
            "command": command,
            "resources": {"limits": {"memory": memory}, "requests": {"memory": memory}},
        }
        return {"spec": {"containers": [container], "restartPolicy": "OnFailure"}}

    manifest = {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": {"name": s.name},
        "spec": {
            "slotsPerWorker": 8,
            "mpiReplicaSpecs": {
                "Launcher": {
                    "replicas": 1,
                    "template": template(
                        "mpioperator/openmpi:v0.5.0", ["mpirun", "-np", "16", "python", "bench.py"], "4Gi"
                    ),
                },
                "Worker": {
                    "replicas": 2,
                    "template": template("nvcr.io/nvidia/pytorch:24.05-py3", ["/usr/sbin/sshd", "-De"], "128Gi"),
                },
            },
        },
    }
    s.spec_v2 = v2_document(s, manifest)
    lifecycle(s, 58, 22, "Failed", "")
    launcher = s.add_pod(
        node="gpu-m-90", created=59, k8s_phase="Error", updated=22, role="launcher", completed=22, containers=["mpi"]
    )
    for i in range(2):
        s.add_pod(
            node=f"gpu-m-9{i + 1}",
            created=59,
            k8s_phase="Running",
            updated=58,
            role="worker",
            index=i,
            deleted=22 - 2 * S,
            containers=["mpi"],
        )
    _fail_message(s, error_message(launcher.name, 1, "mpi"))
    s.add_kube_pod(
        launcher, [cstatus("mpi", "mpioperator/openmpi:v0.5.0", terminated("Error", 1, 58, 22))], phase="Failed"
    )
    s.add_log(launcher.name, MPIRUN, container="mpi")
    s.nodes.append(node("gpu-m-90"))
    return (
        [s],
        _req(s),
        diagnosed(
            "CRASH_APP_ERROR",
            paths=[r"^/api/v2/workloads/"],
            firstFailure="allreduce-bench-launcher-0",
            evidence=[
                "Submitted through the v2 API as a MPIJob",
                "Submitted image (launcher): mpioperator/openmpi",
                "Submitted CPU memory request/limit (worker): 128Gi / 128Gi",
            ],
        ),
    )


def _revision_case(key: str, name: str, *, covered: bool) -> Case:
    s = Story(key, name, "nlp", "Failed", phase_at=10, created=600, kind="Inference", mem=("8Gi", "8Gi"))
    s.add_phase(s.created, "Pending").add_phase(590, "Running")
    s.add_phase(10, "Failed", f"Revision {name}-00003 failed")
    image = f"registry.example.com/serve/{name}:3.0"
    pull = (
        f'Failed to pull image "{image}": rpc error: code = Unknown desc = failed to pull and unpack image '
        f'"{image}": failed to resolve reference "{image}": pull access denied, repository does not exist or '
        "may require authorization: server message: insufficient_scope: authorization failed"
    )
    pod_name = f"{name}-00003-deployment-5d8b7c9f4-9zq2k"
    pod = revision_pod_json(s, pod_name, 12, 11, "ImagePullBackOff", "gpu-m-95", image)
    event = {
        "createdAt": ts(11),
        "type": "Warning",
        "reason": "Failed",
        "message": pull,
        "source": "kubelet",
        "clusterId": s.cluster,
        "involvedObject": {"uid": pod["id"], "kind": "Pod", "name": pod_name, "namespace": s.ns},
    }
    live = s.add_pod(node="gpu-m-96", created=595, k8s_phase="Running", updated=590, index=0)
    if covered:  # the workload-level feeds list the failing revision's pod and event themselves
        s.events.append(event)
        s.add_pod(node="gpu-m-95", created=12, k8s_phase="ImagePullBackOff", updated=11, index=9)
    revisions = [
        revision_json(s, uid("rev", key, str(n)), f"{name}-{n:05d}", "Failed" if n == 3 else "Running",
                      600 if n == 2 else 12, image if n == 3 else s.image)
        for n in (2, 3)
    ]
    s.inference_revisions = [{"revision": revisions[0]}, {"revision": revisions[1], "pods": [pod], "events": [event]}]
    s.add_kube_pod(live, [cstatus("main", s.image, running(590))], phase="Running")
    s.nodes.append(node("gpu-m-96"))
    expect: Json = diagnosed(
        "IMAGE_PULL_FAILED",
        evidence=["insufficient_scope"],
    )
    if covered:
        expect["noPaths"] = [r"/revisions"]
    else:
        expect["paths"] = [r"/inferences/[^/]+/revisions$", r"/inferences/revisions/[^/]+/(pods|events|history)$"]
        expect["evidence"] = [*expect["evidence"], f"Revision {name}-00003 (Failed"]
    return [s], _req(s), expect


def case_inference_revision_not_covered() -> Case:
    return _revision_case("mp-rev-01", "doc-qa", covered=False)


def case_inference_revision_covered() -> Case:
    return _revision_case("mp-rev-02", "doc-qa2", covered=True)


# -- 5. Degraded -----------------------------------------------------------------------------------------------
def case_degraded_crash_loop() -> Case:
    s = Story(
        "mp-degraded-01",
        "rerank-api",
        "recsys",
        "Degraded",
        phase_at=30,
        created=400,
        kind="Inference",
        requested_pods=3,
        running_pods=2,
        mem=("8Gi", "8Gi"),
    )
    s.add_phase(s.created, "Pending").add_phase(390, "Running").add_phase(30, "Degraded", "2/3 replicas available")
    bad = s.add_pod(node="gpu-m-97", created=395, k8s_phase="CrashLoopBackOff", updated=2, index=2)
    msg = f"Back-off restarting failed container main in pod {bad.name}_{s.ns}({bad.uid})"
    s.add_event(3, "BackOff", msg, pod=bad.name)
    s.add_kube_pod(
        bad,
        [cstatus("main", s.image, waiting("CrashLoopBackOff", msg), last=terminated("Error", 2, 4, 3.5), restarts=9)],
        phase="Running",
    )
    s.add_log(
        bad.name, "usage: serve.py [-h] --model MODEL\nserve.py: error: the following arguments are required: --model\n"
    )
    s.nodes.append(node("gpu-m-97"))
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "evidence": ["CrashLoopBackOff"]}


def case_degraded_without_a_crash() -> Case:
    s = Story(
        "mp-degraded-02",
        "rerank-api2",
        "recsys",
        "Degraded",
        phase_at=30,
        created=400,
        kind="Inference",
        requested_pods=3,
        running_pods=2,
    )
    s.add_phase(s.created, "Pending").add_phase(390, "Running").add_phase(30, "Degraded", "2/3 replicas available")
    return [s], _req(s), {"outcome": "running", "category": None, "recurrence": 0, "noPaths": [r"/pods$"]}


# -- 6. selection by name sees deleted runs --------------------------------------------------------------------
def case_name_picks_a_deleted_past_run() -> Case:
    stories = []
    for n, at in enumerate((2000, 1000, 300)):
        run = Story(f"mp-name-{n}", "lora-sweep", "nlp", "Failed", phase_at=at, created=at + 30, deleted_at=at - 5)
        pod = run.add_pod(node="gpu-m-98", created=at + 29, k8s_phase="Error", updated=at, completed=at, deleted=at - 1)
        lifecycle(run, at + 25, at, "Failed", error_message(pod.name, 1))
        stories.append(run)
    live = Story("mp-name-live", "lora-sweep", "nlp", "Running", phase_at=60, created=65, running_pods=1)
    live.add_phase(live.created, "Pending").add_phase(60, "Running")
    elsewhere = Story("mp-name-other-project", "lora-sweep", "vision", "Failed", phase_at=100, created=130)
    lifecycle(elsewhere, 125, 100, "Failed", "")
    request = {"cluster_id": stories[0].cluster, "name": "lora-sweep", "project": "nlp", "lookback": "2d"}
    return (
        [*stories, live, elsewhere],
        request,
        diagnosed(
            "CRASH_APP_ERROR",
            selected=stories[2].id,
            otherSubmissionsFailed=2,
            queries=[["/api/v1/workloads", "deleted=true"]],
        ),
    )


# -- 7. real-tenant variants -----------------------------------------------------------------------------------
def case_cluster_named_by_name() -> Case:
    s = _oom_job("mp-cl-01", "ranker-ddp3", own_series=True)
    return (
        [s],
        {"cluster_id": "demo-east", "workload_id": s.id},
        {
            "outcome": "diagnosed",
            "category": "OOM_KILLED",
            "notes": ["the cluster was named by its name"],
        },
    )


def case_cluster_unknown() -> Case:
    s = _oom_job("mp-cl-02", "ranker-ddp4", own_series=True)
    return [s], {"cluster_id": "prod-gpu-cluster", "workload_id": s.id}, {"unknownCluster": True}


def case_evict_is_judged_by_its_words_not_its_source() -> Case:
    s = _oom_job("mp-src-01", "ranker-ddp5", own_series=True)
    # A preemption reported under the kubelet's name (a scheduler's events may carry any source).
    s.add_event(
        29.5,
        "Evict",
        f"Pod {s.ns}/{s.pod_name(2, 'worker')} was preempted by higher priority workload runai-prod/serve-pg",
        type_="Normal",
        source="kubelet",
        kind="PodGroup",
        obj_name=f"pg-{s.name}",
    )
    return [s], _req(s), {"outcome": "preempted", "category": None, "recurrence": 0}


# -- 8. smaller wrongs -----------------------------------------------------------------------------------------
def case_exit_143_says_sigterm() -> Case:
    s = Story("mp-143-01", "etl-shard", "research", "Failed", phase_at=40, created=100)
    pod = s.add_pod(node="gpu-m-99", created=99, k8s_phase="Error", updated=40, completed=40)
    lifecycle(s, 95, 40, "Failed", error_message(pod.name, 143))
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "UNKNOWN",
            "recommendations": ["SIGTERM, exit 143"],
            "noRecommendations": ["SIGKILL"],
            "bundle": {"kube": False},
        },
    )


def case_metrics_500_is_a_failed_read() -> Case:
    s = Story("mp-m500-01", "whisper-xl", "speech", "Failed", phase_at=30, created=90, mem=("24Gi", "24Gi"))
    pod = s.add_pod(node="gpu-m-99", created=89, k8s_phase="OOMKilled", updated=30, completed=30)
    lifecycle(s, 85, 30, "Failed", oom_message(pod.name))
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(10 * GI, 25_000_000_000, 84, 30.5))
    fault = {"match": "GET /api/v1/workloads/{id}/metrics", "status": 500, "times": 99}
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "OOM_KILLED",
            "memory": {"peakBytes": None},
            "missing": ["CPU-memory samples: the API answered HTTP 500"],
            "noEvidence": ["No CPU-memory samples"],
            "bundle": {"kube": False, "faults": [fault]},
        },
    )


# -- building and checking -------------------------------------------------------------------------------------
def assert_in_time_order(report: Report) -> None:
    """Every multi-pod report lists its pods in the order of the times recorded for them, at most one first."""
    order = report.termination_order
    times = [e.at for e in order if e.at is not None]
    assert times == sorted(times), [(e.pod, e.at) for e in order]
    assert sum(e.first for e in order) <= 1, order


# Registered by name: the builders of issue 34's repeating bundles live in mp_fold_cases.py.
_FOLDING = (case_fold_nine_pods_exit_one, case_fold_three_workers_oom_no_samples)
CASES: dict[str, Callable[[], Case]] = {
    name[len("case_") :].replace("_", "-"): fn for name, fn in globals().items() if name.startswith("case_")
}


def write_all() -> None:
    write_cases(CASES, CASES_DIR)


def check_multipod(report: Report, requests: list[RecordedRequest], expect: Json) -> None:
    check(report, requests, expect)
    assert_in_time_order(report)
    if "firstFailure" in expect:
        first = [e.pod for e in report.termination_order if e.first]
        assert first == [expect["firstFailure"]], report.termination_order
        assert all(e.consequence for e in report.termination_order if not e.first)
    if "selected" in expect:
        assert report.workload.id == expect["selected"]
    if "otherSubmissionsFailed" in expect:
        others = report.recurrence.other_submissions
        assert others is not None and others.failed == expect["otherSubmissionsFailed"], others
    if "podMetricReads" in expect:
        asked = {r.path for r in requests if re.search(r"/pods/[^/]+/metrics$", r.path)}
        assert len(asked) == expect["podMetricReads"], sorted(asked)
    for path_part, query_part in expect.get("queries", []):
        sent = [r for r in requests if r.path.endswith(path_part) and query_part in {f"{k}={v}" for k, v in r.query}]
        assert sent, f"no {path_part}?{query_part} among {[(r.path, r.query) for r in requests]}"


def test_multipod_bundles_on_disk_match_their_builders() -> None:
    assert_cases_on_disk(CASES_DIR, CASES, lambda name: build_from(CASES[name]), "tests.engine.test_multipod_cases")


@pytest.mark.parametrize("path", sorted(CASES_DIR.glob("*.json")), ids=lambda p: p.stem)
async def test_multipod_case(path: Path) -> None:
    bundle = json.loads(path.read_text(encoding="utf-8"))
    if bundle["expect"].get("unknownCluster"):
        with pytest.raises(UnknownCluster) as info:
            await diagnose_bundle(bundle, **bundle["request"])
        assert "demo-east" in str(info.value) and "demo-west" in str(info.value)
        return
    report, requests = await diagnose_bundle(bundle, **bundle["request"])
    check_multipod(report, requests, bundle["expect"])


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_all()
        print(f"wrote {len(CASES)} bundles to {CASES_DIR}")
