"""Step 1: resolve the workload and check its phase.

Option A reads the workload and its events by id. Option B lists the submissions of a name in a project
(newest first, every page) and picks by intent: the most recent terminal one, or with `--active` the newest
Running or Pending one whose status confirms the failure. Then the seed's checks, in its order: the cluster,
preemption, and the phase rule. A check that routes the workload out returns a `Route`; nothing past Step 1 is
read for it. `events: null` (a failed events read) is a stated gap, never "no events".
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis.findings import Collect, Findings
from core.diagnosis.history_analysis import ENDING_PHASES
from core.diagnosis.marks import Mark
from core.diagnosis.observations import Observation, from_conditions, from_event, from_phase_message, quote
from core.diagnosis.reader import DiagnosisFailed, Reader, ReadFailure, Tier1
from core.diagnosis.recovery import recovered, recovery_words
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.route_reasons import Route, pending_route
from core.diagnosis.signals import SignalKind
from core.diagnosis.steps.cluster import check_cluster, same_cluster
from core.diagnosis.steps.preempted import after_resume, failed_after_preemption, preemption_route, status_marks
from core.diagnosis.steps.submissions import LIST, PAGE_LIMIT, Submissions, list_submissions
from core.diagnosis.supersede import NOTHING, Supersession, supersede
from core.models.advice import Action, Do, said
from core.models.pages import Page
from core.models.report import WorkloadRef
from core.models.runai import SEED_EXTRA_PHASES, WORKLOAD_PHASES, Cluster, Workload, WorkloadEvent
from core.plural import plural
from core.sources.errors import NotFoundError
from core.sources.namespace import NamespaceChoice

STATUS = "get_workload_status"
__all__ = ["LIST", "PAGE_LIMIT", "STATUS", "Route", "preemption_route"]
ACTIVE_CONFIRM_BATCH = 4
# "Recent" events are those around the last phase change; older ones describe earlier runs.
RECENT_BEFORE_PHASE_CHANGE = timedelta(minutes=10)
# Degraded (a running workload with failing pods) is Running's kind: in scope only with a confirmed crash.
ACTIVE_PHASES = frozenset({"Running", "Pending", "Degraded"})
SUCCESS_PHASES = frozenset({"Completed", "Succeeded"})
TERMINAL_FOR_SELECTION = ENDING_PHASES | SUCCESS_PHASES
# Direct failed-pod signals that keep a Pending workload in scope (the phase rule).
START_FAILURE_KINDS = frozenset(
    {
        SignalKind.IMAGE_PULL,
        SignalKind.MOUNT_FAILED,
        SignalKind.INIT_FAILED,
        SignalKind.CREATE_CONTAINER_CONFIG_ERROR,
        SignalKind.START_ERROR,
        SignalKind.OOM_KILLED,
        SignalKind.APP_EXIT,
        SignalKind.CRASH_LOOP,
        SignalKind.EVICTED,
        # The node under a bound pod: its runtime could not make the sandbox, it went NotReady or was lost.
        SignalKind.SANDBOX_FAILED,
        SignalKind.NODE_NOT_READY,
        SignalKind.NODE_LOST,
        SignalKind.DISRUPTION_TARGET,
    }
)
# What confirms a Running workload's failure: a crash loop or repeated container crashes.
CRASH_KINDS = frozenset(
    {
        SignalKind.CRASH_LOOP,
        SignalKind.APP_EXIT,
        SignalKind.OOM_KILLED,
        SignalKind.START_ERROR,
        SignalKind.INIT_FAILED,
        SignalKind.LIVENESS_KILL,
    }
)

Events = Page[WorkloadEvent] | ReadFailure | None


@dataclass(frozen=True, slots=True)
class Resolution:
    """The workload chosen and its events read (Step 1.1-1.2), or the route out when none can be chosen."""

    workload: Workload | None
    events: Events
    route: Route | None
    findings: Findings
    submissions: Submissions | None = None  # a lookup by name: every submission of the name, live and deleted


@dataclass(frozen=True, slots=True)
class StatusCheck:
    """Step 1.3-1.6: the workload's status observations, whether its events are known, and any route out."""

    events: tuple[WorkloadEvent, ...]
    events_failed: bool
    observations: tuple[Observation, ...]
    route: Route | None
    findings: Findings
    marks: tuple[Mark, ...] = ()  # what the status shows done (a container started, the workload running)
    superseded: Supersession = NOTHING  # the status signals a later event took back


# -- reading -----------------------------------------------------------------------------------------------
async def read_status(reader: Reader, t1: Tier1, workload_id: str) -> tuple[Workload | ReadFailure, Events]:
    """The seed's `get_workload_status`: the workload (which everything depends on) and its events, together.

    An object without a readable id of its own (absent, or given twice) is the one answered at the id asked
    for: the rest of the diagnosis reads by that id (its problem is still named)."""
    workload, events = await asyncio.gather(
        reader.tier1(1, STATUS, "workload status", lambda: t1.get_workload(workload_id), essential=True),
        reader.tier1(
            1, STATUS, "workload events", lambda: t1.get_events(workload_id, limit=PAGE_LIMIT, sort_order="desc")
        ),
    )
    if isinstance(workload, Workload) and not workload.id and workload_id:
        workload.id = workload_id
    return workload, events


async def resolve_on_cluster(
    reader: Reader, t1: Tier1, req: DiagnosisRequest, clusters: Awaitable[Page[Cluster] | ReadFailure]
) -> tuple[Resolution, DiagnosisRequest, Findings]:
    """Step 1's resolution with the cluster asked about checked against the tenant's list (read beside it):
    the request with the tenant's spelling of the cluster id, and what the check found. Only a cluster named by
    its name (or in other letters' case) makes a lookup by name read its list again, with the tenant's id; an
    unknown cluster is the better answer than a failed read, so it is raised first."""
    try:
        resolution = await resolve(reader, t1, req)
    except DiagnosisFailed:
        check_cluster(req.cluster_id, await clusters)
        raise
    checked = check_cluster(req.cluster_id, await clusters)
    if checked.cluster_id != req.cluster_id:
        req = dataclasses.replace(req, cluster_id=checked.cluster_id)
        if req.option == "B":
            resolution = await resolve(reader, t1, req)
    return resolution, req, checked.findings


async def resolve(reader: Reader, t1: Tier1, req: DiagnosisRequest) -> Resolution:
    if req.option == "B":
        return await _resolve_by_name(reader, t1, req)
    assert req.workload_id is not None
    workload, events = await read_status(reader, t1, req.workload_id)
    if isinstance(workload, ReadFailure):
        if not isinstance(workload.error, NotFoundError):
            raise DiagnosisFailed(f"the workload could not be read: {workload.missing.why}") from workload.error
        found = Collect()
        found.missing(workload.missing.what, workload.missing.why, STATUS)
        route = Route(
            "not-found",
            f"no workload has the id {quote(req.workload_id, 80)}",
            "Check the workload id (runai workload list, or the Run:ai UI) and try again.",
        )
        return Resolution(None, events, route, found.done())
    return Resolution(workload, events, None, Findings())


async def _resolve_by_name(reader: Reader, t1: Tier1, req: DiagnosisRequest) -> Resolution:
    """The most recent terminal submission among live AND deleted ones (a past run), or with `active` the
    newest live one whose status confirms the failure."""
    name, project = quote(req.name or "", 120), quote(req.project or "", 120)
    found = Collect()
    listed = await list_submissions(reader, t1, req)
    candidates = listed.all
    if not candidates:
        route = Route(
            "not-found",
            f"no workload named {name} in project {project} {req.where}",
            said("Check the name and project (exact match), or ", Do(Action.GIVE_WORKLOAD_ID), "."),
        )
        return Resolution(None, None, route, found.done(), listed)
    if req.active:
        return await _select_active(reader, t1, list(listed.live), name, project, found, listed)
    epoch = datetime.min.replace(tzinfo=req.moment().tzinfo)
    terminal = sorted(
        (w for w in candidates if (w.phase or "") in TERMINAL_FOR_SELECTION),
        key=lambda w: w.phase_updated_at or epoch,
        reverse=True,
    )
    counted = f"{plural(len(listed.live), 'live submission')} and {len(listed.deleted)} deleted"
    if not terminal and len(candidates) == 1 and candidates[0].id:
        # One match, still active: nothing to choose between, so its own status decides (the phase rule then
        # says running, pending, or a crash loop to diagnose), as if it had been named by its id.
        only = candidates[0]
        found.evidence(
            f"{counted} of {name} in {project}, not terminal ({quote(only.phase, 30)}): its status is checked, "
            f"{quote(only.id, 80)}",
            LIST,
            "selection",
        )
        workload, events = await read_status(reader, t1, only.id or "")
        if isinstance(workload, ReadFailure):
            raise DiagnosisFailed(f"the one match could not be read: {workload.missing.why}") from workload.error
        return Resolution(workload, events, None, found.done(), listed)
    if not terminal:
        phases = ", ".join(sorted({quote(w.phase, 30) for w in candidates}))
        found.evidence(f"{counted} match, none terminal (phases: {phases})", LIST)
        route = Route(
            "ambiguous",
            "no terminal submission of that name; the matches are still active",
            said(Do(Action.USE_ACTIVE), ", or ", Do(Action.GIVE_WORKLOAD_ID), "."),
        )
        return Resolution(None, None, route, found.done(), listed)
    chosen = terminal[0]
    deleted = chosen.deleted_at is not None or chosen in listed.deleted
    found.evidence(
        f"{counted} of {name} in {project}; selected the most recent terminal one, "
        f"{quote(chosen.id, 80)} ({quote(chosen.phase, 30)} at "
        f"{chosen.phase_updated_at.isoformat() if chosen.phase_updated_at else 'unknown time'}"
        f"{', deleted' if deleted else ''})",
        LIST,
        "selection",
    )
    if deleted:
        found.note("the selected submission has been deleted; its own records are still read by its id")
    assert chosen.id is not None
    workload, events = await read_status(reader, t1, chosen.id)
    if isinstance(workload, ReadFailure):
        raise DiagnosisFailed(f"the selected workload could not be read: {workload.missing.why}") from workload.error
    return Resolution(workload, events, None, found.done(), listed)


async def _select_active(
    reader: Reader,
    t1: Tier1,
    candidates: list[Workload],
    name: str,
    project: str,
    found: Collect,
    listed: Submissions,
) -> Resolution:
    """Running, Degraded and Pending matches newest first, a few at a time; the first whose status confirms the
    failure (a deleted submission is never active)."""
    active = [w for w in candidates if (w.phase or "") in ACTIVE_PHASES and w.id]
    for start in range(0, len(active), ACTIVE_CONFIRM_BATCH):
        batch = active[start : start + ACTIVE_CONFIRM_BATCH]
        answers = await asyncio.gather(*(read_status(reader, t1, w.id or "") for w in batch))
        for candidate, (workload, events) in zip(batch, answers, strict=True):
            if isinstance(workload, ReadFailure):
                continue
            obs = from_phase_message(workload.phase, workload.phase_message, STATUS, workload.phase_updated_at)
            obs += from_conditions(workload.conditions, STATUS)
            if not isinstance(events, ReadFailure) and events is not None:
                for event in events.items:
                    obs += from_event(event, STATUS)
            wanted = START_FAILURE_KINDS if workload.phase == "Pending" else CRASH_KINDS
            if {o.kind for o in obs} & wanted:
                found.evidence(
                    f"{plural(len(candidates), 'submission')} of {name} in {project}; selected the newest active one "
                    f"whose status confirms the failure: {quote(candidate.id, 80)}",
                    LIST,
                    "selection",
                )
                return Resolution(workload, events, None, found.done(), listed)
    found.evidence(
        f"{plural(len(candidates), 'live submission')} match; {len(active)} Running, Degraded or Pending, none with "
        "a confirmed crash loop or start failure",
        LIST,
    )
    route = Route(
        "ambiguous",
        "no active submission shows the failure",
        said(Do(Action.GIVE_WORKLOAD_ID, "meant"), ", or ", Do(Action.DROP_ACTIVE), "."),
    )
    return Resolution(None, None, route, found.done(), listed)


# -- the checks ---------------------------------------------------------------------------------------------
def is_recent(at: datetime | None, workload: Workload | None, cutoff: datetime) -> bool:
    if at is None:
        return True
    if workload is not None and workload.phase_updated_at is not None:
        return at >= workload.phase_updated_at - RECENT_BEFORE_PHASE_CHANGE
    return at >= cutoff


def check_status(workload: Workload, events: Events, req: DiagnosisRequest, cutoff: datetime) -> StatusCheck:
    """Step 1.3-1.6 on the workload read: the cluster, preemption, the phase rule, and the status evidence."""
    found = Collect()
    failed = isinstance(events, ReadFailure) or events is None
    kept: tuple[WorkloadEvent, ...] = ()
    if isinstance(events, ReadFailure) or events is None:
        why = events.missing.why if isinstance(events, ReadFailure) else "not read"
        found.missing(
            "workload events",
            f"the events fetch failed ({why}); this is not proof that no events occurred, so history and "
            "Kubernetes events are used instead",
            STATUS,
        )
    else:
        kept = tuple(events.items)
        if events.problems:
            found.missing("some workload events", f"{plural(len(events.problems), 'event')} could not be read", STATUS)
        # An object with none of the fields an event is read by parses, and says nothing: counted, not dropped.
        blank = sum(1 for e in kept if not (e.type or e.reason or e.message or e.created_at or e.involved_object))
        if blank:
            found.missing(
                "some workload events",
                f"{plural(blank, 'event')} had none of the fields the diagnosis reads (type, reason, message, "
                "createdAt, involvedObject)",
                STATUS,
            )
    unread = {problem.split(":", 1)[0] for problem in workload.parse_problems()}  # named below, as unreadable
    absent = [key for key in workload.missing_required() if key not in unread]
    if absent:
        found.missing(
            "workload fields " + ", ".join(absent),
            "the workload object the API returned lacks them; the diagnosis uses what is there",
            STATUS,
        )
    for problem in workload.parse_problems()[:5]:
        found.missing("a workload field", f"could not be read: {quote(problem, 200)}", STATUS)

    def done(
        observations: list[Observation], route: Route | None, marks: tuple[Mark, ...] = (), sup: Supersession = NOTHING
    ) -> StatusCheck:
        return StatusCheck(kept, failed, tuple(observations), route, found.done(), marks, sup)

    if not same_cluster(workload.cluster_id, req.cluster_id):
        shown = quote(workload.cluster_id, 80) if workload.cluster_id else "(absent)"
        found.evidence(
            f"Workload clusterId is {shown}, not the requested {quote(req.cluster_id, 80)}", STATUS, "cluster-mismatch"
        )
        route = Route(
            "cluster-mismatch",
            "the workload belongs to another cluster than the one asked about",
            "Re-run with the cluster id the workload belongs to, if that is the one you meant; a workload is "
            "never diagnosed against the wrong cluster.",
        )
        return done([], route)
    observations = _status_observations(workload, kept, cutoff, found)
    # A preemption the workload ran again after, a pull error the image was pulled after: history, not the
    # failure being asked about (core/diagnosis/supersede.py).
    marks = status_marks(workload, kept)
    end = workload.phase_updated_at if (workload.phase or "") in ENDING_PHASES else None
    sup = supersede(observations, marks, end)
    standing = list(sup.kept)
    route = None
    if failed_after_preemption(standing):
        found.note(
            "a failure is recorded after the last preemption: whether the workload ran again in between is read "
            "from its history before it is routed out as a preemption"
        )
    else:
        route = preemption_route(standing, "a recent event says the workload was preempted", found)
    if route is None:
        route = _phase_rule(workload, standing, failed, found, kept)
        route = after_resume(route, sup)
    return done(observations, route, marks, sup)


def _status_observations(
    w: Workload, events: tuple[WorkloadEvent, ...], cutoff: datetime, found: Collect
) -> list[Observation]:
    """Candidate evidence from phaseReason, phaseMessage, conditions and recent events (Step 1.6)."""
    phase_text = f"Phase: {quote(w.phase, 40) if w.phase else '(absent)'}"
    if w.phase_updated_at:
        phase_text += f" since {w.phase_updated_at.isoformat()}"
    if w.phase_reason:
        phase_text += f"; phaseReason: {quote(w.phase_reason, 60)}"
    if w.phase_message:
        phase_text += f'; phaseMessage: "{quote(w.phase_message)}"'
    obs = from_phase_message(w.phase, w.phase_message, STATUS, w.phase_updated_at, text=phase_text)
    if not obs:
        found.evidence(phase_text, STATUS, "phase")
    obs += from_conditions(w.conditions, STATUS)
    for event in events:
        if is_recent(event.created_at, w, cutoff):
            obs += from_event(event, STATUS)
    for message in w.pending_scheduling_messages or ():
        text = " ".join(part for part in (message.reason, message.user_message) if part)
        if text:
            found.evidence(f"Pending scheduling message: {quote(text)}", STATUS, "scheduling")
    found.observed(obs)
    return obs


def _phase_rule(
    w: Workload,
    observations: list[Observation],
    events_failed: bool,
    found: Collect,
    events: tuple[WorkloadEvent, ...] = (),
) -> Route | None:
    phase = w.phase or ""
    kinds = {o.kind for o in observations}
    if phase in ENDING_PHASES:
        return None
    if phase in SUCCESS_PHASES:
        return Route(
            "succeeded",
            f"the workload finished successfully (phase {phase})",
            said("Nothing failed. If a different run failed, ", Do(Action.GIVE_WORKLOAD_ID, "its"), "."),
        )
    if phase == "Suspended":
        return Route(
            "suspended",
            "the workload is suspended (paused), not failed",
            "Resume it when wanted; a suspended workload is out of scope for failure diagnosis.",
        )
    if phase in ACTIVE_PHASES:
        back = recovered(w.conditions, observations, CRASH_KINDS) if phase != "Pending" else None
        if back is not None:  # it crashed, and its status says it runs again since: history (recovery.py)
            return Route(
                "running",
                recovery_words(phase, back),
                "Nothing to fix now. Press f to follow it (or diagnose it again) if it crashes again.",
            )
        if kinds & (START_FAILURE_KINDS if phase == "Pending" else CRASH_KINDS):
            return None
        if events_failed:
            found.note(f"{phase} with events unavailable: history and pods decide whether it is in scope")
            return None
        if phase == "Pending":
            return Route("pending", *pending_route(w, events, observations))
        return Route(
            "running",
            f"{phase}, and nothing confirms a crash loop or repeated crashes",
            said(
                "Did you mean a past run? ",
                Do(Action.GIVE_WORKLOAD_ID, "that run's"),
                ", or ",
                Do(Action.WIDEN_LOOKBACK, "the window"),
                ".",
            ),
        )
    return Route("not-terminal", _not_terminal_reason(phase), "Wait for it to settle, or diagnose again once it fails.")


_KNOWN_PHASES = {p.casefold(): p for p in WORKLOAD_PHASES | SEED_EXTRA_PHASES}


def _not_terminal_reason(phase: str) -> str:
    if not phase:
        return "the workload's phase is not given, so it is not taken as failed"
    if phase in _KNOWN_PHASES.values():
        return f"the workload is {quote(phase, 40)}, not in a failed state"
    # A value the API does not document is reported as it came, never mapped onto one it does.
    documented = _KNOWN_PHASES.get(phase.casefold())
    like = f" (it documents {documented!r}, spelt differently)" if documented else ""
    return f"phase {quote(phase, 40)!r} is not one the Run:ai API documents{like}, so it is not taken as failed"


def scope_from_evidence(w: Workload, events_failed: bool, observations: list[Observation]) -> Route | None:
    """The phase rule for a Pending or Running workload whose events could not be read, from pods and history."""
    if not events_failed or (w.phase or "") not in ACTIVE_PHASES:
        return None
    if {o.kind for o in observations} & (START_FAILURE_KINDS if w.phase == "Pending" else CRASH_KINDS):
        return None
    if w.phase == "Pending":
        reason, _ = pending_route(w, (), observations)
        return Route(
            "pending",
            f"{reason}; neither pods nor history show a pod failing to start (events unavailable)",
            "Route to Pending-workload diagnosis, or retry when the events endpoint answers.",
        )
    return Route(
        "running",
        f"{w.phase}; neither pods nor history confirm a crash loop (events unavailable)",
        said("Did you mean a past run? ", Do(Action.GIVE_WORKLOAD_ID, "its"), "."),
    )


def workload_ref(req: DiagnosisRequest, w: Workload | None, ns: NamespaceChoice | None) -> WorkloadRef:
    """The report's workload line, from what was read (or what was asked, when nothing could be)."""
    if w is None:
        return WorkloadRef(id=req.workload_id, name=req.name, project=req.project, cluster_id=req.cluster_id)
    return WorkloadRef(
        id=quote(w.id, 80) if w.id else None,
        name=quote(w.name, 200) if w.name else None,
        project=quote(w.project_name, 200) if w.project_name else None,
        cluster_id=quote(w.cluster_id, 80) if w.cluster_id else None,
        phase=quote(w.phase, 40) if w.phase else None,
        namespace=ns.namespace if ns and ns.namespace else (quote(w.namespace, 80) if w.namespace else None),
        namespace_source=ns.source if ns else None,
        phase_updated_at=w.phase_updated_at,
        type=quote(w.type, 60) if w.type else None,
    )
