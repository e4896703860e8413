"""One row per node: what ran there in the window (the denominator), what of it failed and why, the cause those
failures share, and the node's state now; then the ranking.

- `ran`: every workload with a pod on the node in the window, live or deleted, failed or not.
- `failures`: the workloads of `ran` that failed in the window, each with its verdict. A workload of several
  pods on several nodes failed on each of them (its pods there ended with it); the cause it shows is
  attributed only to the node its finding names. A Stopped workload stopped by its user or a scheduling
  policy (SCHEDULING_POLICY_TERMINATED) ran there and did not fail.
- `cause`: what two or more failures on the node share that is not theirs to fix: an infrastructure finding
  naming this node (GPU hardware or driver, node pressure, fabric), or a NODE_FAILURE verdict. None when the
  failures share nothing of the kind.
- Ranked: a node with a shared cause first, then by failures, then by failure rate, then by name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from core.models.report import Finding, Report
from core.models.runai import RunaiPod, Workload
from core.models.runai_nodes import RunaiNode
from core.report.why import why_line
from core.safety.untrusted import clean
from core.triage.batch import Verdict, verdict_label

NOT_DIAGNOSED = "not diagnosed"
# The phases that say a workload failed, whatever a diagnosis of it would add.
ENDED_FAILED = frozenset({"Failed", "Crashed"})
NODE_FAILURE_KEY = "node-failure"
# How many failures must share a cause for it to be the node's.
SHARED_AT_LEAST = 2
# Which shared cause leads when a node's failures share several: the hardware before what follows from it.
_CAUSE_ORDER = ("gpu-hardware", "gpu-driver-runtime", NODE_FAILURE_KEY, "node-pressure", "network-fabric")


@dataclass(frozen=True, slots=True)
class NodeState:
    """The node as the cluster's node list shows it now; `listed` False when the list does not hold it (gone,
    or the list could not be read: `unread` says which)."""

    listed: bool
    status: str | None = None
    ready: bool | None = None
    cordoned: bool | None = None
    taints: tuple[str, ...] = ()
    pool: str | None = None
    gpus: int | None = None
    gpu_type: str | None = None
    conditions: tuple[str, ...] = ()
    unread: str | None = None

    def words(self) -> str:
        """`Ready`, `NotReady, cordoned`, `not listed now`, ..."""
        if not self.listed:
            return "state unknown" if self.unread else "not listed now"
        parts = [clean(self.status or "status unknown", one_line=True, max_len=20)]
        if self.cordoned:
            parts.append("cordoned")
        return ", ".join(parts)


def node_state(node: RunaiNode | None, unread: str | None = None) -> NodeState:
    if node is None:
        return NodeState(False, unread=unread)
    status = node.status
    conditions = tuple(
        clean(": ".join(p for p in (c.type, c.reason, c.message) if p), one_line=True, max_len=200)
        for c in node.conditions or []
    )
    return NodeState(
        listed=True,
        status=status,
        ready=True if status == "Ready" else False if status == "NotReady" else None,
        cordoned=node.cordoned,
        taints=tuple(clean(t.text(), one_line=True, max_len=120) for t in node.taints or []),
        pool=node.node_pool,
        gpus=node.gpus,
        gpu_type=node.gpu_info.gpu_type if node.gpu_info else None,
        conditions=conditions,
    )


@dataclass(frozen=True, slots=True)
class RanThere:
    """A workload with a pod on the node in the window, as the pod list names it."""

    workload_id: str
    name: str | None
    project: str | None
    pods: tuple[str, ...]
    live: bool = False  # a pod of it is still there (neither completed nor deleted)


@dataclass(frozen=True, slots=True)
class NodeFailure:
    workload_id: str
    name: str | None
    project: str | None
    label: str  # the category, `no report`, or `not diagnosed`
    ended_at: datetime | None  # the phase change that made it a failure
    line: str | None  # the line that says why (the report's decisive line)
    source: str | None
    verdict: Verdict | None
    pods: tuple[str, ...]  # its pods on this node
    workload: Workload | None = None  # as the failures' list showed it

    @property
    def report(self) -> Report | None:
        return self.verdict.report if self.verdict is not None else None


@dataclass(frozen=True, slots=True)
class SharedCause:
    key: str  # a finding kind, or `node-failure`
    text: str
    at: datetime | None  # the first failure that shows it
    count: int
    finding: Finding | None


@dataclass
class NodeRow:
    name: str
    state: NodeState
    ran: dict[str, RanThere] = field(default_factory=dict)
    failures: list[NodeFailure] = field(default_factory=list)
    cause: SharedCause | None = None
    findings: list[Finding] = field(default_factory=list)
    crosses: bool = False

    @property
    def workloads(self) -> int:
        return len(self.ran)

    @property
    def failed(self) -> int:
        return len(self.failures)

    @property
    def rate(self) -> float | None:
        return self.failed / self.workloads if self.workloads else None

    @property
    def verdicts(self) -> dict[str, int]:
        counts = Counter(f.label for f in self.failures)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def projects(self) -> list[str]:
        return sorted({r.project for r in self.ran.values() if r.project}, key=str.casefold)


@dataclass(frozen=True, slots=True)
class Threshold:
    """A node crosses it with at least `min_workloads` workloads and `fail_rate` of them failed."""

    fail_rate: float = 0.5
    min_workloads: int = 3

    def crossed(self, row: NodeRow) -> bool:
        return row.workloads >= self.min_workloads and (row.rate or 0.0) >= self.fail_rate


def is_failure(workload: Workload, verdict: Verdict | None) -> bool:
    """Whether the workload failed: a verdict with a category, except a Stopped workload's stop by its user or a
    scheduling policy (it ran there and ended as it was told to); without a report, a phase that says it failed.
    A route-out (preempted, pending, ...) is not a failure."""
    report = verdict.report if verdict is not None else None
    if report is None:
        return (workload.phase or "") in ENDED_FAILED
    if report.outcome != "diagnosed":
        return False
    return not (workload.phase == "Stopped" and report.category == "SCHEDULING_POLICY_TERMINATED")


def _failure(workload: Workload, verdict: Verdict | None, pods: tuple[str, ...]) -> NodeFailure:
    report = verdict.report if verdict is not None else None
    line, source = None, None
    if report is not None:
        found = why_line(report)
        if found is not None:
            line, source = found[0], (found[1][0] if found[1] else None)
        elif report.reason:
            line = report.reason
    elif verdict is not None:
        line = verdict.failure
    label = verdict_label(report) if verdict is not None else NOT_DIAGNOSED
    return NodeFailure(workload.id or "", workload.name, workload.project_name, label, workload.phase_updated_at,
                       line, source, verdict, pods, workload)


def _when(failure: NodeFailure) -> float:
    """When a failure ended, for ordering: unknown times last."""
    return failure.ended_at.timestamp() if failure.ended_at is not None else float("inf")


def _same_node(a: str | None, b: str) -> bool:
    return a is not None and a.strip().casefold() == b.strip().casefold()


def _node_findings(name: str, failure: NodeFailure) -> dict[str, Finding | None]:
    """The causes this failure shows that are the node's: its findings naming the node, and a node failure."""
    report = failure.report
    found: dict[str, Finding | None] = {}
    if report is None:
        return found
    for finding in report.findings:
        if _same_node(finding.node, name):
            found.setdefault(finding.kind, finding)
    if report.category == "NODE_FAILURE":
        found.setdefault(NODE_FAILURE_KEY, None)
    return found


def shared_cause(name: str, failures: Sequence[NodeFailure]) -> tuple[SharedCause | None, list[Finding]]:
    """The cause most of the node's failures share (two or more), and every distinct finding on the node."""
    holders: dict[str, list[tuple[NodeFailure, Finding | None]]] = {}
    findings: dict[tuple[str, str], Finding] = {}
    for failure in failures:
        for key, finding in _node_findings(name, failure).items():
            holders.setdefault(key, []).append((failure, finding))
            if finding is not None:
                findings.setdefault((finding.kind, finding.text), finding)
    shared = [k for k, held in holders.items() if len(held) >= SHARED_AT_LEAST]
    if not shared:
        return None, list(findings.values())
    rank = {k: i for i, k in enumerate(_CAUSE_ORDER)}
    key = min(shared, key=lambda k: (-len(holders[k]), rank.get(k, len(rank)), k))
    held = sorted(holders[key], key=lambda pair: _when(pair[0]))
    first, finding = held[0]
    text = summary(finding.text) if finding is not None else (first.line or "the node failed under its workloads")
    cause = SharedCause(key, clean(text, one_line=True, max_len=200), first.ended_at, len(held), finding)
    return cause, list(findings.values())


def summary(finding_text: str) -> str:
    """What a finding says, without the evidence it quotes after it (`<what>: "<the cluster's words>"`)."""
    what, sep, quoted = finding_text.rpartition(': "')
    return what if sep and what and quoted.endswith('"') else finding_text


def ran_by_node(pods: Iterable[RunaiPod]) -> dict[str, dict[str, RanThere]]:
    """node name -> workload id -> what ran there, from the window's pods."""
    grouped: dict[str, dict[str, list[RunaiPod]]] = {}
    for pod in pods:
        if pod.node_name and pod.workload_id:
            grouped.setdefault(pod.node_name, {}).setdefault(pod.workload_id, []).append(pod)
    return {
        node: {
            wid: RanThere(wid, _first(p.workload_name for p in ps), _first(p.project_name for p in ps),
                          tuple(sorted({p.name or p.id or "?" for p in ps})),
                          any(p.completed_at is None and p.deleted_at is None for p in ps))
            for wid, ps in by_workload.items()
        }
        for node, by_workload in grouped.items()
    }


def _first(values: Iterable[str | None]) -> str | None:
    return next((v for v in values if v), None)


def build_rows(
    nodes: Sequence[RunaiNode] | None,
    ran: Mapping[str, dict[str, RanThere]],
    failed: Mapping[str, tuple[Workload, Verdict | None]],
    threshold: Threshold,
    *,
    nodes_unread: str | None = None,
    only: set[str] | None = None,
) -> list[NodeRow]:
    """The ranked rows: every node listed now and every node pods ran on (`only`: those names alone)."""
    listed = {n.name: n for n in nodes or [] if n.name}
    names = set(listed) | set(ran)
    if only is not None:
        names &= only
    rows: list[NodeRow] = []
    for name in names:
        row = NodeRow(name, node_state(listed.get(name), nodes_unread), dict(ran.get(name, {})))
        for wid, there in row.ran.items():
            if wid in failed:
                workload, verdict = failed[wid]
                if is_failure(workload, verdict):
                    row.failures.append(_failure(workload, verdict, there.pods))
        row.failures.sort(key=lambda f: (_when(f), f.workload_id))
        row.cause, row.findings = shared_cause(name, row.failures)
        row.crosses = threshold.crossed(row)
        rows.append(row)
    return rank(rows)


def rank(rows: Iterable[NodeRow]) -> list[NodeRow]:
    return sorted(rows, key=lambda r: (r.cause is None, -r.failed, -(r.rate or 0.0), r.name))
