"""Step 4: when the failure happened, and the conditional reads' gates and metrics.

The seed's gates: CPU-memory metrics only on OOM evidence or an unexplained exit 137; `kubectl describe node`
only on node-failure evidence. The metrics cover the time each failed run was alive (the failed run whatever
the lookback, and up to MAX_EARLIER_RUNS earlier OOM runs inside it), so the peak is measured, never inferred.
The Tier 2 reads themselves are in kubernetes.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis.findings import Collect, Findings
from core.diagnosis.history_analysis import ENDING_PHASES, HistoryAnalysis, Occurrence, in_window
from core.diagnosis.memory import MAX_SAMPLES, MEMORY_TYPES, PLAUSIBLE_MEMORY, RunWindow, plan_queries, usage_summary
from core.diagnosis.observations import Observation
from core.diagnosis.reader import Reader, ReadFailure, Tier1
from core.diagnosis.rules import classify
from core.diagnosis.signals import SignalKind
from core.diagnosis.steps.history import NODE_KINDS, HistoryRead
from core.diagnosis.supersede import standing
from core.models.kube import K8sPod
from core.models.runai import MetricsResponse, RunaiPod, Workload

METRICS = "get_workload_metrics"
# Peaks of earlier OOM runs are shown for comparison; a handful says whether the job always peaks there.
MAX_EARLIER_RUNS = 5
# The kubelet's crash-loop back-off doubles from 10 s up to this cap (kubelet MaxContainerBackOff).
KUBELET_MAX_BACKOFF = timedelta(minutes=5)


# -- when --------------------------------------------------------------------------------------------------
def failure_time(current: Occurrence | None, w: Workload) -> datetime | None:
    if current is not None and current.at is not None:
        return current.at
    return w.phase_updated_at


def episode_window(current: Occurrence | None, w: Workload, now: datetime) -> tuple[datetime | None, datetime | None]:
    """The failure's window, running up to now while the workload has not ended (its pods end up to now). A
    still-open episode is known from its first record in the lookback, and a back-off event trails the crash it
    reports by up to the kubelet's longest back-off: the window opens that much earlier."""
    window = failure_window(current, w)
    if (w.phase or "") in ENDING_PHASES:
        return window
    return (window[0] - KUBELET_MAX_BACKOFF if window[0] is not None else None), now


def failure_window(current: Occurrence | None, w: Workload) -> tuple[datetime | None, datetime | None]:
    end = failure_time(current, w)
    start = current.start if current is not None else None
    if end is not None and start is None:
        start = end - timedelta(hours=1)
    return start, (end + timedelta(minutes=2)) if end else None


def run_start(
    current: Occurrence | None, k8s_pod: K8sPod | None, pods: Sequence[RunaiPod], w: Workload
) -> datetime | None:
    """When the failed run began: history's last move to Running, else the container's start, else creation."""
    if current is not None and current.run_start is not None:
        return current.run_start
    if k8s_pod is not None and k8s_pod.status is not None:
        for cs in k8s_pod.status.container_statuses or ():
            for state in (cs.state, cs.last_state):
                if state is not None and state.terminated is not None and state.terminated.started_at:
                    return state.terminated.started_at
    starts = [c.started_at for p in pods for c in p.containers or () if c.started_at]
    if starts:
        return min(starts)
    return w.created_at


# -- the gates -----------------------------------------------------------------------------------------------
def needs_metrics(observations: Sequence[Observation]) -> tuple[bool, str]:
    """Metrics only when the evidence indicates OOMKilled or an unexplained exit 137; and why."""
    kinds = {o.kind for o in observations}
    if kinds & {SignalKind.OOM_KILLED, SignalKind.NODE_OOM_KILLING}:
        return True, "OOM evidence"
    verdict = classify(observations)
    if verdict.unresolved_kill and any(o.signal.exit_code == 137 for o in verdict.deciding):
        return True, "exit 137 without OOMKilled"
    return False, "no OOM evidence and no unexplained exit 137"


def needs_node(observations: Sequence[Observation]) -> bool:
    """`kubectl describe node` only when pod or history evidence indicates a node failure."""
    return bool({o.kind for o in observations} & (NODE_KINDS - {SignalKind.NODE_PRESSURE}))


# -- metrics -------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MetricsRead:
    windows: tuple[RunWindow, ...]  # the failed run first, then earlier OOM runs
    responses: tuple[MetricsResponse, ...]  # the failed run's answers
    earlier_peaks: tuple[tuple[RunWindow, int | None], ...]
    findings: Findings
    partly_failed: bool = False  # some of the failed run's reads did not answer

    @property
    def queried(self) -> bool:
        return bool(self.windows)


NOT_READ = MetricsRead((), (), (), Findings())


def earlier_oom_runs(
    analysis: HistoryAnalysis | None, current: Occurrence | None, cutoff: datetime
) -> list[Occurrence]:
    """Earlier OOM runs inside the lookback, newest first, at most MAX_EARLIER_RUNS of them."""
    if analysis is None:
        return []
    out = []
    for occ in reversed(analysis.occurrences):
        if occ is current or not in_window(occ, cutoff):
            continue
        if classify(standing(occ)).category == "OOM_KILLED":
            out.append(occ)
            if len(out) == MAX_EARLIER_RUNS:
                break
    return out


def run_windows(
    w: Workload,
    history: HistoryRead,
    pods: Sequence[RunaiPod],
    k8s_pod: K8sPod | None,
    cutoff: datetime,
    now: datetime,
) -> list[RunWindow]:
    """The failed run's window (whatever the lookback: it is the run being diagnosed), then earlier OOM runs'."""
    current = history.current
    end = failure_time(current, w) or now
    start = run_start(current, k8s_pod, pods, w) or (end - timedelta(hours=1))
    failed = RunWindow(start, min(end + timedelta(minutes=1), now), "failed run", True)
    windows = [failed] if failed.end > failed.start else []
    for occ in earlier_oom_runs(history.analysis, current, cutoff):
        if occ.end is None:
            continue
        began = occ.run_start or occ.start or (occ.end - timedelta(hours=1))
        label = f"earlier run ending {occ.end.isoformat()}"
        window = RunWindow(max(began, cutoff), min(occ.end + timedelta(minutes=1), now), label, False)
        if window.end > window.start:
            windows.append(window)
    return windows


async def metrics_for(
    reader: Reader, t1: Tier1, w: Workload, history: HistoryRead, pods: Sequence[RunaiPod], k8s_pod: K8sPod | None,
    span: tuple[datetime, datetime], gate: tuple[bool, str],
) -> MetricsRead:
    """The workload's metrics over each of its runs in the lookback (`span`), when the gate calls for them."""
    if not gate[0]:
        return NOT_READ
    windows = run_windows(w, history, pods, k8s_pod, span[0], span[1])
    return await read_metrics(reader, t1, w.id or "", windows, gate[1], PLAUSIBLE_MEMORY * max(1, len(pods)))


async def read_metrics(
    reader: Reader, t1: Tier1, wid: str, windows: Sequence[RunWindow], why: str, most: int = PLAUSIBLE_MEMORY
) -> MetricsRead:
    """The seed's `get_workload_metrics` over each run window, its queries read together (`most`: the largest
    sample that can be a measurement of the workload's series, see `usage_summary`)."""
    found = Collect()
    if not windows:
        found.missing(
            "CPU-memory samples",
            "the failed run's time window could not be placed (its start is not before its end)",
            METRICS,
        )
        return MetricsRead((), (), (), found.done())

    async def query(win: RunWindow, a: datetime, b: datetime) -> tuple[RunWindow, MetricsResponse | ReadFailure]:
        answer = await reader.tier1(
            4,
            METRICS,
            f"metrics {a.isoformat()}..{b.isoformat()}",
            lambda: t1.get_metrics(wid, list(MEMORY_TYPES), a, b, MAX_SAMPLES),
        )
        return win, answer

    answers = await asyncio.gather(*(query(win, a, b) for win in windows for a, b in plan_queries(win)))
    failures = [a for _, a in answers if isinstance(a, ReadFailure)]
    if failures:
        # A failed read is a failed read: never "no samples" (the series may hold plenty).
        what = "CPU-memory samples" if len(failures) == len(answers) else "some CPU-memory samples"
        found.missing(what, failures[0].missing.why, METRICS)
    responses = tuple(a for win, a in answers if win.current and isinstance(a, MetricsResponse))
    earlier = tuple(
        (win, usage_summary((a for w2, a in answers if w2 is win and isinstance(a, MetricsResponse)), most=most).peak)
        for win in windows[1:]
        # An earlier run none of whose reads answered has no peak to compare, not a peak of "no samples".
        if any(w2 is win and isinstance(a, MetricsResponse) for w2, a in answers)
    )
    partly = any(w2.current and isinstance(a, ReadFailure) for w2, a in answers)
    found.note(f"metrics read because of {why}")
    return MetricsRead(tuple(windows), responses, earlier, found.done(), partly)
