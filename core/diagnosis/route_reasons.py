"""Why a Pending workload is routed out, in the words of the evidence that decided it.

A `pending` outcome cites its decisive scheduling evidence: the newest scheduler event ("0/12 nodes are
available: 12 Insufficient nvidia.com/gpu ..."), else Run:ai's pending scheduling message, else the phase
message, quoted with its source. When the API server refused to create the pods (an admission webhook, a
ResourceQuota, a LimitRange), no pod exists to schedule: the reason names what refused it and its message, and
the next action says the wait will not end by itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.diagnosis.observations import Observation, quote
from core.diagnosis.signals import SignalKind
from core.models.advice import Said
from core.models.runai import Workload, WorkloadEvent

STATUS = "get_workload_status"


@dataclass(frozen=True, slots=True)
class Route:
    """The workload is routed out: the report's outcome, why, and what to do next."""

    outcome: str
    reason: str
    next_action: str | Said  # in parts when it offers an action (a flag on the command line, a key in the app)

_REFUSED = frozenset({SignalKind.ADMISSION_DENIED, SignalKind.CONTROL_PLANE})


def _scheduling_event(events: Sequence[WorkloadEvent]) -> WorkloadEvent | None:
    """The newest event that is the scheduler's (FailedScheduling, Unschedulable, "N/M nodes are available")."""
    scheduler = {"failedscheduling", "unschedulable"}
    found = [e for e in events if (e.reason or "").lower() in scheduler or "nodes are available" in (e.message or "")]
    if not found:
        return None
    dated = [e for e in found if e.created_at is not None]
    return max(dated, key=lambda e: e.created_at) if dated else found[0]  # type: ignore[arg-type, return-value]


def pending_route(
    w: Workload, events: Sequence[WorkloadEvent], observations: Sequence[Observation]
) -> tuple[str, str]:
    """(reason, next action) for a Pending workload with no failed-pod signal."""
    refused = [o for o in observations if o.kind in _REFUSED]
    if refused:
        top = refused[0]
        return (
            f"Pending, and no pod was ever created: {quote(top.signal.detail, 400)} (source: {top.source})",
            "This is not a wait for resources: the API server refuses to create the workload's pods, so it stays "
            "Pending until what refused them changes (see the findings).",
        )
    event = _scheduling_event(events)
    if event is not None:
        what = " ".join(part for part in (event.reason, event.message) if part)
        evidence = f'"{quote(what, 400)}" (source: {STATUS}, event)'
    elif messages := [m for m in (w.pending_scheduling_messages or ()) if m.reason or m.user_message]:
        first = messages[0]
        what = " ".join(part for part in (first.reason, first.user_message) if part)
        evidence = f'"{quote(what, 400)}" (source: {STATUS}, pendingSchedulingMessages)'
    elif w.phase_message or w.phase_reason:
        what = " ".join(part for part in (w.phase_reason, w.phase_message) if part)
        evidence = f'"{quote(what, 400)}" (source: {STATUS}, phase)'
    else:
        return (
            "Pending, and nothing read says why (no scheduler event, pending scheduling message, phase message or "
            "failed-pod signal in its status)",
            "Route to Pending-workload diagnosis: nothing shows a pod failing to start.",
        )
    return (
        f"Pending with only scheduling or resource-wait evidence: {evidence}",
        "Route to Pending-workload diagnosis: nothing shows a pod failing to start.",
    )
