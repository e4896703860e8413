"""Step 5, the report: category or outcome first, evidence with the deciding signals on top, what is missing,
memory against the limit, recurrence, and the next actions. Nothing here invents a value: a field the
diagnosis did not measure stays null."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from core.diagnosis import recommend_infra
from core.diagnosis.cascade import NO_ORDER, TerminationOrder, entry_of
from core.diagnosis.configuration import MemorySetting
from core.diagnosis.consistency import node_down_before, restarts_under_never
from core.diagnosis.crash_loop import CrashLoop, exits_zero_text
from core.diagnosis.evidence_groups import merge_evidence
from core.diagnosis.history_analysis import HistoryAnalysis
from core.diagnosis.log_scan import LogFinding
from core.diagnosis.observations import Observation, quote
from core.diagnosis.probe_kill import killing_probe, probe_kill, readiness_line
from core.diagnosis.recommend import AdviceContext, recommendations
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.resolved_history import history_items
from core.diagnosis.rules import Verdict
from core.diagnosis.signals import ImagePullKind, SignalKind
from core.diagnosis.signals.image_pull import PULL_LABELS
from core.diagnosis.signals.node_pressure import eviction_usage, node_short
from core.diagnosis.supersede import NOTHING, Supersession, resolved_texts
from core.models.advice import Said, text_of
from core.models.kube import K8sPod
from core.models.quantity import format_bytes
from core.models.report import (
    MAX_OCCURRENCES,
    ActionText,
    CrashLoopCount,
    EvidenceItem,
    Finding,
    HistoryEntry,
    Memory,
    MissingItem,
    OtherSubmissions,
    PodMemory,
    Recurrence,
    Report,
    WorkloadRef,
)
from core.models.runai_spec import WorkloadSpecDoc

# The report carries the newest part of a long timeline; the screen gets all of it from the progress event.
REPORT_TIMELINE_ENTRIES = 300

_POLICY_NAMES = {
    SignalKind.POLICY_IDLE_TIMEOUT: "the idle-GPU time limit",
    SignalKind.POLICY_MAX_DURATION: "the maximum-duration limit",
    SignalKind.MANUAL_STOP: "a manual stop",
    SignalKind.DEADLINE_EXCEEDED: "its active deadline (activeDeadlineSeconds)",
}




@dataclass
class ReportInputs:
    request: DiagnosisRequest
    now: datetime
    cutoff: datetime
    workload: WorkloadRef
    verdict: Verdict
    evidence: list[EvidenceItem]
    missing: list[MissingItem]
    notes: list[str | Said]
    memory: MemorySetting
    memory_relevant: bool
    peak: int | None
    peak_at: datetime | None
    samples: int
    windows: list[dict[str, object]]
    occurrences: list[datetime]
    history: HistoryAnalysis | None
    history_whole: bool  # every history record back to the lookback was read (else the count is a lower bound)
    spec: WorkloadSpecDoc | None
    log_finding: LogFinding | None
    tier2_available: bool
    node_name: str | None
    observations: Sequence[Observation]
    order: TerminationOrder = NO_ORDER
    memory_pods: Sequence[PodMemory] = ()
    memory_pod: str | None = None
    other_submissions: OtherSubmissions | None = None
    findings: list[Finding] = field(default_factory=list)
    superseded: Supersession = NOTHING  # the signals a later event took back
    failed_at: datetime | None = None  # the failure diagnosed (None: the workload has not ended)
    pod: K8sPod | None = None  # the failed pod as Kubernetes described it (a probe's settings)
    loop: CrashLoop | None = None  # a crash loop, dated from its last crash
    crash_loop: CrashLoopCount | None = None  # the failure's restarts, when it is a crash loop


# Reads run concurrently, so evidence arrives in varying order; the report orders it by source (the seed's
# order of reads) so the same case always reads the same.
SOURCE_ORDER: dict[str, int] = {
    source: rank
    for rank, source in enumerate(
        (
            "list_workloads",
            "get_workload_status",
            "get_workload_spec",
            "get_workload_pods",
            "get_workload_history",
            "get_workload_metrics",
            "kubectl describe pod",
            "kubectl logs --previous",
            "kubectl logs",
            "kubectl get events",
            "kubectl describe node",
        )
    )
}


def _source_rank(source: str | None) -> int:
    return SOURCE_ORDER.get(source or "", len(SOURCE_ORDER))


def _ordered_evidence(
    evidence: list[EvidenceItem], deciding: Sequence[Observation], observations: Sequence[Observation] = ()
) -> list[EvidenceItem]:
    """The deciding signals first (strongest rule, newest first), then the rest by source; each signal once,
    with every read that showed it (`evidence_groups`)."""
    rank = {(o.text, o.source): index for index, o in enumerate(deciding)}
    top = sorted((e for e in evidence if (e.text, e.source) in rank), key=lambda e: rank[(e.text, e.source)])
    rest = sorted((e for e in evidence if (e.text, e.source) not in rank), key=lambda e: _source_rank(e.source))
    return merge_evidence(top + rest, rank, SOURCE_ORDER, observations)


def as_history(evidence: list[EvidenceItem], sup: Supersession) -> list[EvidenceItem]:
    """The evidence, with each citation of a signal a later event took back (and of nothing that stands) marked
    `superseded`: it is history, shown after what the failure rests on."""
    taken = resolved_texts(sup)
    if not taken:
        return evidence
    return [
        e.model_copy(update={"signal": SUPERSEDED}) if (e.text, e.source) in taken else e for e in evidence
    ]


SUPERSEDED = "superseded"


def ordered_missing(missing: list[MissingItem]) -> list[MissingItem]:
    return sorted(missing, key=lambda m: _source_rank(m.source))


def _pull_kind(deciding: Sequence[Observation]) -> tuple[ImagePullKind | None, bool]:
    specific = [o for o in deciding if o.signal.pull_kind not in (None, ImagePullKind.UNKNOWN_PULL)]
    pool = specific or list(deciding)
    if not pool:
        return None, False
    chosen = pool[0]  # deciding observations come newest first
    return chosen.signal.pull_kind, chosen.signal.ambiguous


# Within one rule, the kinds that name the cause most directly (a lost node says more than the taint
# manager's eviction that followed it).
_KIND_PREFERENCE: dict[SignalKind, int] = {
    SignalKind.NODE_LOST: 3,
    SignalKind.NODE_NOT_READY: 2,
    SignalKind.NODE_DRAIN: 2,
    SignalKind.SANDBOX_FAILED: 2,
    SignalKind.EVICTED: 1,
}


def _most_telling(deciding: Sequence[Observation]) -> Observation:
    """The deciding observation that says the most: a specific pull error, an exit code, a real message."""

    def score(obs: Observation) -> tuple[int, int, int]:
        sig = obs.signal
        specific = sig.pull_kind not in (None, ImagePullKind.UNKNOWN_PULL)
        detail = int(specific) + int(sig.exit_code is not None) + int(len(sig.detail) > 40)
        return (_KIND_PREFERENCE.get(sig.kind, 0), detail, -deciding.index(obs))

    return max(deciding, key=score)


def _telling_first(deciding: Sequence[Observation]) -> list[Observation]:
    """The deciding observations with the one that says the most (the one the reason quotes) first: the report
    opens on it."""
    if not deciding:
        return []
    top = _most_telling(deciding)
    return [top, *(o for o in deciding if o is not top)]


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _reason(inputs: ReportInputs) -> str:
    verdict = inputs.verdict
    explaining = [f for f in inputs.findings if f.explains]
    if verdict.rule is None and explaining:
        top = explaining[0]
        where = f" on node {top.node}" if top.node else ""
        return (
            f"no category's signal decides it (the taxonomy stays UNKNOWN), but {_article(top.kind)} {top.kind} "
            f"finding{where} explains the failure: {top.text}"
        )
    if verdict.rule is None:
        if verdict.unresolved_kill:
            codes = sorted({o.signal.exit_code for o in verdict.deciding if o.signal.exit_code is not None})
            shown = "/".join(str(c) for c in codes) or "a kill signal"
            return f"exit {shown} without OOMKilled, and nothing read explains the kill"
        if inputs.loop is not None and inputs.loop.exits_zero:
            said = f'; its log says: "{quote(inputs.log_finding.said)}"' if inputs.log_finding else ""
            return f"{exits_zero_text(inputs.loop)}: an exit 0 is not the non-zero exit of CRASH_APP_ERROR{said}"
        return "the signals that could be read do not identify a cause"
    top = _most_telling(verdict.deciding)
    detail = quote(top.signal.detail)  # whole: the cause (a 429, a missing bucket) is often at the end
    label = PULL_LABELS.get(top.signal.pull_kind) if top.signal.pull_kind else None
    trigger = f"{verdict.rule.trigger} ({label})" if label else verdict.rule.trigger
    if (probe := killing_probe(verdict.deciding)) is not None:
        trigger = f"the kubelet killed the container after its {probe[0]} probe failed"
        top = next((o for o in verdict.deciding if o.signal.probe == probe[0] and o.signal.note is None), top)
    text = f"{trigger}: {detail} (source: {top.source})"
    if verdict.category == "OOM_KILLED" and inputs.memory.limit_bytes:
        # Each figure names its own read: the limit is configuration, the peak a measurement.
        where = f" (source: {inputs.memory.source})" if inputs.memory.source else ""
        text += f"; limit {format_bytes(inputs.memory.limit_bytes)}{where}"
        if inputs.peak is not None:
            text += f", observed peak {format_bytes(inputs.peak)} (source: get_workload_metrics)"
    return text


def _advice(inputs: ReportInputs, count: int) -> list[str]:
    verdict = inputs.verdict
    kinds = {o.kind for o in verdict.deciding}
    pull_kind, ambiguous = _pull_kind(verdict.deciding) if verdict.category == "IMAGE_PULL_FAILED" else (None, False)
    spec = inputs.spec.spec if inputs.spec else None
    policy = next((_POLICY_NAMES[k] for k in _POLICY_NAMES if k in kinds), None)
    mount = next((o.signal.resource for o in verdict.deciding if o.signal.resource), None)
    log_line = quote(inputs.log_finding.said) if inputs.log_finding else None
    gpu_oom = SignalKind.GPU_OOM in kinds or bool(inputs.log_finding and inputs.log_finding.gpu_oom)
    # The eviction whose message carries the kubelet's measurement, else one that names what ran out.
    evictions = [o for o in (*verdict.deciding, *inputs.observations) if o.kind is SignalKind.EVICTED]
    evicted = next(
        (o for o in evictions if eviction_usage(o.signal.detail)),
        next((o for o in evictions if o.signal.resource), evictions[0] if evictions else None),
    )
    ctx = AdviceContext(
        category=verdict.category,
        limit_bytes=inputs.memory.limit_bytes,
        peak_bytes=inputs.peak,
        pull_kind=pull_kind,
        pull_ambiguous=ambiguous,
        image=quote(spec.image, 200) if spec and spec.image else None,
        restart_policy=quote(spec.restart_policy, 20) if spec and spec.restart_policy else None,
        node=quote(inputs.node_name, 120) if inputs.node_name else None,
        policy=policy,
        log_line=log_line,
        gpu_oom=gpu_oom and verdict.category == "CRASH_APP_ERROR",
        probe=probe_kill(verdict.deciding, inputs.pod) if verdict.category == "CRASH_APP_ERROR" else None,
        readiness=readiness_line(inputs.observations),
        stuck=verdict.category == "NODE_FAILURE" and inputs.workload.phase == "Pending",
        sandbox=next((o.signal.note for o in verdict.deciding if o.kind is SignalKind.SANDBOX_FAILED), None),
        recurring_count=count,
        lookback=inputs.request.lookback,
        mount_resource=quote(mount, 120) if mount else None,
        unresolved_kill=verdict.unresolved_kill,
        kill_codes=tuple(sorted({o.signal.exit_code for o in verdict.deciding if o.signal.exit_code is not None})),
        tier2_available=inputs.tier2_available,
        findings=tuple(inputs.findings),
        eviction=eviction_usage(evicted.signal.detail) if evicted is not None else None,
        eviction_node_short=evicted is not None and node_short(evicted.signal.detail),
        evicted_resource=quote(evicted.signal.resource, 60) if evicted and evicted.signal.resource else None,
        gaps=tuple(m.what for m in inputs.missing),
        namespace=inputs.workload.namespace,
        exits_zero=inputs.loop is not None and inputs.loop.exits_zero,
    )
    # Where the evidence disagrees with itself, it is said (core/diagnosis/consistency.py).
    odd = [
        node_down_before(inputs.observations, verdict.category, inputs.node_name, inputs.failed_at),
        restarts_under_never(inputs.loop, spec.restart_policy if spec else None),
    ]
    return [*recommendations(ctx), *(line for line in odd if line)]


def _timeline(history: HistoryAnalysis | None) -> list[HistoryEntry]:
    if history is None:
        return []
    return [entry.to_report() for entry in history.timeline[-REPORT_TIMELINE_ENTRIES:]]


def build_report(inputs: ReportInputs) -> Report:
    verdict = inputs.verdict
    count = len(inputs.occurrences)
    notes, actions = _notes(inputs.notes)
    if verdict.category == "CRASH_APP_ERROR" and (
        SignalKind.GPU_OOM in {o.kind for o in inputs.observations}
        or (inputs.log_finding is not None and inputs.log_finding.gpu_oom)
    ):
        notes.append("the log shows a GPU (CUDA) out-of-memory: an application error, not a host-memory OOM kill")
    same = inputs.memory.request_bytes is not None and inputs.memory.request_bytes == inputs.memory.limit_bytes
    if same and verdict.category == "OOM_KILLED":
        notes.append("the memory request equals the limit (Guaranteed QoS): the limit is the OOM ceiling")
    memory = None
    if inputs.memory_relevant:
        memory = Memory(
            request_bytes=inputs.memory.request_bytes,
            limit_bytes=inputs.memory.limit_bytes,
            peak_bytes=inputs.peak,
            samples=inputs.samples,
            peak_at=inputs.peak_at,
            windows=inputs.windows,
            pod=inputs.memory_pod,
            pods=list(inputs.memory_pods),
        )
        if inputs.memory.limit_bytes is None:
            # A limit that was set but unreadable is already said ("CPU-memory limit", or "request and limit").
            missing = [m for m in inputs.missing if m.what.startswith("CPU-memory") and "limit" in m.what]
            if not missing:
                inputs.missing.append(
                    MissingItem(
                        what="CPU-memory limit",
                        why="no limit is set in the pods, the workload or the spec",
                        source="get_workload_pods",
                    )
                )
    history_span = inputs.request.lookback
    return Report(
        outcome="diagnosed",
        category=verdict.category,  # type: ignore[arg-type]
        workload=inputs.workload,
        evidence=_ordered_evidence(
            as_history(inputs.evidence, inputs.superseded), _telling_first(verdict.deciding), inputs.observations
        ),
        missing=ordered_missing(inputs.missing),
        memory=memory,
        recurrence=Recurrence(
            count=count,
            lookback=history_span,
            recurring=count >= 2,
            complete=inputs.history_whole,
            occurrences=inputs.occurrences[:MAX_OCCURRENCES],
            occurrences_cut=count > MAX_OCCURRENCES,
            other_submissions=inputs.other_submissions,
            crash_loop=inputs.crash_loop,
        ),
        recommendations=_advice(inputs, count),
        findings=inputs.findings,
        reason=_reason(inputs),
        next_action=None,
        notes=notes,
        actions=actions,
        history=_timeline(inputs.history),
        termination_order=[entry_of(e) for e in inputs.order.entries],
        superseded=history_items(inputs.superseded, inputs.failed_at, inputs.now),
        generated_at=inputs.now,
        lookback_start=inputs.cutoff,
    )


def _notes(notes: Iterable[str | Said]) -> tuple[list[str], list[ActionText]]:
    """Each note once, in a stable order (notes come from reads that run concurrently), and those that offer an
    action, as data."""
    by_text = {text_of(note): note for note in notes}
    ordered = sorted(by_text)
    return ordered, [ActionText.of(note) for text in ordered if isinstance(note := by_text[text], Said)]


def routed_report(
    *,
    outcome: str,
    workload: WorkloadRef,
    evidence: list[EvidenceItem],
    missing: list[MissingItem],
    lookback: str,
    reason: str,
    next_action: str | Said,
    notes: list[str | Said],
    now: datetime,
    cutoff: datetime,
    findings: list[Finding] | None = None,
    superseded: Supersession = NOTHING,
    failed_at: datetime | None = None,
) -> Report:
    findings = findings or []
    lead, resubmit = recommend_infra.leading(findings, None)
    advice = [*lead, text_of(next_action), *resubmit, *recommend_infra.trailing(findings)]
    note_texts, note_actions = _notes(notes)
    actions = [ActionText.of(next_action)] if isinstance(next_action, Said) else []
    return Report(
        outcome=outcome,  # type: ignore[arg-type]
        category=None,
        workload=workload,
        evidence=merge_evidence(
            sorted(as_history(evidence, superseded), key=lambda e: _source_rank(e.source)), (), SOURCE_ORDER
        ),
        missing=ordered_missing(missing),
        memory=None,
        recurrence=Recurrence(count=0, lookback=lookback, recurring=False),
        recommendations=advice,
        findings=findings,
        reason=reason,
        next_action=text_of(next_action),
        notes=note_texts,
        actions=actions + note_actions,
        superseded=history_items(superseded, failed_at, now),
        generated_at=now,
        lookback_start=cutoff,
    )
