"""Preempted workloads, which Step 1 routes out: by priority, by quota reclaim, seen only on the pod's
DisruptionTarget condition, and stopped after a preemption; and one preempted by consolidation and running again,
whose preemption is history (issue 31: only a preemption of the run that ended routes out).
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
    condition,
    cstatus,
    error_message,
    node,
    terminated,
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
    return s.expect("preempted", None, "Evict event: quota reclaim 'was preempted by workload ...' -> route out")


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
        "running",
        None,
        "Evict 'resource consolidation' 3 min before it went Running again: the preemption was followed by a resume, "
        "so it is history (said so), not a route-out; Running with no confirmed failure: ask about a past run",
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
    s.phase_message = error_message(pod.name, 137)
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
    s.add_kube_event(12.4, "Killing", "Stopping container main", pod=pod.name, type_="Normal", host="gpu-w-01")
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
    _evict(s, 29, f"Pod {s.ns}/{pod_name} was preempted by higher priority workload genai-prod/pg-llm-gateway-0")
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


FAMILY = Family(
    "preemption",
    stories=(
        preempt_priority,
        preempt_reclaim,
        preempt_consolidation,
        preempt_disruption_condition,
        preempt_then_stopped,
    ),
)
