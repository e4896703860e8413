"""OOM_KILLED: the kubelet or the runtime says OOMKilled, or only the node saw the kernel kill a process.

Memory measured against the limit, a series that came back empty, a request below the limit, three kills in a
week that count three times (not six), and an exit 137 reported as Error that only a node event explains.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Family,
    Story,
    cstatus,
    error_message,
    flat,
    lifecycle,
    memory_expectation,
    node,
    oom_message,
    ramp,
    terminated,
)


def oom_rising() -> Story:
    s = Story(
        "oom-rising",
        "llama-ft-7b",
        "nlp",
        "Failed",
        phase_at=40,
        created=105,
        mem=("48Gi", "48Gi"),
        command="torchrun --nproc_per_node=1 finetune.py",
        args="--model llama-7b --batch-size 16",
    )
    pod = s.add_pod(node="gpu-e-03", created=104, k8s_phase="OOMKilled", updated=40, completed=40)
    s.phase_message = oom_message(pod.name)
    lifecycle(s, 100, 40, "Failed", s.phase_message)
    s.add_event(40.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    usage = ramp(9 * GI, 51_400_000_000, 99, 40.5)
    s.add_series("CPU_MEMORY_USAGE_BYTES", usage)
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(48 * GI, 99, 40.5))
    s.add_series("CPU_MEMORY_REQUEST_BYTES", flat(48 * GI, 99, 40.5))
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 100, 40))], phase="Failed")
    s.nodes.append(node("gpu-e-03"))
    s.add_log(pod.name, "step 4400 loss 1.12 mem 46.9GiB\nstep 4500 loss 1.10 mem 47.6GiB\n")
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "pod k8sPhase OOMKilled + container terminated OOMKilled exit 137; usage climbs to the 48Gi limit",
        recurrence=1,
        memory=memory_expectation("48Gi", "48Gi", 48 * GI, 48 * GI, 51_400_000_000),
    )


def oom_empty_metrics() -> Story:
    s = Story(
        "oom-empty-metrics",
        "yolo-aug-3",
        "vision",
        "Failed",
        phase_at=25,
        created=29,
        mem=("16Gi", "16Gi"),
        command="python augment.py",
        args="--workers 32 --cache-ram",
    )
    pod = s.add_pod(node="gpu-e-05", created=28.5, k8s_phase="OOMKilled", updated=25, completed=25)
    s.phase_message = oom_message(pod.name)
    lifecycle(s, 25.7, 25, "Failed", s.phase_message)
    s.add_event(25.05, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_series("CPU_MEMORY_USAGE_BYTES", [])
    s.add_series("CPU_MEMORY_LIMIT_BYTES", [])
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 25.7, 25))], phase="Failed")
    s.nodes.append(node("gpu-e-05"))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "OOMKilled on status and pod after 40 s; metrics series empty, so no peak: report the 16Gi "
        "limit and the missing peak",
        recurrence=1,
        memory=memory_expectation("16Gi", "16Gi", 16 * GI, 16 * GI, None),
    )


def oom_request_below_limit() -> Story:
    s = Story(
        "oom-req-lt-limit",
        "conformer-large",
        "speech",
        "Failed",
        phase_at=180,
        created=420,
        mem=("16Gi", "32Gi"),
        command="python train_asr.py",
        args="--config conformer_l.yaml",
    )
    pod = s.add_pod(node="gpu-e-07", created=418, k8s_phase="OOMKilled", updated=180, completed=180)
    s.phase_message = oom_message(pod.name)
    lifecycle(s, 415, 180, "Failed", s.phase_message)
    s.add_event(180.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(12 * GI, 34_300_000_000, 414, 181, step_min=1))
    s.add_series("CPU_MEMORY_REQUEST_BYTES", flat(16 * GI, 414, 181, step_min=1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(32 * GI, 414, 181, step_min=1))
    # The Failed pod object is still there; its events expired two hours ago.
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 415, 180))], phase="Failed")
    s.nodes.append(node("gpu-e-07"))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "OOMKilled; peak ~34.3e9 B reaches the 32Gi LIMIT, far above the 16Gi request (compare with the limit)",
        recurrence=1,
        memory=memory_expectation("16Gi", "32Gi", 16 * GI, 32 * GI, 34_300_000_000),
    )


def oom_recurring() -> Story:
    s = Story(
        "oom-recurring",
        "moe-pretrain",
        "research",
        "Failed",
        phase_at=120,
        created=7 * 1440 + 300,
        mem=("64Gi", "64Gi"),
        gpu=8,
        restart_policy="OnFailure",
        backoff_limit=3,
        command="python pretrain_moe.py",
        args="--experts 16 --seq-len 8192",
        submitted_by="dmitri@example.com",
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(s.created - 5, "Running")
    # Three OOM terminations, each seen as an event and a phase update a few seconds apart: three, not six.
    for n, at in enumerate((6 * 1440 + 200, 3 * 1440 + 75, 120)):
        pod_name = s.pod_name(n)
        s.add_event(at + 0.1, "OOMKilled", "Container main was OOM killed", pod=pod_name, in_events=(at < 24 * 60))
        s.add_phase(at, "Failed", oom_message(pod_name))
        if n < 2:
            s.add_phase(at - 3, "Running", f"pod {s.pod_name(n + 1)} restarted by the job controller (OnFailure)")
    s.add_pod(
        node="gpu-e-09",
        created=s.created - 4,
        k8s_phase="OOMKilled",
        updated=6 * 1440 + 200,
        index=0,
        completed=6 * 1440 + 200,
        deleted=6 * 1440 + 199,
    )
    s.add_pod(
        node="gpu-e-10",
        created=6 * 1440 + 198,
        k8s_phase="OOMKilled",
        updated=3 * 1440 + 75,
        index=1,
        completed=3 * 1440 + 75,
        deleted=3 * 1440 + 74,
    )
    pod = s.add_pod(node="gpu-e-09", created=3 * 1440 + 73, k8s_phase="OOMKilled", updated=120, index=2, completed=120)
    s.phase_message = oom_message(pod.name)
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(40 * GI, 68_600_000_000, 240, 121, step_min=1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(64 * GI, 240, 121, step_min=1))
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 3 * 1440 + 70, 120))], phase="Failed")
    s.nodes.append(node("gpu-e-09"))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "three OOMKilled terminations in 7d (6d, 3d, 2h ago), each an event + a phase update: count 3",
        recurrence=3,
        lookback="7d",
        memory=memory_expectation("64Gi", "64Gi", 64 * GI, 64 * GI, 68_600_000_000),
    )


def oom_node_event_only() -> Story:
    s = Story(
        "oom-node-event",
        "policy-rl-9",
        "robotics",
        "Failed",
        phase_at=20,
        created=70,
        mem=("24Gi", "24Gi"),
        command="python train_policy.py",
        args="--envs 512",
        submitted_by="kenji@example.com",
    )
    pod = s.add_pod(node="gpu-w-03", created=69, k8s_phase="Error", updated=20, completed=20)
    s.phase_message = error_message(pod.name, 137)
    lifecycle(s, 66, 20, "Failed", s.phase_message)
    # The runtime reported the kill as Error; only the node saw the cgroup OOM (cgroup v2 kills one process).
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 137, 66, 20))], phase="Failed")
    s.nodes.append(node("gpu-w-03"))
    s.add_node_event(
        20.02,
        "gpu-w-03",
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 48213 (python) total-vm:41873512kB, "
        "anon-rss:25011240kB, file-rss:70912kB, shmem-rss:0kB, UID:1000 pgtables:50220kB "
        "oom_score_adj:-997",
    )
    s.add_log(pod.name, "rollout 880 reward 412.7\nrollout 890 reward 415.2\n")
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "exit 137 reported as Error; Node gpu-w-03 OOMKilling event (Killed process python) at the "
        "same second is the only OOM evidence",
        recurrence=1,
        memory=memory_expectation("24Gi", "24Gi", 24 * GI, 24 * GI, None),
    )


FAMILY = Family(
    "oom",
    stories=(
        oom_rising,
        oom_empty_metrics,
        oom_request_below_limit,
        oom_recurring,
        oom_node_event_only,
    ),
)
