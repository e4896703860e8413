"""Step 1's preemption check, for the run that ended: a preemption that routes out is one after which the
workload did not run again (issue 31).

A preemption followed by a resume (the workload Running again, a container started) is history: it is said in
the report, and the failure that ended the workload is diagnosed. Step 1 sees only the workload and its events:
it takes back a preemption the workload's own phase or events show it ran after; when a failure is dated after
the last preemption it cannot tell yet, and leaves the decision to the history (Step 3).
"""

from __future__ import annotations

import re
from datetime import timedelta

from core.diagnosis.findings import Collect
from core.diagnosis.history_analysis import FAILING_KINDS
from core.diagnosis.marks import Mark, event_mark, workload_marks
from core.diagnosis.observations import Observation, quote
from core.diagnosis.route_reasons import Route
from core.diagnosis.rules import RULES, is_preempted
from core.diagnosis.signals import SignalKind
from core.diagnosis.supersede import Supersession
from core.models.runai import Workload, WorkloadEvent

STATUS = "get_workload_status"

# What could end a run (a failure, a policy's stop) dated after a preemption says the workload may have run
# again in between; what a preemption brings (its kills, a back-off) does not.
_AFTER_PREEMPTION = (FAILING_KINDS | frozenset(k for rule in RULES for k in rule.kinds)) - {
    SignalKind.SIGKILLED,
    SignalKind.SIGTERMED,
    SignalKind.CRASH_LOOP,
}
_PREEMPTION_SLACK = timedelta(minutes=1)


def failed_after_preemption(observations: list[Observation]) -> bool:
    """A failure dated after the last preemption the status shows: the workload may have run again in between
    (the history says), so the preemption may not be what ended it."""
    preempted = [o.at for o in observations if o.kind is SignalKind.PREEMPTED and o.at is not None]
    if not preempted:
        return False
    last = max(preempted)
    return any(o.kind in _AFTER_PREEMPTION and o.at is not None and o.at > last + _PREEMPTION_SLACK
               for o in observations)


def status_marks(w: Workload, events: tuple[WorkloadEvent, ...]) -> tuple[Mark, ...]:
    """What the workload and its events show done: a move to Running, an image pulled, a container started."""
    found = workload_marks(w, STATUS)
    for event in events:
        obj = event.involved_object
        mark = event_mark(event.reason, event.message, event.created_at, STATUS, obj.kind if obj else None,
                          obj.name if obj else None)
        if mark is not None:
            found.append(mark)
    return tuple(found)


def after_resume(route: Route | None, sup: Supersession) -> Route | None:
    """A workload running again after a preemption: the run the preemption ended is the preemption skill's."""
    ended = [r for r in sup.resolved if r.obs.kind is SignalKind.PREEMPTED and r.obs.at is not None]
    if route is None or route.outcome != "running" or not ended:
        return route
    last = max(ended, key=lambda r: r.obs.at)  # type: ignore[arg-type, return-value]
    assert last.obs.at is not None
    return Route(
        route.outcome,
        f"{route.reason}; its preemption at {last.obs.at.isoformat()} was followed by a resume "
        f"({last.mark.what}, {last.mark.at.isoformat()}): history, not a failure",
        route.next_action
        + (
            " The run that preemption ended is not a failure: diagnose it as a preemption (the scheduler stopped "
            "it to free resources) if that is the run you mean."
        ),
    )


_PREEMPTED_BY = re.compile(r"preempted by (?:higher priority )?workload ([\w./-]*\w)", re.IGNORECASE)


def preemption_route(observations: list[Observation], reason: str, found: Collect) -> Route | None:
    """A preemption signal means this is the wrong skill: cite it and route to preemption diagnosis."""
    hits = is_preempted(observations)
    if not hits:
        return None
    found.observed(hits, "preempted")
    # Say who took the resources only when an event read names them (KAI: "preempted by ... workload ns/pg").
    taker = next((m.group(1) for o in hits if (m := _PREEMPTED_BY.search(o.text))), None)
    who = (
        f"The events read name the workload that took the resources: {quote(taker, 120)}."
        if taker
        else "The events read do not name what took the resources (a reclaim, a consolidation, or a condition "
        "alone); the scheduler's events on the workload's PodGroup, or an administrator, can say."
    )
    return Route(
        "preempted",
        reason,
        "Diagnose it as a preemption, not a failure: the scheduler stopped it to free resources for other "
        f"work. {who} Ask an administrator about the project's quota and priority if it keeps happening.",
    )
