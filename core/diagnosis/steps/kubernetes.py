"""Step 4, Tier 2: the pod, its events, its previous log, its node's events and (on node evidence) the node.

Each function makes one read through the Kubernetes source (which never raises: a failed read comes back as
`Missing`) and returns what it found, cited under the kubectl command a person would run. Interpreting the log
and the node's events needs the failure's time, which history gives: the orchestrator passes it in once
history is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from core.diagnosis import crash_loop
from core.diagnosis.cascade import pod_key
from core.diagnosis.crash_loop import CrashLoop
from core.diagnosis.findings import Collect, Findings
from core.diagnosis.kube_evidence import (
    DESCRIBE_NODE,
    DESCRIBE_POD,
    EVENTS,
    LOGS,
    LogInstance,
    containers_found,
    events_found,
    events_observations,
    log_finding,
    log_infra_observations,
    log_instance,
    log_line_text,
    log_observation,
    log_window,
    node_found,
    node_observations,
    pod_observations,
)
from core.diagnosis.log_scan import LogFinding, scanned
from core.diagnosis.marks import Mark, node_marks
from core.diagnosis.observations import Observation, quote
from core.diagnosis.reader import Reader
from core.models.kube import K8sEvent, K8sNode, K8sPod
from core.models.runai import RunaiPod, WorkloadEvent
from core.plural import plural
from core.sources.evidence import Missing
from core.sources.kube_types import KubeEvents, LogExcerpt, NodePods
from core.sources.namespace import NamespaceChoice

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

# The kernel's OOMKilling event names a process, not a pod: it is attributed to our container only when it
# happened within this long of the container's termination on the same node.
NODE_OOM_ATTRIBUTION = timedelta(seconds=60)


@dataclass(frozen=True, slots=True)
class Tier2Found:
    """What the Kubernetes reads found: the pod read in full (None when unread), the observations, the
    explaining log line, every pod described (its peers too, for a workload of several pods) by name, and on a
    node-level infrastructure finding the pods listed on that node (node name, answer)."""

    pod: K8sPod | None
    observations: tuple[Observation, ...]
    log: LogFinding | None = None
    k8s_pods: Mapping[str, K8sPod] = field(default_factory=dict)
    node_pods: tuple[str, NodePods | Missing] | None = None
    loop: CrashLoop | None = None  # the crash loop the pod and its events show, dated from its last crash
    marks: tuple[Mark, ...] = ()  # what the pods, events and nodes read show done (a pull, a start, Ready again)
    # The explaining lines of the logs read beside the first failure's (core/diagnosis/group_logs.py), by pod.
    logs: Mapping[str, LogFinding] = field(default_factory=dict)

    @property
    def pod_name(self) -> str | None:
        meta = self.pod.metadata if self.pod is not None else None
        return pod_key(meta.name) if meta is not None and meta.name else None


NO_TIER2 = Tier2Found(None, ())


def no_tier2_gap(configured: bool, unavailable: str | None) -> Findings:
    """Why no Kubernetes evidence was read: Tier 2 is not there (and why), or no pod could be named."""
    gap = Collect()
    if not configured:
        gap.missing("Kubernetes evidence (pod, previous log, events, node)", unavailable or "unavailable")
    else:
        gap.missing("Kubernetes evidence", "no pod name is known (no pods returned and no event names one)")
    return gap.done()


@dataclass(frozen=True, slots=True)
class PodDescribed:
    pod: K8sPod | None  # None when it could not be read
    observations: tuple[Observation, ...]
    findings: Findings


@dataclass(frozen=True, slots=True)
class EventsRead:
    events: tuple[K8sEvent, ...]
    missing: Missing | None  # the read failed
    dropped: int = 0  # events of an older pod with the same name, left out


@dataclass(frozen=True, slots=True)
class EventsTaken:
    observations: tuple[Observation, ...]
    findings: Findings


@dataclass(frozen=True, slots=True)
class LogRead:
    finding: LogFinding | None  # the line that explains the failure, when one does
    # Signals of their own: a GPU out-of-memory line, and GPU hardware, driver or fabric lines.
    observations: tuple[Observation, ...]
    findings: Findings


@dataclass(frozen=True, slots=True)
class NodeDescribed:
    observations: tuple[Observation, ...]
    findings: Findings
    marks: tuple[Mark, ...] = ()  # the node Ready since its condition last changed


def gap(missing: Missing) -> Findings:
    """A failed Kubernetes read, as a stated gap."""
    found = Collect()
    found.missing(missing.what, missing.why, missing.source)
    return found.done()


async def describe_pod(reader: Reader, t2: KubeSource, ns: NamespaceChoice, name: str) -> PodDescribed:
    pod = await reader.tier2(4, DESCRIBE_POD, f"pod {name}", lambda: t2.pod(ns, name))
    if isinstance(pod, Missing):
        return PodDescribed(None, (), gap(pod))
    found = Collect()
    found.show(containers_found(pod))
    observations = pod_observations(pod)
    found.observed(observations)
    return PodDescribed(pod, tuple(observations), found.done())


def other_instance(pod: K8sPod | None, uid: str | None) -> bool:
    """Kubernetes answered for the name with a pod of another id than the one asked about."""
    found = pod.metadata.uid if pod is not None and pod.metadata is not None else None
    return bool(uid) and bool(found) and found != uid


def replacement_note(name: str) -> Findings:
    found = Collect()
    found.note(
        f"the pod Kubernetes holds under the name {pod_key(name)} is its replacement, not the pod that failed: "
        "its state and log are left out, and only the failed pod's own events (by its id) are read"
    )
    return found.done()


async def pod_events(
    reader: Reader,
    t2: KubeSource,
    namespace: str,
    name: str,
    uid: str | None,
    failed_at: datetime | None,
    now: datetime,
) -> EventsRead:
    answer = await reader.tier2(
        4,
        EVENTS,
        f"events of pod {name}",
        lambda: t2.pod_events(namespace, name, uid, failed_at=failed_at, now=now),
    )
    return _events(answer)


async def node_events(
    reader: Reader, t2: KubeSource, node_name: str, failed_at: datetime | None, now: datetime
) -> EventsRead:
    answer = await reader.tier2(
        4, EVENTS, f"events of node {node_name}", lambda: t2.node_events(node_name, failed_at=failed_at, now=now)
    )
    return _events(answer)


def _events(answer: KubeEvents | Missing) -> EventsRead:
    if isinstance(answer, Missing):
        return EventsRead((), answer)
    return EventsRead(tuple(answer.items), None, answer.dropped_stale)


def events_gap(what: str, newest: datetime | None, now: datetime, *, dropped: int = 0) -> Findings:
    """An empty events answer, judged against the newest event that should exist (core/diagnosis/crash_loop.py)."""
    found = Collect()
    missing = crash_loop.events_gap(what, newest, now, dropped=dropped)
    if missing is not None:
        found.gap(missing)
    return found.done()


def loop_findings(loop: CrashLoop, now: datetime) -> Findings:
    """A crash loop's dating as evidence: the restarts, the last crash and how long the loop has gone on."""
    found = Collect()
    text = crash_loop.loop_text(loop, now)
    if text is not None:
        found.evidence(text, crash_loop.loop_source(loop), "crash-loop")
    return found.done()


def take_events(new: Sequence[K8sEvent], everything: Sequence[K8sEvent]) -> EventsTaken:
    """Cite the new events; the events pane shows `everything` read so far."""
    found = Collect()
    found.show(events_found(everything))
    observations = events_observations(new)
    found.observed(observations)
    return EventsTaken(tuple(observations), found.done())


def _event_at(event: K8sEvent) -> datetime | None:
    return event.last_timestamp or event.event_time or event.first_timestamp


def _in_window(event: K8sEvent, window: tuple[datetime | None, datetime | None]) -> bool:
    start, end = window
    at = _event_at(event)
    if at is None or start is None or end is None:
        return True
    first = event.first_timestamp or at
    return first <= end and at >= start


def termination_times(pod: K8sPod | None, failed_at: datetime | None) -> list[datetime]:
    """When the pod's containers ended (any instance the kubelet still shows), else the failure's time."""
    times: list[datetime] = []
    if pod is not None and pod.status is not None:
        for cs in (pod.status.container_statuses or []) + (pod.status.init_container_statuses or []):
            for state in (cs.state, cs.last_state):
                if state is not None and state.terminated is not None and state.terminated.finished_at:
                    times.append(state.terminated.finished_at)
    if not times and failed_at is not None:
        times.append(failed_at)
    return times


def failure_node_events(
    events: Sequence[K8sEvent], window: tuple[datetime | None, datetime | None], ends: Sequence[datetime]
) -> list[K8sEvent]:
    """Node events in the failure window; a kernel OOM kill only when it is attributable to this container."""

    def attributable(event: K8sEvent) -> bool:
        if (event.reason or "") != "OOMKilling":
            return True
        at = _event_at(event)
        return at is not None and any(abs(at - end) <= NODE_OOM_ATTRIBUTION for end in ends)

    return [e for e in events if _in_window(e, window) and attributable(e)]


async def read_log(reader: Reader, t2: KubeSource, pod: K8sPod) -> LogExcerpt | Missing:
    return await reader.tier2(4, LOGS, "previous container log", lambda: t2.logs(pod))


def interpret_log(
    answer: LogExcerpt | Missing,
    failed_at: datetime | None,
    pod: str | None = None,
    node: str | None = None,
    *,
    at: datetime | None = None,
    k8s_pod: K8sPod | None = None,
    now: datetime | None = None,
) -> LogRead:
    """The line that explains the failure, read before `failed_at`, and the infrastructure faults the log shows,
    dated `at` (else `failed_at`); an empty or silent log is said so. The log of the instance that ended (the
    previous one, or one `k8s_pod` shows terminated) loses no line for its stamps (core/diagnosis/log_clock.py);
    when they read later than its end, the evidence says why they were read; so are they when one reads later
    than `now`, when the log was read. Stamps without a year (vLLM's, glog's) are dated by the run `k8s_pod`
    gives the instance, or not read, and the evidence says why (core/diagnosis/log_yearless.py). `k8s_pod` also
    gives the exit code the cited line explains, when it names the program that failed."""
    if isinstance(answer, Missing):
        return LogRead(None, (), gap(answer))
    found = Collect()
    instance = log_instance(k8s_pod, answer) if k8s_pod is not None else LogInstance()
    own = answer.previous or instance.end is not None
    scan = scanned(answer.lines, before=failed_at, own=own, read_at=now, window=log_window(k8s_pod, answer, now))
    shown, finding = log_finding(answer, scan, exited_zero=instance.exit_code == 0)
    clock, unread = scan.clock, scan.unread
    found.show(shown)
    if answer.note:
        found.note(quote(answer.note, 300))
    stamps = f"; {clock.text()}" if clock is not None and clock.kept else ""
    stamps += f"; {unread.text()}" if unread is not None else ""
    if clock is not None and not clock.kept:
        found.note(f"container {quote(answer.container, 80)}: {clock.text()}")
    at = at or failed_at
    infra = log_infra_observations(answer, scan, pod, node, at)
    if finding is None:
        container = quote(answer.container, 80)
        found.evidence(
            f"The log of container {container} is empty"
            if not answer.lines
            else f"The log of container {container} ({plural(len(answer.lines), 'line')} read) has no line that "
            f"explains the failure{stamps}",
            answer.source,  # the read the lines came from: --previous, or the current instance
            "log",
        )
        found.observed(infra)
        return LogRead(None, tuple(infra), found.done())
    found.evidence(log_line_text(answer, finding, instance) + stamps, answer.source, "log-line")
    found.observed(infra)
    oom = log_observation(answer, finding, at, pod, node)
    return LogRead(finding, tuple(infra) + ((oom,) if oom is not None else ()), found.done())


async def describe_node(reader: Reader, t2: KubeSource, node_name: str) -> NodeDescribed:
    node = await reader.tier2(4, DESCRIBE_NODE, f"node {node_name}", lambda: t2.node(node_name))
    if not isinstance(node, K8sNode):
        return NodeDescribed((), gap(node))
    found = Collect()
    found.show(node_found(node))
    observations = node_observations(node)
    found.observed(observations)
    return NodeDescribed(tuple(observations), found.done(), tuple(node_marks(node, DESCRIBE_NODE)))


def pod_named_by_events(
    events: Sequence[WorkloadEvent], recent: Callable[[datetime | None], bool]
) -> tuple[str, str | None] | None:
    """The pod a recent status event is about (its name and uid): Tier 2 can start before the pods are read."""
    for event in events:
        obj = event.involved_object
        if obj is not None and obj.kind == "Pod" and obj.name and recent(event.created_at):
            return obj.name, obj.uid
    return None


def pod_to_inspect(pods: Sequence[RunaiPod], now: datetime) -> str | None:
    """The newest failing pod, else the newest pod."""
    named = [p for p in pods if p.name]
    if not named:
        return None
    failing = [p for p in named if p.k8s_phase and p.k8s_phase not in {"Running", "Succeeded", "Completed", "Pending"}]
    epoch = datetime.min.replace(tzinfo=now.tzinfo)
    pool = sorted(failing or named, key=lambda p: p.created_at or epoch, reverse=True)
    return pool[0].name
