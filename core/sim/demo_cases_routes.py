"""Demo stories that route out (preempted, pending, suspended, succeeded, running, not-terminal, cluster
mismatch, ambiguous, not found) and the lookup and data-quality traps: names submitted many times, the same
name in two projects, a deleted workload, a 1,200-record history, `events: null`, an absent spec, a malformed
quantity.
"""

from __future__ import annotations

from collections.abc import Callable

from core.sim.demo_kit import (
    EAST,
    GI,
    PROJECTS,
    Json,
    Story,
    condition,
    cstatus,
    flat,
    node,
    ramp,
    running,
    terminated,
    uid,
    waiting,
)


def _evict(s: Story, at: float, message: str) -> None:
    s.add_event(
        at,
        "Evict",
        message,
        type_="Normal",
        source="runai-scheduler",
        kind="PodGroup",
        obj_name=f"pg-{s.name}-0",
    )


def _preempted_pending(
    key: str, name: str, project: str, at: float, message_tail: str, *, now_phase: str = "Pending"
) -> Story:
    s = Story(
        key,
        name,
        project,
        now_phase,
        phase_at=at - 0.3,
        created=at + 240,
        running_pods=1 if now_phase == "Running" else 0,
    )
    pod_name = s.pod_name()
    s.add_phase(s.created, "Pending")
    s.add_phase(at + 236, "Running")
    _evict(s, at, f"Pod {s.ns}/{pod_name} {message_tail}")
    s.add_phase(at - 0.3, "Pending", "Waiting for resources")
    if now_phase == "Running":
        s.add_phase(at - 3, "Running")
        s.phase_at = at - 3
    s.phase_message = "Waiting for resources" if now_phase == "Pending" else ""
    placed = now_phase == "Running"
    s.add_pod(node="gpu-e-05" if placed else None, created=at - 0.5, k8s_phase=now_phase, updated=at - 3)
    return s


def preempt_priority() -> Story:
    s = _preempted_pending(
        "preempt-priority",
        "dpo-run-4",
        "nlp",
        14,
        "was preempted by higher priority workload runai-nlp/pg-chat-serving-0",
    )
    return s.expect(
        "preempted",
        None,
        "Evict event: 'was preempted by higher priority workload' -> route to preemption diagnosis",
    )


def preempt_reclaim() -> Story:
    s = _preempted_pending(
        "preempt-reclaim",
        "conformer-ctc",
        "speech",
        44,
        "was preempted by workload runai-vision/pg-seg-train-big-0.",
    )
    return s.expect(
        "preempted", None, "Evict event: quota reclaim 'was preempted by workload ...' -> route out"
    )


def preempt_consolidation() -> Story:
    s = _preempted_pending(
        "preempt-consolidation",
        "mae-pt",
        "vision",
        33,
        "was preempted and rescheduled due to bin packing (resource consolidation) procedure",
        now_phase="Running",
    )
    return s.expect(
        "preempted",
        None,
        "recent Evict event 'resource consolidation' (now Running again): Step 1.4 "
        "routes out before the phase rule",
    )


def preempt_disruption_condition() -> Story:
    s = Story(
        "preempt-disruption",
        "ppo-swarm",
        "robotics",
        "Failed",
        phase_at=12,
        created=150,
        command="python ppo_swarm.py",
        submitted_by="kenji@example.com",
    )
    pod = s.add_pod(node="gpu-w-01", created=148, k8s_phase="Error", updated=12, completed=12)
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (Error), exit code 137"
    s.add_phase(s.created, "Pending")
    s.add_phase(146, "Running")
    s.add_phase(12, "Failed", s.phase_message)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, terminated("Error", 137, 146, 12))],
        phase="Failed",
        conditions=[
            condition(
                "DisruptionTarget",
                "True",
                12.5,
                "PreemptionByScheduler",
                "Kai-scheduler: preempting to accommodate a higher priority workload",
            ),
            condition("Ready", "False", 12, "PodFailed"),
        ],
    )
    s.add_kube_event(
        12.4, "Killing", "Stopping container main", pod=pod.name, type_="Normal", host="gpu-w-01"
    )
    s.nodes.append(node("gpu-w-01"))
    return s.expect(
        "preempted",
        None,
        "no Run:ai preemption event, but exit 137 is explained by the pod condition "
        "DisruptionTarget=True reason PreemptionByScheduler -> route out",
    )


def preempt_then_stopped() -> Story:
    s = Story(
        "preempt-stopped",
        "rlhf-ppo",
        "genai",
        "Stopped",
        phase_at=28,
        created=500,
        desired_phase="Stopped",
        extra_spec={"terminateAfterPreemption": True},
        submitted_by="sofia@example.com",
    )
    pod_name = s.pod_name()
    s.add_phase(s.created, "Pending")
    s.add_phase(495, "Running")
    _evict(
        s, 29, f"Pod {s.ns}/{pod_name} was preempted by higher priority workload genai-prod/pg-llm-gateway-0"
    )
    s.add_phase(28.5, "Stopping", "terminateAfterPreemption is set")
    s.add_phase(28, "Stopped", "terminateAfterPreemption is set")
    s.phase_message = "terminateAfterPreemption is set"
    s.add_pod(node="gpu-w-03", created=497, k8s_phase="Succeeded", updated=28, completed=28, deleted=28)
    return s.expect(
        "preempted",
        None,
        "Stopped, but an Evict 'preempted by higher priority workload' event came "
        "first: exclude preemption before diagnosing a Stopped workload",
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
    s.pending_messages = [
        {
            "nodePool": "default",
            "phaseReason": "",
            "reason": "Unschedulable",
            "orgType": "project",
            "userMessage": "Not enough resources in node pool default: requested 8 GPUs, "
            "largest free block is 3 GPUs",
        }
    ]
    msg = (
        "Unable to schedule pod: 0/12 nodes are available: 12 node(s) didn't have enough resources: "
        "nvidia.com/gpu."
    )
    s.add_event(2, "Unschedulable", msg, source="runai-scheduler", kind="PodGroup", obj_name=f"pg-{s.name}-0")
    pod = s.add_pod(node=None, created=94.5, k8s_phase="Pending", updated=94.5)
    s.add_kube_pod(
        pod, [], phase="Pending", conditions=[condition("PodScheduled", "False", 94, "Unschedulable", msg)]
    )
    return s.expect(
        "pending",
        None,
        "Pending with only Unschedulable / insufficient GPUs in "
        "pendingSchedulingMessages: route to Pending-workload diagnosis",
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
            "orgType": "project",
            "userMessage": "Non-preemptible workload requests 16 GPUs, project recsys quota is 8",
        }
    ]
    return s.expect(
        "pending", None, "phaseReason NonPreemptibleOverQuota: a resource wait, no failed-pod signal"
    )


def suspended() -> Story:
    s = Story(
        "suspended",
        "long-pretrain",
        "nlp",
        "Suspended",
        phase_at=600,
        created=5000,
        desired_phase="Suspended",
        k8s_phase="Suspended",
        submitted_by="priya@example.com",
    )
    s.phase_message = "Workload suspended"
    s.add_phase(s.created, "Pending")
    s.add_phase(4990, "Running")
    s.add_phase(600, "Suspended", s.phase_message)
    return s.expect("suspended", None, "phase Suspended: paused, out of scope")


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
    s.add_kube_event(
        2.9, "Pulling", f'Pulling image "{s.image}"', pod=pod.name, type_="Normal", host="gpu-w-06"
    )
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
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (Error), exit code 1"
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


def _chat_agent(n: int, phase: str, at: float) -> Story:
    s = Story(
        f"ambiguous-{n}",
        "chat-agent",
        "nlp",
        phase,
        phase_at=at,
        created=at + 2,
        kind="Workspace",
        running_pods=1 if phase == "Running" else 0,
        command="python agent.py --ui",
        submitted_by=("alice@example.com", "bob@example.com", "priya@example.com")[n - 1],
    )
    s.add_phase(s.created, "Pending")
    pod = s.add_pod(
        node="gpu-e-01" if phase == "Running" else None, created=at + 1, k8s_phase=phase, updated=at
    )
    if phase == "Running":
        s.add_phase(at, "Running")
        if at <= 60:
            s.add_kube_pod(pod, [cstatus("main", s.image, running(at))], phase="Running")
    else:
        s.pending_messages = [
            {
                "nodePool": "default",
                "phaseReason": "",
                "reason": "Unschedulable",
                "orgType": "project",
                "userMessage": "Not enough GPUs in node pool default",
            }
        ]
    return s


def ambiguous_stories() -> list[Story]:
    stories = [_chat_agent(1, "Running", 45), _chat_agent(2, "Running", 1500), _chat_agent(3, "Pending", 10)]
    stories[0].expect(
        "ambiguous",
        None,
        "active-intent lookup: 3 Running/Pending 'chat-agent' submissions in nlp, "
        "none with a failure symptom: ask for a workload id",
        key="ambiguous-chat-agent",
        intent="active",
        lookup="name",
    )
    # No single workload is the answer, and no report is made, so there is nothing to count either.
    stories[0].expectations[0].update(workloadId=None, recurrence=None)
    return stories


def resnet_bench_stories() -> list[Story]:
    """One name, four submissions over eight days: a terminal-intent lookup picks the newest terminal one."""
    out: list[Story] = []
    done = Story(
        "resnet-bench-1",
        "resnet-bench",
        "vision",
        "Completed",
        phase_at=8 * 1440,
        created=8 * 1440 + 90,
        completed_at=8 * 1440,
    )
    done.add_phase(done.created, "Pending").add_phase(8 * 1440 + 88, "Running").add_phase(
        8 * 1440, "Completed"
    )
    done.add_pod(
        node="gpu-e-03",
        created=8 * 1440 + 89,
        k8s_phase="Succeeded",
        updated=8 * 1440,
        completed=8 * 1440,
        deleted=8 * 1440 - 1,
    )
    done.expect("succeeded", None, "Completed 8 days ago", lookback="7d")
    out.append(done)

    oom = Story(
        "resnet-bench-2",
        "resnet-bench",
        "vision",
        "Failed",
        phase_at=5 * 1440,
        created=5 * 1440 + 60,
        mem=("12Gi", "12Gi"),
        args="--batch-size 1024",
    )
    pod = oom.add_pod(
        node="gpu-e-04",
        created=5 * 1440 + 59,
        k8s_phase="OOMKilled",
        updated=5 * 1440,
        completed=5 * 1440,
        deleted=5 * 1440 - 2,
    )
    oom.phase_message = f"Workload failed: pod {pod.name} container main terminated (OOMKilled)"
    oom.add_phase(oom.created, "Pending").add_phase(5 * 1440 + 57, "Running")
    oom.add_phase(5 * 1440, "Failed", oom.phase_message)
    oom.add_event(5 * 1440 + 0.1, "OOMKilled", "Container main was OOM killed", pod=pod.name, in_events=False)
    oom.expect(
        "diagnosed",
        "OOM_KILLED",
        "5 days old: pod k8sPhase OOMKilled and history OOMKilled event; Kubernetes has forgotten it",
        recurrence=1,
        lookback="7d",
        memory={
            "request": "12Gi",
            "limit": "12Gi",
            "requestBytes": 12 * GI,
            "limitBytes": 12 * GI,
            "peakBytes": None,
        },
    )
    out.append(oom)

    crash = Story(
        "resnet-bench-3",
        "resnet-bench",
        "vision",
        "Failed",
        phase_at=26 * 60,
        created=26 * 60 + 20,
        args="--batch-size 256 --amp",
    )
    pod = crash.add_pod(
        node="gpu-e-04",
        created=26 * 60 + 19,
        k8s_phase="Error",
        updated=26 * 60,
        completed=26 * 60,
        deleted=26 * 60 - 2,
    )
    crash.phase_message = f"Workload failed: pod {pod.name} container main terminated (Error), exit code 1"
    crash.add_phase(crash.created, "Pending").add_phase(26 * 60 + 17, "Running")
    crash.add_phase(26 * 60, "Failed", crash.phase_message)
    crash.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "newest terminal 'resnet-bench' submission (26h ago): exit 1, no "
        "signal; logs and events are gone, say so",
        recurrence=1,
        lookback="7d",
    )
    crash.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "terminal-intent name lookup: 4 submissions; the Running one is "
        "newer but not terminal, so the 26h-old Failed one is picked",
        key="resnet-bench-by-name",
        lookup="name",
        recurrence=1,
        lookback="7d",
    )
    out.append(crash)

    live = Story(
        "resnet-bench-4",
        "resnet-bench",
        "vision",
        "Running",
        phase_at=20,
        created=22,
        running_pods=1,
        args="--batch-size 256",
    )
    live.add_phase(live.created, "Pending").add_phase(20, "Running")
    lpod = live.add_pod(node="gpu-e-05", created=21, k8s_phase="Running", updated=20)
    live.add_kube_pod(lpod, [cstatus("main", live.image, running(20))], phase="Running")
    live.expect("running", None, "current submission runs normally")
    out.append(live)
    return out


def same_name_other_project() -> Story:
    s = Story(
        "same-name-research",
        "llama-ft-7b",
        "research",
        "Completed",
        phase_at=2 * 1440,
        created=2 * 1440 + 600,
        completed_at=2 * 1440,
        mem=("48Gi", "48Gi"),
        submitted_by="dmitri@example.com",
    )
    s.add_phase(s.created, "Pending").add_phase(2 * 1440 + 590, "Running").add_phase(2 * 1440, "Completed")
    s.add_pod(
        node="gpu-e-10",
        created=2 * 1440 + 595,
        k8s_phase="Succeeded",
        updated=2 * 1440,
        completed=2 * 1440,
        deleted=2 * 1440 - 5,
    )
    s.expect(
        "succeeded",
        None,
        "same name as nlp's OOMKilled run, but project research: its own newest terminal run Completed",
        lookup="name",
        lookback="7d",
    )
    return s


def name_lookup_of_oom_rising() -> Json:
    return {
        "key": "llama-ft-7b-by-name",
        "workloadId": uid("workload", "oom-rising"),
        "clusterId": PROJECTS["nlp"].cluster,
        "name": "llama-ft-7b",
        "project": "nlp",
        "intent": "terminal",
        "lookup": "name",
        "lookback": "24h",
        "outcome": "diagnosed",
        "category": "OOM_KILLED",
        "why": "name lookup must keep to project nlp (research has a Completed run of the same name)",
        "recurrence": 1,
    }


def not_found() -> Json:
    return {
        "key": "not-found",
        "workloadId": None,
        "clusterId": PROJECTS["nlp"].cluster,
        "name": "ghost-job",
        "project": "nlp",
        "intent": "terminal",
        "lookup": "name",
        "lookback": "24h",
        "outcome": "not-found",
        "category": None,
        "why": "no workload named ghost-job in project nlp on demo-east",
        "recurrence": None,
    }


def deleted_failed() -> Story:
    s = Story(
        "deleted-failed",
        "kws-tiny",
        "speech",
        "Failed",
        phase_at=2 * 1440,
        created=2 * 1440 + 45,
        deleted_at=1440,
        command="python kws.py",
        submitted_by="bob@example.com",
    )
    pod = s.add_pod(
        node="gpu-e-06",
        created=2 * 1440 + 44,
        k8s_phase="Error",
        updated=2 * 1440,
        completed=2 * 1440,
        deleted=1440,
    )
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (Error), exit code 1"
    s.add_phase(s.created, "Pending").add_phase(2 * 1440 + 40, "Running").add_phase(
        2 * 1440, "Failed", s.phase_message
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "deleted workload (listed only with deleted=true; its own endpoints answer): exit 1",
        recurrence=1,
        lookback="7d",
    )


def long_history() -> Story:
    """An elastic distributed run with a month of scale-down/scale-up churn: 1,200+ history records."""
    s = Story(
        "long-history",
        "elastic-rl",
        "research",
        "Failed",
        phase_at=20,
        created=30 * 1440 + 30,
        kind="Distributed",
        requested_pods=4,
        mem=("48Gi", "48Gi"),
        restart_policy="OnFailure",
        backoff_limit=0,
        command="torchrun --nnodes=2:4 train_rl.py",
        submitted_by="dmitri@example.com",
        extra_spec={"distributedFramework": "PyTorch", "numWorkers": 3, "minReplicas": 2, "maxReplicas": 4},
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(30 * 1440 + 20, "Running")
    cycle = 139.0
    for i in range(310):
        at = 30 * 1440 - i * cycle
        worker = f"{s.name}-worker-{2 + i % 2}"
        s.add_event(
            at,
            "SuccessfulDelete",
            f"Deleted pod: {worker}",
            type_="Normal",
            source="pytorch-operator",
            kind="PyTorchJob",
            obj_name=s.name,
            in_events=False,
        )
        s.add_phase(at - 0.2, "Degraded", "3/4 workers running (elastic scale-down)")
        s.add_event(
            at - 40,
            "SuccessfulCreate",
            f"Created pod: {worker}",
            type_="Normal",
            source="pytorch-operator",
            kind="PyTorchJob",
            obj_name=s.name,
            in_events=False,
        )
        s.add_phase(at - 41, "Running", "4/4 workers running")
    pod = s.add_pod(
        node="gpu-e-11", created=2000, k8s_phase="OOMKilled", updated=20, completed=20, role="worker", index=1
    )
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (OOMKilled)"
    s.add_event(20.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_phase(20, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 1999, 20))], phase="Failed")
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(30 * GI, 51_300_000_000, 120, 20.5, step_min=1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(48 * GI, 120, 20.5, step_min=1))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "OOMKilled on worker-1; history has 1,200+ records (page through "
        "all); the churn is scale events, not failures",
        recurrence=1,
        memory={
            "request": "48Gi",
            "limit": "48Gi",
            "requestBytes": 48 * GI,
            "limitBytes": 48 * GI,
            "peakBytes": 51_300_000_000,
        },
    )


def events_null() -> Story:
    s = Story(
        "events-null",
        "vad-train",
        "speech",
        "Failed",
        phase_at=40,
        created=75,
        events_null=True,
        command="python train_vad.py",
    )
    pod = s.add_pod(node="gpu-e-01", created=74, k8s_phase="Error", updated=40, completed=40)
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (Error), exit code 1"
    s.add_phase(s.created, "Pending").add_phase(72, "Running").add_phase(40, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 1, 72, 40))], phase="Failed")
    s.add_log(
        pod.name,
        'Traceback (most recent call last):\n  File "/app/train_vad.py", line 54, in <module>\n'
        "RuntimeError: sample rate mismatch: expected 16000, got 44100\n",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "events endpoint fails (events: null = fetch failure, not 'no "
        "events'); history + pod status: exit 1 RuntimeError",
        recurrence=1,
    )


def spec_absent() -> Story:
    s = Story(
        "spec-absent",
        "dino-v2",
        "vision",
        "Failed",
        phase_at=50,
        created=140,
        spec_present=False,
        mem=("40Gi", "40Gi"),
    )
    pod = s.add_pod(node="gpu-e-08", created=139, k8s_phase="OOMKilled", updated=50, completed=50)
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (OOMKilled)"
    s.add_phase(s.created, "Pending").add_phase(136, "Running").add_phase(50, "Failed", s.phase_message)
    s.add_event(50.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 136, 50))], phase="Failed")
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "spec endpoint answers 404 (report the limitation); OOMKilled from "
        "status and pod; limit 40Gi from the workload's requested resources",
        recurrence=1,
        memory={
            "request": "40Gi",
            "limit": "40Gi",
            "requestBytes": 40 * GI,
            "limitBytes": 40 * GI,
            "peakBytes": None,
        },
    )


def malformed_quantity() -> Story:
    s = Story(
        "malformed-quantity",
        "gemma-ft",
        "genai",
        "Failed",
        phase_at=30,
        created=95,
        mem=("24Gx", "24Gx"),
        command="python finetune_gemma.py",
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(node="gpu-w-04", created=94, k8s_phase="OOMKilled", updated=30, completed=30, deleted=29)
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (OOMKilled)"
    s.add_phase(s.created, "Pending").add_phase(92, "Running").add_phase(30, "Failed", s.phase_message)
    s.add_event(30.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(8 * GI, 25_600_000_000, 90, 30.5))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "OOMKilled; the recorded memory request/limit '24Gx' is not a valid "
        "quantity: report it as unreadable, never guess 24Gi",
        recurrence=1,
        memory={
            "request": "24Gx",
            "limit": "24Gx",
            "requestBytes": None,
            "limitBytes": None,
            "peakBytes": 25_600_000_000,
        },
    )


ROUTE_STORIES: tuple[Callable[[], Story], ...] = (
    preempt_priority,
    preempt_reclaim,
    preempt_consolidation,
    preempt_disruption_condition,
    preempt_then_stopped,
    pending_unschedulable,
    pending_quota,
    suspended,
    succeeded,
    running_healthy,
    initializing,
    creating,
    resuming,
    cluster_mismatch,
    same_name_other_project,
    deleted_failed,
    long_history,
    events_null,
    spec_absent,
    malformed_quantity,
)
ROUTE_GROUPS: tuple[Callable[[], list[Story]], ...] = (ambiguous_stories, resnet_bench_stories)
EXTRA_EXPECTATIONS: tuple[Callable[[], Json], ...] = (name_lookup_of_oom_rising, not_found)
