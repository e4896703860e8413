"""SCHEDULING_POLICY_TERMINATED: stopped by the idle-GPU limit, by the maximum training duration, or by a
person.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
)


def policy_idle() -> Story:
    s = Story(
        "policy-idle",
        "jupyter-alice",
        "nlp",
        "Stopped",
        phase_at=125,
        created=900,
        kind="Workspace",
        command="start-notebook.sh",
        desired_phase="Stopped",
        image="jupyter/pytorch-notebook:2026-10",
    )
    msg = (
        "Workload stopped: GPU idle time limit reached (GPUs idle for 2h, project rule "
        "interactiveJobMaxIdleDurationSeconds=7200)"
    )
    s.phase_message = msg
    s.add_phase(s.created, "Pending")
    s.add_phase(898, "Running")
    s.add_phase(126, "Stopping", msg)
    s.add_phase(125, "Stopped", msg)
    s.add_event(
        126,
        "IdleGpuTimeLimitReached",
        msg,
        type_="Normal",
        source="runai-workload-controller",
        kind="Workspace",
        obj_name=s.name,
    )
    s.add_pod(node="gpu-e-01", created=899, k8s_phase="Succeeded", updated=125, completed=125, deleted=125)
    return s.expect(
        "diagnosed",
        "SCHEDULING_POLICY_TERMINATED",
        "Stopped with an idle-GPU time-limit event (2h, interactiveJobMaxIdleDurationSeconds)",
        recurrence=1,
        detail="idle-timeout",
    )


def policy_max_duration() -> Story:
    s = Story(
        "policy-max-duration",
        "sweep-lr-12",
        "vision",
        "Stopped",
        phase_at=240,
        created=1700,
        desired_phase="Stopped",
        command="python sweep.py",
        args="--trial 12",
    )
    msg = "Workload stopped: maximum training duration of 24h reached (trainingJobTimeLimitSeconds=86400)"
    s.phase_message = msg
    s.add_phase(s.created, "Pending")
    s.add_phase(1680, "Running")
    s.add_phase(241, "Stopping", msg)
    s.add_phase(240, "Stopped", msg)
    s.add_event(
        241,
        "WorkloadTimeLimitReached",
        msg,
        type_="Normal",
        source="runai-workload-controller",
        kind="TrainingWorkload",
        obj_name=s.name,
    )
    s.add_pod(node="gpu-e-08", created=1690, k8s_phase="Succeeded", updated=240, completed=240, deleted=240)
    return s.expect(
        "diagnosed",
        "SCHEDULING_POLICY_TERMINATED",
        "Stopped after the project's 24h training duration limit",
        recurrence=1,
        detail="max-duration",
    )


def policy_manual_stop() -> Story:
    s = Story(
        "policy-manual-stop",
        "diarize-batch",
        "speech",
        "Stopped",
        phase_at=95,
        created=400,
        desired_phase="Stopped",
        command="python diarize.py",
        submitted_by="alice@example.com",
    )
    msg = "Workload stopped by user bob@example.com"
    s.phase_message = msg
    s.add_phase(s.created, "Pending")
    s.add_phase(395, "Running")
    s.add_phase(96, "Stopping", msg)
    s.add_phase(95, "Stopped", msg)
    s.add_event(
        96,
        "StopRequested",
        "Stop requested by bob@example.com via Control-plane",
        type_="Normal",
        source="runai-control-plane",
        kind="TrainingWorkload",
        obj_name=s.name,
    )
    s.add_pod(node="gpu-e-06", created=398, k8s_phase="Succeeded", updated=95, completed=95, deleted=95)
    return s.expect(
        "diagnosed",
        "SCHEDULING_POLICY_TERMINATED",
        "manual stop: desiredPhase Stopped and 'Stop requested by bob@example.com'",
        recurrence=1,
        detail="manual-stop",
    )


FAMILY = Family(
    "policy",
    stories=(
        policy_idle,
        policy_max_duration,
        policy_manual_stop,
    ),
)
