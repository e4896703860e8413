"""One case bundle per seed rule (tests/cases/rules/*.json), each diagnosed over real HTTP.

The bundles are written by the builders below from the demo kit's `Story` (real Run:ai and core/v1 shapes,
kubelet / scheduler / containerd wording). Each bundle carries an `expect` block that the test checks: outcome,
category, recurrence, and what the servers must (or must not) have been asked. The JSON on disk must equal
what the builders produce, so the two cannot drift; regenerate with
`.venv/bin/python -m tests.engine.test_rule_cases --write`.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.sim.bundle import parse_bundle
from core.sim.control_plane import RecordedRequest
from core.sim.demo.kit import (
    DEMO_CAPTURED_AT,
    DEMO_CLUSTERS,
    PROJECTS,
    WEST,
    Json,
    Story,
    cstatus,
    flat,
    node,
    project_json,
    terminated,
    waiting,
)
from core.tenant import open_bundle_tenant

RULE_CASES = Path(__file__).resolve().parents[1] / "cases" / "rules"
# Why a bundle of a phase the seed names is off-spec (the bundle's `offSpec`).
SEED_PHASE = "phase '%s', which the seed names and the 2.24 phase enum does not hold"
GI = 1024**3


# -- shared helpers (the other engine test files import these) -------------------------------------------------
def bundle_of(
    stories: list[Story],
    *,
    kube: bool = True,
    forbidden: list[str] | None = None,
    faults: list[Json] | None = None,
    extra_workloads: list[Json] | None = None,
    off_spec: str | None = None,
) -> Json:
    """A case bundle holding `stories`; `kube=False` leaves Tier 2 out entirely. `off_spec` says why the bundle
    holds data a 2.24 control plane does not send (its `offSpec` key; tests/contract leaves it out, and checks
    that it is indeed off-spec)."""
    bundle: Json = {
        "format": "runai-triage/case@1",
        "capturedAt": DEMO_CAPTURED_AT,
        "clusters": DEMO_CLUSTERS,
        "projects": [project_json(PROJECTS[name]) for name in sorted({s.project for s in stories})],
        "workloads": [s.entry() for s in stories] + list(extra_workloads or []),
    }
    if kube:
        nodes: dict[str, Json] = {}
        for s in stories:
            for n in s.nodes:
                nodes.setdefault(n["metadata"]["name"], n)
        bundle["kubernetes"] = {
            "pods": [p for s in stories for p in s.kube_pods],
            "events": sorted((e for s in stories for e in s.kube_events), key=lambda e: e["lastTimestamp"]),
            "nodes": list(nodes.values()),
            "logs": [log for s in stories for log in s.logs],
        }
        if forbidden:
            bundle["kubernetes"]["forbidden"] = forbidden
    if faults:
        bundle["faults"] = faults
    if off_spec:
        bundle["offSpec"] = off_spec
    return bundle


async def diagnose_bundle(bundle: Json, *, timeout: Any = None, **request: Any) -> tuple[Report, list[RecordedRequest]]:
    """Serve `bundle` on loopback, diagnose with the real clients, return the report and every request seen."""
    parsed = parse_bundle(bundle, "inline")
    kwargs: dict[str, Any] = {"label": "rules"}
    if timeout is not None:
        kwargs["timeout"] = timeout
    async with open_bundle_tenant(parsed, **kwargs) as tenant:
        report = await run_to_report(
            DiagnosisRequest(now=tenant.captured_at, **request),
            tenant.runai,
            tenant.kube,
            tier2_unavailable=tenant.kube_unavailable,
        )
        assert tenant.control_plane is not None
        return report, tenant.control_plane.requests


def error_message(pod: str, code: int, container: str = "main") -> str:
    return f"Workload failed: pod {pod} container {container} terminated (Error), exit code {code}"


def oom_message(pod: str, container: str = "main") -> str:
    return f"Workload failed: pod {pod} container {container} terminated (OOMKilled)"


def lifecycle(s: Story, start: float, end: float, final: str, message: str = "") -> None:
    s.add_phase(s.created, "Pending")
    s.add_phase(start, "Running")
    s.add_phase(end, final, message)


TRACEBACK = (
    "epoch 3 step 800 loss 0.41\n"
    "Traceback (most recent call last):\n"
    '  File "/workspace/train.py", line 97, in <module>\n'
    "    cfg = load_config(args.config)\n"
    "FileNotFoundError: [Errno 2] No such file or directory: '/data/configs/base.yaml'\n"
)
CUDA_OOM_LOG = (
    "step 120 loss 2.1\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.11 GiB of which 1.06 GiB is free.\n"
)


def failed_app_exit(key: str, name: str, *, code: int = 1, phase: str = "Failed", log: str = TRACEBACK) -> Story:
    """A Failed training whose main container exited `code`, seen by status, pods and Tier 2."""
    s = Story(key, name, "nlp", phase, phase_at=30, created=90, command="python train.py")
    pod = s.add_pod(node="gpu-e-21", created=89, k8s_phase="Error", updated=30, completed=30)
    s.phase_message = error_message(pod.name, code)
    lifecycle(s, 85, 30, phase, s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", code, 85, 30))], phase="Failed")
    s.add_log(pod.name, log)
    s.nodes.append(node("gpu-e-21"))
    return s


def oom_story(
    key: str, name: str, *, phase: str = "Failed", at: float = 30, mem: tuple[str, str] = ("16Gi", "16Gi")
) -> Story:
    s = Story(key, name, "vision", phase, phase_at=at, created=at + 60, mem=mem, command="python aug.py")
    pod = s.add_pod(node="gpu-e-22", created=at + 59, k8s_phase="OOMKilled", updated=at, completed=at)
    s.phase_message = oom_message(pod.name)
    lifecycle(s, at + 55, at, phase, s.phase_message)
    s.add_event(at + 0.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, at + 55, at))], phase="Failed")
    s.nodes.append(node("gpu-e-22"))
    return s


def pending_story(key: str, name: str, *, created: float = 20) -> Story:
    s = Story(key, name, "speech", "Pending", phase_at=created - 0.2, created=created)
    s.add_phase(s.created, "Pending")
    return s


def not_found_pull(image: str) -> str:
    """containerd's answer for a tag the registry does not have."""
    return (
        f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack image '
        f'"{image}": failed to resolve reference "{image}": {image}: not found'
    )


def evict(s: Story, at: float, message: str) -> None:
    """The Run:ai scheduler's preemption event, on the PodGroup (runai-api.md)."""
    s.add_event(
        at, "Evict", message, type_="Normal", source="runai-scheduler", kind="PodGroup", obj_name=f"pg-{s.name}-0"
    )


# -- the cases ---------------------------------------------------------------------------------------------
Case = tuple[list[Story], Json, Json]  # stories, request, expectations (+ bundle options under "bundle")
NO_TIER1_PAST_STEP1 = [r"/pods$", r"/history$", r"/metrics$", r"/workloads/(trainings|workspaces|inferences)/"]
NO_METRICS = [r"/metrics$"]
NO_NODE = [r"^/api/v1/nodes/"]


def _req(s: Story, **extra: Any) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id, **extra}


def case_failed_app_exit() -> Case:
    s = failed_app_exit("r-failed-exit1", "bert-cls")
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "CRASH_APP_ERROR",
            "recurrence": 1,
            "noPaths": NO_METRICS + NO_NODE,
            "paths": [r"/log$"],
            "evidence": ["FileNotFoundError"],
            "recommendations": ["FileNotFoundError"],
        },
    )


def case_crashed_phase() -> Case:
    s = oom_story("r-crashed", "seg-crashed", phase="Crashed")
    expect = {"outcome": "diagnosed", "category": "OOM_KILLED", "paths": [r"/metrics$"]}
    return [s], _req(s), {**expect, "bundle": {"off_spec": SEED_PHASE % "Crashed"}}


def case_stopped_manual() -> Case:
    s = Story("r-stopped-manual", "sweep-12", "nlp", "Stopped", phase_at=50, created=200, desired_phase="Stopped")
    pod = s.add_pod(node="gpu-e-23", created=199, k8s_phase="Succeeded", updated=50, completed=50)
    s.add_phase(s.created, "Pending")
    s.add_phase(195, "Running")
    s.add_event(
        51,
        "Stopping",
        "Workload stop requested by bob@example.com",
        type_="Normal",
        source="runai",
        kind="Workload",
        obj_name=s.name,
    )
    s.add_phase(50.5, "Stopping")
    s.add_phase(50, "Stopped")
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 143, 195, 50))], phase="Failed")
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "SCHEDULING_POLICY_TERMINATED", "recommendations": ["manual stop"]},
    )


def case_stopped_preempted() -> Case:
    s = Story("r-stopped-preempted", "asr-small", "speech", "Stopped", phase_at=10, created=120)
    s.add_phase(s.created, "Pending")
    s.add_phase(115, "Running")
    evict(s, 10.5, f"Pod {s.ns}/{s.pod_name()} was preempted by higher priority workload runai-genai/pg-vllm-0")
    s.add_phase(10, "Stopped")
    return [s], _req(s), {"outcome": "preempted", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_preempted_reclaim() -> Case:
    s = Story("r-preempt-reclaim", "vit-b16", "vision", "Pending", phase_at=5, created=300)
    s.add_phase(s.created, "Pending")
    s.add_phase(295, "Running")
    evict(s, 5.2, f"Pod {s.ns}/{s.pod_name()} was preempted by workload runai-nlp/pg-llama-0.")
    s.add_phase(5, "Pending", "Waiting for resources")
    return [s], _req(s), {"outcome": "preempted", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_preempted_consolidation() -> Case:
    s = Story("r-preempt-consol", "bench-pack", "vision", "Failed", phase_at=5, created=90)
    s.add_phase(s.created, "Pending")
    s.add_phase(85, "Running")
    evict(
        s,
        5.1,
        f"Pod {s.ns}/{s.pod_name()} was preempted and rescheduled due to bin packing (resource consolidation) "
        "procedure",
    )
    s.add_phase(5, "Failed", "Workload failed: pod terminated (Error), exit code 143")
    return [s], _req(s), {"outcome": "preempted", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_preempted_evict_reason() -> Case:
    s = Story("r-preempt-evict", "gpt-mini", "nlp", "Failed", phase_at=8, created=100)
    s.add_phase(s.created, "Pending")
    s.add_phase(95, "Running")
    # Reason Evict from the scheduler, with wording that names neither preemption nor reclaim.
    evict(s, 8.2, f"Evicting pod {s.ns}/{s.pod_name()} to free resources for pod group runai-nlp/pg-urgent-0")
    s.add_phase(8, "Failed", "Workload failed: pod terminated (Error), exit code 137")
    return [s], _req(s), {"outcome": "preempted", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_not_preempted_preemptible_text() -> Case:
    s = oom_story("r-preemptible-text", "yolo-large")
    s.preemptible = True
    s.add_event(
        89,
        "Submitted",
        "Workload yolo-large submitted with priority train, preemptible: true",
        type_="Normal",
        source="runai",
        kind="Workload",
        obj_name=s.name,
    )
    return [s], _req(s, lookback="7d"), {"outcome": "diagnosed", "category": "OOM_KILLED"}


def case_not_preempted_nonpreemptible_over_quota() -> Case:
    s = pending_story("r-nonpreempt-quota", "big-batch")
    s.preemptible = False
    s.phase_reason = "NonPreemptibleOverQuota"
    s.phase_message = "Non-preemptible workload is over quota"
    s.pending_messages = [
        {
            "nodePool": "default",
            "phaseReason": "NonPreemptibleOverQuota",
            "reason": "NonPreemptibleOverQuota",
            "userMessage": "Non-preemptible workload is over quota: requested 8 GPUs, deserved 4",
        }
    ]
    return [s], _req(s), {"outcome": "pending", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_completed() -> Case:
    s = Story("r-completed", "nightly-eval", "nlp", "Completed", phase_at=30, created=100, completed_at=30)
    lifecycle(s, 95, 30, "Completed")
    return [s], _req(s), {"outcome": "succeeded", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_succeeded() -> Case:
    s = Story("r-succeeded", "nightly-eval-2", "nlp", "Succeeded", phase_at=30, created=100, completed_at=30)
    lifecycle(s, 95, 30, "Succeeded")
    expect = {"outcome": "succeeded", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}
    return [s], _req(s), {**expect, "bundle": {"off_spec": SEED_PHASE % "Succeeded"}}


def _pull(s: Story, message: str) -> None:
    image = s.image
    s.add_event(19, "Pulling", f'Pulling image "{image}"', type_="Normal", pod=s.pod_name())
    s.add_event(18.9, "Failed", message, pod=s.pod_name())
    s.add_event(18.8, "Failed", "Error: ErrImagePull", pod=s.pod_name())
    s.add_event(18.5, "BackOff", f'Back-off pulling image "{image}"', type_="Normal", pod=s.pod_name())
    s.add_event(18.4, "Failed", "Error: ImagePullBackOff", pod=s.pod_name())


def case_pending_image_not_found() -> Case:
    s = pending_story("r-pull-notfound", "llm-eval")
    s.image = "nvcr.io/nvidia/pytorch:24.13-py3"
    s.add_pod(node="gpu-e-24", created=19.5, k8s_phase="Pending", updated=19)
    _pull(
        s,
        f'Failed to pull image "{s.image}": rpc error: code = NotFound desc = failed to pull and unpack image '
        f'"{s.image}": failed to resolve reference "{s.image}": {s.image}: not found',
    )
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "IMAGE_PULL_FAILED",
            "recommendations": ["tag"],
            "noRecommendations": ["pull secret", "DNS"],
        },
    )


def case_pending_image_auth() -> Case:
    s = pending_story("r-pull-auth", "llm-private")
    s.image = "registry.example.com/ml/private-trainer:1.4"
    s.add_pod(node="gpu-e-24", created=19.5, k8s_phase="Pending", updated=19)
    _pull(
        s,
        f'Failed to pull image "{s.image}": rpc error: code = Unknown desc = failed to pull and unpack image '
        f'"{s.image}": failed to resolve reference "{s.image}": failed to authorize: failed to fetch oauth '
        "token: unexpected status from GET request to https://registry.example.com/token: 401 Unauthorized",
    )
    return [s], _req(s), {"outcome": "diagnosed", "category": "IMAGE_PULL_FAILED", "recommendations": ["pull secret"]}


def case_pending_image_dns() -> Case:
    s = pending_story("r-pull-dns", "llm-dns")
    s.image = "registry.internal.example:5000/ml/trainer:2.0"
    s.add_pod(node="gpu-e-24", created=19.5, k8s_phase="Pending", updated=19)
    _pull(
        s,
        f'Failed to pull image "{s.image}": rpc error: code = Unknown desc = failed to pull and unpack image '
        f'"{s.image}": failed to resolve reference "{s.image}": failed to do request: Head '
        '"https://registry.internal.example:5000/v2/ml/trainer/manifests/2.0": dial tcp: lookup '
        "registry.internal.example on 10.96.0.10:53: no such host",
    )
    return [s], _req(s), {"outcome": "diagnosed", "category": "IMAGE_PULL_FAILED", "recommendations": ["DNS"]}


def case_pending_image_rate_limit() -> Case:
    s = pending_story("r-pull-rate", "llm-hub")
    s.image = "docker.io/library/python:3.12"
    s.add_pod(node="gpu-e-24", created=19.5, k8s_phase="Pending", updated=19)
    _pull(
        s,
        f'Failed to pull image "{s.image}": rpc error: code = Unknown desc = failed to pull and unpack image '
        f'"{s.image}": failed to copy: httpReadSeeker: failed open: unexpected status code '
        "https://registry-1.docker.io/v2/library/python/manifests/sha256:1f2e: 429 Too Many Requests - Server "
        "message: toomanyrequests: You have reached your pull rate limit. You may increase the limit by "
        "authenticating and upgrading: https://www.docker.com/increase-rate-limit",
    )
    return [s], _req(s), {"outcome": "diagnosed", "category": "IMAGE_PULL_FAILED", "recommendations": ["rate"]}


def case_pending_failed_mount() -> Case:
    s = pending_story("r-mount-pvc", "imagenet-train")
    pod = s.add_pod(node="gpu-e-25", created=19.5, k8s_phase="Pending", updated=19)
    s.add_event(
        18,
        "FailedMount",
        'MountVolume.SetUp failed for volume "data" : persistentvolumeclaim "ds-imagenet" not found',
        pod=pod.name,
    )
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "DATASOURCE_MOUNT_FAILED", "recommendations": ["ds-imagenet"]},
    )


def case_pending_init_error() -> Case:
    s = pending_story("r-init-error", "fetch-then-train")
    pod = s.add_pod(node="gpu-e-26", created=19.5, k8s_phase="Init:CrashLoopBackOff", updated=2)
    s.add_event(
        3,
        "BackOff",
        f"Back-off restarting failed container fetch-data in pod {pod.name}_{s.ns}({s.pod_uid(pod.name)})",
        pod=pod.name,
    )
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, waiting("PodInitializing"))],
        phase="Pending",
        init_containers=["fetch-data"],
        init_statuses=[
            cstatus(
                "fetch-data",
                "docker.io/amazon/aws-cli:2.17.0",
                waiting("CrashLoopBackOff", "back-off 5m0s restarting failed container=fetch-data"),
                terminated("Error", 1, 4, 3.9),
                restarts=5,
            )
        ],
    )
    s.add_log(
        pod.name,
        "download failed: s3://datasets/imagenet/train.tar to /data/train.tar An error occurred (403) when "
        "calling the GetObject operation: Forbidden\n",
        container="fetch-data",
        previous=True,
    )
    s.nodes.append(node("gpu-e-26"))
    return [s], _req(s), {"outcome": "diagnosed", "category": "INIT_FAILED", "noPaths": NO_METRICS + NO_NODE}


def case_pending_start_error() -> Case:
    s = pending_story("r-start-error", "typo-entry")
    pod = s.add_pod(node="gpu-e-27", created=19.5, k8s_phase="Pending", updated=18)
    s.add_event(
        18,
        "Failed",
        "Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc "
        'create failed: unable to start container process: exec: "pythn": executable file not found in $PATH: '
        "unknown",
        pod=pod.name,
    )
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR"}


def case_pending_scheduling_only() -> Case:
    s = pending_story("r-pending-sched", "wait-gpus")
    s.add_event(
        19,
        "FailedScheduling",
        "0/8 nodes are available: 8 Insufficient nvidia.com/gpu. preemption: 0/8 nodes are available: 8 No "
        "preemption victims found for incoming pod.",
        source="kai-scheduler",
        pod=s.pod_name(),
    )
    return [s], _req(s), {"outcome": "pending", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_suspended() -> Case:
    s = Story("r-suspended", "paused-nb", "nlp", "Suspended", phase_at=60, created=600, kind="Workspace")
    expect = {"outcome": "suspended", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}
    return [s], _req(s), {**expect, "bundle": {"off_spec": SEED_PHASE % "Suspended"}}


def case_running_crashloop() -> Case:
    s = Story("r-running-crashloop", "api-worker", "nlp", "Running", phase_at=40, created=45, running_pods=1)
    pod = s.add_pod(node="gpu-e-28", created=44, k8s_phase="CrashLoopBackOff", updated=1)
    s.add_phase(s.created, "Pending")
    s.add_phase(40, "Running")
    s.add_event(
        2,
        "BackOff",
        f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({s.pod_uid(pod.name)})",
        pod=pod.name,
    )
    s.add_kube_pod(
        pod,
        [
            cstatus(
                "main",
                s.image,
                waiting("CrashLoopBackOff", "back-off 5m0s restarting failed container=main"),
                terminated("Error", 2, 3, 2.9),
                restarts=7,
            )
        ],
        phase="Running",
    )
    s.add_log(
        pod.name,
        "usage: serve.py [-h] --model MODEL\nserve.py: error: the following arguments are required: --model\n",
        previous=True,
    )
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR"}


def case_running_healthy() -> Case:
    s = Story("r-running-ok", "long-train", "nlp", "Running", phase_at=100, created=110, running_pods=1)
    s.add_pod(node="gpu-e-29", created=109, k8s_phase="Running", updated=100)
    s.add_phase(s.created, "Pending")
    s.add_phase(100, "Running")
    s.add_event(101, "Started", "Started container main", type_="Normal", pod=s.pod_name())
    return [s], _req(s), {"outcome": "running", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def _not_terminal(key: str, phase: str) -> Case:
    s = Story(key, f"nt-{phase.lower()}", "nlp", phase, phase_at=3, created=5)
    return [s], _req(s), {"outcome": "not-terminal", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_initializing() -> Case:
    return _not_terminal("r-initializing", "Initializing")


def case_degraded() -> Case:
    # Degraded is Running's kind (runai-api.md): with no confirmed crash it is routed out the way Running is.
    s = Story("r-degraded", "nt-degraded", "nlp", "Degraded", phase_at=3, created=5)
    return [s], _req(s), {"outcome": "running", "category": None, "recurrence": 0, "noPaths": NO_TIER1_PAST_STEP1}


def case_unknown_phase_string() -> Case:
    stories, request, expect = _not_terminal("r-odd-phase", "Hibernating")
    off_spec = "phase 'Hibernating' is in no phase enum: how a reader meets a phase it does not know"
    return stories, request, {**expect, "bundle": {"off_spec": off_spec}}


def case_events_null() -> Case:
    s = oom_story("r-events-null", "dl-null")
    s.events_null = True
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "OOM_KILLED",
            "missing": ["workload events", "not proof"],
            "noEvidence": ["no events"],
        },
    )


def case_events_null_pending_start_failure() -> Case:
    """Pending, events unavailable: history shows the pull failing, so the workload stays in scope."""
    s = pending_story("r-events-null-pending", "pull-null")
    s.image = "nvcr.io/nvidia/pytorch:99.99-py3"
    s.add_pod(node="gpu-e-24", created=19.5, k8s_phase="Pending", updated=19)
    _pull(
        s,
        not_found_pull(s.image),
    )
    s.events_null = True
    return [s], _req(s), {"outcome": "diagnosed", "category": "IMAGE_PULL_FAILED", "missing": ["not proof"]}


def case_cluster_mismatch() -> Case:
    s = oom_story("r-cluster-mismatch", "wrong-cluster")
    return (
        [s],
        {"cluster_id": WEST, "workload_id": s.id},
        {
            "outcome": "cluster-mismatch",
            "category": None,
            "recurrence": 0,
            "onlyPaths": [
                rf"^/api/v1/workloads/{s.id}$",
                rf"^/api/v1/workloads/{s.id}/events$",
                r"^/api/v[12]/token$",
                r"^/api/v1/clusters$",  # the cluster asked about (and its own status) is read beside the workload
            ],
        },
    )


def case_not_found_id() -> Case:
    s = oom_story("r-nf-other", "someone-else")
    return (
        [s],
        {"cluster_id": s.cluster, "workload_id": "3f0c9a7e-0000-4000-8000-000000000000"},
        {
            "outcome": "not-found",
            "category": None,
            "recurrence": 0,
            "noPaths": NO_TIER1_PAST_STEP1,
        },
    )


def case_not_found_name() -> Case:
    s = oom_story("r-nf-name", "present-job")
    return (
        [s],
        {"cluster_id": s.cluster, "name": "absent-job", "project": "vision"},
        {
            "outcome": "not-found",
            "category": None,
            "recurrence": 0,
            "paths": [r"^/api/v1/workloads$"],
        },
    )


# -- conflicts (rules.py documents the order) -------------------------------------------------------------
def case_conflict_oom_and_exit1() -> Case:
    s = oom_story("r-c-oom-exit1", "oom-exit1")
    s.phase_message = error_message(s.pod_name(), 1)
    s.history = [r for r in s.history if r["meta"]["type"] == "Event"]
    lifecycle(s, 85, 30, "Failed", s.phase_message)
    s.kube_pods[0]["status"]["containerStatuses"] = [cstatus("main", s.image, terminated("Error", 1, 85, 30))]
    return [s], _req(s), {"outcome": "diagnosed", "category": "OOM_KILLED"}


def case_conflict_pull_and_mount() -> Case:
    s = pending_story("r-c-pull-mount", "pull-mount")
    s.image = "nvcr.io/nvidia/pytorch:24.13-py3"
    pod = s.add_pod(node="gpu-e-24", created=19.5, k8s_phase="Pending", updated=19)
    s.add_event(
        19.2, "FailedMount", 'MountVolume.SetUp failed for volume "creds" : secret "s3-creds" not found', pod=pod.name
    )
    _pull(
        s,
        not_found_pull(s.image),
    )
    return [s], _req(s), {"outcome": "diagnosed", "category": "IMAGE_PULL_FAILED"}


def case_conflict_init_and_app_exit() -> Case:
    # Both current: the main container's exit, then its sandbox re-made and the init container failing on the
    # re-run (after the main container had started: nothing later took the init failure back).
    s = failed_app_exit("r-c-init-app", "init-app", code=1)
    s.kube_pods[0]["spec"]["initContainers"] = [{"name": "prep", "image": "busybox:1.36", "resources": {}}]
    s.kube_pods[0]["status"]["initContainerStatuses"] = [
        cstatus("prep", "busybox:1.36", terminated("Error", 3, 30.6, 30.5))
    ]
    return [s], _req(s), {"outcome": "diagnosed", "category": "INIT_FAILED"}


def case_conflict_exit1_and_node_notready() -> Case:
    s = failed_app_exit("r-c-exit1-node", "exit1-node", code=1)
    s.add_event(31, "NodeNotReady", "Node is not ready", pod=s.pod_name())
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR"}


def case_conflict_137_and_liveness() -> Case:
    s = failed_app_exit("r-c-137-liveness", "probe-kill", code=137, log="serving on :8000\n")
    pod = s.pod_name()
    s.add_event(
        31.5,
        "Unhealthy",
        'Liveness probe failed: Get "http://10.244.3.9:8000/healthz": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)",
        pod=pod,
    )
    s.add_event(31, "Killing", "Container main failed liveness probe, will be restarted", type_="Normal", pod=pod)
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "noPaths": NO_METRICS, "recommendations": ["liveness"]},
    )


def case_conflict_137_and_node_notready() -> Case:
    s = failed_app_exit("r-c-137-node", "kill-node", code=137, log="step 10\n")
    pod = s.pod_name()
    s.restart_policy = "OnFailure"
    s.add_event(31, "NodeNotReady", "Node is not ready", pod=pod)
    s.nodes[:] = [node("gpu-e-21", ready="Unknown", ready_since=31)]
    s.add_node_event(31, "gpu-e-21", "NodeNotReady", "Node gpu-e-21 status is now: NodeNotReady", type_="Normal")
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "NODE_FAILURE",
            "paths": [r"^/api/v1/nodes/gpu-e-21$"],
            "recommendations": ["OnFailure"],
        },
    )


def case_137_alone() -> Case:
    s = failed_app_exit("r-137-alone", "kill-alone", code=137, log="step 10\nstep 20\n")
    s.add_series("CPU_MEMORY_USAGE_BYTES", flat(6 * GI, 85, 30.5))
    return [s], _req(s), {"outcome": "diagnosed", "category": "UNKNOWN", "paths": [r"/metrics$"], "noPaths": NO_NODE}


def case_gpu_oom_exit1() -> Case:
    s = failed_app_exit("r-gpu-oom", "cuda-oom", code=1, log=CUDA_OOM_LOG)
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "notes": ["GPU"], "noPaths": NO_METRICS},
    )


def case_eviction_memory_pressure() -> Case:
    s = Story("r-evicted", "feature-etl", "recsys", "Failed", phase_at=15, created=80, restart_policy="Never")
    pod = s.add_pod(node="cpu-w-03", created=79, k8s_phase="Failed", updated=15, completed=15)
    msg = (
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 91Mi. Container main was "
        "using 14Gi, request is 4Gi, has larger consumption of memory."
    )
    s.phase_message = f"Workload failed: pod {pod.name} was evicted"
    lifecycle(s, 75, 15, "Failed", s.phase_message)
    s.add_event(15.1, "Evicted", msg, pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, terminated("ContainerStatusUnknown", 137, 75, 15))],
        phase="Failed",
        reason="Evicted",
        message=msg,
    )
    s.nodes.append(node("cpu-w-03", memory_pressure=True))
    return [s], _req(s), {"outcome": "diagnosed", "category": "NODE_FAILURE", "recommendations": ["Resubmit"]}


def _policy_story(key: str, name: str, message: str) -> Case:
    s = Story(key, name, "research", "Stopped", phase_at=40, created=400, kind="Workspace")
    s.add_pod(node="gpu-e-30", created=399, k8s_phase="Succeeded", updated=40, completed=40)
    lifecycle(s, 395, 40, "Stopped", message)
    return [s], _req(s), {"outcome": "diagnosed", "category": "SCHEDULING_POLICY_TERMINATED"}


def case_policy_idle() -> Case:
    return _policy_story(
        "r-policy-idle", "nb-idle", "Workload stopped: GPU idle time limit of 2h reached (project scheduling rule)"
    )


def case_policy_max_duration() -> Case:
    return _policy_story(
        "r-policy-duration",
        "nb-duration",
        "Workload stopped: exceeded the maximum duration limit of 8h set by a scheduling rule",
    )


# -- Step 2 --------------------------------------------------------------------------------------------
def case_spec_missing() -> Case:
    s = oom_story("r-spec-missing", "no-spec")
    s.spec_present = False
    return [s], _req(s), {"outcome": "diagnosed", "category": "OOM_KILLED", "missing": ["kind-specific spec", "404"]}


def case_config_alone_tiny_limit() -> Case:
    s = failed_app_exit("r-tiny-limit", "tiny-limit", code=1)
    s.mem = ("64Mi", "64Mi")
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "noPaths": NO_METRICS}


def case_config_alone_no_runtime_signal() -> Case:
    s = Story("r-tiny-limit-nosig", "tiny-nosig", "nlp", "Failed", phase_at=30, created=90, mem=("64Mi", "64Mi"))
    s.args = "--batch-size 4096 --cache-in-ram"
    lifecycle(s, 85, 30, "Failed")
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "UNKNOWN", "noPaths": NO_METRICS, "bundle": {"kube": False}},
    )


def case_pods_empty() -> Case:
    s = Story("r-no-pods", "gone-pods", "nlp", "Failed", phase_at=30, created=90)
    s.phase_message = error_message("gone-pods-0-0", 2)
    lifecycle(s, 85, 30, "Failed", s.phase_message)
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "missing": ["pods"], "bundle": {"kube": False}},
    )


def case_malformed_quantity() -> Case:
    s = oom_story("r-bad-qty", "bad-qty", mem=("24Gx", "24Gx"))
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "OOM_KILLED",
            "missing": ["24Gx"],
            "memory": {"limitBytes": None, "requestBytes": None},
            "bundle": {"off_spec": "memory quantity '24Gx', which the API's quantity pattern refuses"},
        },
    )


# -- Tier 2 ----------------------------------------------------------------------------------------------
def case_tier2_forbidden() -> Case:
    s = failed_app_exit("r-t2-forbidden", "rbac-denied", code=137)
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "UNKNOWN",
            "missing": ["RBAC", "403"],
            "paths": [r"/metrics$"],
            "bundle": {"forbidden": ["pods", "pods/log", "events", "nodes"]},
        },
    )


def case_tier2_absent_137() -> Case:
    s = failed_app_exit("r-t2-absent", "no-kube", code=137)
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "UNKNOWN", "missing": ["Tier 2"], "bundle": {"kube": False}},
    )


def case_tier2_absent_nothing() -> Case:
    s = Story("r-t2-absent-nothing", "bare-fail", "nlp", "Failed", phase_at=30, created=90)
    s.add_pod(node="gpu-e-31", created=89, k8s_phase="Error", updated=30, completed=30)
    lifecycle(s, 85, 30, "Failed")
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "UNKNOWN", "noPaths": NO_METRICS, "bundle": {"kube": False}},
    )


# -- recurrence -------------------------------------------------------------------------------------------
def case_recurrence_backoff_dedup() -> Case:
    """One start failure: phase updates, the pull events, and 40 repeated back-off events = 1 occurrence."""
    s = pending_story("r-rec-backoff", "pull-loop", created=60)
    s.image = "nvcr.io/nvidia/pytorch:24.13-py3"
    s.add_pod(node="gpu-e-24", created=59.5, k8s_phase="Pending", updated=1)
    msg = not_found_pull(s.image)
    s.add_event(58, "Failed", msg, pod=s.pod_name())
    for i in range(40):
        s.add_event(
            57 - i * 1.3,
            "BackOff",
            f'Back-off pulling image "{s.image}"',
            type_="Normal",
            pod=s.pod_name(),
            in_events=i > 35,
        )
    return [s], _req(s), {"outcome": "diagnosed", "category": "IMAGE_PULL_FAILED", "recurrence": 1}


def _earlier_oom(s: Story, end: float) -> None:
    pod = f"{s.name}-0-0"
    s.add_phase(end + 50, "Pending")
    s.add_phase(end + 45, "Running")
    s.add_event(end + 0.1, "OOMKilled", "Container main was OOM killed", pod=pod, in_events=False)
    s.add_phase(end, "Failed", oom_message(pod))


def case_recurrence_three_ooms_in_7d() -> Case:
    s = oom_story("r-rec-oom3", "oom-thrice")
    _earlier_oom(s, 2 * 1440)
    _earlier_oom(s, 5 * 1440)
    _earlier_oom(s, 9 * 1440)  # outside the 7 d lookback
    # An earlier failure of another category is not counted.
    s.add_phase(3 * 1440 + 50, "Running")
    s.add_phase(3 * 1440, "Failed", error_message(s.pod_name(), 1))
    s.created = 9 * 1440 + 60
    return (
        [s],
        _req(s, lookback="7d"),
        {"outcome": "diagnosed", "category": "OOM_KILLED", "recurrence": 3, "recommendations": ["3 times"]},
    )


def case_recurrence_outside_lookback() -> Case:
    s = oom_story("r-rec-outside", "oom-old")
    _earlier_oom(s, 2 * 1440)
    s.created = 2 * 1440 + 60
    return [s], _req(s), {"outcome": "diagnosed", "category": "OOM_KILLED", "recurrence": 1}


# -- a failure older than the lookback: its own evidence is still read ------------------------------------
def case_failure_older_than_lookback() -> Case:
    s = oom_story("r-old-failure", "old-oom", at=3 * 1440)
    s.add_series("CPU_MEMORY_USAGE_BYTES", flat(15 * GI, 3 * 1440 + 55, 3 * 1440 + 1))
    s.kube_pods.clear()
    return (
        [s],
        _req(s),
        {
            "outcome": "diagnosed",
            "category": "OOM_KILLED",
            "recurrence": 0,
            "paths": [r"/metrics$"],
            "memory": {"peakBytes": 15 * GI, "limitBytes": 16 * GI},
            "notes": ["older than the 24h lookback"],
        },
    )


def case_failure_older_than_lookback_history_only() -> Case:
    """Events expired and the phase message is empty: only the history explains the 2-day-old failure."""
    s = Story("r-old-history", "old-hist", "nlp", "Failed", phase_at=2 * 1440, created=2 * 1440 + 60)
    s.add_phase(s.created, "Pending")
    s.add_phase(2 * 1440 + 55, "Running")
    s.add_event(2 * 1440 + 0.2, "OOMKilled", "Container main was OOM killed", pod=s.pod_name(), in_events=False)
    s.add_phase(2 * 1440, "Failed", "")
    return [s], _req(s), {"outcome": "diagnosed", "category": "OOM_KILLED", "bundle": {"kube": False}}


CASES: dict[str, Callable[[], Case]] = {
    name[len("case_") :].replace("_", "-"): fn for name, fn in globals().items() if name.startswith("case_")
}


def build_from(make: Callable[[], Case]) -> Json:
    """A case builder's bundle, with its request and its `expect` block (bundle options taken out of it)."""
    stories, request, expect = make()
    options = expect.pop("bundle", {})
    bundle = bundle_of(stories, **options)
    bundle["request"] = request
    bundle["expect"] = expect
    return bundle


def build_case(name: str) -> Json:
    return build_from(CASES[name])


def dump_case(bundle: Json) -> str:
    return json.dumps(bundle, indent=1, sort_keys=True) + "\n"


_dump = dump_case


def write_built(directory: Path, names: Iterable[str], build: Callable[[str], Json]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name in names:
        (directory / f"{name}.json").write_text(dump_case(build(name)), encoding="utf-8")


def write_cases(cases: dict[str, Callable[[], Case]], directory: Path) -> None:
    write_built(directory, cases, lambda name: build_from(cases[name]))


def write_all() -> None:
    write_cases(CASES, RULE_CASES)


def assert_cases_on_disk(directory: Path, names: Iterable[str], build: Callable[[str], Json], module: str) -> None:
    """The corpus in `directory` is exactly what the builders make (`module` rewrites it with `--write`)."""
    names = sorted(names)
    on_disk = sorted(p.stem for p in directory.glob("*.json"))
    assert on_disk == names, f"run: .venv/bin/python -m {module} --write"
    for name in names:
        assert (directory / f"{name}.json").read_text(encoding="utf-8") == dump_case(build(name)), name


# -- the tests ------------------------------------------------------------------------------------------
def _texts(items: list[Any], attr: str) -> str:
    return "\n".join(getattr(i, attr) for i in items)


def check(report: Report, requests: list[RecordedRequest], expect: Json) -> None:
    assert (report.outcome, report.category) == (expect["outcome"], expect["category"]), report.reason
    if "recurrence" in expect:
        assert report.recurrence.count == expect["recurrence"], report.recurrence
    paths = [r.path for r in requests]
    for pattern in expect.get("paths", []):
        assert any(re.search(pattern, p) for p in paths), f"no request matched {pattern}: {paths}"
    for pattern in expect.get("noPaths", []):
        hits = [p for p in paths if re.search(pattern, p)]
        assert not hits, f"unexpected requests {hits}"
    if "onlyPaths" in expect:
        stray = [p for p in paths if not any(re.search(pat, p) for pat in expect["onlyPaths"])]
        assert not stray, f"reads after the stop: {stray}"
    evidence = _texts(report.evidence, "text")
    missing = "\n".join(f"{m.what}: {m.why}" for m in report.missing)
    advice = "\n".join(report.recommendations)
    notes = "\n".join(report.notes)
    for word in expect.get("evidence", []):
        assert word.lower() in evidence.lower(), evidence
    for word in expect.get("noEvidence", []):
        assert word.lower() not in evidence.lower(), evidence
    for word in expect.get("missing", []):
        assert word.lower() in missing.lower(), missing
    for word in expect.get("recommendations", []):
        assert word.lower() in advice.lower(), advice
    for word in expect.get("noRecommendations", []):
        assert word.lower() not in advice.lower(), advice
    for word in expect.get("notes", []):
        assert word.lower() in notes.lower(), notes
    if "memory" in expect:
        assert report.memory is not None
        dumped = report.memory.model_dump(by_alias=True)
        for key, value in expect["memory"].items():
            assert dumped[key] == value, dumped
    # Every report: sources from the report-format list, and every missing entry says why.
    for item in report.evidence:
        assert item.source in SOURCES, item
    for item in report.missing:
        assert item.why.strip(), item
    if report.outcome != "diagnosed":
        assert report.recurrence.count == 0


SOURCES = {
    "get_workload_status",
    "get_workload_spec",
    "get_workload_pods",
    "get_workload_history",
    "get_workload_metrics",
    "list_workloads",
    "kubectl describe pod",
    "kubectl logs --previous",
    # The log of a container that never restarted is its current instance: cited as the read it came from.
    "kubectl logs",
    "kubectl get events",
    "kubectl describe node",
}


def test_rule_bundles_on_disk_match_their_builders() -> None:
    assert_cases_on_disk(RULE_CASES, CASES, build_case, "tests.engine.test_rule_cases")


async def diagnose_case_file(path: Path) -> tuple[Report, list[RecordedRequest], Json]:
    """A corpus bundle on disk, diagnosed as it asks: the report, every request seen, and its `expect` block."""
    bundle = json.loads(path.read_text(encoding="utf-8"))
    report, requests = await diagnose_bundle(bundle, **bundle["request"])
    return report, requests, bundle["expect"]


@pytest.mark.parametrize("path", sorted(RULE_CASES.glob("*.json")), ids=lambda p: p.stem)
async def test_rule_case(path: Path) -> None:
    check(*await diagnose_case_file(path))


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_all()
        print(f"wrote {len(CASES)} bundles to {RULE_CASES}")
