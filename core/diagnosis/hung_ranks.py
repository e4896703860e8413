"""A collective timeout points at another rank: the one the others waited for.

When a rank's NCCL or Gloo watchdog fires (`Watchdog caught collective operation timeout`, a `ProcessGroupNCCL`
timeout, torchrun's `ChildFailedError` over one), that rank failed first in time but is not where the fault is:
every rank waits on a collective until the one that stopped answering is given up on. The rank that hung did not
time out itself: it was killed or deleted when the job was torn down (SIGKILL after the grace period: it did not
answer SIGTERM either; a rank that ended on SIGTERM answered it and was torn down with the others), or it shows
nothing at all. Its node is where a GPU that fell off the bus, a driver that
hung or a fabric port that went down is seen, in the node's events and conditions.

This module names those ranks from the order the pods ended in (core/diagnosis/cascade.py) and chooses the nodes
worth a read, within a bound: the hung ranks' nodes first, then (for any first failure that only says a peer
was lost) the nodes of the other pods of the job. core/diagnosis/kubernetes_driver.py makes the reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from core.diagnosis.cascade import (
    CAUSE_KINDS,
    COLLECTIVE_TIMEOUT_SIGNS,
    PodTermination,
    TerminationOrder,
    pod_key,
)
from core.diagnosis.observations import quote
from core.diagnosis.pod_ends import HEALTHY_PHASES
from core.diagnosis.signals import SignalKind
from core.models.runai import RunaiPod

K = SignalKind
_COLLECTIVE_TIMEOUT_RE = re.compile(
    r"watchdog caught collective operation timeout|ProcessGroup(?:NCCL|Gloo)[^\n]{0,200}time(?:d )?out"
    r"|gloo[^\n]{0,200}timed out (?:waiting|after)|NCCL (?:collective|operation)[^\n]{0,80}timed out"
    r"|DistBackendError[^\n]{0,200}time(?:d )?out|Timeout\(ms\)=\d{1,9}\) ran for \d{1,12} milliseconds",
    re.IGNORECASE,
)
# The teardown signs (cascade.py) that say a rank timed out itself, or only saw its peer go.
TIMEOUT_SIGNS = COLLECTIVE_TIMEOUT_SIGNS
_PEER_SIGNS = frozenset(
    {*COLLECTIVE_TIMEOUT_SIGNS, "NCCL communicator aborted", "connection reset by peer", "connection closed by peer",
     "rendezvous closed", "ChildFailedError", "MPI daemon lost", "Horovod peer exited"}
)
# The bound on the reads one diagnosis makes for this: hung ranks' nodes (events and the node), then other nodes'
# events.
MAX_HUNG = 2
MAX_PEER_NODES = 4
_SCAN = 8192


def is_collective_timeout(texts: Iterable[str]) -> bool:
    """Whether any of the texts (a log line, an event, a termination message) is a collective's timeout."""
    return any(isinstance(t, str) and _COLLECTIVE_TIMEOUT_RE.search(t[:_SCAN]) for t in texts)


def lost_a_peer(first: PodTermination, texts: Iterable[str]) -> bool:
    """The first failure says only that a peer was lost (a collective timeout, a reset connection, a closed
    rendezvous), not a cause of its own."""
    own = any(k in CAUSE_KINDS and k is not K.APP_EXIT for k in first.kinds)
    return not own and (bool(set(first.teardown) & _PEER_SIGNS) or is_collective_timeout(texts))


@dataclass(frozen=True, slots=True)
class HungRank:
    """A rank that did not time out itself while the others did: the pod, its node, how it ended (or not)."""

    pod: str
    role: str | None
    node: str
    how: str  # "deleted while running", "SIGKILL (exit 137)", "still Running when the others failed"
    at: datetime | None  # when it ended (None: it did not)


def _rank(entry: PodTermination) -> int | None:
    """How likely an ended pod is the hung one (lower: likelier), or None when it timed out or failed itself."""
    if set(entry.teardown) & TIMEOUT_SIGNS or any(k in CAUSE_KINDS for k in entry.kinds):
        return None
    if entry.deleted and not entry.kinds:
        return 0  # deleted at clean-up while it still ran: it never returned from the collective
    if entry.exit_code == 137 or K.SIGKILLED in entry.kinds:
        return 1  # killed after the grace period: it did not answer SIGTERM either
    return None  # a rank that ended on SIGTERM answered it: torn down with the others, not hung


def hung_ranks(order: TerminationOrder, pods: Sequence[RunaiPod]) -> list[HungRank]:
    """The ranks that did not time out themselves, likeliest first, each with a node: the ones killed or deleted at
    clean-up, then the silent ones (still running when the others failed)."""
    found: list[tuple[int, str, HungRank]] = []
    for entry in order.entries:
        rank = None if entry.first else _rank(entry)
        if rank is not None and entry.node:
            how = entry.how
            found.append((rank, entry.pod, HungRank(entry.pod, entry.role, entry.node, how, entry.at)))
    ended = order.names()
    for pod in pods:
        name = pod_key(pod.name) if pod.name else None
        silent = (pod.k8s_phase or "").strip().lower() in HEALTHY_PHASES and pod.deleted_at is None
        if name and name not in ended and silent and pod.node_name:
            role = next((e.role for e in order.entries if e.pod == name), None)
            hung = HungRank(name, role, quote(pod.node_name, 120), "still running when the others failed", None)
            found.append((2, name, hung))
    found.sort(key=lambda item: (item[0], item[1]))
    seen: set[str] = set()
    out: list[HungRank] = []
    for _, _, hung in found:
        if hung.node not in seen:
            seen.add(hung.node)
            out.append(hung)
    return out


def peer_nodes(order: TerminationOrder, hung: Sequence[HungRank], first_node: str | None) -> list[str]:
    """The other nodes of the job worth a read of their events, within MAX_PEER_NODES: the pods that ended
    beside the first failure, in the order they ended."""
    taken = {h.node for h in hung} | ({first_node} if first_node else set())
    out: list[str] = []
    for entry in order.entries:
        if entry.node and entry.node not in taken and not entry.first:
            taken.add(entry.node)
            out.append(entry.node)
    return out[:MAX_PEER_NODES]


def hung_text(hung: HungRank, first: PodTermination) -> str:
    """The evidence line that names the rank the collective waited for, and its node."""
    role = f" ({hung.role})" if hung.role else ""
    when = f" at {_clock(hung.at)}" if hung.at else ""
    first_at = f" at {_clock(first.at)}" if first.at else ""
    return (
        f"Hung rank: pod {hung.pod}{role} on node {hung.node} did not time out itself ({hung.how}{when}) while "
        f"{first.pod} timed out waiting on a collective{first_at}: the collective waited for it"
    )


def _clock(at: datetime) -> str:
    return at.strftime("%H:%M:%S UTC")
