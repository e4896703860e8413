"""Step 2 for an inference whose own pods do not show the failure: its revisions, the one whose pods fail, and
that revision's pods, events and history (`/workloads/inferences/{id}/revisions`,
`/workloads/inferences/revisions/{id}/pods|events|history`).

An inference keeps serving from its last good revision while a newer one fails, and the workload's own pods may
be the serving revision's only (whether its feeds cover every revision is UNVERIFIED). So when the pods read do
not show the failure, the revisions list (not paged; each revision's `phase` is a workload phase, and its
`createdAt` says which is newest) is read, the revisions most likely to fail are read in turn (a failing phase
first, then one that never became ready, newest first) until one's pods show the failure, and that revision is
named. What it shows joins the workload's evidence under the seed's names for the same kinds of read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from core.diagnosis import configuration as config
from core.diagnosis.findings import Collect, Findings
from core.diagnosis.history_analysis import FAILING_KINDS
from core.diagnosis.observations import Observation, from_event, from_phase_message, from_runai_pod, quote
from core.diagnosis.reader import Reader, ReadFailure, Tier1
from core.diagnosis.steps.inspect import PodsRead, explains
from core.diagnosis.steps.resolve import PAGE_LIMIT, STATUS
from core.models.kinds import is_kind
from core.models.pages import Page
from core.models.runai import HistoryRecord, InferenceRevision, RunaiPod, Workload, WorkloadEvent

PODS = config.PODS
HISTORY = "get_workload_history"
# A revision in one of these phases has failed or is failing (the workload phases, and an older shape's words).
FAILING_STATES = frozenset({"failed", "degraded", "crashed", "error", "unhealthy", "notready", "unknown"})
# Phases of a revision that serves, or served and ended well: its pods are the last to look at.
SERVING_STATES = frozenset({"running", "ready", "completed", "succeeded", "stopped"})
# A bound on the revisions whose pods are read before giving up (each is one read).
MAX_REVISIONS_READ = 3
_EPOCH = datetime.min.replace(tzinfo=UTC)


def needed(w: Workload, pods: Sequence[RunaiPod]) -> bool:
    """An inference whose pods read do not show the failure (whatever its status says): the failing revision's
    pods may."""
    return is_kind(w.type, "inference") and not explains(pods)


@dataclass(frozen=True, slots=True)
class RevisionRead:
    revision: InferenceRevision | None
    pods: tuple[RunaiPod, ...]
    pod_observations: tuple[Observation, ...]
    observations: tuple[Observation, ...]  # from the revision's phase message, events and history
    findings: Findings

    def joined(self, pods: PodsRead) -> PodsRead:
        """The workload's pods with the revision's added (a pod both list is kept once)."""
        ids = {p.id or p.name for p in pods.pods}
        extra = tuple(p for p in self.pods if (p.id or p.name) not in ids)
        return PodsRead(pods.pods + extra, pods.observations + self.pod_observations, pods.page, Findings())


NOTHING = RevisionRead(None, (), (), (), Findings())


def _state(revision: InferenceRevision) -> str:
    return (revision.state() or "").replace(" ", "").casefold()


def ranked(revisions: Sequence[InferenceRevision]) -> list[InferenceRevision]:
    """The revisions most likely to hold the failure first: a failing phase, then one that is neither serving
    nor failed (it never became ready), then the serving ones; newest first within each."""

    def key(r: InferenceRevision) -> tuple[int, datetime]:
        state = _state(r)
        tier = 0 if state in FAILING_STATES else (2 if state in SERVING_STATES else 1)
        return (-tier, r.created_at or _EPOCH)

    return sorted(revisions, key=key, reverse=True)


def _history_observations(records: Sequence[HistoryRecord]) -> list[Observation]:
    out: list[Observation] = []
    for record in records:
        spec = record.spec
        if spec is not None and spec.event is not None:
            out += from_event(spec.event, HISTORY, prefix="Revision history event")
        elif spec is not None and spec.phase_update is not None:
            update = spec.phase_update
            out += from_phase_message(
                update.phase, update.phase_message, HISTORY, record.timestamp, label="Revision phase update"
            )
    return out


def _describe(chosen: InferenceRevision, revisions: Sequence[InferenceRevision], pods_show: bool) -> str:
    label = quote(chosen.name or chosen.key, 120)
    state = quote(chosen.state(), 40) if chosen.state() else "phase not reported"
    since = f" since {chosen.phase_updated_at.isoformat()}" if chosen.phase_updated_at else ""
    created = f", created {chosen.created_at.isoformat()}" if chosen.created_at else ""
    message = f'; phaseMessage: "{quote(chosen.phase_message, 300)}"' if chosen.phase_message else ""
    newest = max(revisions, key=lambda r: r.created_at or _EPOCH)
    place = "the newest" if newest is chosen else f"not the newest ({quote(newest.name or newest.key, 120)} is)"
    serving = [quote(r.name or r.key, 120) for r in revisions if r is not chosen and _state(r) in SERVING_STATES]
    also = f"; serving: {', '.join(serving)}" if serving else ""
    why = (
        "its pods show the failure, which the workload's own pods do not"
        if pods_show
        else "the likeliest to hold the failure, though neither its pods nor the workload's show it"
    )
    return f"Revision {label} ({state}{since}{created}{message}), {place} of {len(revisions)}{also}: {why}"


async def _pods_of(reader: Reader, t1: Tier1, revision: InferenceRevision) -> Page[RunaiPod] | ReadFailure:
    rid = revision.key or ""
    return await reader.tier1(2, PODS, "revision pods", lambda: t1.get_revision_pods(rid))


async def read_failing_revision(reader: Reader, t1: Tier1, w: Workload) -> RevisionRead:
    found = Collect()
    wid = w.id or ""
    listed = await reader.tier1(2, PODS, "inference revisions", lambda: t1.list_inference_revisions(wid))
    if isinstance(listed, ReadFailure):
        found.missing("the inference's revisions", listed.missing.why, PODS)
        return RevisionRead(None, (), (), (), found.done())
    revisions = [r for r in listed.items if r.key]
    if not revisions:
        found.note("the inference's own pods do not show the failure, and it lists no revision to look in")
        return RevisionRead(None, (), (), (), found.done())
    # The revisions most likely to fail, in turn, until one's pods show the failure.
    candidates = ranked(revisions)[:MAX_REVISIONS_READ]
    chosen, pods_page = candidates[0], None
    for candidate in candidates:
        if _state(candidate) in SERVING_STATES and pods_page is not None:
            break  # a serving revision after a failing one that showed nothing: the first is the better guess
        page = await _pods_of(reader, t1, candidate)
        if pods_page is None or (isinstance(page, Page) and explains(page.items)):
            chosen, pods_page = candidate, page
        if isinstance(page, Page) and explains(page.items):
            break
    assert pods_page is not None
    rid, label = chosen.key or "", quote(chosen.name or chosen.key, 120)
    events_page, history_page = await asyncio.gather(
        reader.tier1(2, STATUS, "revision events", lambda: t1.get_revision_events(rid, limit=PAGE_LIMIT)),
        reader.tier1(3, HISTORY, "revision history", lambda: t1.get_revision_history(rid, limit=PAGE_LIMIT)),
    )
    shows = isinstance(pods_page, Page) and explains(pods_page.items)
    found.evidence(_describe(chosen, revisions, shows), PODS, "revision")
    pods: list[RunaiPod] = []
    pod_obs: list[Observation] = []
    observations = from_phase_message(
        chosen.phase, chosen.phase_message, PODS, chosen.phase_updated_at, label=f"Revision {label} phase"
    )
    for page, what, source in (
        (pods_page, "revision pods", PODS),
        (events_page, "revision events", STATUS),
        (history_page, "revision history", HISTORY),
    ):
        if isinstance(page, ReadFailure):
            found.missing(f"{what} of {label}", page.missing.why, source)
    if isinstance(pods_page, Page):
        pods = list(pods_page.items)
        for pod in pods:
            pod_obs += from_runai_pod(pod, PODS)
            if explains([pod]):
                item = config.pod_evidence(pod)
                found.evidence(f"Revision {label}: {item.text}", item.source, item.signal)
    if isinstance(events_page, Page):
        for event in events_page.items:
            observations += _revision_event(event)
    if isinstance(history_page, Page):
        observations += _history_observations(history_page.items)
    found.observed(o for o in observations if o.kind in FAILING_KINDS)
    return RevisionRead(chosen, tuple(pods), tuple(pod_obs), tuple(observations), found.done())


def _revision_event(event: WorkloadEvent) -> list[Observation]:
    return from_event(event, STATUS, prefix="Revision event")
