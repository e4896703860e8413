"""A crash loop dated from its last crash: when it last crashed, since when it has been crashing, how often.

The failure being diagnosed in a crash loop is its last crash, not the phase change a workload made hours or
days before ("Running since"). It is read, most precise first, from the container's
`lastState.terminated.finishedAt`, else from the newest back-off event (the kubelet's, aggregated: `series
.lastObservedTime`, `lastTimestamp`; or Run:ai's). How long the loop has gone on is read from the oldest
back-off known (an aggregated event's `firstTimestamp` or `eventTime` reaches further back than any event list
or history page does), the restart count from the container's `restartCount`. A loop whose last run exited 0
is a program that ends under a policy that starts it again (`restartPolicy: Always`): no crash in the
taxonomy's sense, and the report says so.

Kubernetes events that should exist are "likely expired" only when the newest of them is older than the API
server's event TTL: a crash loop keeps its back-off event fresh, so its events are minutes old, whatever its age.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis.observations import Observation, quote
from core.diagnosis.signals import SignalKind
from core.models.kube import ContainerStatus, K8sEvent, K8sPod
from core.models.report import CrashLoopCount, MissingItem
from core.plural import duration, plural
from core.sources.kube_types import EVENTS_TTL, LogExcerpt

EVENTS = "kubectl get events"
DESCRIBE_POD = "kubectl describe pod"
# The kubelet's back-off before restarting a crashed container (not an image pull's back-off).
_RESTART_BACK_OFF_RE = re.compile(r"back-?off restarting failed container", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Dated:
    at: datetime
    what: str  # where the time was read: "lastState.terminated.finishedAt of container main", ...
    source: str = DESCRIBE_POD  # the read it came from, in the seed's names


@dataclass(frozen=True, slots=True)
class CrashLoop:
    """What the evidence says about a crash loop; any part may be unknown (None)."""

    container: str | None
    restarts: int | None
    last_crash: Dated | None
    newest_back_off: Dated | None  # the newest event of the loop that should still exist
    since: Dated | None  # the oldest crash or back-off known
    back_offs: int | None  # how many back-offs the aggregated event counted
    last_exit: int | None = None  # the exit code of its last run
    last_reason: str | None = None  # and the kubelet's reason for it (`Completed`, `Error`)
    policy: str | None = None  # the pod's restartPolicy
    events_read: int = 0  # the back-off events read from Run:ai, at distinct times

    @property
    def exits_zero(self) -> bool:
        """Its last run ended with exit 0 and the pod's policy restarts a container that succeeds (only
        `restartPolicy: Always` does; an unread policy that restarted it is that one): it is restarted for
        ending, not for failing."""
        return self.last_exit == 0 and self.policy not in {"OnFailure", "Never"}

    @property
    def newest_event(self) -> datetime | None:
        times = [d.at for d in (self.last_crash, self.newest_back_off) if d is not None]
        return max(times) if times else None


def span(delta: timedelta) -> str:
    """`31 s`, `7 min`, `3 h 0 min`, `2 d 23 h`."""
    seconds = max(int(delta.total_seconds()), 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h"


def _looping(status: ContainerStatus) -> bool:
    waiting = status.state.waiting if status.state is not None else None
    crash_waiting = waiting is not None and (waiting.reason or "") == "CrashLoopBackOff"
    last = status.last_state.terminated if status.last_state is not None else None
    return crash_waiting or ((status.restart_count or 0) > 0 and last is not None)


def _container(pod: K8sPod | None) -> ContainerStatus | None:
    """The container of the loop: the crash-looping one with the most restarts."""
    status = pod.status if pod is not None else None
    if status is None:
        return None
    looping = [c for c in (status.container_statuses or []) + (status.init_container_statuses or []) if _looping(c)]
    return max(looping, key=lambda c: c.restart_count or 0) if looping else None


def _event_last(event: K8sEvent) -> datetime | None:
    series = event.series.last_observed_time if event.series is not None else None
    return series or event.last_timestamp or event.event_time or event.first_timestamp


def _event_first(event: K8sEvent) -> datetime | None:
    # An events.k8s.io event's `eventTime` is its first occurrence when a `series` counts the repeats.
    return event.first_timestamp or event.event_time or event.last_timestamp


def read_loop(pod: K8sPod | None, events: Sequence[K8sEvent], observations: Sequence[Observation]) -> CrashLoop | None:
    """The crash loop the pod, its Kubernetes events and the Run:ai evidence show, or None when none shows one."""
    status = _container(pod)
    back_offs = [e for e in events if (e.reason or "") == "BackOff" and _RESTART_BACK_OFF_RE.search(e.message or "")]
    runai = sorted(
        (o for o in observations if o.kind is SignalKind.CRASH_LOOP and o.at is not None and o.source != EVENTS),
        key=lambda o: o.at,  # type: ignore[arg-type,return-value]
    )
    if status is None and not back_offs and not runai:
        return None
    container = quote(status.name, 80) if status is not None and status.name else None
    last_crash = None
    ended = None
    if status is not None and status.last_state is not None and status.last_state.terminated is not None:
        ended = status.last_state.terminated
        if ended.finished_at is not None:
            last_crash = Dated(ended.finished_at, f"lastState.terminated.finishedAt of container {container}")
    if status is not None and status.state is not None and status.state.terminated is not None:
        finished = status.state.terminated.finished_at
        if finished is not None and (last_crash is None or finished > last_crash.at):
            ended = status.state.terminated
            last_crash = Dated(finished, f"state.terminated.finishedAt of container {container}")
    newest = oldest = None
    count = None
    stamped = [(e, _event_last(e)) for e in back_offs]
    stamped = [(e, at) for e, at in stamped if at is not None]
    if stamped:
        event, at = max(stamped, key=lambda pair: pair[1])
        newest = Dated(at, "the kubelet's newest back-off event", EVENTS)
        count = event.occurrences
        firsts = [f for e, _ in stamped if (f := _event_first(e)) is not None]
        if firsts:
            oldest = Dated(min(firsts), "the first back-off of the kubelet's aggregated event", EVENTS)
    if runai:
        late, early = runai[-1], runai[0]
        assert late.at is not None and early.at is not None
        if newest is None or late.at > newest.at:
            newest = Dated(late.at, f"the newest back-off event ({late.source})", late.source)
        if oldest is None or early.at < oldest.at:
            oldest = Dated(early.at, f"the oldest back-off event read ({early.source})", early.source)
    if last_crash is not None and (oldest is None or last_crash.at < oldest.at):
        oldest = last_crash  # the loop is at least as old as its last crash
    restarts = status.restart_count if status is not None else None
    policy = pod.spec.restart_policy if pod is not None and pod.spec is not None else None
    return CrashLoop(
        container, restarts, last_crash, newest, oldest, count,
        ended.exit_code if ended is not None else None,
        quote(ended.reason, 40) if ended is not None and ended.reason else None,
        quote(policy, 20) if policy else None, len({o.at for o in runai}),
    )


def newest_of(loop: CrashLoop | None, failed_at: datetime | None) -> datetime | None:
    """The newest event that should exist: the loop's newest crash or back-off, or the failure's own time."""
    times = [t for t in (loop.newest_event if loop is not None else None, failed_at) if t is not None]
    return max(times) if times else None


def last_crash_at(loop: CrashLoop | None) -> datetime | None:
    """When the loop last crashed: the container's end, else its newest back-off (which follows the crash)."""
    if loop is None:
        return None
    dated = loop.last_crash or loop.newest_back_off
    return dated.at if dated is not None else None


# A crash after a restart: the least that is a loop rather than a one-off.
LOOPING = 2


def loop_count(loop: CrashLoop | None, now: datetime, ended: bool) -> CrashLoopCount | None:
    """The loop as recurrence says it (`crash loop: 7 restarts in 40 min`), or None when nothing shows the
    container crashing again after a restart (two restarts or back-offs): how long it went on runs from the
    oldest crash or back-off known to now while the workload is live, to its newest crash when it has ended."""
    if loop is None:
        return None
    back_offs = loop.back_offs or loop.events_read or None
    # One restart is one crash the container came back from; a loop is a crash after a restart.
    if (loop.restarts or 0) < LOOPING and (back_offs or 0) < LOOPING:
        return None
    end = loop.newest_event if ended else now
    seconds = None
    if loop.since is not None and end is not None:
        seconds = max(int((end - loop.since.at).total_seconds()), 0)
    crash = loop.last_crash or loop.newest_back_off
    return CrashLoopCount(
        container=loop.container,
        restarts=loop.restarts,
        back_offs=back_offs,
        since=loop.since.at if loop.since is not None else None,
        last_crash=crash.at if crash is not None else None,
        seconds=seconds,
    )


def loop_source(loop: CrashLoop) -> str:
    """The read the loop's dating rests on: the pod when it gave the restarts or the crash, else the event's."""
    if loop.restarts is not None or loop.last_crash is not None:
        return DESCRIBE_POD
    return loop.newest_back_off.source if loop.newest_back_off is not None else DESCRIBE_POD


def loop_text(loop: CrashLoop, now: datetime) -> str | None:
    """The evidence line of a crash loop: restarts, last crash and its age, how long it has gone on."""
    if loop.restarts is None and loop.last_crash is None and loop.newest_back_off is None:
        return None
    parts = []
    who = f"container {loop.container}" if loop.container else "the container"
    if loop.restarts is not None:
        times = "time" if loop.restarts == 1 else "times"  # the count as the pod gives it
        parts.append(f"{who} restarted {loop.restarts} {times} (restartCount)")
    else:
        parts.append(f"{who}'s restart count was not read (Kubernetes keeps it)")
    crash = loop.last_crash or loop.newest_back_off
    if crash is not None:
        label = "last crash" if loop.last_crash is not None else "last crash at or before"
        parts.append(f"{label} {crash.at.isoformat()} ({crash.what}), {span(now - crash.at)} before the diagnosis")
    if loop.exits_zero:
        parts.append(exits_zero_text(loop))
    if loop.since is not None:
        seen = f", an event seen {plural(loop.back_offs, 'time')}" if loop.back_offs else ""
        parts.append(
            f"crash-looping for {span(now - loop.since.at)} at least (since {loop.since.at.isoformat()}, "
            f"{loop.since.what}{seen})"
        )
    return "Crash loop: " + "; ".join(parts)


def instance_end(pod: K8sPod | None, excerpt: LogExcerpt) -> datetime | None:
    """When the container instance whose log was read ended (its lines cannot be later), or None."""
    status = pod.status if pod is not None else None
    if status is None:
        return None
    for item in (status.container_statuses or []) + (status.init_container_statuses or []):
        if item.name != excerpt.container:
            continue
        state = item.last_state if excerpt.previous else item.state
        term = state.terminated if state is not None else None
        return term.finished_at if term is not None else None
    return None


def exits_zero_text(loop: CrashLoop) -> str:
    """A loop whose last run exited 0: the program ends, and the pod's policy starts it again."""
    reason = f", {loop.last_reason}" if loop.last_reason else ""
    if loop.policy == "Always":
        return f"it keeps exiting 0 (last exit 0{reason}) under restartPolicy Always, which restarts it all the same"
    return (
        f"it keeps exiting 0 (last exit 0{reason}) and is restarted all the same: only restartPolicy Always "
        "restarts a container that exits 0"
    )


def _age(age: timedelta) -> str:
    """How old, in the unit a person reads it in (`45 min`, `3 h 5 min`, `4 days`), never `109 h 51 min`."""
    return duration(age.total_seconds())


def events_gap(what: str, newest: datetime | None, now: datetime, *, dropped: int = 0) -> MissingItem | None:
    """An empty events answer is a gap only when the newest event that should exist is older than the TTL: they
    have likely expired. Younger, an empty answer is what there is (a healthy node has no events)."""
    if newest is None or now - newest <= EVENTS_TTL:
        return None
    minutes = int(EVENTS_TTL.total_seconds() // 60)
    stale = f" ({dropped} events of an older pod with the same name were left out)" if dropped else ""
    why = (
        f"no events came back, and the failure ({newest.isoformat()}) is {_age(now - newest)} old: kube-apiserver "
        f"keeps events {minutes} min by default, so they have likely expired (not: nothing happened); Run:ai "
        f"history outlives them{stale}"
    )
    return MissingItem(what=what, why=why, source=EVENTS)
