"""Step 2: inspect the submitted spec and the pods (and, for Tier 2 only, the namespace the pods live in).

The spec corroborates and never decides; its `desiredPhase: Stopped` on a Stopped workload is the one exception,
as it is not configuration but the record of a requested stop. When the live pods do not show the failure, or the
workload runs several pods, the deleted ones are read too: the pod that failed is often among them, beside its
replacement. A failed or empty read is a stated gap, and the diagnosis goes on with what is there.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Collection, Sequence
from dataclasses import dataclass

from core.diagnosis import configuration as config
from core.diagnosis.findings import Collect, Findings
from core.diagnosis.observations import Observation, from_runai_pod, quote
from core.diagnosis.reader import Reader, ReadFailure, Tier1
from core.diagnosis.signals import Signal, SignalKind
from core.diagnosis.steps.pod_pages import read_pod_pages
from core.diagnosis.steps.resolve import PAGE_LIMIT, STATUS
from core.models.pages import Page
from core.models.report import MissingItem
from core.models.runai import RunaiPod, Workload, WorkloadEvent
from core.models.runai_spec import WorkloadSpecDoc
from core.plural import plural
from core.sources.namespace import NamespaceChoice, resolve_namespace
from core.sources.runai import filter_item

SPEC = config.SPEC
PODS = config.PODS
PROJECTS = "list_projects"


@dataclass(frozen=True, slots=True)
class SpecRead:
    spec: WorkloadSpecDoc | None  # None when it could not be read
    findings: Findings
    # Not configuration but the control plane's own record: a stop someone (or a policy) asked for.
    observations: tuple[Observation, ...] = ()


STOPPED_PHASES = frozenset({"Stopped", "Stopping"})


def stop_requested(workload: Workload, doc: WorkloadSpecDoc) -> tuple[Observation, ...]:
    """`desiredPhase: Stopped` on a Stopped workload: the stop was asked for (the user, an admin or a policy; the
    seed's manual stop), not a failure. Only the weakest row takes it, so any failure signal still decides."""
    desired = (doc.desired_phase or "").strip()
    if desired.lower() != "stopped" or (workload.phase or "") not in STOPPED_PHASES:
        return ()
    signal = Signal(kind=SignalKind.MANUAL_STOP, detail="desiredPhase: Stopped", source="desiredPhase")
    text = f"Desired phase: Stopped (a stop was requested); phase: {quote(workload.phase, 40)}"
    return (Observation(signal, SPEC, None, text),)


@dataclass(frozen=True, slots=True)
class PodsRead:
    pods: tuple[RunaiPod, ...]
    observations: tuple[Observation, ...]  # from each pod's k8sPhase
    page: Page[RunaiPod] | ReadFailure  # the answer as read (Tier 2 falls back on it for the node name)
    findings: Findings


@dataclass(frozen=True, slots=True)
class NamespaceFound:
    choice: NamespaceChoice
    findings: Findings


async def read_spec(reader: Reader, t1: Tier1, workload: Workload) -> SpecRead:
    """The seed's `get_workload_spec`: image, command, submit annotation, memory, mounts, restart policy."""
    wid = workload.id or ""
    answer = await reader.tier1(2, SPEC, "kind-specific spec", lambda: t1.get_spec(wid, workload.type))
    found = Collect()
    if isinstance(answer, ReadFailure):
        found.missing(
            "kind-specific spec (image, command, restart policy, mounts as submitted)",
            f"{answer.missing.why}; the workload object's own fields are used where they exist",
            SPEC,
        )
        if workload.images:
            found.evidence(
                "Images (from the workload object): " + ", ".join(quote(i, 200) for i in workload.images),
                STATUS,
                "image",
            )
        return SpecRead(None, found.done())
    if answer.spec is None:
        found.missing("kind-specific spec body", "the spec document has no `spec` object", SPEC)
    else:
        for item in config.spec_evidence(answer):
            found.evidence(item.text, item.source, item.signal)
    stop = stop_requested(workload, answer)
    found.observed(stop)
    return SpecRead(answer, found.done(), stop)


MAX_PODS_CITED = 8
HEALTHY_POD_PHASES = frozenset({"Running", "Succeeded", "Completed", "Pending", "ContainerCreating"})


def explains(pods: Sequence[RunaiPod], failing: Collection[str] = ()) -> bool:
    """Whether these pods show the failure: a pod whose phase is not a healthy or waiting one, or a pod the
    workload's status already names as failing (`failing`, cleaned names)."""
    return any(
        (p.k8s_phase and p.k8s_phase not in HEALTHY_POD_PHASES) or quote(p.name, 120) in failing for p in pods
    )


async def read_pods(
    reader: Reader, t1: Tier1, wid: str, *, several: bool = False, failing: Collection[str] = ()
) -> PodsRead:
    """The seed's `get_workload_pods`, live and deleted.

    `deleted=true` answers only deleted pods. They are read beside the live ones when the workload is known to
    run several pods (the pod that failed first is often gone, replaced), and after them when the live pods do
    not show the failure (none left, or only healthy replacements)."""
    found = Collect()

    def live() -> Awaitable[tuple[Page[RunaiPod] | ReadFailure, MissingItem | None]]:
        return read_pod_pages(
            reader, PODS, "pods", PAGE_LIMIT, lambda at: t1.get_pods(wid, limit=PAGE_LIMIT, **_from(at))
        )

    def gone() -> Awaitable[tuple[Page[RunaiPod] | ReadFailure, MissingItem | None]]:
        def page(at: int) -> Awaitable[Page[RunaiPod]]:
            return t1.get_pods(wid, deleted=True, limit=PAGE_LIMIT, **_from(at))

        return read_pod_pages(reader, PODS, "deleted pods", PAGE_LIMIT, page)

    deleted: Page[RunaiPod] | ReadFailure | None = None
    gaps: list[MissingItem | None] = []
    if several:
        (page, live_gap), (deleted, gone_gap) = await asyncio.gather(live(), gone())
        gaps += [live_gap, gone_gap]
    else:
        page, live_gap = await live()
        gaps.append(live_gap)
        if not isinstance(page, ReadFailure) and not explains(page.items, failing):
            deleted, gone_gap = await gone()
            gaps.append(gone_gap)
    for gap in gaps:
        if gap is not None:
            found.gap(gap)
    if isinstance(deleted, ReadFailure):
        found.gap(deleted.missing)
    gone_pods = list(deleted.items) if isinstance(deleted, Page) else []
    if isinstance(page, ReadFailure):
        if not gone_pods:
            found.missing("pods", page.missing.why, PODS)
            return PodsRead((), (), page, found.done())
        found.missing("live pods", page.missing.why, PODS)
    live_pods = list(page.items) if isinstance(page, Page) else []
    if gone_pods:
        found.note(
            "no live pods; the deleted pods of the workload were read instead"
            if not live_pods
            else "the deleted pods were read beside the live ones: the pod that failed may have been replaced"
        )
    # A deleted pod may share its name with its live replacement: only the same pod (by id) is kept once.
    seen = {_identity(p) for p in live_pods}
    pods = tuple(live_pods + [p for p in gone_pods if _identity(p) not in seen])
    if not pods:
        found.missing("pods", "the pods endpoint returned none (the pods may be gone)", PODS)
        return PodsRead((), (), page, found.done())
    observations: list[Observation] = []
    for pod in pods:
        observations += from_runai_pod(pod, PODS)
    # Every pod of a small workload is cited; of a large one, those that show a failure and a count of the rest:
    # the earliest to end first, whatever order the server listed them in (it promises none).
    cited = (
        pods if len(pods) <= MAX_PODS_CITED
        else sorted((p for p in pods if explains([p])), key=_ended_first)[:MAX_PODS_CITED]
    )
    for pod in cited:
        item = config.pod_evidence(pod)
        found.evidence(item.text, item.source, item.signal)
    if len(cited) < len(pods):
        found.evidence(_pod_summary(pods, len(cited)), PODS, "pods")
    if any(p.requested_resources is None for p in pods):
        found.missing("pod requestedResources", "not returned for some pods", PODS)
    return PodsRead(pods, tuple(observations), page, found.done())


def _ended_first(pod: RunaiPod) -> tuple[bool, float, list[tuple[int, str]], str]:
    """Pods that ended first, then by name with its numbers read as numbers (worker-2 before worker-10): a
    stable order for those that ended together or never."""
    at = pod.completed_at or pod.k8s_phase_updated_at
    name = [(int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"(\d+)", pod.name or "")]
    return at is None, at.timestamp() if at is not None else 0.0, name, pod.id or ""


def _from(offset: int) -> dict[str, int]:
    """The offset of a later page; the first page is asked for as it always was (no offset sent)."""
    return {"offset": offset} if offset else {}


def _identity(pod: RunaiPod) -> tuple[str | None, ...]:
    """A pod's identity: its id, else its name and creation time (a name alone is reused by a replacement)."""
    return (pod.id,) if pod.id else (pod.name, pod.created_at.isoformat() if pod.created_at else None)


def _pod_summary(pods: Sequence[RunaiPod], cited: int) -> str:
    phases: dict[str, int] = {}
    for pod in pods:
        phase = quote(pod.k8s_phase, 40) if pod.k8s_phase else "not reported"
        phases[phase] = phases.get(phase, 0) + 1
    deleted = sum(1 for p in pods if p.deleted_at is not None)
    shown = ", ".join(f"{count} {phase}" for phase, count in sorted(phases.items(), key=lambda kv: (-kv[1], kv[0])))
    return (
        f"{plural(len(pods), 'pod')} ({deleted} deleted); k8sPhase: {shown}; "
        f"{plural(cited, 'pod')} showing a failure cited above"
    )


async def find_namespace(
    reader: Reader, t1: Tier1, cluster_id: str, workload: Workload, events: Sequence[WorkloadEvent]
) -> NamespaceFound:
    """workload.namespace, else the project's status.namespace (one lookup), else events, else runai-<project>."""
    found = Collect()
    project_namespace: str | None = None
    if not workload.namespace and workload.project_name:
        project_namespace = await _project_namespace(reader, t1, cluster_id, workload.project_name, found)
    return NamespaceFound(pick_namespace(workload, events, project_namespace, found), found.done())


def namespace_without_lookup(workload: Workload, events: Sequence[WorkloadEvent]) -> NamespaceFound:
    """The namespace from what Step 1 read, for the report's workload line when Tier 2 is not used."""
    found = Collect()
    return NamespaceFound(pick_namespace(workload, events, None, found), found.done())


def pick_namespace(
    workload: Workload, events: Sequence[WorkloadEvent], project_namespace: str | None, found: Collect
) -> NamespaceChoice:
    event_ns = [e.involved_object.namespace for e in events if e.involved_object]
    choice = resolve_namespace(workload.namespace, project_namespace, event_ns, workload.project_name)
    if choice.assumed:
        found.note(choice.source)
    return choice


async def _project_namespace(reader: Reader, t1: Tier1, cluster_id: str, project: str, found: Collect) -> str | None:
    try:
        filters = [filter_item("name", "==", project), filter_item("clusterId", "==", cluster_id)]
    except ValueError:
        return None
    page = await reader.tier1(
        2, PROJECTS, "project (for its namespace)", lambda: t1.list_projects(filters=filters, limit=PAGE_LIMIT)
    )
    if isinstance(page, ReadFailure):
        found.missing("the project's namespace", page.missing.why, None)
        return None
    for item in page.items:
        if item.name == project and item.status is not None and item.status.namespace:
            return item.status.namespace
    return None
