"""The seed's workflow, top to bottom: which step runs when, what runs beside what, and the gates between.

The steps live in core/diagnosis/steps/ (one module each) and return what they found; this class hands each
finding to the journal (which announces it) and decides what to read next. A read waits only for the answer it
needs (the spec needs the workload's type, the node needs the pod's node name, the next history page needs
`next`); whatever combines several answers waits for all of them, so a report never depends on which answer
came first. Nothing past Step 1 is read for a workload Step 1 routes out; metrics only on OOM evidence or an
unexplained exit 137; a node only on node evidence.

Round trips for Option A with Tier 2 and metrics, when the status events name the pod:
  1. workload + events + clusters                               (Step 1)
  2. spec + pods + history + pod + pod events                  (Steps 2, 3 and Tier 2 of Step 4)
  3. metrics + previous log + node events (+ node)             (Step 4)
A node-level infrastructure finding in the log or events adds the node (when not read already) and the pods on
that node, read together (core/diagnosis/same_node.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Coroutine
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from core.diagnosis import cascade, infra, same_node
from core.diagnosis.findings import Collect, Journal
from core.diagnosis.history import ENDING_PHASES
from core.diagnosis.observations import Observation
from core.diagnosis.progress import ProgressEvent, VerdictReady, WorkloadResolved
from core.diagnosis.reader import DiagnosisFailed, Reader, ReadFailure, Steps, Tier1
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.rules import is_preempted
from core.diagnosis.steps import (
    classify,
    cluster,
    cluster_health,
    conditional,
    inspect,
    kubernetes,
    multipod,
    resolve,
    revisions,
    submissions,
)
from core.diagnosis.steps.history import HistoryRead, read_history
from core.diagnosis.steps.inspect import NamespaceFound, PodsRead, SpecRead
from core.diagnosis.steps.kubernetes import NO_TIER2, Tier2Found
from core.diagnosis.steps.resolve import Route
from core.models.kube import K8sEvent, K8sPod
from core.models.pages import Page
from core.models.report import OtherSubmissions, Report, WorkloadRef
from core.models.runai import Cluster, Workload

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

T = TypeVar("T")
PREEMPTED_IN_EPISODE = "preemption evidence in the current episode"
PREEMPTED_IN_POD = "the pod's DisruptionTarget condition says the scheduler preempted it"


def _ready(value: T) -> asyncio.Future[T]:
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    future.set_result(value)
    return future


class Orchestrator:
    """One diagnosis. `run()` makes the reads, announces progress through `emit`, and returns the report."""

    def __init__(
        self,
        req: DiagnosisRequest,
        t1: Tier1,
        t2: KubeSource | None,
        t2_unavailable: str | None,
        clock: Callable[[], float],
        emit: Callable[[ProgressEvent], None],
    ) -> None:
        self.req, self.t1, self.t2, self.clock, self.emit = req, t1, t2, clock, emit
        self.t2_unavailable = t2_unavailable or (None if t2 else "Tier 2 unavailable: not configured")
        self.now = req.moment()
        self.cutoff = self.now - req.lookback_delta
        self.started = clock()
        self.reader = Reader(emit, clock)
        self.steps = Steps(emit, clock, self.reader)
        self.journal = Journal(emit)
        self.workload: Workload | None = None
        self.namespace: NamespaceFound | None = None
        self.others: asyncio.Task[OtherSubmissions] | None = None
        self.tasks: list[asyncio.Task[Any]] = []
        self.clusters: asyncio.Task[Page[Cluster] | ReadFailure] | None = None
        self.status_obs: tuple[Observation, ...] = ()
        self.pod_seen = False
        self.cluster_taken = False
        loop = asyncio.get_running_loop()
        # Tier 2 runs as one task beside Steps 2-3: it waits for Steps 1-3's answers (`known`) before reading
        # its log and node events against the failure's time, and the metrics gate waits for its first answers.
        self.known: asyncio.Future[tuple[HistoryRead, tuple[Observation, ...]]] = loop.create_future()
        self.early: asyncio.Future[Tier2Found] = loop.create_future()

    def spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.create_task(work)
        self.tasks.append(task)
        return task

    async def run(self) -> Report:
        try:
            report = await self.diagnose()
        finally:  # a route-out or a failure leaves reads in flight: their answers are not wanted
            pending = [task for task in self.tasks if not task.done()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            for task in self.tasks:  # a read that failed beside the one that ended the run: already reported
                if not task.cancelled():
                    task.exception()
        self.emit(VerdictReady(report, self.reader.total, self.clock() - self.started))
        return report

    async def diagnose(self) -> Report:
        take = self.journal.take
        # Step 1: resolve the workload and check its phase. The cluster asked about is checked against the
        # tenant's list beside the first reads; only a cluster named by its name (or in other letters' case)
        # makes a lookup by name read its list again, with the tenant's id. The same list gives the cluster's own
        # status (a disconnected cluster is a finding).
        self.steps.start(1)
        clusters = self.clusters = self.spawn(cluster.read_clusters(self.reader, self.t1))
        try:
            resolution = await resolve.resolve(self.reader, self.t1, self.req)
        except DiagnosisFailed:
            cluster.check_cluster(self.req.cluster_id, await clusters)  # an unknown cluster is the better answer
            raise
        checked = cluster.check_cluster(self.req.cluster_id, await clusters)
        take(checked.findings)
        if checked.cluster_id != self.req.cluster_id:
            self.req = dataclasses.replace(self.req, cluster_id=checked.cluster_id)
            if self.req.option == "B":
                resolution = await resolve.resolve(self.reader, self.t1, self.req)
        take(resolution.findings)
        if resolution.workload is None:
            assert resolution.route is not None
            return await self.route_out(resolution.route)
        w = self.workload = resolution.workload
        self.emit(WorkloadResolved(self.ref()))
        status = resolve.check_status(w, resolution.events, self.req, self.cutoff)
        take(status.findings)
        self.status_obs = status.observations
        self.pod_seen = bool(w.running_pods) or any(
            e.involved_object is not None and e.involved_object.kind == "Pod" for e in status.events
        )
        if status.route is not None:
            return await self.route_out(status.route)
        self.steps.finish(1)
        # The name's other submissions (recurrence counts this workload's own failures): a lookup by name has
        # listed them already; for a workload named by id they are listed beside Steps 2 and 3.
        if resolution.submissions is not None:
            listed = resolution.submissions
            self.others = self.spawn(self.counted(listed, w))
        else:
            self.others = self.spawn(submissions.count_others(self.reader, self.t1, self.req, w, self.cutoff))

        # Steps 2 and 3: spec, pods and history, read together. Tier 2 (Step 4) starts as soon as a pod is
        # named; the namespace lookup it may need runs beside Step 2. A workload that runs several pods reads its
        # deleted pods beside the live ones, and its Tier 2 waits for the order its pods ended in.
        self.steps.start(2)
        self.steps.start(3)
        hint = multipod.several_hint(w)
        t2, ns_task = self.t2, None
        if t2 is None:
            self.take_namespace(inspect.namespace_without_lookup(w, status.events))
        else:
            ns_task = self.spawn(inspect.find_namespace(self.reader, self.t1, self.req.cluster_id, w, status.events))
        spec_task = self.spawn(inspect.read_spec(self.reader, self.t1, w))
        failing = {o.pod for o in status.observations if o.pod is not None}
        pods_task = self.spawn(inspect.read_pods(self.reader, self.t1, w.id or "", several=hint, failing=failing))
        history_task = self.spawn(read_history(self.reader, self.t1, w, self.cutoff))
        tier2 = None
        named = kubernetes.pod_named_by_events(status.events, lambda at: resolve.is_recent(at, w, self.cutoff))
        if t2 is not None and ns_task is not None and named is not None and not hint:
            self.steps.start(4)
            tier2 = self.spawn(self.tier2(t2, w, *named, ns_task, pods_task))
        spec = await spec_task
        take(spec.findings)
        pods = await pods_task
        take(pods.findings)
        revision = revisions.NOTHING
        if revisions.needed(w, pods.pods, status.observations):
            # An inference whose own feeds show nothing: the revision that failed is read too.
            revision = await revisions.read_failing_revision(self.reader, self.t1, w)
            take(revision.findings)
            pods = revision.joined(pods)
        self.steps.finish(2)
        several = hint or multipod.several_pods(w, pods.pods)
        name = kubernetes.pod_to_inspect(pods.pods, self.now) if tier2 is None and not several else None
        if t2 is not None and ns_task is not None and name is not None:
            self.steps.start(4)
            tier2 = self.spawn(self.tier2(t2, w, name, None, ns_task, pods_task))
        history = await history_task
        take(history.findings)
        self.steps.finish(3)
        tier1_obs = status.observations + pods.observations + history.observations + revision.observations
        self.known.set_result((history, tier1_obs))
        window = conditional.failure_window(history.current, w)
        if (w.phase or "") not in ENDING_PHASES:  # a failure still happening: its pods end up to now
            window = (window[0], self.now)
        if several and t2 is not None and ns_task is not None:
            self.steps.start(4)
            first_pass = multipod.termination_order(w, pods.pods, tier1_obs, window).order
            tier2 = self.spawn(
                self.tier2_several(t2, w, multipod.to_describe(first_pass, pods.pods), window, ns_task, pods, tier2)
            )
        if ns_task is not None:
            self.take_namespace(await ns_task)

        # Step 1's gates again, on what the pods and the history show.
        self.status_obs = tier1_obs
        self.pod_seen = self.pod_seen or bool(pods.pods)
        route = resolve.scope_from_evidence(w, status.events_failed, list(tier1_obs))
        if route is not None or (route := self.preempted(tier1_obs, PREEMPTED_IN_EPISODE)) is not None:
            return await self.route_out(route)

        # Step 4: conditional evidence. With OOM evidence from Run:ai or from the pod's first Kubernetes answers,
        # metrics run beside the remaining Kubernetes reads; otherwise the rest of Tier 2 may still call for them.
        self.steps.start(4)
        if several:
            return await self.conclude_several(w, spec, pods, history, tier1_obs, window, tier2)
        first = await self.early if tier2 is not None else NO_TIER2
        early_obs = tier1_obs + first.observations
        gate = conditional.needs_metrics(early_obs)
        metrics_task = None
        if gate[0] and not is_preempted(early_obs):
            metrics_task = self.spawn(self.metrics(w, history, pods, first.pod, gate))
        found = await tier2 if tier2 is not None else self.no_tier2()
        if (route := self.preempted(found.observations, PREEMPTED_IN_POD)) is not None:
            return await self.route_out(route)
        observations = tier1_obs + found.observations
        if metrics_task is not None:
            metrics = await metrics_task
        else:
            metrics = await self.metrics(w, history, pods, found.pod, conditional.needs_metrics(observations))
        take(metrics.findings)
        self.steps.finish(4)

        # Step 5: classify and report.
        self.steps.start(5)
        gathered = classify.Gathered(
            w, observations, spec, pods, history, metrics, found.pod, found.log, tier2_available=self.t2 is not None,
            cluster=(await self.cluster_read()).observations, node_pods=found.node_pods,
        )  # fmt: skip
        return await self.conclude(gathered)

    async def conclude_several(
        self,
        w: Workload,
        spec: SpecRead,
        pods: PodsRead,
        history: HistoryRead,
        tier1_obs: tuple[Observation, ...],
        window: tuple[datetime | None, datetime | None],
        tier2: asyncio.Task[Tier2Found] | None,
    ) -> Report:
        """Steps 4 and 5 for a workload of several pods: the order they ended in decides which pod's evidence
        the verdict rests on, and memory is read per pod, never from the workload's sum over its pods."""
        found = await tier2 if tier2 is not None else self.no_tier2()
        if (route := self.preempted(found.observations, PREEMPTED_IN_POD)) is not None:
            return await self.route_out(route)
        texts = {found.pod_name: [found.log.text]} if found.pod_name and found.log is not None else {}
        ordered = multipod.termination_order(
            w, pods.pods, tier1_obs + found.observations, window, k8s_pods=found.k8s_pods, texts=texts, cite=True
        )
        self.journal.take(ordered.findings)
        everything = ordered.observations
        cause = tuple(cascade.cause_observations(everything, ordered.order))
        gate = conditional.needs_metrics(everything)
        pod_metrics = multipod.NO_POD_METRICS
        if gate[0]:
            targets = multipod.metric_targets(ordered.order)
            pod_metrics = await multipod.read_pod_metrics(
                self.reader, self.t1, w.id or "", targets, pods.pods, self.now, gate[1]
            )
        self.journal.take(pod_metrics.findings)
        self.steps.finish(4)
        self.steps.start(5)
        first = ordered.order.first
        k8s_first = found.k8s_pods.get(first.pod) if first is not None else found.pod
        gathered = classify.Gathered(
            w, cause, spec, pods, history, conditional.NOT_READ, k8s_first, found.log,
            tier2_available=self.t2 is not None, several=True, order=ordered.order, pod_metrics=pod_metrics,
            cluster=(await self.cluster_read()).observations, node_pods=found.node_pods,
        )  # fmt: skip
        return await self.conclude(gathered)

    async def counted(self, listed: submissions.Submissions, w: Workload) -> OtherSubmissions:
        now, lookback = self.now, self.req.lookback
        return submissions.other_submissions(listed, w.id, self.cutoff, now, lookback, None)

    async def conclude(self, gathered: classify.Gathered) -> Report:
        if self.others is not None:
            others = await self.others
            gathered = dataclasses.replace(gathered, others=others)
            if others.failed is None and others.why:
                gap = Collect()
                gap.missing("other submissions of this name", others.why, submissions.LIST)
                self.journal.take(gap.done())
        conclusion = classify.conclude(gathered, self.req, self.cutoff)
        self.journal.take(conclusion.findings)
        report = classify.report(gathered, conclusion, self.basis())
        self.steps.finish(5)
        return report

    async def tier2_several(
        self,
        t2: KubeSource,
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
            described = await multipod.describe_pods(
                self.reader, t2, ns, [n for n in names if cascade.pod_key(n) not in have]
            )
            _, tier1_obs = await self.known
            k8s = dict(done.k8s_pods) if done is not None else {}
            observations = list(done.observations) if done is not None else []
            for item in described:
                if item.pod is not None and item.pod.metadata is not None and item.pod.metadata.name:
                    k8s[cascade.pod_key(item.pod.metadata.name)] = item.pod
                    observations += item.observations
            order = multipod.termination_order(w, pods.pods, tier1_obs + tuple(observations), window, k8s_pods=k8s)
            first = order.order.first
            first_name = first.pod if first is not None else (names[0] if names else None)
            for item in described:
                if item.pod is None or item.pod.metadata is None or not item.pod.metadata.name:
                    self.journal.take(item.findings)  # a failed describe is a stated gap whoever it was for
                elif cascade.pod_key(item.pod.metadata.name) != first_name:
                    self.journal.take(multipod.peer_findings(item))
            if first_name is None or (done is not None and done.pod_name == first_name):
                return Tier2Found(
                    done.pod if done else None, tuple(observations), done.log if done else None, k8s,
                    done.node_pods if done else None,
                )  # fmt: skip
            pre = next((d for d in described if d.pod is not None and d.pod.metadata is not None
                        and cascade.pod_key(d.pod.metadata.name) == first_name), None)  # fmt: skip
            raw = next((p.name for p in pods.pods if p.name and cascade.pod_key(p.name) == first_name), first_name)
            full = await self.kubernetes(t2, w, raw, None, ns_task, _ready(pods), pre)
            merged = {**k8s, **full.k8s_pods}
            peers = tuple(o for o in observations if o.pod != first_name)
            return Tier2Found(full.pod, full.observations + peers, full.log, merged, full.node_pods)
        finally:
            if not self.early.done():
                self.early.set_result(NO_TIER2)

    async def tier2(
        self, t2: KubeSource, w: Workload, name: str, uid: str | None,
        ns_task: asyncio.Task[NamespaceFound], pods_task: asyncio.Task[PodsRead],
    ) -> Tier2Found:  # fmt: skip
        """The pod and its events together; its log and its node's events once the pod is read; the node last."""
        try:
            return await self.kubernetes(t2, w, name, uid, ns_task, pods_task)
        finally:  # the metrics gate waits for the first answers, even when there were none
            if not self.early.done():
                self.early.set_result(NO_TIER2)

    async def kubernetes(
        self, t2: KubeSource, w: Workload, name: str, uid: str | None,
        ns_task: asyncio.Task[NamespaceFound], pods_task: Awaitable[PodsRead],
        described: kubernetes.PodDescribed | None = None,
    ) -> Tier2Found:  # fmt: skip
        """`described`: the pod, already read beside its peers (a workload of several pods)."""
        take, reader = self.journal.take, self.reader
        ns = (await ns_task).choice
        if ns.namespace is None:
            return self.no_namespace()
        # These reads start before history is read: the failure time they are told (for "events expired"
        # reasoning) is the one Step 1 knows, the workload's last phase change.
        failed_at = w.phase_updated_at
        pod_task = self.spawn(kubernetes.describe_pod(reader, t2, ns, name)) if described is None else None
        events_task = self.spawn(kubernetes.pod_events(reader, t2, ns.namespace, name, uid, failed_at, self.now))
        if pod_task is not None:
            described = await pod_task
        assert described is not None
        take(described.findings)
        pod = described.pod
        log_task = self.spawn(kubernetes.read_log(reader, t2, pod)) if pod is not None else None
        if pod is not None:
            node = pod.spec.node_name if pod.spec else None
        else:  # the Run:ai pods read started beside this one: its answer names the node
            listed = (await pods_task).pods
            node = next((p.node_name for p in listed if p.name == name and p.node_name), None)
        node_task = self.spawn(kubernetes.node_events(reader, t2, node, failed_at, self.now)) if node else None
        everything: list[K8sEvent] = []
        observations = list(described.observations)

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
        if not self.early.done():
            self.early.set_result(Tier2Found(pod, tuple(observations)))
        # The log and the node's events are read against the failure's time and window, which history gives.
        history, tier1_obs = await self.known
        failed = conditional.failure_time(history.current, w)
        if node_task is not None:
            read = await node_task
            window = conditional.failure_window(history.current, w)
            ends = kubernetes.termination_times(pod, failed)
            take_events(read, kubernetes.failure_node_events(read.events, window, ends), shown_if_none=False)
        log = None
        key = cascade.pod_key(name)
        if log_task is not None:
            explained = kubernetes.interpret_log(await log_task, failed, key, node)
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
            if node_pods is None and infra.node_level_evidence(described_node.observations, key, node):
                node_pods = self.spawn(same_node.read_node_pods(reader, t2, node))
        listed = (node, await node_pods) if node and node_pods is not None else None
        return Tier2Found(pod, tuple(observations), log, {key: pod} if pod is not None else {}, listed)

    async def metrics(
        self, w: Workload, history: HistoryRead, pods: PodsRead, k8s_pod: K8sPod | None, gate: tuple[bool, str]
    ) -> conditional.MetricsRead:
        if not gate[0]:
            return conditional.NOT_READ
        windows = conditional.run_windows(w, history, pods.pods, k8s_pod, self.cutoff, self.now)
        return await conditional.read_metrics(self.reader, self.t1, w.id or "", windows, gate[1])

    # -- plumbing ------------------------------------------------------------------------------------------------
    def no_namespace(self) -> Tier2Found:
        gap = Collect()
        gap.missing("Kubernetes evidence", "the pod's namespace could not be determined", kubernetes.DESCRIBE_POD)
        self.journal.take(gap.done())
        return NO_TIER2

    def no_tier2(self) -> Tier2Found:
        gap = Collect()
        if self.t2 is None:
            gap.missing("Kubernetes evidence (pod, previous log, events, node)", self.t2_unavailable or "unavailable")
        else:
            gap.missing("Kubernetes evidence", "no pod name is known (no pods returned and no event names one)")
        self.journal.take(gap.done())
        return NO_TIER2

    def take_namespace(self, found: NamespaceFound) -> None:
        self.namespace = found
        self.journal.take(found.findings)

    def preempted(self, observations: tuple[Observation, ...], reason: str) -> Route | None:
        cited = Collect()
        route = resolve.preemption_route(list(observations), reason, cited)
        self.journal.take(cited.done())
        return route

    def ref(self) -> WorkloadRef:
        return resolve.workload_ref(self.req, self.workload, self.namespace.choice if self.namespace else None)

    async def cluster_read(self) -> cluster_health.ClusterRead:
        """The cluster's status (read beside Step 1), taken into the journal once."""
        if self.clusters is None:
            return cluster_health.NOT_READ
        read = cluster_health.cluster_health_of(await self.clusters, self.req.cluster_id, self.now)
        if not self.cluster_taken:
            self.cluster_taken = True
            self.journal.take(read.findings)
        return read

    async def route_out(self, route: Route) -> Report:
        read = await self.cluster_read()
        if not self.steps.finished(1):
            self.steps.finish(1)
        failed_at = self.workload.phase_updated_at if self.workload else None
        scope = infra.Scope(None, None, None, None, 0, self.pod_seen, failed_at)
        findings = infra.infra_findings(self.status_obs + read.observations, scope)
        return classify.routed(route, self.basis(), findings)

    def basis(self) -> classify.Basis:
        j = self.journal
        return classify.Basis(self.req, self.now, self.cutoff, self.ref(), j.evidence, j.missing, j.notes)
