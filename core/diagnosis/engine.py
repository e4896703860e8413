"""The diagnosis engine: the seed's five steps as an async iterator of progress events, ending in a report.

Reads that do not depend on each other run at the same time; each read waits only for the answer it needs
(the spec needs the workload's type, the node needs the pod's node name, the next history page needs `next`).
The seed's gates still hold: nothing past Step 1 is read for a workload that Step 1 routes out, metrics are
read only on OOM evidence or an unexplained exit 137, and a node is described only on node evidence.

Round trips for Option A with Tier 2 and metrics, when the status events name the pod:
  1. workload + events                                          (Step 1)
  2. spec + pods + history + pod + pod events                  (Steps 2, 3 and Tier 2 of Step 4)
  3. metrics + previous log + node events (+ node)             (Step 4)
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from core.diagnosis import configuration as config
from core.diagnosis.history import (
    ENDING_PHASES,
    FAILING_KINDS,
    HistoryAnalysis,
    Occurrence,
    analyse_history,
    in_window,
)
from core.diagnosis.kube_evidence import (
    DESCRIBE_NODE,
    DESCRIBE_POD,
    EVENTS,
    LOGS,
    containers_found,
    events_found,
    events_observations,
    log_finding,
    log_line_text,
    log_observation,
    node_found,
    node_observations,
    pod_observations,
)
from core.diagnosis.log_scan import LogFinding
from core.diagnosis.memory import (
    LIMIT,
    MAX_SAMPLES,
    MEMORY_TYPES,
    RunWindow,
    plan_queries,
    step_of,
    usage_summary,
)
from core.diagnosis.observations import (
    Observation,
    from_conditions,
    from_event,
    from_phase_message,
    from_runai_pod,
    quote,
)
from core.diagnosis.progress import (
    STEP_TITLES,
    EvidenceFound,
    HistoryFound,
    MemoryTrend,
    MissingFound,
    ProgressEvent,
    ReadFinished,
    StepFinished,
    StepStarted,
    VerdictReady,
    WorkloadResolved,
)
from core.diagnosis.report_builder import ReportInputs, build_report, routed_report
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.rules import Verdict, classify, is_preempted
from core.diagnosis.signals import SignalKind
from core.models.kube import K8sNode, K8sPod
from core.models.pages import Page
from core.models.quantity import format_bytes
from core.models.report import EvidenceItem, MissingItem, Report, WorkloadRef
from core.models.runai import HistoryRecord, MetricsResponse, RunaiPod, Workload, WorkloadEvent, WorkloadSpecDoc
from core.sources.errors import (
    ApiError,
    ApiTimeout,
    AuthError,
    ForbiddenError,
    MalformedResponse,
    NotFoundError,
    RunaiError,
    UnreachableError,
)
from core.sources.evidence import Missing
from core.sources.kube_types import KubeEvents, LogExcerpt
from core.sources.namespace import NamespaceChoice, resolve_namespace
from core.sources.runai import filter_item

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

T = TypeVar("T")

STATUS = "get_workload_status"
LIST = "list_workloads"
SPEC = "get_workload_spec"
PODS = "get_workload_pods"
HISTORY = "get_workload_history"
METRICS = "get_workload_metrics"

PAGE_LIMIT = 500  # the largest page the API allows
MAX_HISTORY_PAGES = 200  # 100,000 records: far beyond any real lookback, and a bound on a broken `next`
MAX_LIST_PAGES = 40
ACTIVE_CONFIRM_BATCH = 4
# Peaks of earlier OOM runs are shown for comparison; a handful says whether the job always peaks there.
MAX_EARLIER_RUNS = 5
# Step 1 reads "recent" events: those around the last phase change. Older ones describe earlier runs.
RECENT_BEFORE_PHASE_CHANGE = timedelta(minutes=10)
# How far before its phase change the diagnosed failure's own records are read when it lies before the
# lookback cutoff and the workload's creation time is unknown.
FAILURE_LOOKBEHIND = timedelta(days=7)
ACTIVE_PHASES = frozenset({"Running", "Pending"})
SUCCESS_PHASES = frozenset({"Completed", "Succeeded"})
TERMINAL_FOR_SELECTION = ENDING_PHASES | SUCCESS_PHASES
NODE_KINDS = frozenset(
    {
        SignalKind.EVICTED,
        SignalKind.NODE_LOST,
        SignalKind.NODE_NOT_READY,
        SignalKind.NODE_DRAIN,
        SignalKind.DISRUPTION_TARGET,
        SignalKind.NODE_PRESSURE,
    }
)
# Direct failed-pod signals that keep a Pending workload in scope (Step 1, phase rule).
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
# The kernel's OOMKilling event names a process, not a pod: it is attributed to our container only when it
# happened within this long of the container's termination on the same node.
NODE_OOM_ATTRIBUTION = timedelta(seconds=60)


class Tier1(Protocol):
    """The Run:ai reads the engine makes (RunaiClient provides them)."""

    async def list_workloads(self, **kwargs: Any) -> Page[Workload]: ...
    async def get_workload(self, workload_id: str) -> Workload: ...
    async def get_events(self, workload_id: str, **kwargs: Any) -> Page[WorkloadEvent]: ...
    async def get_spec(self, workload_id: str, workload_type: str | None) -> WorkloadSpecDoc: ...
    async def get_pods(self, workload_id: str, **kwargs: Any) -> Page[RunaiPod]: ...
    async def get_history(self, workload_id: str, **kwargs: Any) -> Page[HistoryRecord]: ...
    async def get_metrics(
        self, workload_id: str, types: Any, start: datetime, end: datetime, samples: int = ...
    ) -> MetricsResponse: ...
    async def list_projects(self, **kwargs: Any) -> Any: ...


class DiagnosisFailed(Exception):
    """No report can be produced (unreachable, credentials refused): the message says what to try."""


class _Stop(Exception):
    """Internal: Step 1 ended the diagnosis with a route-out report."""

    def __init__(self, report: Report) -> None:
        self.report = report


_DONE = object()


@dataclass
class _ReadFailure:
    error: Exception
    missing: MissingItem


@dataclass
class _State:
    workload: Workload | None = None
    selection_note: str | None = None
    events: list[WorkloadEvent] | None = None
    events_failed: bool = False
    spec: WorkloadSpecDoc | None = None
    pods: list[RunaiPod] = field(default_factory=list)
    history: HistoryAnalysis | None = None
    history_records: list[HistoryRecord] = field(default_factory=list)
    namespace: NamespaceChoice | None = None
    k8s_pod: K8sPod | None = None
    k8s_events: list[Any] = field(default_factory=list)
    node: K8sNode | None = None
    log: LogExcerpt | None = None
    log_finding: LogFinding | None = None
    status_obs: list[Observation] = field(default_factory=list)
    tier1_obs: list[Observation] = field(default_factory=list)
    tier2_obs: list[Observation] = field(default_factory=list)
    evidence: list[EvidenceItem] = field(default_factory=list)
    missing: list[MissingItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    memory_responses: list[MetricsResponse] = field(default_factory=list)
    memory_windows: list[RunWindow] = field(default_factory=list)
    other_run_peaks: list[tuple[RunWindow, int | None]] = field(default_factory=list)
    metrics_queried: bool = False
    reads: int = 0


def _error_why(exc: Exception) -> str:
    if isinstance(exc, NotFoundError):
        return f"not found (HTTP 404): {quote(exc, 300)}"
    if isinstance(exc, ForbiddenError):
        return f"refused (HTTP 403): the access key lacks a role that can read this; {quote(exc, 300)}"
    if isinstance(exc, ApiTimeout):
        return f"timed out: {quote(exc, 300)}"
    if isinstance(exc, MalformedResponse):
        return f"the answer could not be read: {quote(exc, 300)}"
    if isinstance(exc, ApiError):
        return f"the API answered HTTP {exc.status}: {quote(exc, 300)}"
    return quote(exc, 300)


class _Diagnosis:
    def __init__(
        self,
        request: DiagnosisRequest,
        tier1: Tier1,
        tier2: KubeSource | None,
        tier2_unavailable: str | None,
        clock: Callable[[], float],
    ) -> None:
        self.req = request
        self.t1 = tier1
        self.t2 = tier2
        self.t2_unavailable = tier2_unavailable or (None if tier2 else "Tier 2 unavailable: not configured")
        self.clock = clock
        self.now = request.moment()
        self.cutoff = self.now - request.lookback_delta
        self.queue: asyncio.Queue[object] = asyncio.Queue()
        self.s = _State()
        self.started = clock()
        self._step_started: dict[int, float] = {}
        self._namespace_task: asyncio.Task[None] | None = None
        self._step_reads: dict[int, int] = {}
        self._pods_task: asyncio.Task[Page[RunaiPod] | _ReadFailure] | None = None
        # Decisions that combine concurrent reads wait for the reads they depend on, so a report never depends
        # on which answer came first: Tier 2's interpretation waits for Steps 2 and 3 (`_tier1_done`), and the
        # metrics gate for Tier 2's first reads (`_tier2_first`, with the observations they gave).
        self._tier1_done = asyncio.Event()
        self._tier2_first = asyncio.Event()
        self._tier2_first_obs: list[Observation] = []

    # -- plumbing ------------------------------------------------------------------------------------------
    def emit(self, event: ProgressEvent) -> None:
        self.queue.put_nowait(event)

    def evidence(self, text: str, source: str, signal: str | None = None) -> None:
        item = EvidenceItem(text=text, source=source, signal=signal)  # type: ignore[arg-type]
        if any(e.text == item.text and e.source == item.source for e in self.s.evidence):
            return
        self.s.evidence.append(item)
        self.emit(EvidenceFound(item))

    def missing(self, what: str, why: str, source: str | None = None) -> None:
        item = MissingItem(what=what, why=why, source=source)
        if any(m.what == item.what and m.why == item.why for m in self.s.missing):
            return
        self.s.missing.append(item)
        self.emit(MissingFound(item))

    def step_start(self, step: int) -> None:
        if step in self._step_started:
            return
        self._step_started[step] = self.clock()
        self._step_reads.setdefault(step, 0)
        self.emit(StepStarted(step, STEP_TITLES[step]))

    def step_end(self, step: int, skipped: str | None = None) -> None:
        started = self._step_started.get(step)
        if started is None:
            self.emit(StepStarted(step, STEP_TITLES[step]))
            started = self.clock()
            self._step_started[step] = started
        self.emit(StepFinished(step, self._step_reads.get(step, 0), self.clock() - started, skipped))

    async def read(self, step: int, source: str, what: str, call: Callable[[], Awaitable[T]]) -> T | _ReadFailure:
        begin = self.clock()
        self.s.reads += 1
        self._step_reads[step] = self._step_reads.get(step, 0) + 1
        try:
            value = await call()
        except (AuthError, UnreachableError) as exc:
            self.emit(ReadFinished(source, what, self.clock() - begin, False, step))
            raise DiagnosisFailed(quote(exc, 500)) from exc
        except (RunaiError, ValueError) as exc:
            self.emit(ReadFinished(source, what, self.clock() - begin, False, step))
            return _ReadFailure(exc, MissingItem(what=what, why=_error_why(exc), source=source))
        self.emit(ReadFinished(source, what, self.clock() - begin, True, step))
        return value

    async def read_t2(
        self, step: int, source: str, what: str, call: Callable[[], Awaitable[T]], *, record: bool = True
    ) -> T | Missing:
        """`record=False` leaves the Missing to the caller, which lists it in a fixed order."""
        begin = self.clock()
        self.s.reads += 1
        self._step_reads[step] = self._step_reads.get(step, 0) + 1
        value = await call()
        self.emit(ReadFinished(source, what, self.clock() - begin, not isinstance(value, Missing), step))
        if isinstance(value, Missing) and record:
            self.missing(value.what, value.why, value.source)
        return value

    # -- the run -------------------------------------------------------------------------------------------
    async def execute(self) -> Report:
        try:
            await self.step1()
            return await self.steps_2_to_5()
        except _Stop as stop:
            self.emit(VerdictReady(stop.report, self.s.reads, self.clock() - self.started))
            return stop.report

    def ref(self) -> WorkloadRef:
        w = self.s.workload
        ns = self.s.namespace
        if w is None:
            return WorkloadRef(
                id=self.req.workload_id, name=self.req.name, project=self.req.project, cluster_id=self.req.cluster_id
            )
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

    def stop(self, outcome: str, reason: str, next_action: str) -> None:
        self.step_end(1)
        report = routed_report(
            outcome=outcome,
            workload=self.ref(),
            evidence=self.s.evidence,
            missing=self.s.missing,
            lookback=self.req.lookback,
            reason=reason,
            next_action=next_action,
            notes=self.s.notes,
            now=self.now,
            cutoff=self.cutoff,
        )
        raise _Stop(report)

    # -- Step 1 --------------------------------------------------------------------------------------------
    async def step1(self) -> None:
        self.step_start(1)
        if self.req.option == "B":
            workload, events = await self.resolve_by_name()
        else:
            assert self.req.workload_id is not None
            workload, events = await self.status(self.req.workload_id)
            if isinstance(workload, _ReadFailure):
                if isinstance(workload.error, NotFoundError):
                    self.missing(workload.missing.what, workload.missing.why, STATUS)
                    self.stop(
                        "not-found",
                        f"no workload has the id {quote(self.req.workload_id, 80)}",
                        "Check the workload id (runai workload list, or the Run:ai UI) and try again.",
                    )
                raise DiagnosisFailed(f"the workload could not be read: {workload.missing.why}") from workload.error
        self.s.workload = workload
        self.take_events(events)
        self.emit(WorkloadResolved(self.ref()))
        self.check_workload_shape(workload)
        self.cluster_check(workload)
        self.record_status(workload)
        self.preemption_check(self.s.status_obs, "a recent event says the workload was preempted")
        self.phase_rule(workload)

    async def status(self, workload_id: str) -> tuple[Workload | _ReadFailure, Page[WorkloadEvent] | _ReadFailure]:
        return await asyncio.gather(
            self.read(1, STATUS, "workload status", lambda: self.t1.get_workload(workload_id)),
            self.read(
                1,
                STATUS,
                "workload events",
                lambda: self.t1.get_events(workload_id, limit=PAGE_LIMIT, sort_order="desc"),
            ),
        )

    def take_events(self, events: Page[WorkloadEvent] | _ReadFailure | None) -> None:
        if isinstance(events, _ReadFailure) or events is None:
            self.s.events_failed = True
            why = events.missing.why if isinstance(events, _ReadFailure) else "not read"
            self.missing(
                "workload events",
                f"the events fetch failed ({why}); this is not proof that no events occurred, so history and "
                "Kubernetes events are used instead",
                STATUS,
            )
            return
        self.s.events = list(events.items)
        if events.problems:
            self.missing("some workload events", f"{len(events.problems)} event(s) could not be read", STATUS)

    def check_workload_shape(self, w: Workload) -> None:
        absent = w.missing_required()
        if absent:
            self.missing(
                "workload fields " + ", ".join(absent),
                "the workload object the API returned lacks them; the diagnosis uses what is there",
                STATUS,
            )
        for problem in w.parse_problems()[:5]:
            self.missing("a workload field", f"could not be read: {quote(problem, 200)}", STATUS)

    def cluster_check(self, w: Workload) -> None:
        if w.cluster_id != self.req.cluster_id:
            self.evidence(
                f"Workload clusterId is {quote(w.cluster_id, 80) if w.cluster_id else '(absent)'}, not the requested "
                f"{quote(self.req.cluster_id, 80)}",
                STATUS,
                "cluster-mismatch",
            )
            self.stop(
                "cluster-mismatch",
                "the workload belongs to another cluster than the one asked about",
                "Re-run with the cluster id the workload belongs to, if that is the one you meant; a workload is "
                "never diagnosed against the wrong cluster.",
            )

    def recent(self, at: datetime | None) -> bool:
        w = self.s.workload
        if at is None:
            return True
        if w is not None and w.phase_updated_at is not None:
            return at >= w.phase_updated_at - RECENT_BEFORE_PHASE_CHANGE
        return at >= self.cutoff

    def record_status(self, w: Workload) -> None:
        phase_text = f"Phase: {quote(w.phase, 40) if w.phase else '(absent)'}"
        if w.phase_updated_at:
            phase_text += f" since {w.phase_updated_at.isoformat()}"
        if w.phase_reason:
            phase_text += f"; phaseReason: {quote(w.phase_reason, 60)}"
        if w.phase_message:
            phase_text += f'; phaseMessage: "{quote(w.phase_message)}"'
        obs = from_phase_message(w.phase, w.phase_message, STATUS, w.phase_updated_at, text=phase_text)
        if not obs:
            self.evidence(phase_text, STATUS, "phase")
        obs += from_conditions(w.conditions, STATUS)
        for event in self.s.events or ():
            if self.recent(event.created_at):
                obs += from_event(event, STATUS)
        for message in w.pending_scheduling_messages or ():
            text = " ".join(part for part in (message.reason, message.user_message) if part)
            if text:
                self.evidence(f"Pending scheduling message: {quote(text)}", STATUS, "scheduling")
        self.s.status_obs = obs
        for o in obs:
            self.evidence(o.text, o.source, o.kind.value)

    def preemption_check(self, observations: list[Observation], reason: str) -> None:
        hits = is_preempted(observations)
        if not hits:
            return
        for hit in hits:
            self.evidence(hit.text, hit.source, "preempted")
        self.stop(
            "preempted",
            reason,
            "Route to preemption diagnosis (runai-diagnose-preempted-workload when available): the scheduler "
            "stopped it to free resources; this is not a failure to classify.",
        )

    def phase_rule(self, w: Workload) -> None:
        phase = w.phase or ""
        kinds = {o.kind for o in self.s.status_obs}
        if phase in ENDING_PHASES:
            return
        if phase in SUCCESS_PHASES:
            self.stop(
                "succeeded",
                f"the workload finished successfully (phase {phase})",
                "Nothing failed. If a different run failed, give its workload id.",
            )
        if phase == "Suspended":
            self.stop(
                "suspended",
                "the workload is suspended (paused), not failed",
                "Resume it when wanted; a suspended workload is out of scope for failure diagnosis.",
            )
        if phase == "Pending":
            if kinds & START_FAILURE_KINDS:
                return
            if self.s.events_failed:
                self.s.notes.append("Pending with events unavailable: history and pods decide whether it is in scope")
                return
            self.stop(
                "pending",
                "Pending with only scheduling or resource-wait evidence",
                "Route to Pending-workload diagnosis: nothing shows a pod failing to start.",
            )
        if phase == "Running":
            if kinds & CRASH_KINDS:
                return
            if self.s.events_failed:
                self.s.notes.append("Running with events unavailable: history and pods decide whether it is in scope")
                return
            self.stop(
                "running",
                "Running, and nothing confirms a crash loop or repeated crashes",
                "Did you mean a past run? Give that run's workload id, or --lookback to widen the window.",
            )
        self.stop(
            "not-terminal",
            f"the workload is {quote(phase, 40) or 'in an unknown phase'}, not in a failed state",
            "Wait for it to settle, or diagnose again once it fails.",
        )

    async def resolve_by_name(self) -> tuple[Workload, Page[WorkloadEvent] | _ReadFailure | None]:
        name, project = self.req.name or "", self.req.project or ""
        candidates = await self.list_candidates(name, project, deleted=None)
        deleted_note = None
        if not candidates:
            candidates = await self.list_candidates(name, project, deleted=True)
            if candidates:
                deleted_note = "no live workload matched, so deleted workloads were searched; this one was deleted"
                self.s.notes.append(deleted_note)
        if not candidates:
            self.stop(
                "not-found",
                f"no workload named {quote(name, 120)} in project {quote(project, 120)} on this cluster",
                "Check the name and project (exact match), or give the workload id.",
            )
        if not self.req.active:
            terminal = [w for w in candidates if (w.phase or "") in TERMINAL_FOR_SELECTION]
            if not terminal:
                phases = ", ".join(sorted({quote(w.phase, 30) for w in candidates}))
                self.evidence(f"{len(candidates)} submission(s) match, none terminal (phases: {phases})", LIST)
                self.stop(
                    "ambiguous",
                    "no terminal submission of that name; the matches are still active",
                    "Use --active for a current crash loop or start failure, or give the workload id.",
                )
            chosen = terminal[0]
            self.evidence(
                f"{len(candidates)} submission(s) of {quote(name, 120)} in {quote(project, 120)}; selected the most "
                f"recent terminal one, {quote(chosen.id, 80)} ({quote(chosen.phase, 30)} at "
                f"{chosen.phase_updated_at.isoformat() if chosen.phase_updated_at else 'unknown time'})",
                LIST,
                "selection",
            )
            self.note_other_submissions(candidates, chosen)
            assert chosen.id is not None
            workload, events = await self.status(chosen.id)
            if isinstance(workload, _ReadFailure):
                raise DiagnosisFailed(
                    f"the selected workload could not be read: {workload.missing.why}"
                ) from workload.error
            return workload, events
        return await self.select_active(candidates, name, project)

    def note_other_submissions(self, candidates: list[Workload], chosen: Workload) -> None:
        failed_others = [w for w in candidates if w is not chosen and (w.phase or "") in ENDING_PHASES]
        if failed_others:
            latest = failed_others[0]
            self.s.notes.append(
                f"{len(failed_others)} other submission(s) of this name ended in a failed or stopped phase; the newest "
                f"is {quote(latest.id, 80)} ({quote(latest.phase, 30)})"
            )

    async def select_active(
        self, candidates: list[Workload], name: str, project: str
    ) -> tuple[Workload, Page[WorkloadEvent] | _ReadFailure | None]:
        active = [w for w in candidates if (w.phase or "") in ACTIVE_PHASES and w.id]
        for start in range(0, len(active), ACTIVE_CONFIRM_BATCH):
            batch = active[start : start + ACTIVE_CONFIRM_BATCH]
            answers = await asyncio.gather(*(self.status(w.id or "") for w in batch))
            for candidate, (workload, events) in zip(batch, answers, strict=True):
                if isinstance(workload, _ReadFailure):
                    continue
                obs = from_phase_message(workload.phase, workload.phase_message, STATUS, workload.phase_updated_at)
                obs += from_conditions(workload.conditions, STATUS)
                if not isinstance(events, _ReadFailure) and events is not None:
                    for event in events.items:
                        obs += from_event(event, STATUS)
                kinds = {o.kind for o in obs}
                wanted = START_FAILURE_KINDS if workload.phase == "Pending" else CRASH_KINDS
                if kinds & wanted:
                    self.evidence(
                        f"{len(candidates)} submission(s) of {quote(name, 120)} in {quote(project, 120)}; selected "
                        f"the newest active one whose status confirms the failure: {quote(candidate.id, 80)}",
                        LIST,
                        "selection",
                    )
                    return workload, events
        self.evidence(
            f"{len(candidates)} submission(s) match; {len(active)} Running or Pending, none with a confirmed crash "
            "loop or start failure",
            LIST,
        )
        self.stop(
            "ambiguous",
            "no active submission shows the failure",
            "Give the workload id of the run you mean, or drop --active to diagnose the last terminal one.",
        )
        raise AssertionError("unreachable")

    async def list_candidates(self, name: str, project: str, *, deleted: bool | None) -> list[Workload]:
        try:
            filters = [
                filter_item("name", "==", name),
                filter_item("projectName", "==", project),
                filter_item("clusterId", "==", self.req.cluster_id),
            ]
        except ValueError as exc:
            raise DiagnosisFailed(f"cannot search for that name: {exc}") from exc
        found: list[Workload] = []
        offset = 0
        for _ in range(MAX_LIST_PAGES):
            page = await self.read(
                1,
                LIST,
                "workload list" + (" (deleted)" if deleted else ""),
                lambda off=offset: self.t1.list_workloads(  # type: ignore[misc]
                    filters=filters,
                    sort_by="phaseUpdatedAt",
                    sort_order="desc",
                    offset=off,
                    limit=PAGE_LIMIT,
                    deleted=deleted,
                ),
            )
            if isinstance(page, _ReadFailure):
                raise DiagnosisFailed(f"listing workloads failed: {page.missing.why}") from page.error
            # The filter's exact semantics are not guaranteed: re-check name, project and cluster exactly.
            found += [
                w
                for w in page.items
                if w.name == name and w.project_name == project and w.cluster_id == self.req.cluster_id
            ]
            if page.next is None or page.next <= offset:
                break
            offset = page.next
        epoch = datetime.min.replace(tzinfo=self.now.tzinfo)
        found.sort(key=lambda w: w.phase_updated_at or epoch, reverse=True)
        return found

    # -- Steps 2-5 -----------------------------------------------------------------------------------------
    async def steps_2_to_5(self) -> Report:
        w = self.s.workload
        assert w is not None and w.id is not None
        wid = w.id
        self.step_end(1)
        self.step_start(2)
        self.step_start(3)
        # The namespace matters only for Kubernetes reads; the project lookup it may need runs beside Step 2.
        namespace_task = asyncio.create_task(self.resolve_namespace()) if self.t2 is not None else None
        if namespace_task is None:
            self.s.namespace = self.pick_namespace(None)
        self._namespace_task = namespace_task

        spec_task = asyncio.create_task(self.read(2, SPEC, "kind-specific spec", lambda: self.t1.get_spec(wid, w.type)))
        pods_task = asyncio.create_task(self.read_pods(wid))
        self._pods_task = pods_task
        history_task = asyncio.create_task(self.read_history(wid))
        hint = self.pod_hint_from_events()
        tier2_pod_task: asyncio.Task[None] | None = None
        if self.t2 is not None and hint is not None:
            self.step_start(4)
            tier2_pod_task = asyncio.create_task(self.tier2_pod(hint[0], hint[1]))

        spec = await spec_task
        self.take_spec(spec)
        pods = await pods_task
        self.take_pods(pods)
        self.step_end(2)

        if self.t2 is not None and tier2_pod_task is None:
            name = self.pod_hint_from_pods()
            if name is not None:
                self.step_start(4)
                tier2_pod_task = asyncio.create_task(self.tier2_pod(name, None))
        await history_task
        self.step_end(3)
        self._tier1_done.set()

        # Pending/Running workloads whose events could not be read are decided here, from pods and history.
        self.late_scope_check()
        self.preemption_check(self.current_obs(include_tier2=False), "preemption evidence in the current episode")

        if self._namespace_task is not None:
            await self._namespace_task
        self.step_start(4)
        # Metrics wait only for the evidence that calls for them: with OOM evidence from Run:ai or from the pod's
        # first Kubernetes reads they run beside the remaining Kubernetes reads; otherwise the rest of the
        # Kubernetes evidence may still call for them afterwards.
        early_obs = self.current_obs(include_tier2=False)
        if tier2_pod_task is not None:
            await self._tier2_first.wait()
            early_obs += self._tier2_first_obs
        # Preemption in the pod's first answers routes the workload out once Tier 2 is complete: no metrics.
        early = self.needs_metrics(early_obs)
        early_metrics = early[0] and not is_preempted(early_obs)
        metrics_task = asyncio.create_task(self.metrics_if_needed(wid, early)) if early_metrics else None
        try:
            if tier2_pod_task is not None:
                await tier2_pod_task
            elif self.t2 is None:
                self.missing(
                    "Kubernetes evidence (pod, previous log, events, node)", self.t2_unavailable or "unavailable"
                )
            else:
                self.missing("Kubernetes evidence", "no pod name is known (no pods returned and no event names one)")
            self.preemption_check(
                self.s.tier2_obs, "the pod's DisruptionTarget condition says the scheduler preempted it"
            )
            if metrics_task is not None:
                (await metrics_task)()
            else:
                (await self.metrics_if_needed(wid, self.needs_metrics(self.current_obs(include_tier2=True))))()
        finally:
            if metrics_task is not None and not metrics_task.done():
                metrics_task.cancel()
            if tier2_pod_task is not None and not tier2_pod_task.done():
                tier2_pod_task.cancel()
        self.step_end(4)

        self.step_start(5)
        report = self.conclude()
        self.step_end(5)
        self.emit(VerdictReady(report, self.s.reads, self.clock() - self.started))
        return report

    def late_scope_check(self) -> None:
        w = self.s.workload
        assert w is not None
        if not self.s.events_failed or (w.phase or "") not in ACTIVE_PHASES:
            return
        kinds = {o.kind for o in self.current_obs(include_tier2=False)}
        wanted = START_FAILURE_KINDS if w.phase == "Pending" else CRASH_KINDS
        if kinds & wanted:
            return
        if w.phase == "Pending":
            self.stop(
                "pending",
                "Pending; neither pods nor history show a pod failing to start (events unavailable)",
                "Route to Pending-workload diagnosis, or retry when the events endpoint answers.",
            )
        self.stop(
            "running",
            "Running; neither pods nor history confirm a crash loop (events unavailable)",
            "Did you mean a past run? Give its workload id.",
        )

    def pod_hint_from_events(self) -> tuple[str, str | None] | None:
        for event in self.s.events or ():
            obj = event.involved_object
            if obj is not None and obj.kind == "Pod" and obj.name and self.recent(event.created_at):
                return obj.name, obj.uid
        return None

    def pod_hint_from_pods(self) -> str | None:
        pods = [p for p in self.s.pods if p.name]
        if not pods:
            return None
        failing = [
            p for p in pods if p.k8s_phase and p.k8s_phase not in {"Running", "Succeeded", "Completed", "Pending"}
        ]
        epoch = datetime.min.replace(tzinfo=self.now.tzinfo)
        pool = failing or pods
        pool.sort(key=lambda p: p.created_at or epoch, reverse=True)
        return pool[0].name

    async def resolve_namespace(self) -> None:
        """workload.namespace, else the project's status.namespace (one lookup), else events, else runai-<project>."""
        w = self.s.workload
        assert w is not None
        project_namespace: str | None = None
        if not w.namespace and w.project_name:
            project_namespace = await self.project_namespace(w.project_name)
        self.s.namespace = self.pick_namespace(project_namespace)

    async def project_namespace(self, project: str) -> str | None:
        try:
            filters = [filter_item("name", "==", project), filter_item("clusterId", "==", self.req.cluster_id)]
        except ValueError:
            return None
        page = await self.read(
            2,
            "list_projects",
            "project (for its namespace)",
            lambda: self.t1.list_projects(filters=filters, limit=PAGE_LIMIT),
        )
        if isinstance(page, _ReadFailure):
            self.missing("the project's namespace", page.missing.why, None)
            return None
        for item in page.items:
            if item.name == project and item.status is not None and item.status.namespace:
                return item.status.namespace
        return None

    def pick_namespace(self, project_namespace: str | None) -> NamespaceChoice:
        w = self.s.workload
        assert w is not None
        event_ns = [e.involved_object.namespace for e in self.s.events or () if e.involved_object]
        choice = resolve_namespace(w.namespace, project_namespace, event_ns, w.project_name)
        if choice.assumed:
            self.s.notes.append(choice.source)
        return choice

    def take_spec(self, spec: WorkloadSpecDoc | _ReadFailure) -> None:
        if isinstance(spec, _ReadFailure):
            why = spec.missing.why
            self.missing(
                "kind-specific spec (image, command, restart policy, mounts as submitted)",
                f"{why}; the workload object's own fields are used where they exist",
                SPEC,
            )
            w = self.s.workload
            if w is not None and w.images:
                self.evidence(
                    "Images (from the workload object): " + ", ".join(quote(i, 200) for i in w.images), STATUS, "image"
                )
            return
        self.s.spec = spec
        if spec.spec is None:
            self.missing("kind-specific spec body", "the spec document has no `spec` object", SPEC)
            return
        for item in config.spec_evidence(spec):
            self.evidence(item.text, item.source, item.signal)

    async def read_pods(self, wid: str) -> Page[RunaiPod] | _ReadFailure:
        pods = await self.read(2, PODS, "pods", lambda: self.t1.get_pods(wid, limit=PAGE_LIMIT))
        if not isinstance(pods, _ReadFailure) and not pods.items:
            deleted = await self.read(
                2, PODS, "deleted pods", lambda: self.t1.get_pods(wid, deleted=True, limit=PAGE_LIMIT)
            )
            if not isinstance(deleted, _ReadFailure) and deleted.items:
                self.s.notes.append("no live pods; the deleted pods of the workload were read instead")
                return deleted
        return pods

    def take_pods(self, pods: Page[RunaiPod] | _ReadFailure) -> None:
        if isinstance(pods, _ReadFailure):
            self.missing("pods", pods.missing.why, PODS)
            return
        self.s.pods = list(pods.items)
        if not self.s.pods:
            self.missing("pods", "the pods endpoint returned none (the pods may be gone)", PODS)
            return
        for pod in self.s.pods:
            item = config.pod_evidence(pod)
            self.evidence(item.text, item.source, item.signal)
            obs = from_runai_pod(pod, PODS)
            self.s.tier1_obs += obs
        if any(p.requested_resources is None for p in self.s.pods):
            self.missing("pod requestedResources", "not returned for some pods", PODS)

    async def read_history(self, wid: str) -> None:
        records: list[HistoryRecord] = []
        offset = 0
        pages = 0
        problems = 0
        order: str | None = None
        failure: _ReadFailure | None = None
        floor = self.evidence_floor()
        while pages < MAX_HISTORY_PAGES:
            page = await self.read(
                3,
                HISTORY,
                f"history page {pages + 1}",
                lambda off=offset: self.t1.get_history(wid, offset=off, limit=PAGE_LIMIT),
            )
            if isinstance(page, _ReadFailure):
                failure = page
                break
            pages += 1
            records += page.items
            problems += len(page.problems)
            stamps = [r.timestamp for r in page.items if r.timestamp is not None]
            if order is None and len(stamps) >= 2:
                order = "desc" if stamps[0] >= stamps[-1] else "asc"
            # Newest-first pages can stop at the cutoff; any other order must be read to the end.
            if order == "desc" and stamps and min(stamps) < floor:
                break
            if page.next is None:
                break
            if page.next <= offset:
                self.missing(
                    "the rest of the history", f"the history endpoint's next={page.next} did not advance", HISTORY
                )
                break
            offset = page.next
        else:
            self.missing("older history", f"stopped after {MAX_HISTORY_PAGES} pages of {PAGE_LIMIT}", HISTORY)
        if failure is not None:
            self.missing(
                "history" if not records else f"history after {len(records)} records",
                failure.missing.why + "; recurrence counts only what could be read",
                HISTORY,
            )
            if not records:
                return
        if problems:
            self.missing("some history records", f"{problems} record(s) could not be read", HISTORY)
        w = self.s.workload
        # Records of the diagnosed failure are kept even before the cutoff; recurrence still counts only
        # occurrences inside the lookback (in_window).
        in_lookback = [r for r in records if r.timestamp is None or r.timestamp >= floor]
        analysis = analyse_history(in_lookback, cutoff=self.cutoff, current_phase=w.phase if w else None)
        for problem in analysis.problems:
            self.missing("some history records", problem, HISTORY)
        self.s.history = analysis
        self.s.history_records = in_lookback
        self.emit(HistoryFound(tuple(analysis.timeline), analysis.records, pages))
        current = self.current_occurrence()
        if current is not None:
            self.s.tier1_obs += current.observations
            for o in current.observations:
                if o.kind in FAILING_KINDS or o.kind in NODE_KINDS or o.kind is SignalKind.PREEMPTED:
                    self.evidence(o.text, o.source, o.kind.value)

    def evidence_floor(self) -> datetime:
        """The oldest instant whose history is read: the lookback cutoff, or earlier when the failure being
        diagnosed happened before it (its own records are evidence whatever the lookback)."""
        w = self.s.workload
        # Only an ending phase dates the failure; a Running or Pending workload's failure is happening now.
        if w is None or (w.phase or "") not in ENDING_PHASES:
            return self.cutoff
        if w.phase_updated_at is None or w.phase_updated_at >= self.cutoff:
            return self.cutoff
        start = w.created_at if w.created_at is not None else w.phase_updated_at - FAILURE_LOOKBEHIND
        return min(self.cutoff, start - timedelta(minutes=1))

    def current_occurrence(self) -> Occurrence | None:
        analysis = self.s.history
        w = self.s.workload
        if analysis is None or not analysis.occurrences or w is None:
            return None
        last = analysis.occurrences[-1]
        if (w.phase or "") in ENDING_PHASES:
            # The ending that matches the workload's current phase change; history may lag a little.
            if last.end is not None and w.phase_updated_at is not None:
                if abs((last.end - w.phase_updated_at).total_seconds()) <= 300:
                    return last
                return None
            return last
        return last if last.open else None

    # -- Step 4, Tier 2 -----------------------------------------------------------------------------------
    async def tier2_pod(self, name: str, uid: str | None) -> None:
        try:
            await self._tier2_pod(name, uid)
        finally:
            self._tier2_first.set()

    async def _tier2_pod(self, name: str, uid: str | None) -> None:
        assert self.t2 is not None
        if self._namespace_task is not None:
            await self._namespace_task
        ns = self.s.namespace
        if ns is None or ns.namespace is None:
            self.missing("Kubernetes evidence", "the pod's namespace could not be determined", DESCRIBE_POD)
            return
        namespace = ns.namespace
        # The reads start before history is read: the failure time they are told (for "events expired"
        # reasoning) is the one Step 1 knows, the workload's last phase change.
        failed_at = self.s.workload.phase_updated_at if self.s.workload else None
        pod_task = asyncio.create_task(self.read_t2(4, DESCRIBE_POD, f"pod {name}", lambda: self.t2.pod(ns, name)))
        events_task = asyncio.create_task(
            self.read_t2(
                4,
                EVENTS,
                f"events of pod {name}",
                lambda: self.t2.pod_events(namespace, name, uid, failed_at=failed_at, now=self.now),
            )
        )
        pod = await pod_task
        logs_task: asyncio.Task[None] | None = None
        if isinstance(pod, K8sPod):
            self.s.k8s_pod = pod
            self.emit(containers_found(pod))
            obs = pod_observations(pod)
            self.s.tier2_obs += obs
            for o in obs:
                self.evidence(o.text, o.source, o.kind.value)
            logs_task = asyncio.create_task(self.tier2_logs(pod))
            node_name = pod.spec.node_name if pod.spec else None
        else:
            # The Run:ai pods read started beside this one: wait for its answer, so the node does not depend
            # on which read came back first.
            pods = await self._pods_task if self._pods_task is not None else None
            listed = pods.items if pods is not None and not isinstance(pods, _ReadFailure) else []
            node_name = next((p.node_name for p in listed if p.name == name and p.node_name), None)
        node_events_task = asyncio.create_task(self.tier2_node_events(node_name, failed_at)) if node_name else None
        # Pod events are taken before node events whichever answers first, so the report reads the same
        # on every run.
        events = await events_task
        if isinstance(events, KubeEvents):
            self.take_k8s_events(events.items)
        self._tier2_first_obs = list(self.s.tier2_obs)
        self._tier2_first.set()
        if node_events_task is not None:
            node_events = await node_events_task
            if isinstance(node_events, Missing):
                self.missing(node_events.what, node_events.why, node_events.source)
            elif node_events:
                self.take_k8s_events(node_events)
        if logs_task is not None:
            await logs_task
        await self._tier1_done.wait()
        if node_name and self.node_evidence():
            node = await self.read_t2(4, DESCRIBE_NODE, f"node {node_name}", lambda: self.t2.node(node_name))
            if isinstance(node, K8sNode):
                self.s.node = node
                self.emit(node_found(node))
                obs = node_observations(node)
                self.s.tier2_obs += obs
                for o in obs:
                    self.evidence(o.text, o.source, o.kind.value)

    def take_k8s_events(self, items: list[Any]) -> None:
        self.s.k8s_events += items
        self.emit(events_found(self.s.k8s_events))
        obs = events_observations(items)
        self.s.tier2_obs += obs
        for o in obs:
            self.evidence(o.text, o.source, o.kind.value)

    async def tier2_logs(self, pod: K8sPod) -> None:
        assert self.t2 is not None
        excerpt = await self.read_t2(4, LOGS, "previous container log", lambda: self.t2.logs(pod))
        if not isinstance(excerpt, LogExcerpt):
            return
        self.s.log = excerpt
        await self._tier1_done.wait()  # the failure time comes from history
        found, finding = log_finding(excerpt, self.failure_time())
        self.emit(found)
        if excerpt.note:
            self.s.notes.append(quote(excerpt.note, 300))
        if finding is None:
            container = quote(excerpt.container, 80)
            text = (
                f"The log of container {container} is empty"
                if not excerpt.lines
                else f"The log of container {container} ({len(excerpt.lines)} lines read) has no line that explains "
                "the failure"
            )
            self.evidence(text, LOGS, "log")
            return
        self.s.log_finding = finding
        self.evidence(log_line_text(excerpt, finding), LOGS, "log-line")
        obs = log_observation(excerpt, finding, self.failure_time())
        if obs is not None:
            self.s.tier2_obs.append(obs)

    async def tier2_node_events(self, node_name: str, failed_at: datetime | None) -> list[Any] | Missing:
        """Node events in the failure window (an OOM kill only when it is attributable to this container).

        A failed read is returned, not recorded: the caller lists it after the pod's events, whichever read
        answered first."""
        assert self.t2 is not None
        events = await self.read_t2(
            4,
            EVENTS,
            f"events of node {node_name}",
            lambda: self.t2.node_events(node_name, failed_at=failed_at, now=self.now),
            record=False,
        )
        if isinstance(events, KubeEvents):
            await self._tier1_done.wait()  # the failure window comes from history
            window = self.failure_window()
            ends = self.termination_times()
            return [e for e in events.items if _event_in(e, window) and self.attributable(e, ends)]
        return events if isinstance(events, Missing) else []

    def termination_times(self) -> list[datetime]:
        times: list[datetime] = []
        pod = self.s.k8s_pod
        if pod is not None and pod.status is not None:
            for cs in (pod.status.container_statuses or []) + (pod.status.init_container_statuses or []):
                for state in (cs.state, cs.last_state):
                    if state is not None and state.terminated is not None and state.terminated.finished_at:
                        times.append(state.terminated.finished_at)
        if not times:
            at = self.failure_time()
            if at is not None:
                times.append(at)
        return times

    @staticmethod
    def attributable(event: Any, ends: list[datetime]) -> bool:
        if (event.reason or "") != "OOMKilling":
            return True
        at = event.last_timestamp or event.event_time or event.first_timestamp
        return at is not None and any(abs(at - end) <= NODE_OOM_ATTRIBUTION for end in ends)

    def node_evidence(self) -> bool:
        return bool({o.kind for o in self.current_obs(include_tier2=True)} & (NODE_KINDS - {SignalKind.NODE_PRESSURE}))

    # -- Step 4, metrics ----------------------------------------------------------------------------------
    def failure_time(self) -> datetime | None:
        current = self.current_occurrence()
        if current is not None and current.at is not None:
            return current.at
        w = self.s.workload
        return w.phase_updated_at if w else None

    def failure_window(self) -> tuple[datetime | None, datetime | None]:
        end = self.failure_time()
        current = self.current_occurrence()
        start = current.start if current is not None else None
        if end is not None and start is None:
            start = end - timedelta(hours=1)
        return start, (end + timedelta(minutes=2)) if end else None

    def run_start(self) -> datetime | None:
        current = self.current_occurrence()
        if current is not None and current.run_start is not None:
            return current.run_start
        pod = self.s.k8s_pod
        if pod is not None and pod.status is not None:
            for cs in pod.status.container_statuses or ():
                for state in (cs.state, cs.last_state):
                    if state is not None and state.terminated is not None and state.terminated.started_at:
                        return state.terminated.started_at
        starts = [c.started_at for p in self.s.pods for c in p.containers or () if c.started_at]
        if starts:
            return min(starts)
        w = self.s.workload
        return w.created_at if w else None

    @staticmethod
    def needs_metrics(obs: list[Observation]) -> tuple[bool, str]:
        kinds = {o.kind for o in obs}
        if kinds & {SignalKind.OOM_KILLED, SignalKind.NODE_OOM_KILLING}:
            return True, "OOM evidence"
        verdict = classify(obs)
        if verdict.unresolved_kill and any(o.signal.exit_code == 137 for o in verdict.deciding):
            return True, "exit 137 without OOMKilled"
        return False, "no OOM evidence and no unexplained exit 137"

    async def metrics_if_needed(self, wid: str, decision: tuple[bool, str]) -> Callable[[], None]:
        """Read the metrics; what they found is recorded by the returned function, which the caller runs only
        once no route-out ended the diagnosis meanwhile (so a routed-out report never depends on timing)."""
        needed, why = decision
        if not needed:
            return lambda: None
        end = self.failure_time() or self.now
        start = self.run_start() or (end - timedelta(hours=1))
        # The failed run's window is queried whatever the lookback: it is the run being diagnosed.
        current = RunWindow(start, min(end + timedelta(minutes=1), self.now), "failed run", True)
        windows = [current] if current.end > current.start else []
        for occ in self.other_oom_occurrences():
            if occ.end is None:
                continue
            s = occ.run_start or occ.start or (occ.end - timedelta(hours=1))
            win = RunWindow(
                max(s, self.cutoff),
                min(occ.end + timedelta(minutes=1), self.now),
                f"earlier run ending {occ.end.isoformat()}",
                False,
            )
            if win.end > win.start:
                windows.append(win)
        if not windows:
            return lambda: self.missing(
                "CPU-memory samples",
                "the failed run's time window could not be placed (its start is not before its end)",
                METRICS,
            )

        async def query(win: RunWindow, a: datetime, b: datetime) -> tuple[RunWindow, MetricsResponse | _ReadFailure]:
            answer = await self.read(
                4,
                METRICS,
                f"metrics {a.isoformat()}..{b.isoformat()}",
                lambda: self.t1.get_metrics(wid, list(MEMORY_TYPES), a, b, MAX_SAMPLES),
            )
            return win, answer

        answers = await asyncio.gather(*(query(win, a, b) for win in windows for a, b in plan_queries(win)))

        def take() -> None:
            self.s.metrics_queried = True
            self.s.memory_windows = windows
            failures = [a for _, a in answers if isinstance(a, _ReadFailure)]
            if failures:
                self.missing("some CPU-memory samples", failures[0].missing.why, METRICS)
            self.s.memory_responses = [a for win, a in answers if win.current and isinstance(a, MetricsResponse)]
            for win in windows[1:]:
                summary = usage_summary(a for w2, a in answers if w2 is win and isinstance(a, MetricsResponse))
                self.s.other_run_peaks.append((win, summary.peak))
            self.s.notes.append(f"metrics read because of {why}")

        return take

    def other_oom_occurrences(self) -> list[Occurrence]:
        """Earlier OOM runs inside the lookback, newest first, at most MAX_EARLIER_RUNS of them."""
        analysis = self.s.history
        current = self.current_occurrence()
        if analysis is None:
            return []
        out = []
        for occ in reversed(analysis.occurrences):
            if occ is current or not in_window(occ, self.cutoff):
                continue
            if classify(occ.observations).category == "OOM_KILLED":
                out.append(occ)
                if len(out) == MAX_EARLIER_RUNS:
                    break
        return out

    # -- Step 5 --------------------------------------------------------------------------------------------
    def current_obs(self, *, include_tier2: bool) -> list[Observation]:
        obs = list(self.s.status_obs) + list(self.s.tier1_obs)
        if include_tier2:
            obs += self.s.tier2_obs
        return obs

    def conclude(self) -> Report:
        obs = self.current_obs(include_tier2=True)
        verdict: Verdict = classify(obs)
        memory = config.memory_setting(self.s.workload, self.s.pods, self.s.spec)  # type: ignore[arg-type]
        for problem in memory.problems:
            self.missing(problem.what, problem.why, STATUS)
        summary = usage_summary(self.s.memory_responses)
        limit_series = usage_summary(self.s.memory_responses, LIMIT)
        if self.s.metrics_queried:
            self.memory_evidence(summary, memory, limit_series.peak)
            self.emit(MemoryTrend(tuple(summary.samples), memory.request_bytes, memory.limit_bytes, summary.peak))
        occurrences = self.recurrence(verdict)
        failed_at = self.failure_time()
        if failed_at is not None and failed_at < self.cutoff:
            self.s.notes.append(
                f"the diagnosed failure ({failed_at.isoformat()}) is older than the {self.req.lookback} lookback, so "
                "it is not in the recurrence count; widen --lookback to count it"
            )
        if self.s.history is None:
            self.missing("recurrence beyond this failure", "history could not be read", HISTORY)
        return build_report(
            ReportInputs(
                request=self.req,
                now=self.now,
                cutoff=self.cutoff,
                workload=self.ref(),
                verdict=verdict,
                evidence=self.s.evidence,
                missing=self.s.missing,
                notes=self.s.notes,
                memory=memory,
                memory_relevant=self.s.metrics_queried or verdict.category == "OOM_KILLED",
                peak=summary.peak if self.s.metrics_queried else None,
                peak_at=summary.peak_at if self.s.metrics_queried else None,
                samples=len(summary.samples) if self.s.metrics_queried else 0,
                windows=[
                    {
                        "start": w.start.isoformat(),
                        "end": w.end.isoformat(),
                        "run": w.label,
                        "stepSeconds": round(step_of(w).total_seconds(), 1),
                    }
                    for w in self.s.memory_windows
                ],
                occurrences=occurrences,
                history=self.s.history,
                spec=self.s.spec,
                log_finding=self.s.log_finding,
                tier2_available=self.t2 is not None,
                node_name=self.s.k8s_pod.spec.node_name
                if self.s.k8s_pod and self.s.k8s_pod.spec
                else next((p.node_name for p in self.s.pods if p.node_name), None),
                observations=obs,
            )
        )

    def memory_evidence(self, summary: Any, memory: config.MemorySetting, limit_metric: int | None) -> None:
        win = self.s.memory_windows[0] if self.s.memory_windows else None
        span = f" ({win.start.isoformat()} to {win.end.isoformat()})" if win else ""
        if summary.peak is None:
            self.evidence(f"No CPU-memory samples were recorded for the failed run{span}", METRICS, "no-samples")
            self.missing("CPU-memory peak", f"the metrics series is empty for the failed run{span}", METRICS)
        else:
            text = (
                f"Peak CPU memory {format_bytes(summary.peak)} ({summary.peak} bytes) at {summary.peak_at.isoformat()}"
            )
            if memory.limit_bytes:
                text += f", {summary.peak / memory.limit_bytes:.1%} of the {format_bytes(memory.limit_bytes)} limit"
            text += f"; {len(summary.samples)} samples{span}"
            self.evidence(text, METRICS, "memory-peak")
        if limit_metric is not None and memory.limit_bytes is not None and limit_metric != memory.limit_bytes:
            self.s.notes.append(
                f"the metrics' CPU_MEMORY_LIMIT_BYTES ({format_bytes(limit_metric)}) differs from the configured "
                f"limit ({format_bytes(memory.limit_bytes)})"
            )
        for win, peak in self.s.other_run_peaks:
            shown = format_bytes(peak) if peak is not None else "no samples"
            self.evidence(f"Peak CPU memory of the {win.label}: {shown}", METRICS, "memory-peak-earlier")

    def recurrence(self, verdict: Verdict) -> list[datetime]:
        analysis = self.s.history
        current = self.current_occurrence()
        times: list[datetime] = []
        if analysis is not None:
            for occ in analysis.occurrences:
                if not in_window(occ, self.cutoff):
                    continue
                category = verdict.category if occ is current else classify(occ.observations).category
                if occ is not current and is_preempted(occ.observations):
                    continue
                if category == verdict.category and occ.at is not None:
                    times.append(occ.at)
        if current is None:
            at = self.failure_time()
            if at is not None and at >= self.cutoff:
                times.append(at)
        return sorted(set(times), reverse=True)


def _event_in(event: Any, window: tuple[datetime | None, datetime | None]) -> bool:
    start, end = window
    at = event.last_timestamp or event.event_time or event.first_timestamp
    if at is None or start is None or end is None:
        return True
    first = event.first_timestamp or at
    return first <= end and at >= start


async def diagnose(
    request: DiagnosisRequest,
    tier1: Tier1,
    tier2: KubeSource | None = None,
    *,
    tier2_unavailable: str | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> AsyncIterator[ProgressEvent]:
    """Run one diagnosis; yields progress as reads complete and ends with `VerdictReady`.

    Raises DiagnosisFailed when no report can be produced at all (the API unreachable, credentials refused,
    the workload itself unreadable). Closing the iterator early cancels the reads still in flight.
    """
    run = _Diagnosis(request, tier1, tier2, tier2_unavailable, clock)

    async def work() -> None:
        try:
            await run.execute()
        finally:
            run.queue.put_nowait(_DONE)

    task = asyncio.create_task(work())
    try:
        while True:
            item = await run.queue.get()
            if item is _DONE:
                break
            yield item  # type: ignore[misc]
        await task
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def run_to_report(
    request: DiagnosisRequest, tier1: Tier1, tier2: KubeSource | None = None, *, tier2_unavailable: str | None = None
) -> Report:
    """Drain a diagnosis and return its report (for the headless command and tests)."""
    report: Report | None = None
    async for event in diagnose(request, tier1, tier2, tier2_unavailable=tier2_unavailable):
        if isinstance(event, VerdictReady):
            report = event.report
    assert report is not None
    return report
