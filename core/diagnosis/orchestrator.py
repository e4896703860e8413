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
from typing import TYPE_CHECKING, Any, TypeVar

from core.diagnosis import crash_loop, infra
from core.diagnosis.findings import Collect, Journal
from core.diagnosis.history_analysis import ENDING_PHASES
from core.diagnosis.kubernetes_driver import Known, KubeReads
from core.diagnosis.marks import runai_pod_marks
from core.diagnosis.observations import Observation
from core.diagnosis.progress import ProgressEvent, VerdictReady, WorkloadResolved
from core.diagnosis.reader import Reader, ReadFailure, Steps, Tier1, cancel_all
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
from core.diagnosis.steps.conditional import failure_time
from core.diagnosis.steps.history import HistoryRead, read_history
from core.diagnosis.steps.inspect import NamespaceFound, PodsRead
from core.diagnosis.steps.kubernetes import NO_TIER2, Tier2Found
from core.diagnosis.steps.resolve import Route
from core.diagnosis.supersede import NOTHING, supersede
from core.models.gc_pause import older_collections_postponed
from core.models.kube import K8sPod
from core.models.pages import Page
from core.models.report import OtherSubmissions, Report, WorkloadRef
from core.models.runai import Cluster, Workload

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

T = TypeVar("T")
PREEMPTED_IN_EPISODE = "preemption evidence in the current episode"
PREEMPTED_IN_POD = "the pod's DisruptionTarget condition says the scheduler preempted it"


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
        *,
        open_tier2: Callable[[], Awaitable[tuple[KubeSource | None, str | None]]] | None = None,
    ) -> None:
        self.req, self.t1, self.t2, self.clock, self.emit = req, t1, t2, clock, emit
        self.t2_unavailable = t2_unavailable or (None if t2 else "Tier 2 unavailable: not configured")
        self.open_tier2 = open_tier2
        self.now = req.moment()
        self.cutoff = self.now - req.lookback_delta
        self.span = (self.cutoff, self.now)  # the lookback
        self.started = clock()
        self.reader = Reader(emit, clock)
        self.steps = Steps(emit, clock, self.reader)
        self.journal = Journal(emit)
        self.workload: Workload | None = None
        self.namespace: NamespaceFound | None = None
        self.others: asyncio.Task[OtherSubmissions | None] | None = None
        self.tasks: list[asyncio.Task[Any]] = []
        self.clusters: asyncio.Task[Page[Cluster] | ReadFailure] | None = None
        self.status_obs: tuple[Observation, ...] = ()
        self.pod_seen = False
        self.cluster_taken = False
        self.superseded = NOTHING  # the signals a later event took back, as far as read
        loop = asyncio.get_running_loop()
        # Tier 2 runs as one task beside Steps 2-3: it waits for Steps 1-3's answers (`known`) before reading
        # its log and node events against the failure's time, and the metrics gate waits for its first answers.
        self.known: asyncio.Future[Known] = loop.create_future()
        self.early: asyncio.Future[Tier2Found] = loop.create_future()

    def spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.create_task(work)
        self.tasks.append(task)
        return task

    async def run(self) -> Report:
        try:
            with older_collections_postponed():  # what the reads parse is not walked by the GC again and again
                report = await self.diagnose()
        finally:  # a route-out or a failure leaves reads in flight: their answers are not wanted
            await cancel_all(self.tasks)
        self.emit(VerdictReady(report, self.reader.total, self.clock() - self.started))
        return report

    async def diagnose(self) -> Report:
        take = self.journal.take
        # Tier 2 opens (in a thread) while Step 1 reads; it is waited for only once Step 1 keeps the workload.
        opening = self.spawn(self.open_tier2()) if self.open_tier2 is not None else None
        # Step 1: resolve the workload and check its phase, the cluster asked about checked against the tenant's
        # list read beside it (which also gives the cluster's own status: a disconnected cluster is a finding).
        self.steps.start(1)
        self.clusters = self.spawn(cluster.read_clusters(self.reader, self.t1))
        resolution, self.req, checked = await resolve.resolve_on_cluster(self.reader, self.t1, self.req, self.clusters)
        take(checked)
        take(resolution.findings)
        if resolution.workload is None:
            assert resolution.route is not None
            return await self.route_out(resolution.route)
        w = self.workload = resolution.workload
        self.emit(WorkloadResolved(self.ref()))
        status = resolve.check_status(w, resolution.events, self.req, self.cutoff)
        take(status.findings)
        self.status_obs = status.observations
        self.superseded = status.superseded
        self.pod_seen = bool(w.running_pods) or any(
            e.involved_object is not None and e.involved_object.kind == "Pod" for e in status.events
        )
        if status.route is not None:
            return await self.route_out(status.route)
        self.steps.finish(1)
        # The name's other submissions (recurrence counts this workload's own failures): a lookup by name has
        # listed them already; for a workload named by id they are listed beside Steps 2 and 3.
        listed = resolution.submissions
        self.others = self.spawn(submissions.count_others(self.reader, self.t1, self.req, w, self.cutoff, listed))
        if opening is not None:
            self.t2, unavailable = await opening
            self.t2_unavailable = unavailable or (None if self.t2 else "Tier 2 unavailable: not configured")

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
            tier2 = self.spawn(self.kube_reads(t2).one_pod(w, *named, ns_task, pods_task))
        spec = await spec_task
        take(spec.findings)
        pods = await pods_task
        take(pods.findings)
        revision = revisions.NOTHING
        if revisions.needed(w, pods.pods):
            # An inference whose own pods do not show the failure: the revision whose pods do is read too.
            revision = await revisions.read_failing_revision(self.reader, self.t1, w)
            take(revision.findings)
            pods = revision.joined(pods)
        self.steps.finish(2)
        several = hint or multipod.several_pods(w, pods.pods)
        name = kubernetes.pod_to_inspect(pods.pods, self.now) if tier2 is None and not several else None
        if t2 is not None and ns_task is not None and name is not None:
            self.steps.start(4)
            tier2 = self.spawn(self.kube_reads(t2).one_pod(w, name, None, ns_task, pods_task))
        history = await history_task
        take(history.findings)
        self.steps.finish(3)
        tier1_all = (
            status.observations + spec.observations + pods.observations + history.observations + revision.observations
        )
        # A signal a later event took back (a pull error, then the image pulled and the container run; a
        # preemption, then the workload running again) is history: the gates and the verdict read what stands.
        tier1_marks = status.marks + tuple(runai_pod_marks(pods.pods, inspect.PODS)) + history.marks
        end = failure_time(history.current, w) if (w.phase or "") in ENDING_PHASES else None
        self.superseded = supersede(tier1_all, tier1_marks, end)
        tier1_obs = self.superseded.kept
        self.known.set_result((history, tier1_obs, tier1_marks))
        window = conditional.episode_window(history.current, w, self.now)
        if several and t2 is not None and ns_task is not None:
            self.steps.start(4)
            names = multipod.earliest_failed(w, pods.pods, tier1_obs, window)
            tier2 = self.spawn(self.kube_reads(t2).several(w, names, window, ns_task, pods, tier2))
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
        # A workload of several pods reads each pod's own series once the order its pods ended in is known.
        self.steps.start(4)
        metrics_task = None
        if not several:
            first = await self.early if tier2 is not None else NO_TIER2
            early_obs = tier1_obs + first.observations
            gate = conditional.needs_metrics(early_obs)
            if gate[0] and not is_preempted(early_obs):
                metrics_task = self.spawn(self.metrics(w, history, pods, first.pod, gate))
        found = await tier2 if tier2 is not None else self.no_tier2()
        marks = tier1_marks + found.marks
        self.superseded = supersede(tier1_all + found.observations, marks, end)
        standing = self.superseded.kept
        if (route := self.preempted(supersede(found.observations, marks, end).kept, PREEMPTED_IN_POD)) is not None:
            return await self.route_out(route)
        if tier2 is None and (w.phase or "") not in ENDING_PHASES:  # a crash loop dated from Run:ai's events
            found = self.dated_loop(found, tier1_obs)
        if several:
            read = await multipod.evidence_of_several(
                self.reader, self.t1, w, pods.pods, standing, dataclasses.replace(found, observations=()), window,
                self.now,
            )
            take(read.ordered.findings)
            take(read.pod_metrics.findings)
            gathered = classify.gathered_several(w, spec, pods, history, found, read, self.t2 is not None)
        else:
            observations = standing
            if metrics_task is not None:
                metrics = await metrics_task
            else:
                metrics = await self.metrics(w, history, pods, found.pod, conditional.needs_metrics(observations))
            take(metrics.findings)
            gathered = classify.Gathered(
                w, observations, spec, pods, history, metrics, found.pod, found.log, self.t2 is not None,
                node_pods=found.node_pods, loop=found.loop,
            )
        gathered = dataclasses.replace(gathered, superseded=self.superseded)
        self.steps.finish(4)

        # Step 5: classify and report.
        self.steps.start(5)
        return await self.conclude(dataclasses.replace(gathered, cluster=(await self.cluster_read()).observations))

    async def conclude(self, gathered: classify.Gathered) -> Report:
        if self.others is not None:
            gathered = dataclasses.replace(gathered, others=await self.others)
            self.journal.take(submissions.gap_of(gathered.others, self.req))
        conclusion = classify.conclude(gathered, self.req, self.cutoff)
        self.journal.take(conclusion.findings)
        report = classify.report(gathered, conclusion, self.basis())
        self.steps.finish(5)
        return report

    def metrics(
        self, w: Workload, history: HistoryRead, pods: PodsRead, pod: K8sPod | None, gate: tuple[bool, str]
    ) -> Coroutine[Any, Any, conditional.MetricsRead]:
        return conditional.metrics_for(self.reader, self.t1, w, history, pods.pods, pod, self.span, gate)

    # -- plumbing ------------------------------------------------------------------------------------------------
    def kube_reads(self, t2: KubeSource) -> KubeReads:
        return KubeReads(t2, self.reader, self.journal, self.spawn, self.known, self.early, self.now)

    def dated_loop(self, found: Tier2Found, observations: tuple[Observation, ...]) -> Tier2Found:
        loop = crash_loop.read_loop(None, (), observations)
        if loop is None:
            return found
        self.journal.take(kubernetes.loop_findings(loop, self.now))
        return dataclasses.replace(found, loop=loop)

    def no_tier2(self) -> Tier2Found:
        self.journal.take(kubernetes.no_tier2_gap(self.t2 is not None, self.t2_unavailable))
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
        findings = infra.routed_findings(self.status_obs + read.observations, self.pod_seen, failed_at)
        return classify.routed(route, self.basis(), findings, self.superseded)

    def basis(self) -> classify.Basis:
        j = self.journal
        return classify.Basis(self.req, self.now, self.cutoff, self.ref(), j.evidence, j.missing, j.notes)
