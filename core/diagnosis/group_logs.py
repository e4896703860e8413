"""Step 4 for a job whose first failure says nothing of its own: the logs of the pods that ended with it.

core/diagnosis/cascade.py compares the pods that ended within SIMULTANEOUS of each other by what they show: a
rank's collective timeout outranks a plain exit a few seconds before it, because a collective times out only
after minutes spent waiting on a rank that hung, and the plain exit is that hang's teardown. But only the log of
the pod taken for the first failure is read in full. When that pod is a plain non-zero exit whose log could not
be read, is empty or explains nothing, the order rests on the clock alone, and the ranks that say what happened
are the ones whose logs were not read.

So then the logs of the other pods of that group are read as well: at most MAX_GROUP_LOGS, in the order they
ended, side by side, each the way the first failure's log is read (the same line and byte limits, the same
deadline). A pod not described yet is described first (its containers say which log to read and which instance
ended). What each log shows joins the order (its explaining line as the pod's text, its GPU out-of-memory and
infrastructure lines as its observations) and the existing ranking decides again. Every read is cited with its
pod named, a failed read is a stated gap, and when no log read changes the order the verdict is what it was.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from core.diagnosis import crash_loop
from core.diagnosis.cascade import SIMULTANEOUS, PodTermination, TerminationOrder, pod_key
from core.diagnosis.findings import Collect, Findings
from core.diagnosis.kube_evidence import DESCRIBE_POD, LOGS
from core.diagnosis.log_scan import LogFinding, scan_log
from core.diagnosis.observations import Observation, quote
from core.diagnosis.pod_ends import k8s_terminations
from core.diagnosis.progress import LogFound
from core.diagnosis.reader import Reader
from core.diagnosis.signals import SignalKind
from core.diagnosis.steps import kubernetes
from core.diagnosis.steps.kubernetes import LogRead, PodDescribed
from core.models.kube import K8sPod
from core.plural import plural
from core.sources.evidence import Missing
from core.sources.namespace import NamespaceChoice

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

K = SignalKind
# The bound on the logs one diagnosis reads for this (each may need a describe of its pod first).
MAX_GROUP_LOGS = 8
# What a pod shows when it only exited or was killed: an exit code, an Error state, a signal. Nothing else.
_PLAIN_KINDS = frozenset({K.APP_EXIT, K.CONTAINER_ERROR, K.SIGTERMED, K.SIGKILLED})
_PLAIN_SIGNS = frozenset({"SIGTERM", "SIGKILL", "deleted while running"})
# A peer's log lines are cited beside the first failure's, under tags of their own: only the first failure's
# explaining line is the failing log line a report leads with.
_PEER_TAGS = {"log-line": "peer-log-line", "log": "peer-log"}


def _about(obs: Observation, first: PodTermination) -> bool:
    if obs.pod is not None:
        return obs.pod == first.pod
    return obs.node is not None and first.node is not None and pod_key(obs.node) == first.node


def says_nothing(
    first: PodTermination, observations: Sequence[Observation], log: LogFinding | None, k8s_pod: K8sPod | None
) -> bool:
    """The first failure shows no cause of its own: only an exit or a kill in everything read about it (and its
    node), no sign of a peer's loss, and no line that explains it in its log (unread, unreadable, empty or
    silent) or in its containers' termination messages."""
    if log is not None or set(first.kinds) - _PLAIN_KINDS or set(first.teardown) - _PLAIN_SIGNS:
        return False
    if any(o.kind not in _PLAIN_KINDS for o in observations if _about(o, first)):
        return False
    messages = [message for *_, message in k8s_terminations(k8s_pod)] if k8s_pod is not None else []
    return not any(scan_log(message.splitlines(), own=True)[0] is not None for message in messages if message)


def candidates(order: TerminationOrder, unreadable: Sequence[str] = ()) -> tuple[list[PodTermination], int]:
    """The pods of the first failure's group worth a log read, in the order they ended, at most MAX_GROUP_LOGS,
    and how many more there were. Left out: the first failure, deleted pods and pods since replaced (Kubernetes
    holds no log of theirs under the name), and pods whose describe already failed (`unreadable`)."""
    skip = set(unreadable)
    pool = [
        e for e in order.entries
        if e.pod in order.group and not e.first and not e.deleted and e.replaced_by is None and e.pod not in skip
    ]
    return pool[:MAX_GROUP_LOGS], max(0, len(pool) - MAX_GROUP_LOGS)


@dataclass(frozen=True, slots=True)
class PeerLog:
    """One pod of the group: its describe (when made here), its log read and interpreted (None: not read, the pod
    could not be described), and the log's pane as it would be shown."""

    pod: str
    described: PodDescribed | None
    read: LogRead | None
    answered: bool = False  # the log read got an answer (else its failure is among the read's gaps)
    why_instance: str | None = None  # the source's note on which instance it read (its citation says which)


@dataclass(frozen=True, slots=True)
class GroupLogs:
    peers: tuple[PeerLog, ...]
    left: int  # pods of the group past the bound, not read

    @property
    def logs(self) -> dict[str, LogFinding]:
        """Each pod's explaining line, for those whose log has one."""
        return {p.pod: p.read.finding for p in self.peers if p.read is not None and p.read.finding is not None}

    @property
    def observations(self) -> tuple[Observation, ...]:
        found: list[Observation] = []
        for peer in self.peers:
            if peer.described is not None:
                found += peer.described.observations
            if peer.read is not None:
                found += peer.read.observations
        return tuple(found)

    @property
    def k8s_pods(self) -> dict[str, K8sPod]:
        """The pods described here, by name."""
        return {p.pod: p.described.pod for p in self.peers if p.described is not None and p.described.pod is not None}

    def texts(self) -> dict[str, list[str]]:
        """Each explaining line as the order reads a pod's texts (for its teardown signs)."""
        return {pod: [finding.text] for pod, finding in self.logs.items()}


async def read_group_logs(
    reader: Reader, t2: KubeSource, ns: NamespaceChoice, targets: Sequence[PodTermination], left: int,
    k8s_pods: Mapping[str, K8sPod], raw_names: Mapping[str, str], failed: datetime | None, now: datetime,
) -> GroupLogs:
    """Each target's log (its pod described first when `k8s_pods` lacks it), all side by side."""

    async def one(entry: PodTermination) -> PeerLog:
        pod, described = k8s_pods.get(entry.pod), None
        if pod is None:
            described = await kubernetes.describe_pod(reader, t2, ns, raw_names.get(entry.pod, entry.pod))
            pod = described.pod
        if pod is None:
            return PeerLog(entry.pod, described, None)
        answer = await reader.tier2(4, LOGS, f"previous log of pod {entry.pod}", lambda: t2.logs(pod))
        # Its lines are read against the end of the instance that wrote them, else against the failure's time.
        ended = crash_loop.instance_end(pod, answer) if not isinstance(answer, Missing) else None
        before = ended or failed
        node = pod.spec.node_name if pod.spec is not None and pod.spec.node_name else entry.node
        read = kubernetes.interpret_log(answer, before, entry.pod, node, at=before, k8s_pod=pod, now=now)
        if isinstance(answer, Missing):
            return PeerLog(entry.pod, described, read)
        return PeerLog(entry.pod, described, read, True, quote(answer.note, 300) if answer.note else None)

    return GroupLogs(tuple(await asyncio.gather(*(one(t) for t in targets))), left)


def cite(
    group: GroupLogs, earliest: PodTermination, first: PodTermination | None, observations: Sequence[Observation]
) -> Findings:
    """What the group's reads found, each line with its pod named; the first failure's log shown in the log
    pane when it is one of them (its explaining line is then the failing log line). When the first failure is
    no longer `earliest`, what `describe pod` showed of each is cited the other way round: `earliest`'s (cited as
    the first failure's, without its name) again with its pod named, as a peer's, and the new first failure's
    without its name, as the first failure's own (core/diagnosis/evidence_groups.py keeps one line of each)."""
    found = Collect()
    if first is not None and first.pod != earliest.pod:
        for obs in observations:
            if obs.pod == earliest.pod and obs.source == DESCRIBE_POD:
                found.evidence(f"Pod {earliest.pod}: {obs.text}", obs.source, obs.kind.value)
            elif obs.pod == first.pod and obs.source == DESCRIBE_POD:
                found.observed([obs])
    asked = len(group.peers)
    failed = asked - sum(1 for p in group.peers if p.answered)
    unread = f" ({failed} of them could not be read: see the missing evidence)" if failed else ""
    more = (
        f"; {plural(group.left, 'more pod')} ended with it and {'was' if group.left == 1 else 'were'} left unread: "
        f"a diagnosis reads at most {MAX_GROUP_LOGS} of these logs, the earliest first"
        if group.left else ""
    )
    found.note(
        f"{earliest.pod} ended first and shows no cause of its own (an exit code, and no log line read that "
        f"explains it), so the logs of the {plural(asked, 'pod')} that ended within {SIMULTANEOUS.seconds} s of it "
        f"were asked for too{unread}: what each shows is ranked as the earliest pod's own evidence would be{more}"
    )
    for peer in group.peers:
        if peer.described is not None:
            for obs in peer.described.observations:
                found.evidence(f"Pod {peer.pod}: {obs.text}", obs.source, obs.kind.value)
            for gap in peer.described.findings.missing:
                found.gap(gap)
        if peer.read is None:
            continue
        own = first is not None and peer.pod == first.pod
        for item in peer.read.findings.evidence:
            tag = item.signal if own or item.signal is None else _PEER_TAGS.get(item.signal, item.signal)
            found.evidence(f"Pod {peer.pod}: {item.text}", item.source, tag)
        for gap in peer.read.findings.missing:
            found.gap(gap)
        if own:
            for event in peer.read.findings.shown:
                found.show(dataclasses.replace(event, pod=peer.pod) if isinstance(event, LogFound) else event)
            for note in peer.read.findings.notes:
                if note != peer.why_instance:
                    found.note(f"pod {peer.pod}: {note}" if isinstance(note, str) else note)
    return found.done()
