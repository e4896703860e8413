"""Scheduling policy: an idle-GPU timeout, a maximum duration (or the pod's activeDeadlineSeconds), a manual
stop (the seed's SCHEDULING_POLICY_TERMINATED).

Run:ai's wording when a project's scheduling rule fires is unverified, so idle, duration and manual-stop words
are matched broadly, but only when no stronger failure signal was found in the same text. A stop "by" a system
component (the scheduler, a policy) names no person.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, rx

K = SignalKind
_DEADLINE_RE = rx(r"active (?:on the node )?longer than (?:the )?specified deadline")
_IDLE_RE = rx(r"\bidle\b|idle[\s_-]?(?:gpu|time|timeout|duration)|maxidle")
_DURATION_RE = rx(
    r"duration[\s_-]?limit|time[\s_-]?limit"
    r"|max(?:imum)?[\s_-]?(?:run[\s_-]?)?(?:duration|run[\s_-]?time|runtime)"
    r"|jobtimelimit|exceeded (?:its|the) (?:maximum |allowed )?(?:run[\s-]?time|runtime|duration)"
    r"|run[\s-]?time limit"
)
_MANUAL_RE = rx(
    r"manually stopped|stopped manually|desired[\s_-]?phase[\s\"':=]{0,4}stopped|stop(?:ped)? requested by"
    r"|user requested (?:a )?stop"
)
_STOPPED_BY_RE = rx(r"\bstop(?:ped)?(?: requested)? by (?:the )?(?:user )?[\"']?([^\s\"',;()]{1,128})")
_SYSTEM_ACTORS = frozenset(
    {
        "scheduler", "kai-scheduler", "runai-scheduler", "system", "policy", "rule", "controller", "kubelet",
        "the", "a", "an", "timeout", "idle", "preemption", "admin-policy", "scheduling",
    }
)
# A policy word next to any of these is not the reason the workload ended.
STRONGER: frozenset[SignalKind] = frozenset(
    {
        K.OOM_KILLED, K.NODE_OOM_KILLING, K.GPU_OOM, K.IMAGE_PULL, K.MOUNT_FAILED, K.START_ERROR,
        K.CREATE_CONTAINER_CONFIG_ERROR, K.LIVENESS_KILL, K.EVICTED, K.NODE_LOST, K.NODE_NOT_READY, K.NODE_DRAIN,
        K.PREEMPTED, K.DEADLINE_EXCEEDED, K.CRASH_LOOP, K.ADMISSION_DENIED, K.CONTROL_PLANE,
    }
)


def match(t: Text, out: Collector) -> None:
    r, m = t.r, t.m
    if not t.scheduling and (r == "deadlineexceeded" or _DEADLINE_RE.search(m)):
        out.add(K.DEADLINE_EXCEEDED, reason="DeadlineExceeded")
    if out.has_any(STRONGER):
        return
    if _IDLE_RE.search(m) or _IDLE_RE.search(r):
        out.add(K.POLICY_IDLE_TIMEOUT, reason=r or None)
    if _DURATION_RE.search(m) or _DURATION_RE.search(r):
        out.add(K.POLICY_MAX_DURATION, reason=r or None)
    if out.has_any({K.POLICY_IDLE_TIMEOUT, K.POLICY_MAX_DURATION}):
        return
    actor_match = _STOPPED_BY_RE.search(m)
    actor = actor_match.group(1).rstrip(".:") if actor_match else None
    if actor is not None and actor.lower() in _SYSTEM_ACTORS:
        actor = None
    if _MANUAL_RE.search(m) or actor is not None:
        out.add(K.MANUAL_STOP, reason=r or None, actor=actor)


EXAMPLES = (
    example("DeadlineExceeded", "Pod was active on the node longer than the specified deadline", K.DEADLINE_EXCEEDED),
    example(None, "Workload was stopped: GPU idle time exceeded the project's limit", K.POLICY_IDLE_TIMEOUT),
    example(None, "JobMaxIdleDurationSeconds reached", K.POLICY_IDLE_TIMEOUT),
    example(None, "Workload stopped due to idle GPU", K.POLICY_IDLE_TIMEOUT),
    example(None, "Workload reached the duration limit set by the scheduling rules", K.POLICY_MAX_DURATION),
    example(None, "Training exceeded its run time and was stopped", K.POLICY_MAX_DURATION),
    example(None, "Time limit reached (JobTimeLimitSeconds=3600)", K.POLICY_MAX_DURATION),
    example(None, "Maximum duration of 24h exceeded", K.POLICY_MAX_DURATION),
    example(None, "Workload stopped by user alice", K.MANUAL_STOP, actor="alice"),
    example(None, "Workload was manually stopped", K.MANUAL_STOP, actor=None),
    example(None, "desiredPhase: Stopped", K.MANUAL_STOP),
    example(None, "Workload stopped by the scheduler", None),
    example(None, "Waiting for resources", None),
    example("Completed", "Job completed", None),
)

FAMILY = Family(
    name="policy",
    kinds=frozenset({K.DEADLINE_EXCEEDED, K.POLICY_IDLE_TIMEOUT, K.POLICY_MAX_DURATION, K.MANUAL_STOP}),
    match=match,
    examples=EXAMPLES,
    rows={k: "policy" for k in (K.DEADLINE_EXCEEDED, K.POLICY_IDLE_TIMEOUT, K.POLICY_MAX_DURATION, K.MANUAL_STOP)},
)
