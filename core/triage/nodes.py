"""Which node keeps killing workloads: every node of a cluster with the workloads whose pods ran on it in a
window (the denominator: live and deleted pods, failed or not), how many of them failed, their verdicts from
the same engine as `diagnose`, and the cause the failures share. What `runai-triage nodes` prints and the app's
Nodes view shows.

1. The cluster (checked as a scan checks it) and its nodes now (core.triage.nodes_window).
2. Every pod that ran in the window, from the tenant-wide pod list: three lists, paged (nodes_window).
3. The workloads that failed in the window, listed as `scan` lists them (newest phase change first, the phases
   that never need a diagnosis left out by the server), live and deleted, kept only when a pod of theirs ran
   on a node in view; a Pending / Running / Degraded row is judged from its events as the picker judges it.
4. Each of those diagnosed by its id within the politeness budget (core.triage.batch), as `diagnose` would;
   verdicts already known for the same phase change (a live view reading again) are not asked for twice.
5. One row per node (core.triage.nodes_rows), ranked.

The reads grow with the pods and failures of the window: never with the tenant's history.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from core.diagnosis.engine import DiagnosisFailed, OpenTier2, Tier1
from core.diagnosis.observations import quote
from core.diagnosis.reader import error_why
from core.diagnosis.request import DiagnosisRequest, UsageError, parse_lookback
from core.models.runai import Workload
from core.sources.runai import MAX_LIMIT, filter_item
from core.triage.attention import AttentionCache, attention_filters, judge_rows
from core.triage.batch import MAX_DIAGNOSES, ClustersOnce, Politeness, Verdict, diagnose_many
from core.triage.cluster_state import ClusterState
from core.triage.nodes_rows import ENDED_FAILED, NodeRow, Threshold, build_rows, ran_by_node
from core.triage.nodes_window import read_nodes, read_window_pods
from core.triage.scan_scope import check_request_scope, scope_of
from core.triage.verdicts import VerdictCache
from core.usage import Opt, sentence

SCHEMA = "runai-triage/nodes@1"
DEFAULT_SINCE = "24h"
DEFAULT_MAX_FAILURES = 500
MAX_FAILURES = 5000
SHOWN_NODES = 30
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class NodesRequest:
    """What to look at: one cluster over a window (90m, 24h, 7d), one pool or one node of it if asked; when a
    node crosses the threshold; how many failures to diagnose at most (newest first), how many at once."""

    cluster_id: str
    since: str = DEFAULT_SINCE
    node_pool: str | None = None
    node: str | None = None
    now: datetime | None = None
    threshold: Threshold = field(default_factory=Threshold)
    concurrency: int = Politeness().diagnoses
    max_failures: int = DEFAULT_MAX_FAILURES

    def __post_init__(self) -> None:
        check_request_scope(self.cluster_id, "the nodes are a cluster's",
                            (("node_pool", self.node_pool), ("node", self.node)))
        parse_lookback(self.since, "since")
        if not 0.0 < self.threshold.fail_rate <= 1.0:
            raise UsageError(Opt("fail_rate"), f" {self.threshold.fail_rate:g}: give a share of the workloads, more "
                             "than 0 and at most 1 (0.5 or 50%)")
        if self.threshold.min_workloads < 1:
            raise UsageError(Opt("min_workloads"), f" {self.threshold.min_workloads}: at least 1")
        if not 1 <= self.max_failures <= MAX_FAILURES:
            raise UsageError(Opt("max_failures"), f" {self.max_failures}: diagnose from 1 to {MAX_FAILURES:,} "
                             "failures (narrow the window for more)")
        if not 1 <= self.concurrency <= MAX_DIAGNOSES:
            raise UsageError(Opt("concurrency"), f" {self.concurrency}: a whole number from 1 to {MAX_DIAGNOSES}")

    @property
    def politeness(self) -> Politeness:
        return Politeness(diagnoses=self.concurrency, requests=2 * self.concurrency)

    def window(self, now: datetime) -> tuple[datetime, datetime]:
        return now - parse_lookback(self.since), now


class UnknownNode(DiagnosisFailed):
    """The node asked for (`node`) names no node the cluster lists, and no pod ran on one of that name in the window."""

    hint = sentence("Run it again with one of the node names above in ", Opt("node"), ", or a longer ", Opt("since"),
                    ".")


@dataclass
class NodesMemory:
    """What a live view keeps between two reads, so a read again asks only what changed: verdicts per workload
    and phase change, and the needs-attention judgements made from events."""

    verdicts: VerdictCache = field(default_factory=VerdictCache)
    judged: AttentionCache = field(default_factory=AttentionCache)


@dataclass
class NodesResult:
    request: NodesRequest
    start: datetime
    end: datetime
    rows: list[NodeRow] = field(default_factory=list)
    cluster: ClusterState | None = None
    cluster_unread: str | None = None
    nodes_unread: str | None = None  # why the node list could not be read (the rows' states are then unknown)
    notes: list[str] = field(default_factory=list)
    pods: int = 0  # pods that ran on a node in the window
    unplaced: int = 0
    unreadable: int = 0  # list items that could not be read
    pods_cut: bool = False
    failures_listed: int = 0  # failing workloads listed in the window, cluster-wide
    more_failures: bool = False  # more were listed than diagnosed (max_failures)
    diagnosed: int = 0  # diagnoses made by this read (verdicts already known are not counted)
    reads: int = 0  # the view's own list reads and its diagnoses' reads

    @property
    def stale(self) -> bool:
        return self.cluster is not None and self.cluster.stale

    @property
    def crossing(self) -> list[NodeRow]:
        return [row for row in self.rows if row.crosses]


class _Counted:
    """A source (Run:ai's, Kubernetes') whose reads are counted, failed ones included: the view says its cost."""

    def __init__(self, inner: Any, tally: list[int]) -> None:
        self._inner = inner
        self._tally = tally

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name.startswith("_") or not inspect.iscoroutinefunction(attr):
            return attr

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self._tally[0] += 1
            return await attr(*args, **kwargs)

        return counted


def _counted_tier2(
    tally: list[int], tier2: object, open_tier2: OpenTier2 | None, unavailable: str | None
) -> dict[str, Any]:
    opened: OpenTier2 | None = None
    if open_tier2 is not None:
        opener = open_tier2

        async def opened() -> tuple[Any, str | None]:
            kube, why = await opener()
            return (_Counted(kube, tally) if kube is not None else None), why

    return {"tier2": _Counted(tier2, tally) if tier2 is not None else None, "tier2_unavailable": unavailable,
            "open_tier2": opened}


def _failure_filters(cluster_id: str, start: datetime) -> list[str]:
    return [filter_item("clusterId", "==", cluster_id), filter_item("phaseUpdatedAt", ">=", start),
            *attention_filters()]


async def _failing(tier1: Any, request: NodesRequest, start: datetime, end: datetime, result: NodesResult,
                   wanted: set[str]) -> list[Workload]:
    """The workloads listed as failing (or needing attention) in the window, live and deleted, newest first,
    that ran on a node in view."""
    rows: list[Workload] = []
    for deleted in (None, True):
        offset: int | None = 0
        while offset is not None and len(rows) <= request.max_failures:
            page = await tier1.list_workloads(
                filters=_failure_filters(request.cluster_id, start), sort_by="phaseUpdatedAt", sort_order="desc",
                offset=offset, limit=MAX_LIMIT, deleted=deleted,
            )
            result.unreadable += len({p.index for p in page.problems})
            result.failures_listed += len(page.items)
            rows += [w for w in page.items if w.id in wanted and _in_window(w, start, end)]
            offset = page.next if page.items else None
    rows.sort(key=lambda w: w.phase_updated_at.timestamp() if w.phase_updated_at else 0.0, reverse=True)
    return list({w.id: w for w in rows}.values())


def _in_window(workload: Workload, start: datetime, end: datetime) -> bool:
    at = workload.phase_updated_at
    return at is not None and start <= at <= end


async def nodes_view(
    request: NodesRequest,
    tier1: Tier1,
    tier2: object = None,
    *,
    tier2_unavailable: str | None = None,
    open_tier2: OpenTier2 | None = None,
    now: datetime,
    progress: Progress | None = None,
    memory: NodesMemory | None = None,
) -> NodesResult:
    """Read the window and diagnose its failures. A failed pod list ends it (DiagnosisFailed: no denominator);
    a failed node list or a failed diagnosis is said where it shows."""
    memory = memory or NodesMemory()
    tally = [0]
    counted = _Counted(ClustersOnce(tier1), tally)
    scope = await scope_of(counted, request.cluster_id, None, now)
    request = dataclasses.replace(request, cluster_id=scope.cluster_id)
    start, end = request.window(now)
    result = NodesResult(request, start, end, cluster=scope.cluster, cluster_unread=scope.cluster_unread,
                         notes=list(scope.notes))
    try:
        listed = await read_nodes(counted, request.cluster_id, request.node_pool)
        nodes = listed.nodes
        result.unreadable += listed.unreadable
    except Exception as exc:  # the rows still show what ran and failed; their state says it is unknown
        nodes, result.nodes_unread = None, f"the node list could not be read: {error_why(exc)}"
    try:
        window = await read_window_pods(counted, request.cluster_id, start, end, node=request.node)
    except Exception as exc:
        raise DiagnosisFailed(f"the pods that ran in the window could not be listed: {error_why(exc)}") from exc
    result.pods, result.unplaced, result.pods_cut = len(window.pods), window.unplaced, window.cut
    result.unreadable += window.unreadable
    in_view = _names_in_view(request, nodes)
    ran = {n: r for n, r in ran_by_node(window.pods).items() if in_view is None or n in in_view}
    wanted = {wid for there in ran.values() for wid in there}
    try:
        failing = await _failing(counted, request, start, end, result, wanted) if wanted else []
    except Exception as exc:
        raise DiagnosisFailed(f"the workloads that failed in the window could not be listed: {error_why(exc)}") \
            from exc
    kube = _counted_tier2(tally, tier2, open_tier2, tier2_unavailable)
    verdicts = await _verdicts(counted, request, failing, result, memory, now, progress, **kube)
    failed: dict[str, tuple[Workload, Verdict | None]] = {}
    for index, w in enumerate(failing):
        if w.id in verdicts:
            failed[w.id] = (w, verdicts[w.id])
        elif index >= request.max_failures and (w.phase or "") in ENDED_FAILED:
            failed[w.id or ""] = (w, None)  # failed, past what the view diagnoses: counted, not diagnosed
    result.rows = build_rows(nodes, ran, failed, request.threshold, nodes_unread=result.nodes_unread, only=in_view)
    result.reads = tally[0]
    if request.node and not result.rows:
        raise UnknownNode(_no_such_node(request.node, nodes))
    return result


def _no_such_node(node: str, nodes: list[Any] | None) -> str:
    said = quote(node, 120)
    if nodes is None:
        return f"no pod ran on a node named {said} in the window, and the cluster's node list could not be read"
    names = sorted((n.name for n in nodes if n.name), key=str.casefold)
    shown = ", ".join(quote(n, 80) for n in names[:SHOWN_NODES])
    more = f", and {len(names) - SHOWN_NODES} more" if len(names) > SHOWN_NODES else ""
    return (f"{said} is not a node of this cluster, and no pod ran on one of that name in the window. Its nodes: "
            f"{shown or 'none listed'}{more}. Use one of these names, exactly as written.")


def _names_in_view(request: NodesRequest, nodes: list[Any] | None) -> set[str] | None:
    """The node names the view covers: one node, a pool's nodes (as listed now), or every node (None)."""
    if request.node:
        return {request.node}
    if request.node_pool:
        return {n.name for n in nodes or [] if n.name}
    return None


async def _verdicts(
    tier1: Any,
    request: NodesRequest,
    failing: list[Workload],
    result: NodesResult,
    memory: NodesMemory,
    now: datetime,
    progress: Progress | None,
    **tier2: Any,
) -> dict[str, Verdict]:
    """The verdict of each failing row the view diagnoses (the newest `max_failures`); the rows judged not to
    need one are left out."""
    chosen = failing[: request.max_failures]
    result.more_failures = len(failing) > len(chosen)
    todo: list[Workload] = [w for w in chosen if memory.judged.key(w) not in memory.judged.judged]
    for w, judgement in zip(todo, await judge_rows(tier1, todo, request.politeness.requests), strict=True):
        memory.judged.judged[memory.judged.key(w)] = judgement
    kept = [w for w in chosen if memory.judged.judged[memory.judged.key(w)].keep]
    found: dict[str, Verdict] = {}
    asked: list[Workload] = []
    for w in kept:
        known = memory.verdicts.get(w)
        if known is not None:
            found[w.id or ""] = known
        else:
            asked.append(w)
    requests = [DiagnosisRequest(cluster_id=request.cluster_id, workload_id=w.id, lookback=request.since, now=now,
                                 count_others=False, now_given=request.now is not None) for w in asked]
    if progress is not None:
        progress(0, len(requests))
    done = 0
    async for index, verdict in diagnose_many(requests, cast(Tier1, tier1), politeness=request.politeness, **tier2):
        # A view keeps each report, not the progress events a screen would replay (as a scan does).
        kept_verdict = dataclasses.replace(verdict, events=())
        memory.verdicts.put(asked[index], kept_verdict)
        found[asked[index].id or ""] = kept_verdict
        done += 1
        if progress is not None:
            progress(done, len(requests))
    result.diagnosed = len(requests)
    return found
