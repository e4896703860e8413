"""Step 2 for an inference whose own pods and events show no failure: its revisions, and the failing one's pods,
events and history (`/workloads/inferences/{id}/revisions`, `/workloads/inferences/revisions/{id}/...`).

Whether the workload-level feeds cover every revision is UNVERIFIED. When they show the failure, nothing here
is read; when they do not, the revision that failed (or, when none says so, the newest) is read, and what it
shows joins the workload's evidence under the seed's names for the same kinds of read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from core.diagnosis import configuration as config
from core.diagnosis.findings import Collect, Findings
from core.diagnosis.history import FAILING_KINDS
from core.diagnosis.observations import Observation, from_event, from_phase_message, from_runai_pod, quote
from core.diagnosis.reader import Reader, ReadFailure, Tier1
from core.diagnosis.steps.inspect import PodsRead, explains
from core.diagnosis.steps.resolve import PAGE_LIMIT, STATUS
from core.models.pages import Page
from core.models.runai import HistoryRecord, InferenceRevision, RunaiPod, Workload, WorkloadEvent

PODS = config.PODS
HISTORY = "get_workload_history"
FAILING_STATES = frozenset({"failed", "degraded", "crashed", "error", "unhealthy", "notready"})
_EPOCH = datetime.min.replace(tzinfo=UTC)


def needed(w: Workload, pods: Sequence[RunaiPod], observations: Sequence[Observation]) -> bool:
    """An inference whose own pods and status show no failure: its revisions may."""
    if (w.type or "").strip().casefold() != "inference":
        return False
    return not explains(pods) and not any(o.kind in FAILING_KINDS for o in observations)


@dataclass(frozen=True, slots=True)
class RevisionRead:
    revision: InferenceRevision | None
    pods: tuple[RunaiPod, ...]
    pod_observations: tuple[Observation, ...]
    observations: tuple[Observation, ...]  # from the revision's events and history
    findings: Findings

    def joined(self, pods: PodsRead) -> PodsRead:
        """The workload's pods with the revision's added (a pod both list is kept once)."""
        names = {p.name for p in pods.pods}
        extra = tuple(p for p in self.pods if p.name not in names)
        return PodsRead(pods.pods + extra, pods.observations + self.pod_observations, pods.page, Findings())


NOTHING = RevisionRead(None, (), (), (), Findings())


def _failing_first(revisions: Sequence[InferenceRevision]) -> InferenceRevision:
    def key(r: InferenceRevision) -> tuple[bool, datetime]:
        state = (r.state() or "").replace(" ", "").casefold()
        return (state in FAILING_STATES, r.created_at or _EPOCH)

    return max(revisions, key=key)


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


async def read_failing_revision(reader: Reader, t1: Tier1, w: Workload) -> RevisionRead:
    found = Collect()
    wid = w.id or ""
    listed = await reader.tier1(
        2, PODS, "inference revisions", lambda: t1.list_inference_revisions(wid)
    )
    if isinstance(listed, ReadFailure):
        found.missing("the inference's revisions", listed.missing.why, PODS)
        return RevisionRead(None, (), (), (), found.done())
    revisions = [r for r in listed.items if r.key]
    if not revisions:
        found.note("the inference's own pods and events show no failure, and it lists no revision to look in")
        return RevisionRead(None, (), (), (), found.done())
    chosen = _failing_first(revisions)
    rid = chosen.key or ""
    pods_page, events_page, history_page = await asyncio.gather(
        reader.tier1(2, PODS, "revision pods", lambda: t1.get_revision_pods(rid)),
        reader.tier1(2, STATUS, "revision events", lambda: t1.get_revision_events(rid, limit=PAGE_LIMIT)),
        reader.tier1(3, HISTORY, "revision history", lambda: t1.get_revision_history(rid, limit=PAGE_LIMIT)),
    )
    label = quote(chosen.name or rid, 120)
    state = quote(chosen.state(), 40) if chosen.state() else "state not reported"
    when = f", created {chosen.created_at.isoformat()}" if chosen.created_at else ""
    found.evidence(
        f"Revision {label} ({state}{when}), one of {len(revisions)}: the workload's own pods and events show no "
        "failure, so this revision's pods, events and history were read",
        PODS,
        "revision",
    )
    pods: list[RunaiPod] = []
    pod_obs: list[Observation] = []
    observations: list[Observation] = []
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
                found.evidence(item.text, item.source, item.signal)
    if isinstance(events_page, Page):
        for event in events_page.items:
            observations += _revision_event(event)
    if isinstance(history_page, Page):
        observations += _history_observations(history_page.items)
    found.observed(o for o in observations if o.kind in FAILING_KINDS)
    return RevisionRead(chosen, tuple(pods), tuple(pod_obs), tuple(observations), found.done())


def _revision_event(event: WorkloadEvent) -> list[Observation]:
    return from_event(event, STATUS, prefix="Revision event")
