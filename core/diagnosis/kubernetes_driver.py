"""Step 4's Kubernetes reads for one diagnosis: the pod that failed read in full (pod, events, previous log, node
events, the node and the pods on it when the evidence calls for them), or, for a workload of several pods, the
earliest failed pods described side by side and then the one that failed first read in full.

It runs as one task beside Steps 2 and 3 (core/diagnosis/orchestrator.py): it waits for their answers (`known`)
before reading the log and the node's events against the failure's time, and hands its first answers (`early`)
to the metrics gate.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from core.diagnosis import cascade, crash_loop, group_logs, infra, same_node
from core.diagnosis.findings import Collect, Findings, Journal
from core.diagnosis.history_analysis import ENDING_PHASES
from core.diagnosis.kube_evidence import DESCRIBE_POD, EVENTS
from core.diagnosis.marks import Mark, events_marks, pod_marks
from core.diagnosis.observations import Observation
from core.diagnosis.peer_nodes import read_peer_nodes
from core.diagnosis.reader import Reader
from core.diagnosis.steps import conditional, kubernetes, multipod
from core.diagnosis.steps.history import HistoryRead
from core.diagnosis.steps.inspect import NamespaceFound, PodsRead
from core.diagnosis.steps.kubernetes import NO_TIER2, Tier2Found
from core.diagnosis.supersede import supersede
from core.models.kube import K8sEvent, K8sPod
from core.models.runai import Workload
from core.sources.evidence import Missing
from core.sources.namespace import NamespaceChoice

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

T = TypeVar("T")
# What Steps 1-3 found, for the Kubernetes reads: the history, the Run:ai observations that stand (those a later
# event took back left out) and the marks of progress Run:ai showed.
Known = tuple[HistoryRead, tuple[Observation, ...], tuple[Mark, ...]]


def _ready(value: T) -> asyncio.Future[T]:
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    future.set_result(value)
    return future


class KubeReads:
    """The Kubernetes reads of one diagnosis, sharing its reader, journal and tasks."""

    def __init__(
        self,
        t2: KubeSource,
        reader: Reader,
        journal: Journal,
        spawn: Callable[[Coroutine[Any, Any, Any]], asyncio.Task[Any]],
        known: asyncio.Future[Known],
        early: asyncio.Future[Tier2Found],
        now: datetime,
    ) -> None:
        self.t2, self.reader, self.journal, self.spawn = t2, reader, journal, spawn
        self.known, self.early, self.now = known, early, now

    async def several(
        self,
        w: Workload,
        names: list[str],
        window: tuple[datetime | None, datetime | None],
        ns_task: asyncio.Task[NamespaceFound],
        pods: PodsRead,
        started: asyncio.Task[Tier2Found] | None,
    ) -> Tier2Found:
        """The earliest failed pods described side by side; then the pod that failed first read in full."""
        try:
            done = await started if started is not None else None
            ns = (await ns_task).choice
            if ns.namespace is None:
                return done or self.no_namespace()
            have = set(done.k8s_pods) if done is not None else set()
            asked = [n for n in names if cascade.pod_key(n) not in have]
            described = await multipod.describe_pods(self.reader, self.t2, ns, asked)
            # A pod whose describe failed gets no further read here: its gap is stated once.
            unreadable = [cascade.pod_key(n) for n, d in zip(asked, described, strict=True) if d.pod is None]
            history = (await self.known)[0]
            k8s = dict(done.k8s_pods) if done is not None else {}
            observations = list(done.observations) if done is not None else []
            marks = list(done.marks) if done is not None else []
            for item in described:
                if item.pod is not None and item.pod.metadata is not None and item.pod.metadata.name:
                    k8s[cascade.pod_key(item.pod.metadata.name)] = item.pod
                    observations += item.observations
                    marks += pod_marks(item.pod, DESCRIBE_POD)
            order = await self.ordered(w, pods, observations, marks, window, k8s)
            first = order.order.first
            first_name = first.pod if first is not None else (names[0] if names else None)
            for item in described:
                if item.pod is None or item.pod.metadata is None or not item.pod.metadata.name:
                    self.journal.take(item.findings)  # a failed describe is a stated gap whoever it was for
                elif cascade.pod_key(item.pod.metadata.name) != first_name:
                    self.journal.take(multipod.peer_findings(item))
            failed = conditional.failure_time(history.current, w)
            if first_name is None or (done is not None and done.pod_name == first_name):
                result = Tier2Found(
                    done.pod if done else None, tuple(observations), done.log if done else None, k8s,
                    done.node_pods if done else None, marks=tuple(marks),
                )
                return await self.settle(w, result, order.order, ns, pods, window, failed, unreadable)
            pre = next((d for d in described if d.pod is not None and d.pod.metadata is not None
                        and cascade.pod_key(d.pod.metadata.name) == first_name), None)
            raw = next((p.name for p in pods.pods if p.name and cascade.pod_key(p.name) == first_name), first_name)
            # A failed pod replaced under its name: Kubernetes answers with the replacement, so only the events
            # of the failed one (by its id) are its own.
            gone = first.pod_id if first is not None and first.replaced_by is not None else None
            full = await self.pod(w, raw, gone, ns_task, _ready(pods), None if gone else pre, replaced=gone is not None)
            if gone:  # the replacement described beside the peers is not the failed pod either
                k8s.pop(first_name, None)
            merged = {**k8s, **full.k8s_pods}
            peers = tuple(o for o in observations if o.pod != first_name)
            result = Tier2Found(full.pod, full.observations + peers, full.log, merged, full.node_pods,
                                marks=tuple(marks) + full.marks)
            return await self.settle(w, result, order.order, ns, pods, window, failed, unreadable)
        finally:
            if not self.early.done():
                self.early.set_result(NO_TIER2)

    async def settle(
        self, w: Workload, found: Tier2Found, order: cascade.TerminationOrder, ns: NamespaceChoice, pods: PodsRead,
        window: tuple[datetime | None, datetime | None], failed: datetime | None, unreadable: Sequence[str],
    ) -> Tier2Found:
        """The first failure read: when it shows no cause of its own, the logs of the pods that ended with it too
        (the order decided again with what they show); then the nodes of its peers."""
        first = order.first
        targets, left = group_logs.candidates(order, unreadable) if first is not None else ([], 0)
        if first is None or not targets or not group_logs.says_nothing(
            first, found.observations, found.log, found.k8s_pods.get(first.pod)
        ):
            return await self.with_peers(found, order, pods, window, failed)
        raw = {cascade.pod_key(p.name): p.name for p in pods.pods if p.name}
        group = await group_logs.read_group_logs(
            self.reader, self.t2, ns, targets, left, found.k8s_pods, raw, failed, self.now
        )
        observations = found.observations + group.observations
        k8s = {**found.k8s_pods, **group.k8s_pods}
        # The first failure's own log explains nothing, or this would not be read: the peers' lines are the texts.
        again = (await self.ordered(w, pods, observations, found.marks, window, k8s, group.texts())).order
        self.journal.take(group_logs.cite(group, first, again.first, observations))
        found = dataclasses.replace(found, observations=observations, k8s_pods=k8s, logs=group.logs)
        return await self.with_peers(found, again, pods, window, failed)

    async def ordered(
        self, w: Workload, pods: PodsRead, observations: Sequence[Observation], marks: Sequence[Mark],
        window: tuple[datetime | None, datetime | None], k8s: Mapping[str, K8sPod],
        texts: Mapping[str, Sequence[str]] | None = None,
    ) -> multipod.OrderRead:
        """The order the pods ended in, by what stands of everything read: a signal a later read took back (a pull
        error before its container started) dates no end."""
        history, tier1_obs, tier1_marks = await self.known
        end = conditional.failure_time(history.current, w) if (w.phase or "") in ENDING_PHASES else None
        standing = supersede(tier1_obs + tuple(observations), (*tier1_marks, *marks), end).kept
        return multipod.termination_order(w, pods.pods, standing, window, k8s_pods=k8s, texts=texts)

    async def with_peers(
        self, found: Tier2Found, order: cascade.TerminationOrder, pods: PodsRead,
        window: tuple[datetime | None, datetime | None], failed: datetime | None,
    ) -> Tier2Found:
        """What the nodes of the job's other pods show, when the first failure only says a peer was lost (the
        rank a collective timeout waited for, first)."""
        peers = await read_peer_nodes(self.reader, self.t2, order, pods.pods, found, window, failed, self.now)
        self.journal.take(peers.findings)
        if not peers.observations and not peers.marks:
            return found
        return dataclasses.replace(
            found, observations=found.observations + peers.observations, marks=found.marks + peers.marks
        )

    async def one_pod(
        self, w: Workload, name: str, uid: str | None,
        ns_task: asyncio.Task[NamespaceFound], pods_task: asyncio.Task[PodsRead],
    ) -> Tier2Found:
        """The pod and its events together; its log and its node's events once the pod is read; the node last."""
        try:
            return await self.pod(w, name, uid, ns_task, pods_task)
        finally:  # the metrics gate waits for the first answers, even when there were none
            if not self.early.done():
                self.early.set_result(NO_TIER2)

    async def pod(
        self, w: Workload, name: str, uid: str | None,
        ns_task: asyncio.Task[NamespaceFound], pods_task: Awaitable[PodsRead],
        described: kubernetes.PodDescribed | None = None, *, replaced: bool = False,
    ) -> Tier2Found:
        """`described`: the pod, already read beside its peers (a workload of several pods); `replaced`: the pod
        of that id was deleted and another took its name, so what Kubernetes holds under the name is not it."""
        take, reader, t2 = self.journal.take, self.reader, self.t2
        ns = (await ns_task).choice
        if ns.namespace is None:
            return self.no_namespace()
        # A terminal failure is dated by its phase change, which Step 1 knows: the reads judge whether an empty
        # answer means "expired". A workload still running is dated by its last crash, known only once the pod and
        # the history are read: that is judged below.
        ending = (w.phase or "") in ENDING_PHASES
        failed_at = w.phase_updated_at if ending else None
        pod_task = self.spawn(kubernetes.describe_pod(reader, t2, ns, name)) if described is None else None
        events_task = self.spawn(kubernetes.pod_events(reader, t2, ns.namespace, name, uid, failed_at, self.now))
        if pod_task is not None:
            described = await pod_task
        assert described is not None
        if replaced and kubernetes.other_instance(described.pod, uid):
            take(kubernetes.replacement_note(name))
            described = kubernetes.PodDescribed(None, (), Findings())
        take(described.findings)
        pod = described.pod
        log_task = self.spawn(kubernetes.read_log(reader, t2, pod)) if pod is not None else None
        if pod is not None:
            node = pod.spec.node_name if pod.spec else None
        else:  # the Run:ai pods read started beside this one: its answer names the node
            listed = (await pods_task).pods
            node = next((p.node_name for p in listed if uid and p.id == uid and p.node_name), None) or next(
                (p.node_name for p in listed if p.name == name and p.node_name), None
            )
        node_task = self.spawn(kubernetes.node_events(reader, t2, node, failed_at, self.now)) if node else None
        everything: list[K8sEvent] = []
        observations = list(described.observations)
        marks: list[Mark] = pod_marks(pod, DESCRIBE_POD) if pod is not None else []

        def take_events(read: kubernetes.EventsRead, kept: list[K8sEvent], *, shown_if_none: bool) -> None:
            if read.missing is not None:
                take(kubernetes.gap(read.missing))
            elif kept or shown_if_none:
                everything.extend(kept)
                taken = kubernetes.take_events(kept, everything)
                take(taken.findings)
                observations.extend(taken.observations)

        pod_events = await events_task  # taken before the node's, whichever answers first
        take_events(pod_events, list(pod_events.events), shown_if_none=True)
        marks += events_marks(pod_events.events, EVENTS)
        unjudged = not ending and pod_events.missing is None and not pod_events.events
        if not self.early.done():
            self.early.set_result(Tier2Found(pod, tuple(observations)))
        # The log and the node's events are read against the failure's time and window, which history gives.
        history, tier1_obs, _ = await self.known
        failed = conditional.failure_time(history.current, w)
        loop = crash_loop.read_loop(pod, pod_events.events, tier1_obs)
        newest = crash_loop.newest_of(loop, failed if ending else None)
        if unjudged:
            what = f"Kubernetes events of pod {name} in namespace {ns.namespace}"
            take(kubernetes.events_gap(what, newest, self.now, dropped=pod_events.dropped))
        if loop is not None and not ending:
            take(kubernetes.loop_findings(loop, self.now))
        if node_task is not None:
            read = await node_task
            window = conditional.failure_window(history.current, w)
            ends = kubernetes.termination_times(pod, failed)
            if not ending and read.missing is None and not read.events:
                take(kubernetes.events_gap(f"Kubernetes events of node {node}", newest, self.now))
            take_events(read, kubernetes.failure_node_events(read.events, window, ends), shown_if_none=False)
            marks += events_marks(read.events, EVENTS)
        log = None
        key = cascade.pod_key(name)
        if log_task is not None:
            answer = await log_task
            ended = crash_loop.instance_end(pod, answer) if not isinstance(answer, Missing) else None
            # The log's own instance ended then: its lines cannot be later. Else the failure's time, which for
            # a workload still running is not known closely enough to cut the log by.
            before = ended or (failed if ending else None)
            explained = kubernetes.interpret_log(
                answer, before, key, node, at=before or crash_loop.last_crash_at(loop), k8s_pod=pod, now=self.now
            )
            take(explained.findings)
            log = explained.finding
            observations += explained.observations
        # The node is described on node-failure evidence (the seed's gate), on a node-level infrastructure finding,
        # or when the log's CUDA error is one a failing GPU gives (its health conditions may say); beside it, on a
        # node-level finding, the other pods on that node (after the node's answer when only it shows one). Only
        # evidence about this pod or the workload counts, not what its peers showed.
        own = tuple(o for o in tier1_obs if o.pod is None or o.pod == key) + tuple(observations)
        on_node = node is not None and infra.node_level_evidence(own, key, node)
        suspect = log is not None and infra.gpu_suspect(log.text)
        node_pods = self.spawn(same_node.read_node_pods(reader, t2, node)) if node and on_node else None
        if node and (conditional.needs_node(own) or on_node or suspect):
            described_node = await kubernetes.describe_node(reader, t2, node)
            take(described_node.findings)
            observations += described_node.observations
            marks += described_node.marks
            if node_pods is None and infra.node_level_evidence(described_node.observations, key, node):
                node_pods = self.spawn(same_node.read_node_pods(reader, t2, node))
        listed = (node, await node_pods) if node and node_pods is not None else None
        return Tier2Found(
            pod, tuple(observations), log, {key: pod} if pod is not None else {}, listed, loop, tuple(marks)
        )

    def no_namespace(self) -> Tier2Found:
        gap = Collect()
        gap.missing("Kubernetes evidence", "the pod's namespace could not be determined", kubernetes.DESCRIBE_POD)
        self.journal.take(gap.done())
        return NO_TIER2
