"""Step 4 for a job whose first failure only says a peer was lost: the nodes of its other pods, read within a bound.

A collective timeout points at the rank that hung (core/diagnosis/hung_ranks.py): its node is read in full (its
events in the failure window and the node itself), and the report names the rank and its node. More generally, a
fault on the node of any of the job's pods in the failure window is worth a read when the first failure shows no
cause of its own: the events of a few more of those nodes are read. Whatever the reads show (an Xid, a driver
that stopped answering, a fabric port down) becomes a node-level observation, which core/diagnosis/infra.py makes
a finding for the administrator on that node. A failed read is a stated gap.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from core.diagnosis.cascade import TerminationOrder
from core.diagnosis.findings import Collect, Findings
from core.diagnosis.hung_ranks import (
    MAX_HUNG,
    TIMEOUT_SIGNS,
    hung_ranks,
    hung_text,
    is_collective_timeout,
    lost_a_peer,
    peer_nodes,
)
from core.diagnosis.kube_evidence import EVENTS, events_observations
from core.diagnosis.marks import Mark, events_marks
from core.diagnosis.observations import Observation
from core.diagnosis.reader import Reader
from core.diagnosis.steps import kubernetes
from core.diagnosis.steps.kubernetes import Tier2Found
from core.models.runai import RunaiPod

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

PODS = "get_workload_pods"


@dataclass(frozen=True, slots=True)
class PeerNodes:
    observations: tuple[Observation, ...]
    marks: tuple[Mark, ...]
    findings: Findings


NOTHING = PeerNodes((), (), Findings())


async def _node_events(
    reader: Reader, t2: KubeSource, node: str, window: tuple[datetime | None, datetime | None],
    failed: datetime | None, now: datetime,
) -> tuple[list[Observation], list[Mark], Findings]:
    read = await kubernetes.node_events(reader, t2, node, failed, now)
    if read.missing is not None:
        return [], [], kubernetes.gap(read.missing)
    kept = kubernetes.failure_node_events(read.events, window, [failed] if failed else [])
    found = Collect()
    observations = events_observations(kept)
    found.observed(observations)
    return observations, events_marks(read.events, EVENTS), found.done()


async def _node(reader: Reader, t2: KubeSource, node: str) -> tuple[list[Observation], list[Mark], Findings]:
    described = await kubernetes.describe_node(reader, t2, node)
    # Cited, but the node pane keeps the first failure's node.
    return list(described.observations), list(described.marks), dataclasses.replace(described.findings, shown=())


async def read_peer_nodes(
    reader: Reader, t2: KubeSource, order: TerminationOrder, pods: Sequence[RunaiPod], found: Tier2Found,
    window: tuple[datetime | None, datetime | None], failed: datetime | None, now: datetime,
) -> PeerNodes:
    """The hung ranks' nodes (events and the node) and a few more of the job's nodes (events), when the first
    failure only says a peer was lost; nothing otherwise."""
    first = order.first
    if first is None or len(order.entries) < 2:
        return NOTHING
    texts = [found.log.text] if found.log is not None else []
    if (line := found.logs.get(first.pod)) is not None:  # a peer found by its log to have failed first
        texts.append(line.text)
    texts += [o.signal.detail for o in found.observations if o.pod == first.pod]
    if not lost_a_peer(first, texts):
        return NOTHING
    notes = Collect()
    collective = bool(set(first.teardown) & TIMEOUT_SIGNS) or is_collective_timeout(texts)
    hung = hung_ranks(order, pods)[:MAX_HUNG] if collective else []
    for rank in hung:
        notes.evidence(hung_text(rank, first), PODS, "hung-rank")
    if collective and not hung:
        notes.note(
            f"{first.pod} timed out on a collective, and no other pod of the job was killed after the grace period, "
            "deleted while running or left running: the rank it waited for is not named"
        )
    reads = [_node_events(reader, t2, h.node, window, failed, now) for h in hung]
    reads += [_node(reader, t2, h.node) for h in hung]
    reads += [_node_events(reader, t2, n, window, failed, now) for n in peer_nodes(order, hung, first.node)]
    observations: list[Observation] = []
    marks: list[Mark] = []
    findings = [notes.done()]
    for obs, node_marks, read in await asyncio.gather(*reads):
        observations += obs
        marks += node_marks
        findings.append(read)
    merged = Findings(
        evidence=tuple(e for f in findings for e in f.evidence),
        missing=tuple(m for f in findings for m in f.missing),
        notes=tuple(n for f in findings for n in f.notes),
    )
    return PeerNodes(tuple(observations), tuple(marks), merged)
