"""The seed's workflow, top to bottom: which step runs when, what runs beside what, and the gates between.

The steps live in core/diagnosis/steps/ (one module each) and return what they found; this class hands each
finding to the journal (which announces it) and decides what to read next. A read waits only for the answer it
needs (the spec needs the workload's type, the node needs the pod's node name, the next history page needs
`next`); whatever combines several answers waits for all of them, so a report never depends on which answer
came first. Nothing past Step 1 is read for a workload Step 1 routes out; metrics only on OOM evidence or an
unexplained exit 137; a node only on node evidence.

Round trips for Option A with Tier 2 and metrics, when the status events name the pod:
  1. workload + events                                          (Step 1)
  2. spec + pods + history + pod + pod events                  (Steps 2, 3 and Tier 2 of Step 4)
  3. metrics + previous log + node events (+ node)             (Step 4)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from core.diagnosis.findings import Collect, Journal
from core.diagnosis.observations import Observation
from core.diagnosis.progress import ProgressEvent, VerdictReady, WorkloadResolved
from core.diagnosis.reader import Reader, ReadFailure, Steps, Tier1
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.rules import is_preempted
from core.diagnosis.steps import classify, conditional, inspect, kubernetes, resolve
from core.diagnosis.steps.history import HistoryRead, read_history
from core.diagnosis.steps.inspect import NamespaceFound, PodsRead
from core.diagnosis.steps.kubernetes import NO_TIER2, Tier2Found
from core.diagnosis.steps.resolve import Route
from core.models.gc_pause import older_collections_postponed
from core.models.kube import K8sEvent, K8sPod
from core.models.report import Report, WorkloadRef
from core.models.runai import Workload

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
        self.started = clock()
        self.reader = Reader(emit, clock)
        self.steps = Steps(emit, clock, self.reader)
        self.journal = Journal(emit)
        self.workload: Workload | None = None
        self.namespace: NamespaceFound | None = None
        self.tasks: list[asyncio.Task[Any]] = []
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
            with older_collections_postponed():  # what the reads parse is not walked by the GC again and again
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
        # Tier 2 opens (in a thread) while Step 1 reads; it is waited for only once Step 1 keeps the workload.
        opening = self.spawn(self.open_tier2()) if self.open_tier2 is not None else None
        # Step 1: resolve the workload and check its phase.
        self.steps.start(1)
        resolution = await resolve.resolve(self.reader, self.t1, self.req)
        take(resolution.findings)
        if resolution.workload is None:
            assert resolution.route is not None
            return self.route_out(resolution.route)
        w = self.workload = resolution.workload
        self.emit(WorkloadResolved(self.ref()))
        status = resolve.check_status(w, resolution.events, self.req, self.cutoff)
        take(status.findings)
        if status.route is not None:
            return self.route_out(status.route)
        self.steps.finish(1)
        if opening is not None:
            self.t2, unavailable = await opening
            self.t2_unavailable = unavailable or (None if self.t2 else "Tier 2 unavailable: not configured")

        # Steps 2 and 3: spec, pods and history, read together. Tier 2 (Step 4) starts as soon as a pod is
        # named; the namespace lookup it may need runs beside Step 2.
        self.steps.start(2)
        self.steps.start(3)
        t2, ns_task = self.t2, None
        if t2 is None:
            self.take_namespace(inspect.namespace_without_lookup(w, status.events))
        else:
            ns_task = self.spawn(inspect.find_namespace(self.reader, self.t1, self.req.cluster_id, w, status.events))
        spec_task = self.spawn(inspect.read_spec(self.reader, self.t1, w))
        pods_task = self.spawn(inspect.read_pods(self.reader, self.t1, w.id or ""))
        history_task = self.spawn(read_history(self.reader, self.t1, w, self.cutoff))
        tier2 = None
        named = kubernetes.pod_named_by_events(status.events, lambda at: resolve.is_recent(at, w, self.cutoff))
        if t2 is not None and ns_task is not None and named is not None:
            self.steps.start(4)
            tier2 = self.spawn(self.tier2(t2, w, *named, ns_task, pods_task))
        spec = await spec_task
        take(spec.findings)
        pods = await pods_task
        take(pods.findings)
        self.steps.finish(2)
        name = kubernetes.pod_to_inspect(pods.pods, self.now) if tier2 is None else None
        if t2 is not None and ns_task is not None and name is not None:
            self.steps.start(4)
            tier2 = self.spawn(self.tier2(t2, w, name, None, ns_task, pods_task))
        history = await history_task
        take(history.findings)
        self.steps.finish(3)
        tier1_obs = status.observations + pods.observations + history.observations
        self.known.set_result((history, tier1_obs))
        if ns_task is not None:
            self.take_namespace(await ns_task)

        # Step 1's gates again, on what the pods and the history show.
        route = resolve.scope_from_evidence(w, status.events_failed, list(tier1_obs))
        if route is not None or (route := self.preempted(tier1_obs, PREEMPTED_IN_EPISODE)) is not None:
            return self.route_out(route)

        # Step 4: conditional evidence. With OOM evidence from Run:ai or from the pod's first Kubernetes answers,
        # metrics run beside the remaining Kubernetes reads; otherwise the rest of Tier 2 may still call for them.
        self.steps.start(4)
        first = await self.early if tier2 is not None else NO_TIER2
        early_obs = tier1_obs + first.observations
        gate = conditional.needs_metrics(early_obs)
        metrics_task = None
        if gate[0] and not is_preempted(early_obs):
            metrics_task = self.spawn(self.metrics(w, history, pods, first.pod, gate))
        found = await tier2 if tier2 is not None else self.no_tier2()
        if (route := self.preempted(found.observations, PREEMPTED_IN_POD)) is not None:
            return self.route_out(route)
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
            w, observations, spec, pods, history, metrics, found.pod, found.log, tier2_available=self.t2 is not None
        )
        conclusion = classify.conclude(gathered, self.req, self.cutoff)
        take(conclusion.findings)
        report = classify.report(gathered, conclusion, self.basis())
        self.steps.finish(5)
        return report

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
        ns_task: asyncio.Task[NamespaceFound], pods_task: asyncio.Task[PodsRead],
    ) -> Tier2Found:  # fmt: skip
        take, reader = self.journal.take, self.reader
        ns = (await ns_task).choice
        if ns.namespace is None:
            gap = Collect()
            gap.missing("Kubernetes evidence", "the pod's namespace could not be determined", kubernetes.DESCRIBE_POD)
            take(gap.done())
            return NO_TIER2
        # These reads start before history is read: the failure time they are told (for "events expired"
        # reasoning) is the one Step 1 knows, the workload's last phase change.
        failed_at = w.phase_updated_at
        pod_task = self.spawn(kubernetes.describe_pod(reader, t2, ns, name))
        events_task = self.spawn(kubernetes.pod_events(reader, t2, ns.namespace, name, uid, failed_at, self.now))
        described = await pod_task
        take(described.findings)
        pod = described.pod
        log_task = self.spawn(kubernetes.read_log(reader, t2, pod)) if pod is not None else None
        if pod is not None:
            node = pod.spec.node_name if pod.spec else None
        else:  # the Run:ai pods read started beside this one: its answer names the node
            answer = (await pods_task).page
            listed = answer.items if not isinstance(answer, ReadFailure) else []
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
        if log_task is not None:
            explained = kubernetes.interpret_log(await log_task, failed)
            take(explained.findings)
            log = explained.finding
            observations += [explained.observation] if explained.observation is not None else []
        if node and conditional.needs_node(tier1_obs + tuple(observations)):
            described_node = await kubernetes.describe_node(reader, t2, node)
            take(described_node.findings)
            observations += described_node.observations
        return Tier2Found(pod, tuple(observations), log)

    async def metrics(
        self, w: Workload, history: HistoryRead, pods: PodsRead, k8s_pod: K8sPod | None, gate: tuple[bool, str]
    ) -> conditional.MetricsRead:
        if not gate[0]:
            return conditional.NOT_READ
        windows = conditional.run_windows(w, history, pods.pods, k8s_pod, self.cutoff, self.now)
        return await conditional.read_metrics(self.reader, self.t1, w.id or "", windows, gate[1])

    # -- plumbing ------------------------------------------------------------------------------------------------
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

    def route_out(self, route: Route) -> Report:
        if not self.steps.finished(1):
            self.steps.finish(1)
        return classify.routed(route, self.basis())

    def basis(self) -> classify.Basis:
        j = self.journal
        return classify.Basis(self.req, self.now, self.cutoff, self.ref(), j.evidence, j.missing, j.notes)
