"""Answers a reader must not trust blindly: a history of 1,200+ records behind a 429, `events: null` (a
failed fetch, not "nothing happened"), a spec endpoint that answers 404, and a memory quantity that does not
parse.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Family,
    Story,
    cstatus,
    error_message,
    flat,
    node,
    oom_message,
    ramp,
    terminated,
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
        # Not gpu-e-11: that node went NotReady at 11:34 (node-notready), before this kill at 11:39:54.
        node="gpu-e-17", created=2000, k8s_phase="OOMKilled", updated=20, completed=20, role="worker", index=1
    )
    # Its three peers were torn down a few seconds after it (the operator deletes the gang): deleted pods.
    peers = [
        s.add_pod(node=n, created=2000, k8s_phase="Running", updated=2000, role=r, index=i, deleted=19.9)
        for r, i, n in (("master", 0, "gpu-e-10"), ("worker", 0, "gpu-e-12"), ("worker", 2, "gpu-e-13"))
    ]
    s.phase_message = oom_message(pod.name)
    s.add_event(20.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_phase(20, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 1999, 20))], phase="Failed")
    s.nodes.append(node("gpu-e-17"))
    # The workload's series is the sum over its four pods; only worker-1's own series reaches its limit.
    per_pod = {pod.name: ramp(30 * GI, 51_300_000_000, 120, 20.5, step_min=1)}
    per_pod.update({p.name: ramp(24 * GI, 31 * GI, 120, 20.5, step_min=1) for p in peers})
    s.add_summed_series("CPU_MEMORY_USAGE_BYTES", per_pod)
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(4 * 48 * GI, 120, 20.5, step_min=1))
    s.add_fault("history", 429, retry_after=1)
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "OOMKilled on worker-1 (its own series peaks at 51.3e9 B, 99.5% of its 48Gi limit; the workload's series is "
        "the sum of 4 pods); history has 1,200+ records (page through all); the churn is scale events, not failures",
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
    s.phase_message = error_message(pod.name, 1)
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
    s.phase_message = oom_message(pod.name)
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


FAMILY = Family(
    "data-quality",
    stories=(
        long_history,
        events_null,
        spec_absent,
    ),
)
