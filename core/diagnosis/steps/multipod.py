"""Steps 2 and 4 for a workload that runs several pods: the order its pods ended in, the pods Tier 2 describes,
and each pod's own memory series.

Whether a workload runs several pods is read from the workload (`requestedPods`, `runningPods`) and its live
pods; nothing here is read for an ordinary one-pod workload. The analysis itself is
core/diagnosis/cascade.py; this module makes the reads and states what they found, with the pod named.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from core.diagnosis.cascade import (
    COLLECTIVE_TIMEOUT_SIGNS,
    PodTermination,
    TerminationOrder,
    attribute,
    cause_observations,
    entry_of,
    order_terminations,
    pod_key,
)
from core.diagnosis.findings import Collect, Findings
from core.diagnosis.memory import END_MARGIN, MAX_SAMPLES, USAGE, RunWindow, plan_queries, usage_summary
from core.diagnosis.observations import Observation, quote
from core.diagnosis.progress import TerminationsFound
from core.diagnosis.reader import Reader, ReadFailure, Tier1
from core.diagnosis.signals import SignalKind
from core.diagnosis.steps.conditional import needs_metrics
from core.diagnosis.steps.kubernetes import PodDescribed, Tier2Found, describe_pod
from core.models.kube import K8sPod
from core.models.report import MissingItem
from core.models.runai import MetricsResponse, RunaiPod, Workload
from core.plural import plural
from core.sources.namespace import NamespaceChoice

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

PODS = "get_workload_pods"
METRICS = "get_workload_metrics"
# Tier 2 describes the earliest failed pods only: enough to tell the first failure from its victims.
MAX_DESCRIBED = 6
# Per-pod memory is read for the pods the evidence points at: the OOM-killed ones, then the first failure.
MAX_POD_METRICS = 4
OOM_KINDS = frozenset({SignalKind.OOM_KILLED, SignalKind.NODE_OOM_KILLING})
_EPOCH = datetime.min.replace(tzinfo=UTC)


def _number(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def several_hint(w: Workload) -> bool:
    """Step 1 already says the workload runs several pods: it asked for several, or runs several."""
    requested = w.requested_pods.number if w.requested_pods is not None else None
    return _number(requested) > 1 or _number(w.running_pods) > 1


def several_pods(w: Workload, pods: Sequence[RunaiPod]) -> bool:
    """The workload runs several pods at once (replacements of one pod over time do not count)."""
    live = {p.name for p in pods if p.deleted_at is None and p.name}
    return several_hint(w) or len(live) > 1


# -- the order ----------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class OrderRead:
    order: TerminationOrder
    observations: tuple[Observation, ...]  # every observation, each with the pod it is about where known
    findings: Findings


def termination_order(
    w: Workload,
    pods: Sequence[RunaiPod],
    observations: Sequence[Observation],
    window: tuple[datetime | None, datetime | None],
    *,
    k8s_pods: Mapping[str, K8sPod] | None = None,
    texts: Mapping[str, Sequence[str]] | None = None,
    cite: bool = False,
) -> OrderRead:
    """The order the failed pods ended in; with `cite`, the first failure and its consequences as evidence."""
    names = [pod_key(p.name) for p in pods if p.name] + [pod_key(n) for n in (k8s_pods or {})]
    attributed = attribute(observations, names)
    order = order_terminations(pods, attributed, k8s_pods=k8s_pods, texts=texts, window=window, workload_name=w.name)
    found = Collect()
    if cite:
        found.show(TerminationsFound(tuple(entry_of(e) for e in order.entries)))
        first = order.first
        if order.cascade and first is not None:
            found.evidence(_first_text(first, order), PODS, "first-failure")
            early_ones = recorded_before(order)
            found.note(
                f"{plural(len(order.entries) - 1, 'more pod')} ended {'beside' if early_ones else 'after'} "
                f"{first.pod}: they are listed as consequences of the first failure, and the verdict rests on what "
                "that pod showed"
            )
            timed_out = bool(set(first.teardown) & COLLECTIVE_TIMEOUT_SIGNS)
            for early in early_ones:
                found.note(
                    f"{early.pod} is recorded {_seconds(first, early)} before the first failure ({early.time_source}"
                    f" against {first.time_source}): "
                    + (
                        "that pod timed out on a collective, which happens only after its whole timeout spent "
                        "waiting on a rank that hung, so an end seconds away from it is part of that hang's "
                        "teardown, not its cause"
                        if timed_out and not early.teardown
                        else "times are kept to the second and reach the control plane with some lag, and it shows "
                        "no cause of its own that is stronger, so it is taken for a consequence"
                    )
                )
        if first is not None and first.replaced_by is not None:
            found.note(
                f"{first.pod} was deleted and a pod of the same name replaced it (id {quote(first.replaced_by, 80)}): "
                "what Kubernetes shows under that name now is the replacement's, not the failed pod's"
            )
    return OrderRead(order, tuple(attributed), found.done())


def recorded_before(order: TerminationOrder) -> list[PodTermination]:
    """The consequences whose recorded end is earlier than the first failure's."""
    first = order.first
    if first is None or first.at is None:
        return []
    return [e for e in order.entries if not e.first and e.at is not None and e.at < first.at]


def _seconds(first: PodTermination, early: PodTermination) -> str:
    assert first.at is not None and early.at is not None
    return f"{round((first.at - early.at).total_seconds())} s"


def _when(at: datetime | None) -> str:
    return at.isoformat() if at is not None else "an unknown time"


def _first_text(first: PodTermination, order: TerminationOrder) -> str:
    role = f" ({first.role})" if first.role else ""
    node = f" on node {first.node}" if first.node else ""
    others = [e for e in order.entries if not e.first]
    shown = "; ".join(f"{e.pod} {e.how} at {_when(e.at)}" for e in others[:4])
    more = f"; and {len(others) - 4} more" if len(others) > 4 else ""
    early = recorded_before(order)
    ahead = f"{len(early)} of them recorded a few seconds before it; " if early else ""
    return (
        f"First failure: pod {first.pod}{role}{node} {first.how} at {_when(first.at)} "
        f"({first.time_source or 'time unknown'}); the others, {ahead}in the order they ended: {shown}{more}"
        if early
        else f"First failure: pod {first.pod}{role}{node} {first.how} at {_when(first.at)} "
        f"({first.time_source or 'time unknown'}); after it: {shown}{more}"
    )


def to_describe(order: TerminationOrder, pods: Sequence[RunaiPod]) -> list[str]:
    """The pods Tier 2 describes: the first failure and the earliest of the others still there (a deleted pod
    is gone from Kubernetes too), at most MAX_DESCRIBED."""
    named = [e.pod for e in order.entries if e.first or not e.deleted][:MAX_DESCRIBED]
    if not named:  # nothing failed in the episode: the newest pod shows what there is
        live = sorted((p for p in pods if p.name), key=lambda p: p.created_at or _EPOCH, reverse=True)
        named = [pod_key(p.name) for p in live[:1]]
    by_key = {pod_key(p.name): p.name for p in pods if p.name}
    return [by_key.get(name, name) for name in named]


async def describe_pods(
    reader: Reader, t2: KubeSource, ns: NamespaceChoice, names: Sequence[str]
) -> list[PodDescribed]:
    """`kubectl describe pod` for each, side by side."""
    return list(await asyncio.gather(*(describe_pod(reader, t2, ns, name) for name in names)))


def peer_findings(described: PodDescribed) -> Findings:
    """A peer of the first failure, described: its signals cited with the pod named, its pane left alone."""
    found = Collect()
    meta = described.pod.metadata if described.pod is not None else None
    name = pod_key(meta.name) if meta is not None and meta.name else "(unnamed)"
    for obs in described.observations:
        found.evidence(f"Pod {name}: {obs.text}", obs.source, obs.kind.value)
    for gap in described.findings.missing:
        found.gap(gap)
    return found.done()


# -- each pod's own memory ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PodSeries:
    """One pod's memory series over its own life: what was read, or why it could not be."""

    pod: str
    role: str | None
    window: RunWindow
    responses: tuple[MetricsResponse, ...]
    failure: MissingItem | None


@dataclass(frozen=True, slots=True)
class PodMetricsRead:
    series: tuple[PodSeries, ...]
    findings: Findings

    @property
    def queried(self) -> bool:
        return bool(self.series)


NO_POD_METRICS = PodMetricsRead((), Findings())


def metric_targets(order: TerminationOrder) -> list[PodTermination]:
    """The OOM-killed pods first (in the order they ended), then the first failure (all of them: the caller
    reads at most MAX_POD_METRICS and says how many it left)."""
    oom = [e for e in order.entries if set(e.kinds) & OOM_KINDS]
    first = [e for e in order.entries if e.first]
    chosen: list[PodTermination] = []
    for item in oom + first:
        if item not in chosen and item.pod_id:
            chosen.append(item)
    return chosen


def pod_window(item: PodTermination, pods: Sequence[RunaiPod], now: datetime) -> RunWindow | None:
    """From the pod's start (its containers', else its creation) to a minute after it ended, not past now."""
    pod = next((p for p in pods if item.pod_id and p.id == item.pod_id), None) or next(
        (p for p in pods if p.name and pod_key(p.name) == item.pod), None
    )
    starts = [c.started_at for c in (pod.containers or []) if c.started_at] if pod is not None else []
    start = min(starts) if starts else (pod.created_at if pod is not None else None)
    end = item.at or now
    if start is None:
        start = end - timedelta(hours=1)
    window = RunWindow(start, min(end + END_MARGIN, now), f"pod {item.pod}", item.first)
    return window if window.end > window.start else None


async def read_pod_metrics(
    reader: Reader,
    t1: Tier1,
    wid: str,
    targets: Sequence[PodTermination],
    pods: Sequence[RunaiPod],
    now: datetime,
    why: str,
    left: int = 0,
) -> PodMetricsRead:
    """Each target pod's CPU-memory usage over its own life (`/workloads/{id}/pods/{podId}/metrics`); `left`:
    how many more pods qualified but were not read (a bound on the reads of one diagnosis)."""
    found = Collect()
    if left > 0:
        found.note(
            f"{plural(left, 'more failed pod')} qualified for a memory read but {'was' if left == 1 else 'were'} not "
            f"read: a diagnosis reads at most {MAX_POD_METRICS} pods' own series (the OOM-killed ones first)"
        )
    if not targets:
        found.missing(
            "CPU-memory peak of the failed pod",
            "no failed pod with a Run:ai pod id is known, so no pod's own series could be asked for; the "
            "workload's series is a sum over its pods and is not a pod's peak",
            METRICS,
        )
        return PodMetricsRead((), found.done())
    found.note(
        f"per-pod metrics read because of {why}: the workload's own series is a sum over its pods, so each pod's "
        "peak is read from the pod's own series and compared with its own limit"
    )

    async def one(item: PodTermination) -> PodSeries | None:
        window = pod_window(item, pods, now)
        if window is None or item.pod_id is None:
            found.missing(f"CPU-memory samples of pod {item.pod}", "the pod's lifetime could not be placed", METRICS)
            return None
        pod_id = item.pod_id
        answers = await asyncio.gather(
            *(
                reader.tier1(
                    4,
                    METRICS,
                    f"metrics of pod {item.pod} {a.isoformat()}..{b.isoformat()}",
                    lambda a=a, b=b: t1.get_pod_metrics(wid, pod_id, [USAGE], a, b, MAX_SAMPLES),  # type: ignore[misc]
                )
                for a, b in plan_queries(window)
            )
        )
        failures = [a for a in answers if isinstance(a, ReadFailure)]
        responses = tuple(a for a in answers if isinstance(a, MetricsResponse))
        failure = None
        if failures:
            failure = MissingItem(
                what=f"CPU-memory samples of pod {item.pod}" + (" (part of its life)" if responses else ""),
                why=failures[0].missing.why,
                source=METRICS,
            )
            found.gap(failure)
        return PodSeries(item.pod, item.role, window, responses, failure)

    series = [s for s in await asyncio.gather(*(one(t) for t in targets)) if s is not None]
    return PodMetricsRead(tuple(series), found.done())


def pod_peak(series: PodSeries) -> tuple[int | None, datetime | None, list[tuple[datetime, int]]]:
    summary = usage_summary(series.responses)
    return summary.peak, summary.peak_at, summary.samples


@dataclass(frozen=True, slots=True)
class SeveralRead:
    ordered: OrderRead  # the pods in the order they ended, with every observation attributed to its pod
    cause: tuple[Observation, ...]  # the evidence the verdict may rest on: the first failure's and the workload's
    pod_metrics: PodMetricsRead


async def evidence_of_several(
    reader: Reader, t1: Tier1, w: Workload, pods: Sequence[RunaiPod], tier1_obs: tuple[Observation, ...],
    found: Tier2Found, window: tuple[datetime | None, datetime | None], now: datetime,
) -> SeveralRead:
    """Step 4 for a workload of several pods: the order they ended in (which decides the pod whose evidence the
    verdict rests on), and memory read per pod, never from the workload's sum over its pods."""
    # The first failure's explaining line, and those of the logs read beside it (core/diagnosis/group_logs.py).
    texts = {pod: [line.text] for pod, line in found.logs.items()}
    if found.pod_name and found.log is not None:
        texts[found.pod_name] = [found.log.text]
    ordered = termination_order(
        w, pods, tier1_obs + found.observations, window, k8s_pods=found.k8s_pods, texts=texts, cite=True
    )
    cause = tuple(cause_observations(ordered.observations, ordered.order))
    gate = needs_metrics(ordered.observations)
    pod_metrics = NO_POD_METRICS
    if gate[0]:
        targets = metric_targets(ordered.order)
        pod_metrics = await read_pod_metrics(
            reader, t1, w.id or "", targets[:MAX_POD_METRICS], pods, now, gate[1], left=len(targets) - MAX_POD_METRICS
        )
    return SeveralRead(ordered, cause, pod_metrics)


def earliest_failed(
    w: Workload, pods: Sequence[RunaiPod], observations: tuple[Observation, ...],
    window: tuple[datetime | None, datetime | None],
) -> list[str]:
    """The pods to describe first, from the order Run:ai's answers alone give (Kubernetes refines it)."""
    return to_describe(termination_order(w, pods, observations, window).order, pods)
