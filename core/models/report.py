"""The diagnosis report, format `runai-triage/report@1` (docs/report-format.md), plus the keys we add.

The required keys are exactly the contract's; additions are only new keys (`reason`, `nextAction`, `history`,
`requested`, `notes`, ...) so other tools that read report@1 keep working.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from core.models.advice import Action, Do, Said
from core.plural import duration, plural

SCHEMA = "runai-triage/report@1"

Outcome = Literal[
    "diagnosed",
    "preempted",
    "pending",
    "suspended",
    "succeeded",
    "running",
    "not-terminal",
    "cluster-mismatch",
    "not-found",
    "ambiguous",
]
OUTCOMES: tuple[str, ...] = Outcome.__args__  # type: ignore[attr-defined]

Category = Literal[
    "CRASH_APP_ERROR",
    "OOM_KILLED",
    "IMAGE_PULL_FAILED",
    "INIT_FAILED",
    "DATASOURCE_MOUNT_FAILED",
    "NODE_FAILURE",
    "SCHEDULING_POLICY_TERMINATED",
    "UNKNOWN",
]
CATEGORIES: tuple[str, ...] = Category.__args__  # type: ignore[attr-defined]

Source = Literal[
    "get_workload_status",
    "get_workload_spec",
    "get_workload_pods",
    "get_workload_history",
    "get_workload_metrics",
    "list_workloads",
    "kubectl describe pod",
    "kubectl logs --previous",
    # The current instance's log, read when no previous instance was kept (a container that never restarted).
    "kubectl logs",
    "kubectl get events",
    "kubectl describe node",
]
SOURCES: tuple[str, ...] = Source.__args__  # type: ignore[attr-defined]

# Infrastructure findings (report-format.md, "Infrastructure findings", an addition to report@1).
FindingKind = Literal[
    "gpu-hardware", "gpu-driver-runtime", "network-fabric", "node-pressure", "admission", "control-plane"
]
FINDING_KINDS: tuple[str, ...] = FindingKind.__args__  # type: ignore[attr-defined]
Owner = Literal["administrator", "user"]
# A finding cites the seed's reads, and one more: the clusters list (`GET /api/v1/clusters`), where the Run:ai
# cluster's status is read.
FindingSource = Source | Literal["list_clusters"]


class ReportModel(BaseModel):
    # Built on first use, not at import: the picker imports these names before its first paint, and the first
    # report (or the app's warm-up, `core.models.fast.prepare_all`) builds them.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", defer_build=True)


class WorkloadRef(ReportModel):
    id: str | None = None
    name: str | None = None
    project: str | None = None
    cluster_id: str | None = None
    phase: str | None = None
    namespace: str | None = None
    # Added keys: where the namespace came from, and when the phase last changed.
    namespace_source: str | None = None
    phase_updated_at: datetime | None = None
    type: str | None = None


class EvidenceRead(ReportModel):
    """One read's own citation of a signal that several reads showed (added key `evidence[].reads[]`)."""

    text: str
    source: Source


class EvidenceItem(ReportModel):
    text: str
    source: Source
    # Added key: a stable machine-readable tag of the signal ("OOMKilled", "exit-code", ...), for tools.
    signal: str | None = None
    # Added keys (report-format.md, "One signal, all its sources"): every read that showed this signal, the
    # first and strongest (`source`) first; whether the category rests on it; and, when several reads were
    # merged into this one item, each read's own citation (empty when one read showed it).
    sources: list[Source] = Field(default_factory=list)
    decisive: bool = False
    reads: list[EvidenceRead] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_source_at_least(self) -> EvidenceItem:
        if not self.sources:
            self.sources = [self.source]
        return self


class MissingItem(ReportModel):
    what: str
    why: str
    # Added key: the read that could not be made, in the report's source vocabulary.
    source: str | None = None


# The words a missing CPU-memory peak's reason holds when samples were read but none can be true (below zero,
# more than any machine holds): the memory section then says so rather than "no samples".
NOT_MEASUREMENTS = "not measurements"
# The words of the note a diagnosis makes when the failure it diagnosed is later than the moment given as now
# (`--now` in the past): the text's History line says so too, since that is why nothing was counted.
AFTER_NOW = "is after the moment given as now"
# The same when nobody gave that moment: it was a clock's (this machine's, the app's) or a case bundle's capture,
# so a failure later than it means two clocks disagree, not that the user asked about the past.
AFTER_CLOCK = "is after the moment the diagnosis took as now"


class PodMemory(ReportModel):
    """One pod's measured memory against its own limit (added key `memory.pods[]`)."""

    pod: str
    role: str | None = None
    request_bytes: int | None = None
    limit_bytes: int | None = None
    peak_bytes: int | None = None  # that pod's own measured peak, never a sum over pods
    peak_at: datetime | None = None
    samples: int = 0


class Memory(ReportModel):
    request_bytes: int | None = None
    limit_bytes: int | None = None
    peak_bytes: int | None = None
    samples: int = 0
    # Added keys: when the peak was seen and the windows that were queried.
    peak_at: datetime | None = None
    windows: list[dict[str, Any]] = Field(default_factory=list)
    # Added keys for a workload of several pods: the pod whose limit and peak the values above are, and each
    # pod whose own series was read (a workload's series is a sum over its pods, never a pod's peak).
    pod: str | None = None
    pods: list[PodMemory] = Field(default_factory=list)


class OtherSubmissions(ReportModel):
    """The name's other submissions in the same project and cluster (added key `recurrence.otherSubmissions`).

    Recurrence counts this workload's own failures; a name is often resubmitted, each run a new workload."""

    failed: int | None = None  # ended Failed (or Crashed) inside the lookback; None when they could not be listed
    stopped: int | None = None  # ended Stopped inside the lookback
    total: int | None = None  # other submissions whose phase changed inside the lookback, whatever it is
    lookback: str
    newest_failed_id: str | None = None
    why: str | None = None  # why the count is unknown, or what it does not cover


# A workload failing every few minutes for a week has thousands of occurrences; the report lists the newest.
MAX_OCCURRENCES = 50


class CrashLoopCount(ReportModel):
    """A crash loop as recurrence counts it (added key `recurrence.crashLoop`): the restarts of one failure,
    which the count of separate failures does not see. Any part may be unknown (None)."""

    container: str | None = None
    restarts: int | None = None  # the container's restartCount
    back_offs: int | None = None  # the back-offs the kubelet's aggregated event counted, or Run:ai's read
    since: datetime | None = None  # the oldest crash or back-off known
    last_crash: datetime | None = None
    seconds: int | None = None  # how long it has gone on: since the oldest known, to now (still looping) or its end

    def words(self) -> str:
        """`crash loop: 7 restarts in 40 min`, `crash loop: 21 back-offs in 16 min`, `crash loop for 3 min`."""
        span = f" in {duration(self.seconds)}" if self.seconds is not None else ""
        if self.restarts:
            return f"crash loop: {plural(self.restarts, 'restart')}{span}"
        if self.back_offs:
            return f"crash loop: {plural(self.back_offs, 'back-off')}{span}"
        return f"crash loop for {duration(self.seconds)}" if self.seconds is not None else "crash loop"


class Recurrence(ReportModel):
    count: int = 0
    lookback: str
    recurring: bool = False
    # Added key: false when the history could not be read back to the lookback (not at all, in part, or with
    # records left unread): `count` is then what was found, a lower bound, and one failure is not a one-off.
    complete: bool = True
    # Added key: when each counted occurrence happened (failure time), newest first: at most the newest
    # MAX_OCCURRENCES, with `occurrencesCut` true when there were more (`count` is always the whole count).
    occurrences: list[datetime] = Field(default_factory=list)
    occurrences_cut: bool = False
    other_submissions: OtherSubmissions | None = None
    # Added key: the restarts of the failure diagnosed when it is a crash loop (None: no crash loop was seen).
    crash_loop: CrashLoopCount | None = None

    def kind(self) -> str:
        """`recurring`, `one-off` or `none counted`; from a history not read whole, `recurrence unknown` unless
        what was read already shows it recurring (one failure found is not a one-off then). A crash loop is
        never a one-off: its restarts are said beside the count (`1 · crash loop: 7 restarts in 40 min`)."""
        loop = f" · {self.crash_loop.words()}" if self.crash_loop is not None else ""
        if self.recurring:
            return "recurring" + loop
        if not self.complete:
            return "recurrence unknown" + loop
        if loop:
            return loop.removeprefix(" · ")
        return "one-off" if self.count == 1 else "none counted"

    def counted(self) -> str:
        """The count, as `3`, or `1+` when it is a lower bound."""
        return f"{self.count}" if self.complete else f"{self.count}+"


class PodTerminationEntry(ReportModel):
    """One pod's end in a workload of several pods, in the order they ended (added key `terminationOrder`)."""

    pod: str
    role: str | None = None
    node: str | None = None
    at: datetime | None = None
    how: str
    first: bool = False  # the failure the verdict rests on; the others are its consequences
    consequence: bool = False
    teardown: list[str] = Field(default_factory=list)  # the signs it was ended after a peer failed
    deleted: bool = False
    time_source: str | None = None


class HistoryEntry(ReportModel):
    """One line of the lookback timeline (added key `history`)."""

    at: datetime | None
    kind: Literal["phase", "event"]
    text: str
    failure: bool = False
    occurrence: int | None = None


class OtherPod(ReportModel):
    """Another pod that failed on the same node in the lookback (added key of a finding)."""

    namespace: str | None = None
    name: str
    how: str  # "Failed: Evicted", "container main terminated: Error (exit 1)", ...
    at: datetime | None = None


class Finding(ReportModel):
    """A fault outside the workload that the evidence shows, and who can act on it."""

    kind: FindingKind
    owner: Owner = "administrator"
    node: str | None = None
    text: str
    source: FindingSource
    # Added keys: whether it explains this failure (then the recommendations lead with the administrator's
    # action), and for a node-level finding the other pods that failed on that node (None: not looked for).
    explains: bool = False
    other_pods: list[OtherPod] | None = None
    other_pods_note: str | None = None


class SupersededSignal(ReportModel):
    """A failure signal a later event took back (added key `superseded`): history, not the cause. One per kind
    of signal and pod (a preemption: per workload), however many times it was seen."""

    what: str  # "image pull error", "preemption", "init container failure", ...
    count: int = 1  # how many times it was seen (distinct times)
    first_at: datetime | None = None
    last_at: datetime | None = None
    resolved_at: datetime | None = None  # the mark that took the last of them back
    resolved_by: str  # "image pulled", "the workload ran again (phase Running)", ...
    resolved_source: str
    ran_seconds: int | None = None  # how long the run that followed lasted, up to the failure (or until now)
    pod: str | None = None
    node: str | None = None
    evidence: str  # the newest citation of it
    source: Source
    text: str  # the whole of it in one sentence


class ActionStep(ReportModel):
    """One action in a sentence of advice: its key, and the phrasing the sentence needs (`form`, "" plain)."""

    action: Action
    form: str = ""


class ActionText(ReportModel):
    """A sentence of `nextAction`, `recommendations` or `notes` that offers something to do which each front end
    words its own way (added key `actions`): the sentence as those fields hold it (the command line's words), the
    action keys in it, and the sentence in parts (plain words and actions) for another front end to word."""

    text: str
    keys: list[Action]
    parts: list[str | ActionStep]

    @classmethod
    def of(cls, sentence: Said) -> ActionText:
        parts: list[str | ActionStep] = [
            p if isinstance(p, str) else ActionStep(action=p.action, form=p.form) for p in sentence.parts
        ]
        return cls(text=sentence.text, keys=list(sentence.actions), parts=parts)

    def said(self) -> Said:
        return Said(tuple(p if isinstance(p, str) else Do(p.action, p.form) for p in self.parts))


class Report(ReportModel):
    schema_: str = Field(default=SCHEMA, alias="schema")
    outcome: Outcome
    category: Category | None = None
    workload: WorkloadRef
    evidence: list[EvidenceItem] = Field(default_factory=list)
    missing: list[MissingItem] = Field(default_factory=list)
    memory: Memory | None = None
    recurrence: Recurrence
    recommendations: list[str] = Field(default_factory=list)
    # Infrastructure findings: always present, empty when there are none (report-format.md).
    findings: list[Finding] = Field(default_factory=list)
    # Added keys.
    reason: str | None = None
    next_action: str | None = None
    notes: list[str] = Field(default_factory=list)
    history: list[HistoryEntry] = Field(default_factory=list)
    termination_order: list[PodTerminationEntry] = Field(default_factory=list)
    superseded: list[SupersededSignal] = Field(default_factory=list)
    # The sentences above that hold an action, as data (always present, empty when none).
    actions: list[ActionText] = Field(default_factory=list)
    generated_at: datetime | None = None
    lookback_start: datetime | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)
