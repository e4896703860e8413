"""A whole window of failures: every workload of a cluster that failed (or needs attention) since a moment,
each diagnosed, grouped by verdict. What `runai-triage scan` prints and the MCP tool `scan_failures` returns.

1. List, newest phase change first, what the server can narrow down: the cluster, the project, the name
   prefix, `phaseUpdatedAt>=` the window's start, and the phases that never need a diagnosis left out (the
   needs-attention filters). Every row is checked again on the client (how the server compares is not
   verified).
2. Judge each row as the picker's needs-attention view does: Failed, Crashed and Stopped always; Pending,
   Running and Degraded only when their status or recent events show a failing pod (one events read each).
3. Diagnose the rows kept, a few at a time (core.triage.batch), each by its id, as `diagnose` would.

Nothing is guessed: a row without an id or a phase change time is counted as skipped, with the reason.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from core.diagnosis.engine import DiagnosisFailed, OpenTier2, Tier1
from core.diagnosis.reader import error_why
from core.diagnosis.request import DiagnosisRequest, UsageError, parse_lookback
from core.diagnosis.steps.cluster import check_cluster
from core.models.runai import Workload
from core.sources.runai import MAX_LIMIT, filter_item
from core.triage.attention import attention_filters, judge_rows
from core.triage.batch import ClustersOnce, Politeness, Verdict, diagnose_many, verdict_label
from core.triage.cluster_state import ClusterState
from core.triage.scan_scope import check_request_scope, filters_match, scope_of
from core.triage.verdicts import count_line
from core.usage import Opt

SCHEMA = "runai-triage/scan@1"
DEFAULT_SINCE = "24h"
DEFAULT_MAX_WORKLOADS = 500
MAX_WORKLOADS = 5000
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class ScanRequest:
    """What to scan. `since` is the window (90m, 24h, 7d, 2w); `lookback` each diagnosis's history window,
    by default the window itself, so recurrence counts the failures of the window scanned."""

    cluster_id: str
    project: str | None = None
    name_prefix: str | None = None
    since: str = DEFAULT_SINCE
    lookback: str | None = None
    now: datetime | None = None
    concurrency: int = Politeness().diagnoses
    max_workloads: int = DEFAULT_MAX_WORKLOADS

    def __post_init__(self) -> None:
        check_request_scope(self.cluster_id, "a scan covers one cluster",
                            (("project", self.project), ("name_prefix", self.name_prefix)))
        parse_lookback(self.since, "since")
        parse_lookback(self.history_window, "lookback")
        if not 1 <= self.max_workloads <= MAX_WORKLOADS:
            raise UsageError(Opt("max_workloads"), f" {self.max_workloads}: scan from 1 to {MAX_WORKLOADS:,} "
                             "workloads at once (narrow the window or the project for more)")
        try:
            Politeness(diagnoses=self.concurrency)
        except ValueError as exc:  # its words start with the option's key
            raise UsageError(Opt("concurrency"), str(exc).removeprefix("concurrency")) from None

    @property
    def history_window(self) -> str:
        return self.lookback or self.since

    @property
    def politeness(self) -> Politeness:
        return Politeness(diagnoses=self.concurrency, requests=2 * self.concurrency)

    def window(self, now: datetime) -> tuple[datetime, datetime]:
        return now - parse_lookback(self.since), now


@dataclass(frozen=True, slots=True)
class ScanEntry:
    """One workload of the window: how it was listed, why it needs attention, and its verdict."""

    workload: Workload
    why: str
    verdict: Verdict

    @property
    def label(self) -> str:
        return self.verdict.label


@dataclass
class ScanResult:
    request: ScanRequest
    start: datetime
    end: datetime
    listed: int = 0
    entries: list[ScanEntry] = field(default_factory=list)
    # Rows listed but not diagnosed, with the reason (no id, outside the window, nothing failing, ...).
    skipped: list[tuple[str, str]] = field(default_factory=list)
    unreadable: int = 0
    more: bool = False  # the listing went past max_workloads
    # The cluster as the clusters list shows it: stale when it is not Connected or has not reported lately.
    cluster: ClusterState | None = None
    cluster_unread: str | None = None  # why the cluster's state is unknown
    notes: list[str] = field(default_factory=list)
    # When the window held no row: how many workloads match the project and name filters at all (or why that
    # is unknown); None when not asked.
    matched: int | str | None = None
    interrupted: bool = False  # stopped (Ctrl-C) before every chosen row was diagnosed

    @property
    def stale(self) -> bool:
        return self.cluster is not None and self.cluster.stale

    def groups(self) -> list[tuple[str, list[ScanEntry]]]:
        """Entries grouped by verdict label, the largest group first; inside a group, newest first."""
        counts = Counter(entry.label for entry in self.entries)
        order = sorted(counts, key=lambda label: (-counts[label], label))
        return [(label, newest_first([e for e in self.entries if e.label == label])) for label in order]


def newest_first(entries: Sequence[ScanEntry]) -> list[ScanEntry]:
    def when(entry: ScanEntry) -> float:
        at = entry.workload.phase_updated_at
        return at.timestamp() if at is not None else float("-inf")

    return sorted(entries, key=when, reverse=True)


def _filters(request: ScanRequest, start: datetime) -> list[str]:
    items = [filter_item("clusterId", "==", request.cluster_id.strip())]
    if request.project:
        items.append(filter_item("projectName", "==", request.project))
    if request.name_prefix:
        items.append(filter_item("name", "=^", request.name_prefix))
    items.append(filter_item("phaseUpdatedAt", ">=", start))
    return items + attention_filters()


def _outside(workload: Workload, request: ScanRequest, start: datetime, end: datetime) -> str | None:
    """Why a listed row does not belong to the scan, or None (the server's filtering is checked again)."""
    if not workload.id:
        return "the row has no workload id"
    if workload.cluster_id and workload.cluster_id.lower() != request.cluster_id.strip().lower():
        return "on another cluster"
    if request.project and workload.project_name != request.project:
        return "in another project"
    if request.name_prefix and not (workload.name or "").startswith(request.name_prefix):
        return "its name does not start with the prefix"
    when = workload.phase_updated_at
    if when is None:
        return "no phaseUpdatedAt, so whether it changed in the window is unknown"
    if not start <= when <= end:
        return "its last phase change is outside the window"
    return None


async def resolve_cluster(tier1: Tier1, given: str) -> str:
    """The tenant's id for the cluster `given` names (its id in any case, or its exact name), as a diagnosis
    checks it; raises UnknownCluster with the tenant's clusters. A list that cannot be read leaves it as given."""
    try:
        page = await tier1.list_clusters_page()
    except Exception:  # an old tenant, or a key without the role: the list filter will say if it matches nothing
        return given.strip()
    return check_cluster(given, page).cluster_id


async def _list(tier1: Tier1, request: ScanRequest, result: ScanResult) -> list[Workload]:
    rows: list[Workload] = []
    offset: int | None = 0
    filters = _filters(request, result.start)
    cap = request.max_workloads
    while offset is not None and len(rows) <= cap:
        # No more rows than the scan takes, plus one: that one says whether more matched.
        limit = min(MAX_LIMIT, cap + 1 - len(rows))
        try:
            page = await tier1.list_workloads(
                filters=filters, sort_by="phaseUpdatedAt", sort_order="desc", offset=offset, limit=limit
            )
        except Exception as exc:  # no scan without its list: said in words, with what to try
            raise DiagnosisFailed(f"the list of workloads could not be read: {error_why(exc)}") from exc
        result.unreadable += len({p.index for p in page.problems})
        rows += page.items
        offset = page.next if page.items else None
    result.more = len(rows) > cap
    # `listed` counts the rows the scan went through, so listed = diagnosed + skipped.
    result.listed = min(len(rows), cap)
    return rows[:cap]


async def scan(
    request: ScanRequest,
    tier1: Tier1,
    tier2: object = None,
    *,
    tier2_unavailable: str | None = None,
    open_tier2: OpenTier2 | None = None,
    now: datetime,
    progress: Progress | None = None,
    keep_on_interrupt: bool = False,
) -> ScanResult:
    """Run the scan. The listing's failures propagate (no scan without a list); a diagnosis that fails is an
    entry whose verdict says why. With `keep_on_interrupt` (the command line's Ctrl-C), a cancellation while
    diagnosing ends the scan with the diagnoses that finished (`interrupted`) instead of losing them."""
    tier1 = cast(Tier1, ClustersOnce(tier1))  # the scan's cluster check and every diagnosis share one list read
    scope = await scope_of(tier1, request.cluster_id, request.project, now)
    request = dataclasses.replace(request, cluster_id=scope.cluster_id)
    start, end = request.window(now)
    result = ScanResult(request, start, end, cluster=scope.cluster, cluster_unread=scope.cluster_unread,
                        notes=scope.notes)
    rows = await _list(tier1, request, result)
    if not rows and (request.project or request.name_prefix):
        result.matched = await filters_match(tier1, request.cluster_id, request.project, request.name_prefix)
    kept: list[Workload] = []
    for w in rows:
        why = _outside(w, request, start, end)
        if why is None:
            kept.append(w)
        else:
            result.skipped.append((w.name or w.id or "(unnamed)", why))
    judgements = await judge_rows(tier1, kept, request.politeness.requests)
    chosen = [(w, j) for w, j in zip(kept, judgements, strict=True) if j.keep]
    result.skipped += [(w.name or w.id or "", j.why) for w, j in zip(kept, judgements, strict=True) if not j.keep]
    cluster, lookback = request.cluster_id.strip(), request.history_window
    requests = [
        DiagnosisRequest(cluster_id=cluster, workload_id=w.id, lookback=lookback, now=now, count_others=False,
                         now_given=request.now is not None)
        for w, _ in chosen
    ]
    verdicts: dict[int, Verdict] = {}
    if progress is not None:
        progress(0, len(requests))
    batch = diagnose_many(
        requests, tier1, tier2, tier2_unavailable=tier2_unavailable, open_tier2=open_tier2,
        politeness=request.politeness,
    )
    try:
        async for index, verdict in batch:
            # A scan keeps each report, not the progress events a screen would replay: thousands of diagnoses'
            # events (metric samples among them) would hold far more memory than the reports themselves.
            verdicts[index] = dataclasses.replace(verdict, events=())
            if progress is not None:
                progress(len(verdicts), len(requests))
    except asyncio.CancelledError:
        if not keep_on_interrupt:
            raise
        # Ctrl-C: the diagnoses that finished are the scan's result, said as a part; the rest are not lost silently.
        await batch.aclose()  # type: ignore[attr-defined]  # an async generator, typed as its iterator
        result.interrupted = True
        result.notes.append(
            f"interrupted after {len(verdicts)} of {len(requests)} diagnoses: the {len(requests) - len(verdicts)} "
            "not finished are listed as skipped"
        )
    result.entries = [ScanEntry(w, j.why, verdicts[i]) for i, (w, j) in enumerate(chosen) if i in verdicts]
    result.skipped += [(w.name or w.id or "", "not diagnosed: the scan was interrupted")
                       for i, (w, _) in enumerate(chosen) if i not in verdicts]
    return result


__all__ = ["SCHEMA", "ScanEntry", "ScanRequest", "ScanResult", "count_line", "resolve_cluster", "scan", "verdict_label"]
