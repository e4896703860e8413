"""Infrastructure findings, one case bundle per kind and per trap (tests/cases/infra/*.json), diagnosed over real
HTTP with the real clients.

The bundles are written by the builders below from the demo kit's `Story`, with the real wording of the NVIDIA
driver, the container toolkit, the device plugin, NCCL, the kubelet and the API server. Each carries an
`expect` block: the rule cases' keys (tests/engine/test_rule_cases.py) plus `findings` (exactly these
`{kind, node, explains}`), `logLine` (a fragment of the cited explaining line) and `nowhere` (words that must
not appear anywhere in the text report). Regenerate with `.venv/bin/python -m tests.engine.test_infra_cases
--write`; the JSON on disk must equal what the builders produce.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.report.render import to_text
from core.sim.demo.kit import DEMO_CLUSTERS, Json, Story, condition, cstatus, node, other_pod, terminated
from tests.engine.test_rule_cases import (
    assert_cases_on_disk,
    bundle_of,
    check,
    diagnose_bundle,
    error_message,
    lifecycle,
    oom_message,
    write_built,
)

INFRA_CASES = Path(__file__).resolve().parents[1] / "cases" / "infra"
Case = tuple[list[Story], Json, Json]
NO_CODE_ADVICE = ["fix the code", "fix the init container"]

ECC_LOG = (
    "[rank0]: step 9300 loss 1.102\n"
    "[rank0]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n"
    "[rank0]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
    "might be incorrect.\n"
    "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call "
    "first):\n"
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f3f0c4b0897 in "
    "/usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)\n"
    "frame #1: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 "
    "(0x7f3f0c588718 in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10_cuda.so)\n"
)
IB_STATUS_12 = (
    "gpu-e-71:412:988 [0] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.42.3.17<44206> with "
    "status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid ::ffff:10.42.7.21 remoteGids::ffff:10.42.3.17"
)


def _req(s: Story, **extra: Any) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id, **extra}


def _crashed(key: str, name: str, log: str, *, code: int = 1, node_name: str = "gpu-e-70") -> Story:
    s = Story(key, name, "nlp", "Failed", phase_at=20, created=80, command="python train.py")
    pod = s.add_pod(node=node_name, created=79, k8s_phase="Error", updated=20, completed=20)
    s.phase_message = error_message(pod.name, code)
    lifecycle(s, 75, 20, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", code, 75, 20))], phase="Failed")
    s.add_log(pod.name, log)
    s.nodes.append(node(node_name))
    return s


# -- gpu-hardware ----------------------------------------------------------------------------------------
def case_gpu_ecc_in_log() -> Case:
    """The issue's own case: an uncorrectable ECC error above a C++ frame dump is not the user's code."""
    s = _crashed("i-ecc", "bert-ecc", ECC_LOG)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "findings": [{"kind": "gpu-hardware", "node": "gpu-e-70", "explains": True}],
        "logLine": "uncorrectable ECC error encountered", "noEvidence": ["frame #0"],
        "recommendations": ["cordon", "gpu-e-70"], "noRecommendations": NO_CODE_ADVICE,
        "nowhere": ["out-of-memory usually"],
    }


def case_node_pods_refused() -> Case:
    """The pods on the node cannot be listed (403): the finding stands, and the gap is said as such."""
    s = _crashed("i-refused", "bert-refused", ECC_LOG, node_name="gpu-e-75")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "findings": [{"kind": "gpu-hardware", "node": "gpu-e-75", "explains": True}],
        "missing": ["other pods on node gpu-e-75", "403"],
        "bundle": {"faults": [{"match": "GET /api/v1/pods", "status": 403, "times": 1}]},
    }


def case_gpu_xid48_node_event() -> Case:
    s = _crashed("i-xid48", "vit-xid", "[rank0]: RuntimeError: CUDA error: unknown error\n", node_name="gpu-e-72")
    s.add_node_event(
        20.2, "gpu-e-72", "XidError",
        "NVRM: Xid (PCI:0000:b1:00): 48, pid=2211, name=python, An uncorrectable double bit error (DBE) has been "
        "detected on GPU in the framebuffer at partition 0, subpartition 0.", component="kernel-monitor",
    )
    s.nodes[-1] = node(
        "gpu-e-72",
        extra_conditions=[condition("GPUXIDErrors", "True", 20.2, "XID48", "Xid 48 reported by the NVIDIA driver")],
    )
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "findings": [{"kind": "gpu-hardware", "node": "gpu-e-72", "explains": True}],
        "paths": [r"^/api/v1/nodes/gpu-e-72$", r"^/api/v1/pods$"], "noRecommendations": NO_CODE_ADVICE,
    }


def case_gpu_condition_only() -> Case:
    """No node event, only the detector's condition: a CUDA error a failing GPU gives sends the diagnosis to the
    node, whose condition names the fault; the pods on it are listed after."""
    s = _crashed("i-cond", "sd-cond", "[rank0]: RuntimeError: CUDA error: unspecified launch failure\n",
                 node_name="gpu-e-84")
    s.nodes[-1] = node("gpu-e-84", extra_conditions=[condition(
        "AcceleratedHardwareReady", "False", 20.3, "NvidiaXID79Error",
        "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")])
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "findings": [{"kind": "gpu-hardware", "node": "gpu-e-84", "explains": True}],
        "paths": [r"^/api/v1/nodes/gpu-e-84$", r"^/api/v1/pods$"], "noRecommendations": NO_CODE_ADVICE,
    }


def case_app_cuda_error_reads_no_node() -> Case:
    """An illegal memory access is the application's: the node is not read for it."""
    s = _crashed("i-illegal", "illegal-access", "RuntimeError: CUDA error: an illegal memory access was encountered\n",
                 node_name="gpu-e-85")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "findings": [],
        "noPaths": [r"^/api/v1/nodes/", r"^/api/v1/pods$"], "recommendations": ["illegal memory access"],
    }


# -- gpu-driver-runtime ----------------------------------------------------------------------------------
def case_driver_mismatch_in_log() -> Case:
    log = "+ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\nNVML library version: 560.35\n"
    s = _crashed("i-nvml", "whisper-nvml", log, code=18, node_name="gpu-e-73")
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "findings": [{"kind": "gpu-driver-runtime", "node": "gpu-e-73", "explains": True}],
        "logLine": "Driver/library version mismatch", "noRecommendations": NO_CODE_ADVICE,
    }


def case_device_plugin_unexpected_admission() -> Case:
    """The kubelet refused the pod: its GPU device plugin had no GPU to give. No container ever ran."""
    s = Story("i-admit-gpu", "llm-serve-gpu", "nlp", "Failed", phase_at=10, created=12, command="python serve.py")
    pod = s.add_pod(node="gpu-e-74", created=11, k8s_phase="UnexpectedAdmissionError", updated=10, completed=10)
    msg = (
        "Pod Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, "
        "Available: 0, which is unexpected"
    )
    lifecycle(s, 11, 10, "Failed", f"Workload failed: pod {pod.name} failed (UnexpectedAdmissionError)")
    s.add_kube_pod(pod, [], phase="Failed", reason="UnexpectedAdmissionError", message=msg)
    s.add_kube_event(10, "UnexpectedAdmissionError", f"Allocate failed due to {msg[25:]}", pod=pod.name)
    s.nodes.append(node("gpu-e-74"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "UNKNOWN",
        "findings": [{"kind": "gpu-driver-runtime", "node": "gpu-e-74", "explains": True}],
        "recommendations": ["device plugin", "gpu-e-74"], "noRecommendations": ["Do not rerun unchanged"],
    }


# -- network-fabric ----------------------------------------------------------------------------------------
def _two_pods(key: str, name: str, first_log: str, victim_log: str, *, victim_inspected: bool) -> Story:
    """Two workers: worker-0 fails first (at 20.5 min ago), worker-1 is torn down after it (20 min ago)."""
    s = Story(key, name, "research", "Failed", phase_at=20, created=90, kind="Distributed", gpu=8, requested_pods=2)
    lifecycle(s, 85, 20, "Failed", "")
    for idx, node_name in enumerate(("gpu-e-71", "gpu-e-76")):
        first = idx == 0
        end = 20.5 if first else 20.0
        # Tier 2 describes the newest failing pod: the victim when `victim_inspected`.
        created = 88.0 if first == victim_inspected else 87.9
        plan = s.add_pod(
            node=node_name, created=created, k8s_phase="Error", updated=end, role="worker", index=idx, completed=end
        )
        code = 1 if first else 143
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", code, 85, end))], phase="Failed")
        s.add_log(plan.name, first_log if first else victim_log)
        s.nodes.append(node(node_name))
    s.phase_message = error_message(s.pod_name(0, "worker"), 1)
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    return s


def case_fabric_first_failure() -> Case:
    first = f"[rank0]: step 10 loss 3.2\n{IB_STATUS_12}\n[rank0]: torch.distributed.DistBackendError: NCCL error\n"
    s = _two_pods("i-ib-first", "moe-ib", first, "[rank8]: waiting\n", victim_inspected=False)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "findings": [{"kind": "network-fabric", "node": "gpu-e-71", "explains": True}],
        "logLine": "status=12", "recommendations": ["InfiniBand"], "noRecommendations": NO_CODE_ADVICE,
    }


def case_fabric_victim_is_not_a_finding() -> Case:
    """The trap: the pod described is a cascade victim; its NCCL timeout and closed socket are not the fabric's."""
    victim = (
        "[rank8]:[E1130 11:39:50.100 ProcessGroupNCCL.cpp:616] [Rank 8] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=5021, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600044 milliseconds\n"
        "gpu-e-76:77:91 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
        "gpu-e-71.ml.internal<55693>\n"
        f"{IB_STATUS_12.replace('gpu-e-71', 'gpu-e-76')}\n"
    )
    s = _two_pods("i-ib-victim", "moe-victim", "[rank0]: KeyError: 'router_logits'\n", victim, victim_inspected=True)
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "findings": []}


# -- node-pressure -------------------------------------------------------------------------------------------
def _evicted(key: str, name: str, message: str, node_name: str, **node_kw: Any) -> Story:
    s = Story(key, name, "speech", "Failed", phase_at=15, created=60, restart_policy="Never")
    pod = s.add_pod(node=node_name, created=59, k8s_phase="Evicted", updated=15, completed=15)
    lifecycle(s, 55, 15, "Failed", f"Workload failed: pod {pod.name} was evicted")
    s.add_event(15.1, "Evicted", message, pod=pod.name)
    s.add_kube_pod(
        pod, [cstatus("main", s.image, terminated("Error", 137, 55, 15))], phase="Failed", reason="Evicted",
        message=message,
    )
    s.nodes.append(node(node_name, **node_kw))
    return s


def case_pid_pressure_eviction() -> Case:
    s = _evicted("i-pid", "dataloader-fork", "The node had condition: [PIDPressure]. ", "gpu-e-77")
    s.nodes[-1] = node("gpu-e-77", extra_conditions=[condition("PIDPressure", "True", 16, "KubeletHasInsufficientPID",
                                                               "kubelet has insufficient PID available")])
    bystander = [cstatus("main", "python:3.11", terminated("Error", 137, 50, 15.2))]
    s.kube_pods.append(
        other_pod("etl-9c1-0", "runai-recsys", "gpu-e-77", bystander, phase="Failed", created=51, reason="Evicted",
                  message="The node had condition: [PIDPressure]. ")
    )
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "NODE_FAILURE",
        "findings": [{"kind": "node-pressure", "node": "gpu-e-77", "explains": True}],
        "recommendations": ["cordon"], "otherPods": ["runai-recsys/etl-9c1-0"],
    }


def case_own_storage_limit_is_not_node_pressure() -> Case:
    """The trap: the pod outgrew its own ephemeral-storage limit; the node was fine."""
    s = _evicted(
        "i-own-limit", "tts-cache", "Pod ephemeral local storage usage exceeds the total limit of containers 10Gi. ",
        "gpu-e-78",
    )
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "NODE_FAILURE", "findings": [],
        "recommendations": ["ephemeral-storage limit"], "noRecommendations": ["administrator"],
    }


# -- admission -----------------------------------------------------------------------------------------------
def _refused(key: str, name: str, phase: str, message: str) -> Story:
    s = Story(key, name, "vision", phase, phase_at=9, created=10, command="python train.py")
    s.add_phase(s.created, "Pending")
    if phase != "Pending":
        s.add_phase(9, phase, "Workload failed: pods could not be created")
    s.add_event(9.5, "FailedCreate", message, source="job-controller", kind="Job", obj_name=name)
    return s


def case_quota_denial_failed() -> Case:
    msg = (
        'Error creating: pods "seg-quota-0-0" is forbidden: exceeded quota: gpu-quota, requested: '
        "requests.nvidia.com/gpu=8, used: requests.nvidia.com/gpu=4, limited: requests.nvidia.com/gpu=8"
    )
    s = _refused("i-quota", "seg-quota", "Failed", msg)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "UNKNOWN",
        "findings": [{"kind": "admission", "node": None, "explains": True}],
        "recommendations": ["gpu-quota", "fits the quota"], "noRecommendations": ["Do not rerun unchanged"],
    }


def case_limit_range_pending() -> Case:
    msg = (
        'Error creating: pods "big-mem-0-0" is forbidden: maximum memory usage per Container is 64Gi, but limit is '
        "256Gi"
    )
    s = _refused("i-limitrange", "big-mem", "Pending", msg)
    return [s], _req(s), {
        "outcome": "pending", "category": None, "recurrence": 0,
        "findings": [{"kind": "admission", "node": None, "explains": True}],
        "reason": ["no pod was ever created", "maximum memory usage per Container is 64Gi"],
        "recommendations": ["LimitRange"],
    }


# -- control-plane -------------------------------------------------------------------------------------------
def case_apiserver_timeout_pending() -> Case:
    s = _refused("i-etcd", "asr-etcd", "Pending", "Error creating: etcdserver: request timed out")
    return [s], _req(s), {
        "outcome": "pending", "category": None,
        "findings": [{"kind": "control-plane", "node": None, "explains": True}],
        "reason": ["etcdserver: request timed out"],
    }


def case_cluster_stale_liveness() -> Case:
    """The cluster still says Connected, but it has not reported for two hours: the view is stale anyway."""
    s = _crashed("i-stale", "stale-crash", "ValueError: bad shard\n", node_name="gpu-e-79")
    clusters = [{**c, "lastLiveness": "2026-11-30T10:00:00Z"} for c in DEMO_CLUSTERS]  # status: Connected
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "findings": [{"kind": "control-plane", "node": None, "explains": False}],
        "recommendations": ["ValueError", "Restore the cluster's connection"],
        "bundle": {"clusters": clusters},
    }


def case_cluster_service_issues() -> Case:
    """The cluster reports ServiceIssues: a finding naming the state and each failing condition's reason and
    message, while the crash itself is diagnosed from its own evidence."""
    s = _crashed("i-service-issues", "issues-crash", "KeyError: 'labels'\n", node_name="gpu-e-81")
    failing = [
        {"type": "ServicesReady", "status": "False", "reason": "ServiceNotReady",
         "message": "runai-scheduler: 0/1 replicas available; metrics-exporter: CrashLoopBackOff",
         "lastTransitionTime": "2026-11-30T11:20:00Z"},
        {"type": "Connected", "status": "True", "reason": "ClusterConnected",
         "message": "the cluster is connected to the control plane", "lastTransitionTime": "2025-03-11T09:25:00Z"},
    ]
    clusters = [
        {**c, "status": {"state": "ServiceIssues", "conditions": failing}} if c["name"] == "demo-east" else c
        for c in DEMO_CLUSTERS
    ]
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "findings": [{"kind": "control-plane", "node": None, "explains": False}],
        "recommendations": ["reports state ServiceIssues", "ServiceNotReady", "0/1 replicas available"],
        "bundle": {"clusters": clusters},
    }


# -- traps ---------------------------------------------------------------------------------------------------
def case_cuda_oom_is_not_hardware() -> Case:
    log = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has 79.1 GiB in total\n"
    s = _crashed("i-cuda-oom", "cuda-oom-trap", log, node_name="gpu-e-80")
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "findings": [],
                          "recommendations": ["GPU memory"]}


def case_killed_is_not_a_node_fault() -> Case:
    s = _crashed("i-killed", "killed-trap", "step 10\n/entrypoint.sh: line 3:    42 Killed    python train.py\n",
                 code=137, node_name="gpu-e-81")
    return [s], _req(s), {"outcome": "diagnosed", "category": "UNKNOWN", "findings": [], "logLine": "Killed"}


def case_application_xid_is_not_hardware() -> Case:
    s = _crashed("i-xid13", "xid13-trap", "RuntimeError: CUDA error: an illegal memory access was encountered\n",
                 node_name="gpu-e-82")
    s.add_node_event(
        20.1, "gpu-e-82", "XidError",
        "NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=python, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): "
        "Out Of Range Address", component="kernel-monitor",
    )
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "findings": [],
                          "recommendations": ["illegal memory access"]}


def case_oom_beside_node_pressure() -> Case:
    """A kubelet OOM kill on a node that was also short of memory: the finding is listed but does not explain it."""
    s = Story("i-oom-press", "oom-press", "nlp", "Failed", phase_at=20, created=80, mem=("16Gi", "16Gi"))
    pod = s.add_pod(node="gpu-e-83", created=79, k8s_phase="OOMKilled", updated=20, completed=20)
    lifecycle(s, 75, 20, "Failed", oom_message(pod.name))
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 75, 20))], phase="Failed")
    s.add_node_event(20.5, "gpu-e-83", "NodeHasInsufficientMemory", "Node gpu-e-83 status is now: "
                     "NodeHasInsufficientMemory", type_="Normal")
    s.nodes.append(node("gpu-e-83", memory_pressure=True))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "OOM_KILLED",
        "findings": [{"kind": "node-pressure", "node": "gpu-e-83", "explains": False}],
        "recommendations": ["limit"],
    }


CASES: dict[str, Callable[[], Case]] = {
    name[len("case_") :].replace("_", "-"): fn for name, fn in globals().items() if name.startswith("case_")
}


def build_case(name: str) -> Json:
    stories, request, expect = CASES[name]()
    options = dict(expect.pop("bundle", {}))
    clusters = options.pop("clusters", None)
    bundle = bundle_of(stories, **options)
    if clusters is not None:
        bundle["clusters"] = clusters
    bundle["request"] = request
    bundle["expect"] = expect
    return bundle


def write_all() -> None:
    write_built(INFRA_CASES, CASES, build_case)


def test_infra_bundles_on_disk_match_their_builders() -> None:
    assert_cases_on_disk(INFRA_CASES, CASES, build_case, "tests.engine.test_infra_cases")


def test_every_finding_kind_has_a_case() -> None:
    kinds = {f["kind"] for name in CASES for f in CASES[name]()[2].get("findings", [])}
    assert kinds == {"gpu-hardware", "gpu-driver-runtime", "network-fabric", "node-pressure", "admission",
                     "control-plane"}


@pytest.mark.parametrize("path", sorted(INFRA_CASES.glob("*.json")), ids=lambda p: p.stem)
async def test_infra_case(path: Path) -> None:
    bundle = json.loads(path.read_text(encoding="utf-8"))
    expect = bundle["expect"]
    report, requests = await diagnose_bundle(bundle, **bundle["request"])
    check(report, requests, {k: v for k, v in expect.items() if k not in {"findings", "logLine", "nowhere",
                                                                          "reason", "otherPods"}})
    found = [{"kind": f.kind, "node": f.node, "explains": f.explains} for f in report.findings]
    assert found == expect["findings"], report.findings
    for f in report.findings:
        assert f.owner == "administrator" and f.text and f.source
    if expect["findings"] and expect["findings"][0]["explains"]:
        assert report.recommendations[0].startswith("For the administrator"), report.recommendations
        # The finding explains it: no advice may say that nothing did.
        assert not any("did not identify the cause" in r for r in report.recommendations), report.recommendations
    assert "a admission" not in (report.reason or ""), report.reason
    if "logLine" in expect:
        lines = [e.text for e in report.evidence if e.signal == "log-line"]
        assert lines and expect["logLine"] in lines[0], lines
    for word in expect.get("reason", []):
        assert word in (report.reason or ""), report.reason
    text = to_text(report)
    for word in expect.get("nowhere", []):
        assert word not in text
    for name in expect.get("otherPods", []):
        others = [f"{p.namespace}/{p.name}" for f in report.findings for p in f.other_pods or ()]
        assert name in others, others


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_all()
        print(f"wrote {len(CASES)} bundles to {INFRA_CASES}")
