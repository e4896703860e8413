"""Same node, other victims: for a node-level finding, the other pods that failed on that node in the lookback.

Read where Kubernetes lets us: the pods bound to the node, listed across namespaces by field selector
(`spec.nodeName=<node>`), one request and one page of at most 500 pods (a node runs 110 by the kubelet's
default), so the round-trip budget of this check is one read, made beside `kubectl describe node`. Pods already
deleted are not listed by Kubernetes, so the list is a floor. A refused read (403: the role cannot list pods at
the cluster scope) or any other failure is a gap, said as such, never "no other pods failed". The node's events,
read already, are cited as evidence; they rarely name other pods.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import TYPE_CHECKING

from core.diagnosis.observations import quote
from core.diagnosis.reader import Reader
from core.models.kube import ContainerState, K8sPod
from core.models.report import MissingItem, OtherPod
from core.plural import plural
from core.sources.evidence import Missing
from core.sources.kube_types import NodePods

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

SOURCE = "kubectl get pods --all-namespaces --field-selector spec.nodeName"
# The report lists this many; the note counts the rest.
SHOWN = 20


async def read_node_pods(reader: Reader, t2: KubeSource, node: str) -> NodePods | Missing:
    return await reader.tier2(4, SOURCE, f"pods on node {node}", lambda: t2.node_pods(node))


def _terminated(state: ContainerState | None) -> tuple[int, str | None, datetime | None] | None:
    term = state.terminated if state is not None else None
    if term is None or term.exit_code in (None, 0):
        return None
    return term.exit_code, term.reason, term.finished_at  # type: ignore[return-value]


def _failure(pod: K8sPod) -> tuple[str, datetime | None] | None:
    """How the pod failed and when, or None when it did not."""
    status = pod.status
    if status is None:
        return None
    ends: list[tuple[str, int, str | None, datetime | None]] = []
    for cs in (status.init_container_statuses or []) + (status.container_statuses or []):
        for state in (cs.state, cs.last_state):
            end = _terminated(state)
            if end is not None:
                ends.append((cs.name or "?", *end))
    dated = [e for e in ends if e[3] is not None]
    latest = max(dated, key=lambda e: e[3]) if dated else (ends[-1] if ends else None)  # type: ignore[arg-type, return-value]
    ended = (
        f"container {quote(latest[0], 60)} terminated: {quote(latest[2] or 'Error', 40)} (exit {latest[1]})"
        if latest
        else None
    )
    if status.phase == "Failed":
        how = f"Failed: {quote(status.reason, 60)}" if status.reason else "Failed"
        return (f"{how}; {ended}" if ended else how), latest[3] if latest else None
    if latest is None or ended is None:
        return None
    return ended, latest[3]


def other_failures(
    listed: NodePods, exclude: Collection[str], cutoff: datetime
) -> tuple[list[OtherPod], str]:
    """The other pods that failed on the node since ``cutoff`` (newest first, at most SHOWN), and a note."""
    found: list[OtherPod] = []
    for pod in listed.items:
        meta = pod.metadata
        name = meta.name if meta is not None else None
        if not name or name in exclude:
            continue
        failure = _failure(pod)
        if failure is None or (failure[1] is not None and failure[1] < cutoff):
            continue
        found.append(
            OtherPod(
                namespace=quote(meta.namespace, 80) if meta is not None and meta.namespace else None,
                name=quote(name, 120),
                how=failure[0],
                at=failure[1],
            )
        )
    floor = datetime.min.replace(tzinfo=cutoff.tzinfo)
    found.sort(key=lambda p: p.at or floor, reverse=True)
    node = quote(listed.node, 120)
    note = (
        f"{plural(len(found), 'other pod')} on node {node} failed since {cutoff.isoformat()}"
        if found
        else f"no other pod on node {node} shows a failure since {cutoff.isoformat()}"
    )
    note += f" ({plural(len(listed.items), 'pod')} listed; pods already deleted are not listed by Kubernetes)"
    if listed.more:
        note += f"; the node holds more than the {listed.limit} pods read, the rest were not checked"
    if len(found) > SHOWN:
        note += f"; the newest {SHOWN} are shown"
    return found[:SHOWN], note


def refused(missing: Missing, node: str) -> tuple[str, MissingItem]:
    """The finding's note and the report's gap when the pods on the node could not be listed."""
    why = missing.why
    note = f"the other pods on node {quote(node, 120)} could not be checked: {why}"
    return note, MissingItem(what=f"other pods on node {quote(node, 120)}", why=why, source=SOURCE)
