"""The signals a later event took back, as the report tells them: one item per kind of signal and pod, what it
was, when, what took it back and how long the run that followed lasted ("the image pull error of 10:25 was
resolved at 10:31 (image pulled); the container then ran 58 min").

Preemptions are told together, one per resume: the scheduler's event, the pod's condition and Run:ai's record of
one preemption are one cycle, and so are the kills it brought.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from core.diagnosis.marks import Mark, Step
from core.diagnosis.observations import quote
from core.diagnosis.signals import SignalKind
from core.diagnosis.signals.image_pull import PULL_LABELS
from core.diagnosis.supersede import Resolved, Supersession
from core.models.report import SupersededSignal
from core.plural import duration, plural

K = SignalKind
_WHAT = {
    Step.NODE_READY: "node NotReady",
    Step.MOUNTED: "volume mount failure",
    Step.SANDBOX: "pod sandbox failure",
    Step.INIT_DONE: "init container failure",
    Step.PULLED: "image pull error",
    Step.CREATED: "container configuration error",
    Step.STARTED: "container start error",
    Step.RUNNING: "preemption",
}
# How many times of a repeated signal the sentence lists.
_TIMES_SHOWN = 4
# Signals this close to the one before are the same attempt (a pull's Failed, ErrImagePull, BackOff events).
_SAME_ATTEMPT = timedelta(minutes=2)


def _clock(at: datetime, ref: datetime | None) -> str:
    """`10:25` on the reference's day, `11-27 09:12` on another (UTC, as every time of the report), to the
    nearest minute."""
    at = at + timedelta(seconds=30)
    at_utc = at.astimezone(ref.tzinfo) if ref is not None and ref.tzinfo is not None else at
    if ref is not None and at_utc.date() == ref.date():
        return at_utc.strftime("%H:%M")
    return at_utc.strftime("%m-%d %H:%M")


def _what(item: Resolved) -> str:
    sig = item.obs.signal
    if item.obs.kind is K.IMAGE_PULL:
        return "init container image pull error" if sig.init else "image pull error"
    if item.obs.kind is K.START_ERROR and sig.init:
        return "init container start error"
    return _WHAT[item.step]


def _detail(item: Resolved) -> str | None:
    sig = item.obs.signal
    if sig.pull_kind is not None and sig.pull_kind in PULL_LABELS:
        return PULL_LABELS[sig.pull_kind]
    if sig.kind is K.SANDBOX_FAILED and sig.note:
        return sig.note
    if sig.kind is K.INIT_FAILED and sig.container:
        code = f", exit {sig.exit_code}" if sig.exit_code is not None else ""
        return f"container {quote(sig.container, 80)}{code}"
    if sig.kind is K.MOUNT_FAILED and sig.resource:
        return quote(sig.resource, 120)
    if sig.kind is K.NODE_NOT_READY and item.obs.node:
        return f"node {quote(item.obs.node, 120)}"
    return None


def _run_start(mark: Mark, pod: str | None, marks: Sequence[Mark], until: datetime) -> Mark | None:
    """The start of the run that followed the mark (the last container start or move to Running after it, on
    the same pod or the workload), up to `until`."""
    runs = [
        m
        for m in marks
        if m.step in (Step.STARTED, Step.RUNNING)
        and mark.at <= m.at <= until
        and (m.pod is None or pod is None or m.pod == pod)
        and m.init is not True
    ]
    if runs:
        return max(runs, key=lambda m: m.at)
    return mark if mark.step in (Step.STARTED, Step.RUNNING) else None


def _ran(start: Mark | None, end: datetime | None, now: datetime, who: str) -> str:
    seconds = _seconds(start, end, now)
    if seconds is None:
        return ""
    if end is None:
        return f"; {who} has been running {duration(seconds)} since"
    return f"; {who} then ran {duration(seconds)} up to the failure"


def _times(times: Sequence[datetime], ref: datetime | None) -> str:
    shown = [_clock(t, ref) for t in times[:_TIMES_SHOWN]]
    more = f" and {len(times) - _TIMES_SHOWN} more" if len(times) > _TIMES_SHOWN else ""
    return ", ".join(shown) + more


def _preemptions(items: Sequence[Resolved], sup: Supersession, end: datetime | None, now: datetime) -> SupersededSignal:
    signals = [r for r in items if r.obs.kind is K.PREEMPTED]
    by_resume: dict[datetime, list[Resolved]] = {}
    for r in signals:
        by_resume.setdefault(r.mark.at, []).append(r)
    cycles = sorted(by_resume)
    first_of = [min(t for r in by_resume[c] if (t := r.obs.at) is not None) for c in cycles]
    last = max(signals, key=lambda r: r.mark.at)
    # The run since the last resume: the workload's move to Running, not a container's latest restart.
    start = last.mark if last.mark.step is Step.RUNNING else _run_start(last.mark, None, sup.marks, end or now)
    ref = end or now
    count = len(cycles)
    resumed = f"{_clock(last.mark.at, ref)} ({last.mark.what})"
    if count == 1:
        text = f"preempted at {_times(first_of, ref)} and run again from {resumed}{_ran(start, end, now, 'it')}"
    else:
        text = (
            f"preempted {plural(count, 'time')} ({_times(first_of, ref)}), each time requeued and run again, "
            f"last from {resumed}{_ran(start, end, now, 'the last run')}"
        )
    text += "; a preemption is not a failure and is not counted"
    return SupersededSignal(
        what="preemption", count=count, first_at=min(first_of), last_at=max(first_of), resolved_at=last.mark.at,
        resolved_by=last.mark.what, resolved_source=last.mark.source,
        ran_seconds=_seconds(start, end, now), evidence=last.obs.text, source=last.obs.source, text=text,  # type: ignore[arg-type]
    )


def _seconds(start: Mark | None, end: datetime | None, now: datetime) -> int | None:
    if start is None:
        return None
    seconds = int(((end or now) - start.at).total_seconds())
    return seconds if seconds >= 0 else None


def _attempts(times: Sequence[datetime]) -> list[datetime]:
    """The first time of each attempt: times within `_SAME_ATTEMPT` of the one before are one attempt."""
    out: list[datetime] = []
    previous: datetime | None = None
    for at in times:
        if previous is None or at - previous > _SAME_ATTEMPT:
            out.append(at)
        previous = at
    return out


def _one(items: Sequence[Resolved], sup: Supersession, end: datetime | None, now: datetime) -> SupersededSignal:
    raw = sorted({t for r in items if (t := r.obs.at) is not None})
    attempts = _attempts(raw)
    newest_first = sorted(items, key=lambda r: (r.obs.at is not None, r.obs.at, r.mark.at), reverse=True)
    last = newest_first[0]
    what, ref = _what(last), end or now
    detail = next((d for r in newest_first if (d := _detail(r))), None)
    first, final = (_clock(raw[0], ref), _clock(raw[-1], ref)) if raw else ("an unknown time", "")
    span = first if first == final or not final else f"{first}-{final}"
    seen = f"{len(attempts)} attempts" if len(attempts) > 1 else ""
    about = ", ".join(part for part in (detail, seen) if part)
    pod = last.obs.pod
    start = None if last.step is Step.NODE_READY else _run_start(last.mark, pod, sup.marks, ref)
    who = "the workload" if start is not None and start.step is Step.RUNNING else "the container"
    text = (
        f"the {what} of {span}{f' ({about})' if about else ''} was resolved at {_clock(last.mark.at, ref)} "
        f"({last.mark.what}){_ran(start, end, now, who)}"
    )
    return SupersededSignal(
        what=what, count=len(attempts) or 1, first_at=raw[0] if raw else None, last_at=raw[-1] if raw else None,
        resolved_at=last.mark.at, resolved_by=last.mark.what, resolved_source=last.mark.source,
        ran_seconds=_seconds(start, end, now), pod=pod, node=last.obs.node, evidence=last.obs.text,
        source=last.obs.source, text=text,  # type: ignore[arg-type]
    )


def history_items(sup: Supersession, end: datetime | None, now: datetime) -> list[SupersededSignal]:
    """What the report says of the signals taken back, oldest first: one item per kind and pod."""
    groups: dict[tuple[Step, str | None, str], list[Resolved]] = {}
    for item in sup.resolved:
        if item.step is Step.RUNNING:
            key = (Step.RUNNING, None, "preemption")
        else:
            key = (item.step, item.obs.pod or item.obs.node, _what(item))
        groups.setdefault(key, []).append(item)
    out: list[SupersededSignal] = []
    for (step, _, _), items in groups.items():
        if step is Step.RUNNING:
            if any(r.obs.kind is K.PREEMPTED for r in items):
                out.append(_preemptions(items, sup, end, now))
        else:
            out.append(_one(items, sup, end, now))
    return sorted(out, key=lambda s: (s.first_at is None, s.first_at, s.what))
