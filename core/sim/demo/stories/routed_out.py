"""Workloads Step 1 sends elsewhere by their phase (pending for resources or quota, suspended, succeeded,
running healthily, initializing, creating, resuming), and one asked for on the wrong cluster.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    EAST,
    GI,
    Family,
    Story,
    condition,
    cstatus,
    error_message,
    flat,
    running,
    terminated,
    waiting,
)


def pending_unschedulable() -> Story:
    s = Story(
        "pending-unschedulable",
        "sd-xl-train",
        "vision",
        "Pending",
        phase_at=95,
        created=95,
        gpu=8,
        requested_pods=1,
        mem=("256Gi", "256Gi"),
        submitted_by="marco@example.com",
    )
    s.add_phase(s.created, "Pending")
    # No pendingSchedulingMessages: the API writes those only for a quota reason (NonPreemptibleOverQuota,
    # OverLimit), and this is a wait for free GPUs, which the scheduler's event says.
    msg = "Unable to schedule pod: 0/12 nodes are available: 12 node(s) didn't have enough resources: nvidia.com/gpu."
    s.add_event(2, "Unschedulable", msg, source="runai-scheduler", kind="PodGroup", obj_name=f"pg-{s.name}-0")
    pod = s.add_pod(node=None, created=94.5, k8s_phase="Pending", updated=94.5)
    s.add_kube_pod(pod, [], phase="Pending", conditions=[condition("PodScheduled", "False", 94, "Unschedulable", msg)])
    return s.expect(
        "pending",
        None,
        "Pending with only the scheduler's Unschedulable event (insufficient GPUs): "
        "route to Pending-workload diagnosis",
    )


def pending_quota() -> Story:
    s = Story(
        "pending-quota",
        "embedding-big",
        "recsys",
        "Pending",
        phase_at=400,
        created=400,
        gpu=8,
        requested_pods=2,
        preemptible=False,
        phase_reason="NonPreemptibleOverQuota",
        submitted_by="lena@example.com",
    )
    s.phase_message = "Non-preemptible workload exceeds the project's deserved GPU quota"
    s.add_phase(s.created, "Pending", s.phase_message)
    s.pending_messages = [
        {
            "nodePool": "default",
            "phaseReason": "NonPreemptibleOverQuota",
            "reason": "NonPreemptibleOverQuota",
            "orgType": "PROJECT",
            "userMessage": "Non-preemptible workload requests 16 GPUs, project recsys quota is 8",
        }
    ]
    return s.expect("pending", None, "phaseReason NonPreemptibleOverQuota: a resource wait, no failed-pod signal")


def succeeded() -> Story:
    s = Story(
        "succeeded",
        "whisper-distill",
        "speech",
        "Completed",
        phase_at=62,
        created=300,
        completed_at=62,
        command="python distill.py",
    )
    pod = s.add_pod(node="gpu-e-07", created=298, k8s_phase="Succeeded", updated=62, completed=62)
    s.add_phase(s.created, "Pending")
    s.add_phase(296, "Running")
    s.add_phase(62, "Completed")
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Completed", 0, 296, 62))], phase="Succeeded")
    s.add_log(pod.name, "distillation finished: WER 6.1%\n")
    return s.expect("succeeded", None, "phase Completed, container exit 0 Completed: report success")


def running_healthy() -> Story:
    s = Story(
        "running-healthy",
        "world-model",
        "robotics",
        "Running",
        phase_at=180,
        created=185,
        running_pods=1,
        mem=("64Gi", "64Gi"),
        submitted_by="kenji@example.com",
    )
    pod = s.add_pod(node="gpu-w-02", created=184, k8s_phase="Running", updated=180)
    s.add_phase(s.created, "Pending")
    s.add_phase(180, "Running")
    s.add_event(181, "Started", "Started container main", type_="Normal", pod=pod.name, in_events=False)
    s.add_kube_pod(pod, [cstatus("main", s.image, running(180))], phase="Running")
    s.add_series("CPU_MEMORY_USAGE_BYTES", flat(30 * GI, 170, 1, step_min=2))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(64 * GI, 170, 1, step_min=2))
    s.add_series("GPU_UTILIZATION", flat(93, 170, 1, step_min=2))
    return s.expect(
        "running",
        None,
        "Running, container running, 0 restarts, no failure event: ask whether a past run was meant",
        intent="terminal",
    )


def initializing() -> Story:
    s = Story(
        "initializing",
        "qwen-serve",
        "genai",
        "Initializing",
        phase_at=3,
        created=4,
        kind="Inference",
        image="vllm/vllm-openai:v0.6.4",
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(node="gpu-w-06", created=3.5, k8s_phase="ContainerCreating", updated=3)
    s.add_phase(s.created, "Pending")
    s.add_phase(3, "Initializing")
    s.add_event(2.9, "Pulling", f'Pulling image "{s.image}"', type_="Normal", pod=pod.name)
    s.add_kube_event(2.9, "Pulling", f'Pulling image "{s.image}"', pod=pod.name, type_="Normal", host="gpu-w-06")
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("ContainerCreating"))], phase="Pending")
    return s.expect(
        "not-terminal",
        None,
        "phase Initializing, image still being pulled (Normal Pulling): report the phase",
    )


def creating() -> Story:
    s = Story("creating", "seg-anything-2", "vision", "Creating", phase_at=0.5, created=0.5)
    return s.expect("not-terminal", None, "phase Creating, no pods yet: report the phase")


def resuming() -> Story:
    s = Story(
        "resuming",
        "ssm-ablation",
        "research",
        "Resuming",
        phase_at=1,
        created=3000,
        submitted_by="dmitri@example.com",
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(2990, "Running")
    s.add_phase(1500, "Stopped", "Workload stopped by user dmitri@example.com")
    s.add_phase(1, "Resuming")
    return s.expect(
        "not-terminal", None, "phase Resuming: report the phase (the older Stopped is not the current state)"
    )


def cluster_mismatch() -> Story:
    s = Story(
        "cluster-mismatch",
        "deepfm-eval",
        "recsys",
        "Failed",
        phase_at=38,
        created=70,
        command="python eval_deepfm.py",
        submitted_by="lena@example.com",
    )
    pod = s.add_pod(node="gpu-w-08", created=69, k8s_phase="Error", updated=38, completed=38)
    s.phase_message = error_message(pod.name, 1)
    s.add_phase(s.created, "Pending")
    s.add_phase(66, "Running")
    s.add_phase(38, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 1, 66, 38))], phase="Failed")
    s.add_log(pod.name, "ValueError: eval split 'test-2026-11' not found\n")
    s.expect(
        "cluster-mismatch",
        None,
        "the workload lives on demo-west; asked with demo-east's cluster id: report the mismatch and stop",
        ask_cluster=EAST,
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "asked with the right cluster: exit 1 with ValueError",
        key="cluster-mismatch-right-cluster",
        recurrence=1,
    )


FAMILY = Family(
    "routed-out",
    stories=(
        pending_unschedulable,
        pending_quota,
        succeeded,
        running_healthy,
        initializing,
        creating,
        resuming,
        cluster_mismatch,
    ),
)
