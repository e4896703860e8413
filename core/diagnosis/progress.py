"""Progress events: what the engine yields while it works, so a screen can fill in as evidence arrives.

Every text in these events is already sanitised and redacted (cluster text enters through core.safety).
The last event of a run is always `VerdictReady`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.models.report import EvidenceItem, MissingItem, PodTerminationEntry, Report, WorkloadRef

STEP_TITLES: dict[int, str] = {
    1: "Resolve the workload and check its phase",
    2: "Inspect the submitted spec and pods",
    3: "Inspect history",
    4: "Collect conditional evidence",
    5: "Classify and report",
}


@dataclass(frozen=True, slots=True)
class StepStarted:
    step: int
    title: str


@dataclass(frozen=True, slots=True)
class StepFinished:
    step: int
    reads: int
    seconds: float
    skipped: str | None = None  # why the step made no reads, when it made none on purpose


@dataclass(frozen=True, slots=True)
class ReadFinished:
    """One API read completed (or failed): `source` in the report vocabulary, `what` a short description."""

    source: str
    what: str
    seconds: float
    ok: bool
    step: int | None = None  # the workflow step the read belongs to


@dataclass(frozen=True, slots=True)
class WorkloadResolved:
    workload: WorkloadRef


@dataclass(frozen=True, slots=True)
class EvidenceFound:
    item: EvidenceItem


@dataclass(frozen=True, slots=True)
class MissingFound:
    item: MissingItem


@dataclass(frozen=True, slots=True)
class ContainerRow:
    name: str
    init: bool
    state: str  # "terminated: OOMKilled (exit 137)", "waiting: CrashLoopBackOff", ...
    last_state: str | None
    exit_code: int | None
    exit_meaning: str | None
    restarts: int | None


@dataclass(frozen=True, slots=True)
class ContainersFound:
    pod: str
    status: str  # kubectl's STATUS column
    node: str | None
    rows: tuple[ContainerRow, ...]


@dataclass(frozen=True, slots=True)
class KubeEventRow:
    type: str | None
    reason: str | None
    message: str
    count: int | None
    last_seen: datetime | None
    involved: str  # "Pod/x" or "Node/y"


@dataclass(frozen=True, slots=True)
class KubeEventsFound:
    rows: tuple[KubeEventRow, ...]


@dataclass(frozen=True, slots=True)
class LogFound:
    container: str
    previous: bool
    lines: tuple[str, ...]
    explaining_line: int | None  # index into lines
    truncated: bool
    note: str | None = None  # why this instance is shown (e.g. the container never restarted)
    pod: str | None = None  # the pod, when it is not the one read in full (a peer found to have failed first)


@dataclass(frozen=True, slots=True)
class NodeConditionRow:
    type: str
    status: str
    reason: str | None
    message: str | None
    since: datetime | None


@dataclass(frozen=True, slots=True)
class NodeFound:
    name: str
    conditions: tuple[NodeConditionRow, ...]
    taints: tuple[str, ...]
    unschedulable: bool


@dataclass(frozen=True, slots=True)
class MemoryTrend:
    """CPU-memory usage samples of the failed run(s), with the configured request and limit."""

    samples: tuple[tuple[datetime, int], ...]
    request_bytes: int | None
    limit_bytes: int | None
    peak_bytes: int | None
    pod: str | None = None  # for a workload of several pods: the pod whose own series and limit these are


@dataclass(frozen=True, slots=True)
class TerminationsFound:
    """The pods of a workload in the order they ended, the first failure first (its consequences after it)."""

    entries: tuple[PodTerminationEntry, ...]


@dataclass(frozen=True, slots=True)
class HistoryFound:
    # core.diagnosis.history_analysis.TimelineEntry objects (at, kind, text, failure, occurrence), oldest first.
    entries: tuple[Any, ...]
    records: int
    pages: int


@dataclass(frozen=True, slots=True)
class VerdictReady:
    report: Report
    reads: int = 0
    seconds: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)


ProgressEvent = (
    StepStarted
    | StepFinished
    | ReadFinished
    | WorkloadResolved
    | EvidenceFound
    | MissingFound
    | ContainersFound
    | KubeEventsFound
    | LogFound
    | NodeFound
    | MemoryTrend
    | TerminationsFound
    | HistoryFound
    | VerdictReady
)
