"""Following one workload (`f` on a diagnosis): what to read every interval to know it changed, and how to say
what changed.

A `Fingerprint` is what a follower compares from one read to the next: the workload's phase and its
`phaseUpdatedAt` (one read of the workload), its newest events (one events read), and, when Kubernetes can be
read, each container's restart count and when it last ended (one pods read and a pod read for each of at most
MAX_PODS pods). So a followed workload costs 3 Run:ai reads and up to MAX_PODS Kubernetes reads per interval,
each a single attempt (core.triage.pacing), plus one whole diagnosis when something changed.

Only Running, Degraded and Pending workloads are followed: a terminal phase (Failed, Completed, Stopped, ...)
does not change any more, and the others are on their way somewhere the next phase change will say.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.models.runai import TERMINAL_PHASES
from core.safety.untrusted import clean
from core.triage.pacing import polite

FOLLOWED = ("Running", "Degraded", "Pending")
EVENTS_READ = 20
MAX_PODS = 4


def follow_refusal(phase: str | None) -> str | None:
    """Why a workload in `phase` is not followed, in words; None when it is."""
    if phase in FOLLOWED:
        return None
    shown = clean(phase or "no phase", one_line=True, max_len=40)
    if phase in TERMINAL_PHASES:
        return f"{shown} is a final phase: the workload will not change any more, so there is nothing to follow"
    return f"f follows Running, Degraded and Pending workloads; this one is {shown}"


@dataclass(frozen=True, slots=True)
class Restart:
    pod: str
    container: str
    count: int
    at: datetime | None  # when the container last ended (its last state's finish), if known
    state: str = ""  # "running", "waiting: CrashLoopBackOff", "terminated: Error" ("": not said)
    since: datetime | None = None  # when it started running, for a running container


@dataclass(frozen=True, slots=True)
class Fingerprint:
    phase: str | None
    phase_updated_at: datetime | None
    events: tuple[tuple[datetime | None, str], ...] = ()  # (createdAt, reason) of the newest events, newest first
    restarts: tuple[Restart, ...] = ()
    restarts_read: bool = False  # False: not read this time (no Kubernetes access, or the pods list failed)
    problems: tuple[str, ...] = field(default=(), compare=False)  # reads that failed beside the essential one
    pods_unread: tuple[str, ...] = field(default=(), compare=False)  # pods whose read failed: counts unknown
    # The workload's conditions as Run:ai reports them ((type, status), sorted): a crash loop that ends turns
    # `Available` back to True without a phase change.
    conditions: tuple[tuple[str, str], ...] = ()


async def read_fingerprint(tier1: Any, workload_id: str, kube: Any = None) -> Fingerprint:
    """The workload's fingerprint now. The workload read must succeed (its failure is raised, for the pacer); a
    failed events, pods or pod read leaves that part out and is named in `problems`, never read as "nothing"."""
    problems: list[str] = []
    with polite():
        answers: list[Any] = await asyncio.gather(
            tier1.get_workload(workload_id), tier1.get_events(workload_id, limit=EVENTS_READ), return_exceptions=True
        )
        workload, events = answers
        if isinstance(workload, BaseException):
            raise workload
        newest: tuple[tuple[datetime | None, str], ...] = ()
        if isinstance(events, BaseException):
            problems.append(f"events ({type(events).__name__})")
        else:
            newest = tuple((e.created_at, clean(e.reason or "event", one_line=True, max_len=60)) for e in events.items)
        restarts: tuple[Restart, ...] = ()
        unread: tuple[str, ...] = ()
        counted = False  # restart counts read this time (Kubernetes can be read, and the pods list was)
        if kube is not None and workload.namespace:
            try:
                pods = await tier1.get_pods(workload_id, limit=MAX_PODS)
            except Exception as exc:  # said, and restarts stay unread this time
                problems.append(f"pods ({type(exc).__name__})")
            else:
                counted = True
                names = [p.name for p in pods.items if p.name][:MAX_PODS]
                read = await asyncio.gather(*(kube.pod(workload.namespace, name) for name in names))
                restarts = tuple(r for pod in read for r in _restarts(pod))
                unread = tuple(n for n, pod in zip(names, read, strict=True) if _missing(pod))
                problems += [f"pod {n}" for n in unread]
    conditions = tuple(sorted((clean(c.type or "", one_line=True, max_len=60), clean(c.status or "", max_len=20))
                              for c in workload.conditions or ()))
    return Fingerprint(workload.phase, workload.phase_updated_at, newest, restarts, counted, tuple(problems), unread,
                       conditions)


def _missing(pod: Any) -> bool:
    return getattr(pod, "status", None) is None and hasattr(pod, "why")


def _restarts(pod: Any) -> list[Restart]:
    status = getattr(pod, "status", None)
    meta = getattr(pod, "metadata", None)
    if status is None or meta is None:
        return []
    out = []
    for cs in status.container_statuses or []:
        last = cs.last_state.terminated if cs.last_state is not None else None
        state, since = _state(cs.state)
        out.append(Restart(meta.name or "", cs.name or "", cs.restart_count or 0, last.finished_at if last else None,
                           state, since))
    return out


def _state(state: Any) -> tuple[str, datetime | None]:
    if state is None:
        return "", None
    if state.running is not None:
        return "running", state.running.started_at
    if state.waiting is not None:
        return f"waiting: {clean(state.waiting.reason or 'unknown', one_line=True, max_len=60)}", None
    if state.terminated is not None:
        return f"terminated: {clean(state.terminated.reason or 'unknown', one_line=True, max_len=60)}", None
    return "", None


def _clock(at: datetime | None) -> str:
    return at.strftime("%H:%M:%S") if at is not None else "an unknown time"


def what_changed(before: Fingerprint, now: Fingerprint) -> list[str]:
    """What moved between two fingerprints, in a few words each (empty: nothing did). Any change is a reason to
    diagnose again; the words name the phase change and the restarts, else the new events."""
    out: list[str] = []
    if (before.phase, before.phase_updated_at) != (now.phase, now.phase_updated_at):
        out.append(f"phase {clean(now.phase or 'none', one_line=True, max_len=40)} at {_clock(now.phase_updated_at)}")
    old = {(r.pod, r.container): r.count for r in before.restarts}
    was = {(r.pod, r.container): r.state for r in before.restarts}
    for r in now.restarts:
        # A pod not read last time (its read failed, or no Kubernetes then) has no count to compare with.
        unknown = not before.restarts_read or r.pod in before.pods_unread
        if r.count > old.get((r.pod, r.container), r.count if unknown else 0):
            out.append(f"restart {r.count} at {_clock(r.at)}")
        elif r.state == "running" and was.get((r.pod, r.container), "running") not in ("running", ""):
            # Back up after a crash (its restart counted before): the recovery is news of its own.
            out.append(f"container {r.container} running again since {_clock(r.since)}")
    if not out and before.conditions != now.conditions:
        changed = sorted(set(now.conditions) - set(before.conditions))
        out.append("condition " + ", ".join(f"{kind}={status}" for kind, status in changed) if changed else
                   "conditions changed")
    seen = set(before.events)
    fresh = [e for e in now.events if e not in seen]
    # New events are said when nothing else changed: a restart or a phase change brings its own events.
    if fresh and before.events != now.events and not out:
        reasons = sorted({reason for _, reason in fresh})
        many = f"{len(fresh)} new events" if len(fresh) > 1 else "a new event"
        out.append(f"{many} ({', '.join(reasons[:3])}) at {_clock(fresh[0][0])}")
    return out
