"""Step 5: classify by the strongest direct signal, quantify memory, count recurrence, and build the report.

The rule table is core/diagnosis/rules.py; the report's wording is core/diagnosis/report_builder.py. This
module takes what Steps 1-4 found (`Gathered`) and returns the last findings and the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis import configuration as config
from core.diagnosis import infra, same_node
from core.diagnosis.cascade import NO_ORDER, TerminationOrder
from core.diagnosis.crash_loop import CrashLoop, last_crash_at, loop_count
from core.diagnosis.findings import Collect, Findings
from core.diagnosis.history_analysis import ENDING_PHASES, in_window
from core.diagnosis.kube_evidence import pod_place
from core.diagnosis.log_scan import LogFinding
from core.diagnosis.memory import LIMIT, PLAUSIBLE_MEMORY, SeriesSummary, dropped_why, step_of, usage_summary
from core.diagnosis.observations import Observation, quote
from core.diagnosis.progress import MemoryTrend
from core.diagnosis.report_builder import ReportInputs, build_report, routed_report
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.rules import Verdict, classify, is_preempted
from core.diagnosis.steps.conditional import METRICS, NOT_READ, MetricsRead, failure_time
from core.diagnosis.steps.history import HISTORY, HistoryRead
from core.diagnosis.steps.inspect import PodsRead, SpecRead
from core.diagnosis.steps.kubernetes import Tier2Found
from core.diagnosis.steps.multipod import NO_POD_METRICS, OOM_KINDS, PodMetricsRead, PodSeries, SeveralRead
from core.diagnosis.steps.resolve import STATUS, Route
from core.diagnosis.supersede import NOTHING, Supersession, standing
from core.models.advice import Action, Do, Said, said
from core.models.kube import K8sPod
from core.models.quantity import format_bytes
from core.models.report import (
    AFTER_CLOCK,
    AFTER_NOW,
    EvidenceItem,
    Finding,
    MissingItem,
    OtherSubmissions,
    PodMemory,
    Report,
    WorkloadRef,
)
from core.models.runai import Workload
from core.sources.evidence import Missing
from core.sources.kube_types import NodePods


@dataclass(frozen=True, slots=True)
class Gathered:
    """What Steps 1-4 found, for the verdict."""

    workload: Workload
    observations: tuple[Observation, ...]  # status, pods, history, then Kubernetes
    spec: SpecRead
    pods: PodsRead
    history: HistoryRead
    metrics: MetricsRead
    k8s_pod: K8sPod | None
    log_finding: LogFinding | None
    tier2_available: bool
    # A workload of several pods: the order its pods ended in (the verdict rests on the first), and each
    # pod's own memory series (its workload series is a sum over the pods, never a pod's peak).
    several: bool = False
    order: TerminationOrder = NO_ORDER
    pod_metrics: PodMetricsRead = NO_POD_METRICS
    others: OtherSubmissions | None = None  # the name's other submissions inside the lookback
    cluster: tuple[Observation, ...] = ()  # the Run:ai cluster's status, when it is disconnected or stale
    node_pods: tuple[str, NodePods | Missing] | None = None  # pods listed on a node with a node-level finding
    loop: CrashLoop | None = None  # a crash loop, dated from its last crash
    superseded: Supersession = NOTHING  # the signals a later event took back: history, not the cause


@dataclass(frozen=True, slots=True)
class Basis:
    """What every report is built on: the request, its moment and lookback, and what the journal holds."""

    req: DiagnosisRequest
    now: datetime
    cutoff: datetime
    workload: WorkloadRef
    evidence: list[EvidenceItem]
    missing: list[MissingItem]
    notes: list[str | Said]


def gathered_several(
    w: Workload, spec: SpecRead, pods: PodsRead, history: HistoryRead, found: Tier2Found, read: SeveralRead,
    tier2_available: bool,
) -> Gathered:
    """What Step 5 classifies for a workload of several pods: the evidence of the pod that failed first (and of
    the workload), the pod Kubernetes described for it, the order the pods ended in and their own memory."""
    first = read.ordered.order.first
    k8s_first = found.k8s_pods.get(first.pod) if first is not None else found.pod
    # A pod found to have failed first by its log read beside the earliest one's: its explaining line.
    log = found.logs.get(first.pod, found.log) if first is not None and first.pod != found.pod_name else found.log
    return Gathered(
        w, read.cause, spec, pods, history, NOT_READ, k8s_first, log, tier2_available, several=True,
        order=read.ordered.order, pod_metrics=read.pod_metrics, node_pods=found.node_pods, loop=found.loop,
    )


@dataclass(frozen=True, slots=True)
class Conclusion:
    verdict: Verdict
    memory: config.MemorySetting
    usage: SeriesSummary
    occurrences: list[datetime]  # the recurrence count's failures, newest first
    findings: Findings
    pods: tuple[PodMemory, ...] = ()  # each pod whose own series was read (a workload of several pods)
    memory_pod: str | None = None  # the pod whose limit and peak `memory` and `usage` are
    infra: tuple[Finding, ...] = ()  # the report's infrastructure findings


def conclude(g: Gathered, req: DiagnosisRequest, cutoff: datetime) -> Conclusion:
    found = Collect()
    verdict = classify(g.observations)
    if g.several:
        return _conclude_several(g, req, cutoff, verdict, found)
    memory = config.memory_setting(g.workload, g.pods.pods, g.spec.spec)
    for problem in (*memory.problems, *config.count_problems(g.workload, g.pods.pods, g.spec.spec)):
        found.missing(problem.what, problem.why, STATUS)
    most = PLAUSIBLE_MEMORY * max(1, len(g.pods.pods))  # the workload's series sums its pods'
    usage = usage_summary(g.metrics.responses, most=most)
    if g.metrics.queried:
        limit_metric = usage_summary(g.metrics.responses, LIMIT, most).peak
        _memory_evidence(g.metrics, usage, memory, limit_metric, found, most)
        # A failed read is not an empty series: no chart says "no samples" for it.
        if g.metrics.responses and not (usage.peak is None and g.metrics.partly_failed):
            found.show(MemoryTrend(tuple(usage.samples), memory.request_bytes, memory.limit_bytes, usage.peak))
    _lookback_notes(g, req, cutoff, found)
    failed_at = diagnosed_at(g)
    findings = _infra(g, verdict.category, failed_at, cutoff, found)
    occurrences = _recurrence(g, verdict, failed_at, cutoff, req.moment())
    return Conclusion(verdict, memory, usage, occurrences, found.done(), infra=findings)


# "Now" is fixed before the first read, and the control plane's clock is not this machine's: a failure stamped
# a little after it happened while the diagnosis read, or under clock skew. It is counted; one later than this is
# after the moment diagnosed at (a --now in the past) and is not.
CLOCK_SLACK = timedelta(minutes=5)


def diagnosed_at(g: Gathered) -> datetime | None:
    """When the failure being diagnosed happened: a crash loop's last crash (not the phase change the workload
    made before it started looping), else the failure's own time."""
    if (g.workload.phase or "") not in ENDING_PHASES and (last := last_crash_at(g.loop)) is not None:
        current = g.history.current.at if g.history.current is not None else None
        return max(last, current) if current is not None else last
    return failure_time(g.history.current, g.workload)


def _lookback_notes(g: Gathered, req: DiagnosisRequest, cutoff: datetime, found: Collect) -> None:
    failed_at = diagnosed_at(g)
    if failed_at is not None and failed_at < cutoff:
        found.note(
            said(
                f"the diagnosed failure ({failed_at.isoformat()}) is older than the {req.lookback} lookback, so it "
                "is not in the recurrence count; ",
                Do(Action.WIDEN_LOOKBACK),
                " to count it",
            )
        )
    now = req.moment()
    if failed_at is not None and failed_at > now + CLOCK_SLACK:
        if req.now_given:
            found.note(
                f"the diagnosed failure ({failed_at.isoformat()}) {AFTER_NOW} ({now.isoformat()}), "
                f"so it is not in the {req.lookback} lookback and not counted; no failure after that moment is"
            )
        else:
            found.note(
                f"the diagnosed failure ({failed_at.isoformat()}) {AFTER_CLOCK} ({now.isoformat()}, not given by "
                f"the user), so it is not in the {req.lookback} lookback and not counted: the control plane's "
                "clock, or the one this diagnosis read its time from, is off by more than "
                f"{int(CLOCK_SLACK.total_seconds() // 60)} min"
            )
    if g.history.analysis is None:
        found.missing("recurrence beyond this failure", "history could not be read", HISTORY)


def _conclude_several(
    g: Gathered, req: DiagnosisRequest, cutoff: datetime, verdict: Verdict, found: Collect
) -> Conclusion:
    """Memory of a workload of several pods: each pod read against its own limit, the failing pod's reported."""
    settings: dict[str, config.MemorySetting] = {}
    pods: list[PodMemory] = []
    summaries: dict[str, SeriesSummary] = {}
    for series in g.pod_metrics.series:
        setting = config.memory_setting(g.workload, g.pods.pods, g.spec.spec, pod=series.pod, role=series.role)
        settings[series.pod] = setting
        summary = usage_summary(series.responses)
        summaries[series.pod] = summary
        pods.append(
            PodMemory(
                pod=series.pod,
                role=series.role,
                request_bytes=setting.request_bytes,
                limit_bytes=setting.limit_bytes,
                peak_bytes=summary.peak,
                peak_at=summary.peak_at,
                samples=len(summary.samples),
            )
        )
        _pod_memory_evidence(series, summary, setting, len(g.pods.pods), found)
    chosen = _memory_pod(g.order, verdict, [p.pod for p in pods])
    first = g.order.first
    if chosen is None and first is not None:
        chosen = first.pod
    role = next((e.role for e in g.order.entries if e.pod == chosen), None)
    memory = settings.get(chosen or "") or config.memory_setting(
        g.workload, g.pods.pods, g.spec.spec, pod=chosen, role=role
    )
    for problem in (*memory.problems, *config.count_problems(g.workload, g.pods.pods, g.spec.spec)):
        found.missing(problem.what, problem.why, STATUS)
    usage = summaries.get(chosen or "", SeriesSummary([], None, None))
    series = next((s for s in g.pod_metrics.series if s.pod == chosen), None)
    if series is not None and series.responses:  # a failed read is not an empty series
        found.show(MemoryTrend(tuple(usage.samples), memory.request_bytes, memory.limit_bytes, usage.peak, pod=chosen))
    _lookback_notes(g, req, cutoff, found)
    failed_at = diagnosed_at(g)
    occurrences = _recurrence(g, verdict, failed_at, cutoff, req.moment())
    findings = _infra(g, verdict.category, failed_at, cutoff, found)
    return Conclusion(verdict, memory, usage, occurrences, found.done(), tuple(pods), chosen, findings)


def _memory_pod(order: TerminationOrder, verdict: Verdict, read: list[str]) -> str | None:
    """The pod whose memory the report gives: the first failure if it was OOM-killed (or nothing was), else the
    first OOM-killed pod whose series was read."""
    first = order.first
    if verdict.category == "OOM_KILLED":
        oom = [e.pod for e in order.entries if set(e.kinds) & OOM_KINDS and e.pod in read]
        if first is not None and first.pod in oom:
            return first.pod
        if oom:
            return oom[0]
    return first.pod if first is not None else (read[0] if read else None)


def _pod_memory_evidence(
    series: PodSeries, summary: SeriesSummary, setting: config.MemorySetting, pod_count: int, found: Collect
) -> None:
    span = f" ({series.window.start.isoformat()} to {series.window.end.isoformat()})"
    role = f" ({series.role})" if series.role else ""
    if not series.responses:
        found.missing(f"CPU-memory peak of pod {series.pod}", f"its own metrics{span} could not be read", METRICS)
    elif summary.dropped and summary.peak is None:
        found.missing(
            f"CPU-memory peak of pod {series.pod}", dropped_why(summary, PLAUSIBLE_MEMORY, whole=True), METRICS
        )
    elif summary.peak is None or summary.peak_at is None:
        found.evidence(f"No CPU-memory samples were recorded for pod {series.pod}{role}{span}", METRICS, "no-samples")
        found.missing(
            f"CPU-memory peak of pod {series.pod}",
            f"the pod's own series is empty{span}; the workload's series is a sum over its {pod_count} pods, so it "
            "is not taken for this pod's peak",
            METRICS,
        )
    else:
        text = (
            f"Pod {series.pod}{role} peak CPU memory {format_bytes(summary.peak)} ({summary.peak} bytes) at "
            f"{summary.peak_at.isoformat()}"
        )
        if setting.limit_bytes:
            text += f", {summary.peak / setting.limit_bytes:.1%} of its {format_bytes(setting.limit_bytes)} limit"
        found.evidence(text + f"; {_sampled(summary)} of the pod's own series", METRICS, "memory-peak")
        if summary.dropped:
            why = dropped_why(summary, PLAUSIBLE_MEMORY, whole=False)
            found.missing(f"some CPU-memory samples of pod {series.pod}", why, METRICS)


def failed_place(g: Gathered) -> tuple[str | None, str | None]:
    """The pod whose failure is diagnosed and its node: the pod Kubernetes described, else the pod that failed
    first (a workload of several pods), else Run:ai's pods."""
    first = g.order.first
    if g.k8s_pod is not None and g.k8s_pod.metadata is not None:
        pod, node = pod_place(g.k8s_pod)
        if node is None and first is not None and first.pod == pod:
            node = first.node
        return pod, node
    if first is not None:
        return first.pod, first.node
    pods = [p for p in g.pods.pods if p.name]
    first = infra.first_failed_pod(pods)
    chosen = next((p for p in pods if quote(p.name, 120) == first), pods[0] if len(pods) == 1 else None)
    if chosen is None:
        return None, next((p.node_name for p in pods if p.node_name), None)
    return quote(chosen.name, 120), chosen.node_name


def _infra(
    g: Gathered, category: str, failed_at: datetime | None, cutoff: datetime, found: Collect
) -> tuple[Finding, ...]:
    """The infrastructure findings, with the other pods that failed on a finding's node."""
    pod, node = failed_place(g)
    scope = infra.Scope(
        category=category,
        failed_pod=pod,
        failed_node=node,
        first_failure=g.order.first.pod if g.order.first is not None else infra.first_failed_pod(g.pods.pods),
        pod_count=max(len(g.pods.pods), 1 if g.k8s_pod is not None else 0),
        pod_ran=bool(g.pods.pods) or g.k8s_pod is not None or any(o.pod for o in g.observations),
        failed_at=failed_at,
    )
    findings = infra.infra_findings(g.observations + g.cluster, scope)
    if g.node_pods is None:
        return tuple(findings)
    listed_node, answer = g.node_pods
    own = {p.name for p in g.pods.pods if p.name} | ({pod} if pod else set())
    out: list[Finding] = []
    for finding in findings:
        if finding.kind not in infra.NODE_LEVEL or finding.node != listed_node:
            out.append(finding)
            continue
        if isinstance(answer, Missing):
            note, gap = same_node.refused(answer, listed_node)
            found.gap(gap)
            out.append(finding.model_copy(update={"other_pods_note": note}))
        else:
            others, note = same_node.other_failures(answer, own, cutoff)
            out.append(finding.model_copy(update={"other_pods": others, "other_pods_note": note}))
    return tuple(out)


def _sampled(summary: SeriesSummary) -> str:
    """`995 samples from T1 to T2`: when the samples themselves begin and end (not the window asked for, which
    the report's `memory.windows` keeps)."""
    first, last = summary.samples[0][0], summary.samples[-1][0]
    return f"{len(summary.samples)} samples from {first.isoformat()} to {last.isoformat()}"


def _memory_evidence(
    metrics: MetricsRead,
    usage: SeriesSummary,
    memory: config.MemorySetting,
    limit_metric: int | None,
    found: Collect,
    most: int,
) -> None:
    win = metrics.windows[0] if metrics.windows else None
    span = f" ({win.start.isoformat()} to {win.end.isoformat()})" if win else ""
    if not metrics.responses:
        found.missing("CPU-memory peak", f"the failed run's metrics{span} could not be read", METRICS)
    elif usage.dropped and usage.peak is None:
        found.missing("CPU-memory peak", dropped_why(usage, most, whole=True) + span, METRICS)
    elif (usage.peak is None or usage.peak_at is None) and metrics.partly_failed:
        found.missing(
            "CPU-memory peak",
            f"part of the failed run's metrics{span} could not be read, and the part that answered held no samples",
            METRICS,
        )
    elif usage.peak is None or usage.peak_at is None:
        found.evidence(f"No CPU-memory samples were recorded for the failed run{span}", METRICS, "no-samples")
        found.missing("CPU-memory peak", f"the metrics series is empty for the failed run{span}", METRICS)
    else:
        text = f"Peak CPU memory {format_bytes(usage.peak)} ({usage.peak} bytes) at {usage.peak_at.isoformat()}"
        if memory.limit_bytes:
            text += f", {usage.peak / memory.limit_bytes:.1%} of the {format_bytes(memory.limit_bytes)} limit"
        found.evidence(text + f"; {_sampled(usage)}", METRICS, "memory-peak")
        if usage.dropped:
            found.missing("some CPU-memory samples", dropped_why(usage, most, whole=False) + span, METRICS)
    if limit_metric is not None and memory.limit_bytes is not None and limit_metric != memory.limit_bytes:
        found.note(
            f"the metrics' CPU_MEMORY_LIMIT_BYTES ({format_bytes(limit_metric)}) differs from the configured "
            f"limit ({format_bytes(memory.limit_bytes)})"
        )
    for earlier, peak in metrics.earlier_peaks:
        shown = format_bytes(peak) if peak is not None else "no samples"
        found.evidence(f"Peak CPU memory of the {earlier.label}: {shown}", METRICS, "memory-peak-earlier")


def _recurrence(
    g: Gathered, verdict: Verdict, failed_at: datetime | None, cutoff: datetime, now: datetime
) -> list[datetime]:
    """Distinct failures of the verdict's category inside the lookback, from the cutoff up to now (a --now in
    the past counts nothing after it); preemptions are not failures."""
    analysis, current = g.history.analysis, g.history.current
    times: list[datetime] = []
    if analysis is not None:
        for occ in analysis.occurrences:
            if not in_window(occ, cutoff):
                continue
            # An earlier run's own signals, less what a later event in it took back (a preemption it resumed after).
            kept = occ.observations if occ is current else standing(occ)
            category = verdict.category if occ is current else classify(kept).category
            if occ is not current and is_preempted(kept):
                continue
            if category == verdict.category and occ.at is not None:
                times.append(occ.at)
    if current is None and failed_at is not None and failed_at >= cutoff:
        times.append(failed_at)
    return sorted({at for at in times if at <= now + CLOCK_SLACK}, reverse=True)


def report(g: Gathered, c: Conclusion, basis: Basis) -> Report:
    queried = g.metrics.queried or g.pod_metrics.queried
    node_name = failed_place(g)[1]
    if g.pod_metrics.queried:
        read = [s.window for s in g.pod_metrics.series if s.responses and s.pod == c.memory_pod]
    else:
        read = list(g.metrics.windows if g.metrics.responses else ())  # windows that were read
    return build_report(
        ReportInputs(
            request=basis.req,
            now=basis.now,
            cutoff=basis.cutoff,
            workload=basis.workload,
            verdict=c.verdict,
            evidence=basis.evidence,
            missing=basis.missing,
            notes=basis.notes,
            memory=c.memory,
            memory_relevant=queried or c.verdict.category == "OOM_KILLED",
            peak=c.usage.peak if queried else None,
            peak_at=c.usage.peak_at if queried else None,
            samples=len(c.usage.samples) if queried else 0,
            windows=[
                {
                    "start": w.start.isoformat(),
                    "end": w.end.isoformat(),
                    "run": w.label,
                    "stepSeconds": round(step_of(w).total_seconds(), 1),
                }
                for w in read
            ],
            occurrences=c.occurrences,
            history=g.history.analysis,
            history_whole=g.history.whole,
            spec=g.spec.spec,
            log_finding=g.log_finding,
            tier2_available=g.tier2_available,
            node_name=node_name,
            observations=g.observations,
            order=g.order,
            memory_pods=c.pods,
            memory_pod=c.memory_pod,
            other_submissions=g.others,
            findings=list(c.infra),
            superseded=g.superseded,
            pod=g.k8s_pod,
            failed_at=diagnosed_at(g) if (g.workload.phase or "") in ENDING_PHASES else None,
            loop=g.loop,
            crash_loop=loop_count(g.loop, basis.now, (g.workload.phase or "") in ENDING_PHASES),
        )
    )


def routed(
    route: Route, basis: Basis, findings: list[Finding] | None = None, superseded: Supersession = NOTHING
) -> Report:
    """The report of a workload routed out: no category, the reason and where to go next."""
    return routed_report(
        outcome=route.outcome,
        workload=basis.workload,
        evidence=basis.evidence,
        missing=basis.missing,
        lookback=basis.req.lookback,
        reason=route.reason,
        next_action=route.next_action,
        notes=basis.notes,
        now=basis.now,
        cutoff=basis.cutoff,
        findings=findings or [],
        superseded=superseded,
        failed_at=basis.workload.phase_updated_at
        if (basis.workload.phase or "") in ENDING_PHASES
        else None,
    )
