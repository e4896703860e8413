"""Issue 31, point 2: a preemption followed by a resume is history, not a route-out.

The KAI scheduler's `Evict` events on the PodGroup (priority, quota reclaim, consolidation), the pod requeued
(`Pending`, "Waiting for resources") and resumed (`Running`) minutes or hours later, over days; then the run that
ended the workload ended in a failure of its own. Only a preemption of the run that ended routes out: the last
case is that look-alike, preempted after two earlier preempt-resume cycles and never run again.
"""

from __future__ import annotations

from core.sim.demo.kit import GI, Json, PodPlan, Story, cstatus, flat, node, ramp, terminated, uid, waiting
from tests.engine.test_rule_cases import error_message, oom_message

Case = tuple[list[Story], Json, Json]
DAY = 24 * 60


def _req(s: Story, **extra: object) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id, **extra}


def _taker(i: int, s: Story, pod: str) -> str:
    """The scheduler's own words for preemption number i (runai-api.md: priority, reclaim, consolidation)."""
    return (
        f"Pod {s.ns}/{pod} was preempted by higher priority workload runai-prod/pg-chat-serving-0",
        f"Pod {s.ns}/{pod} was preempted by workload runai-vision/pg-seg-train-big-0.",
        f"Pod {s.ns}/{pod} was preempted and rescheduled due to bin packing (resource consolidation) procedure",
    )[i % 3]


def _cycles(s: Story, cycles: list[tuple[float, float]], node_name: str) -> list[PodPlan]:
    """Each (preempted at, resumed at): the Evict event, the pod killed and deleted, the workload requeued
    (Pending) and resumed (Running) with a new pod of the same name on another node."""
    gone: list[PodPlan] = []
    for i, (at, resumed) in enumerate(cycles):
        pod = s.add_pod(node=f"{node_name}-{i}", created=at + 60, k8s_phase="Running", updated=at - 0.2,
                        deleted=at - 0.5)
        pod.uid = uid("pod", s.key, pod.name, str(i))
        s.add_event(at, "Evict", _taker(i, s, pod.name), type_="Normal", source="kai-scheduler", kind="PodGroup",
                    obj_name=f"pg-{s.name}-0")
        s.add_event(at - 0.1, "Killing", "Stopping container main", type_="Normal", pod=pod.name, obj_uid=pod.uid)
        s.add_phase(at - 0.3, "Pending", "Waiting for resources")
        s.add_phase(resumed, "Running")
        gone.append(pod)
    return gone


def case_preempted_four_times_then_oom() -> Case:
    """A preemptible pre-training preempted four times over three days (priority, reclaim, consolidation,
    priority), each time requeued and resumed after 40 min to 3 h; ten hours after the last resume it was
    OOM-killed at the 64 GiB limit (its memory grew through the run)."""
    s = Story("ff-resume-01", "llama3-8b-pt", "nlp", "Failed", phase_at=8, created=3 * DAY + 420, gpu=8,
              mem=("64Gi", "64Gi"), restart_policy="OnFailure", preemptible=True,
              command="torchrun --nproc-per-node 8 pretrain.py --resume auto")
    s.add_phase(s.created, "Pending")
    s.add_phase(3 * DAY + 410, "Running")
    cycles = [(3 * DAY, 3 * DAY - 45), (2 * DAY + 300, 2 * DAY + 120), (DAY + 500, DAY + 460), (800, 610)]
    _cycles(s, cycles, "gpu-e-5")
    pod = s.add_pod(node="gpu-e-52", created=611, k8s_phase="OOMKilled", updated=8, completed=8)
    s.phase_message = oom_message(pod.name)
    s.add_event(8.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_phase(8, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 610, 8))], phase="Failed")
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(38 * GI, 63.7 * GI, 600, 9, step_min=5))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(64 * GI, 600, 9, step_min=5))
    s.nodes.append(node("gpu-e-52"))
    return [s], _req(s, lookback="7d"), {
        "outcome": "diagnosed", "category": "OOM_KILLED", "recurrence": 1,
        "superseded": [{"what": "preemption", "count": 4}],
        "text": ["preempted 4 times (11-27 12:00, 11-28 07:00, 11-29 03:40, 11-29 22:40)",
                 "each time requeued and run again, last from 01:50 (phase Running)",
                 "the last run then ran 10 h 2 min up to the failure", "not counted"],
        "noRecommendations": ["preemption"], "paths": [r"/metrics$"],
    }


CRASH = (
    "2026-11-30 11:20:02,417 INFO  Loading tokenizer from /models/mistral-7b\n"
    "Traceback (most recent call last):\n"
    '  File "/app/serve.py", line 44, in <module>\n'
    "    engine = build_engine(cfg)\n"
    '  File "/app/engine.py", line 90, in build_engine\n'
    "    raise ValueError(f\"max_model_len {cfg.max_len} exceeds the model's 32768\")\n"
    "ValueError: max_model_len 65536 exceeds the model's 32768\n"
)


def case_reclaimed_resumed_then_crash_loop() -> Case:
    """A workspace whose pod was taken by another project's quota reclaim six hours ago and resumed an hour
    later; since a config change 40 min ago its container crash-loops (exit 1)."""
    s = Story("ff-resume-02", "mistral-serve-dev", "genai", "Running", phase_at=300, created=3 * DAY,
              kind="Workspace", running_pods=1, command="python /app/serve.py")
    s.add_phase(s.created, "Pending")
    s.add_phase(3 * DAY - 5, "Running")
    _cycles(s, [(360, 300)], "gpu-w-3")
    pod = s.add_pod(node="gpu-w-31", created=301, k8s_phase="CrashLoopBackOff", updated=2)
    for i, at in enumerate((40, 38, 35, 30, 21, 12, 3)):
        s.add_event(at, "BackOff", f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})",
                    pod=pod.name, in_events=i >= 4)
    backoff = f"back-off 5m0s restarting failed container=main pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("CrashLoopBackOff", backoff),
                                 last=terminated("Error", 1, 3.3, 3.2), restarts=7)], phase="Running")
    s.add_kube_event(3, "BackOff", f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})",
                     pod=pod.name, count=7, first=40)
    s.add_log(pod.name, CRASH, previous=True)
    s.nodes.append(node("gpu-w-31"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "superseded": [{"what": "preemption", "count": 1}],
        "evidence": ["max_model_len 65536"],
        "text": ["preempted at 06:00 and run again from 07:00 (phase Running); it has been running 5 h since"],
        "noRecommendations": ["preemption"],
    }


def case_preempted_for_the_run_that_ended() -> Case:
    """The look-alike: two earlier preempt-resume cycles, then a third preemption with terminateAfterPreemption:
    the workload failed (SIGTERM, exit 143) and never ran again. That preemption ended it: routed out at Step 1,
    nothing after it read."""
    s = Story("ff-resume-03", "sdxl-ft-sweep-3", "vision", "Failed", phase_at=20, created=2 * DAY, gpu=4,
              extra_spec={"terminateAfterPreemption": True}, restart_policy="OnFailure")
    s.add_phase(s.created, "Pending")
    s.add_phase(2 * DAY - 10, "Running")
    _cycles(s, [(DAY + 600, DAY + 540), (900, 870)], "gpu-e-6")
    pod = s.add_pod(node="gpu-e-63", created=871, k8s_phase="Error", updated=20.5, completed=20.5)
    s.add_event(21, "Evict", _taker(0, s, pod.name), type_="Normal", source="kai-scheduler", kind="PodGroup",
                obj_name=f"pg-{s.name}-0")
    s.phase_message = error_message(pod.name, 143)
    s.add_phase(20, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 143, 870, 20.5))], phase="Failed")
    s.add_kube_event(20.8, "Killing", "Stopping container main", pod=pod.name, type_="Normal")
    s.nodes.append(node("gpu-e-63"))
    return [s], _req(s), {
        "outcome": "preempted", "category": None, "recurrence": 0, "noPaths": [r"/history$"],
        "evidence": ["pg-chat-serving-0"],
    }


CASES = {
    "resume-preempted-four-times-then-oom": case_preempted_four_times_then_oom,
    "resume-reclaimed-then-crash-loop": case_reclaimed_resumed_then_crash_loop,
    "resume-preempted-for-the-run-that-ended": case_preempted_for_the_run_that_ended,
}
