"""Step 4, Tier 2: Kubernetes objects turned into observations, cited evidence and the panes' rows.

The report names these reads as the kubectl commands a person would run (`kubectl describe pod` and so on);
they are made through the API, read-only.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from core.diagnosis.exit_codes import exit_code_meaning
from core.diagnosis.kubectl_status import kubectl_status
from core.diagnosis.log_scan import LogFinding, explaining_line
from core.diagnosis.observations import Observation, quote
from core.diagnosis.progress import (
    ContainerRow,
    ContainersFound,
    KubeEventRow,
    KubeEventsFound,
    LogFound,
    NodeConditionRow,
    NodeFound,
)
from core.diagnosis.signals import Signal, SignalKind, k8s_event_signals, node_signals, pod_signals
from core.models.kube import ContainerState, ContainerStatus, K8sEvent, K8sNode, K8sPod
from core.sources.kube_types import LogExcerpt

DESCRIBE_POD = "kubectl describe pod"
LOGS = "kubectl logs --previous"
EVENTS = "kubectl get events"
DESCRIBE_NODE = "kubectl describe node"


def _state_text(state: ContainerState | None) -> tuple[str | None, int | None]:
    if state is None:
        return None, None
    if state.terminated is not None:
        term = state.terminated
        code = term.exit_code
        reason = quote(term.reason, 60) if term.reason else "terminated"
        text = f"terminated: {reason}" + (f" (exit {code})" if code is not None else "")
        return text, code
    if state.waiting is not None:
        return f"waiting: {quote(state.waiting.reason, 60) if state.waiting.reason else 'unknown reason'}", None
    if state.running is not None:
        return "running", None
    return None, None


def _row(status: ContainerStatus, init: bool) -> ContainerRow:
    state, code = _state_text(status.state)
    last, last_code = _state_text(status.last_state)
    exit_code = code if code is not None else last_code
    meaning = exit_code_meaning(exit_code).meaning if exit_code is not None else None
    return ContainerRow(
        name=quote(status.name, 80),
        init=init,
        state=state or "unknown",
        last_state=last,
        exit_code=exit_code,
        exit_meaning=meaning,
        restarts=status.restart_count,
    )


def containers_found(pod: K8sPod) -> ContainersFound:
    status = pod.status
    rows: list[ContainerRow] = []
    if status is not None:
        rows += [_row(item, True) for item in status.init_container_statuses or ()]
        rows += [_row(item, False) for item in status.container_statuses or ()]
    name = pod.metadata.name if pod.metadata else None
    node = pod.spec.node_name if pod.spec else None
    return ContainersFound(
        pod=quote(name, 120),
        status=quote(kubectl_status(pod), 80),
        node=quote(node, 120) if node else None,
        rows=tuple(rows),
    )


def signal_text(signal: Signal) -> str:
    parts: list[str] = []
    if signal.container:
        parts.append(f"{'Init container' if signal.init else 'Container'} {quote(signal.container, 80)}")
    parts.append(quote(signal.detail, 300))
    if signal.exit_code is not None:
        meaning = exit_code_meaning(signal.exit_code)
        parts.append(f"exit {signal.exit_code}: {meaning.meaning}")
    if signal.count is not None and signal.kind in {SignalKind.CRASH_LOOP, SignalKind.INIT_FAILED}:
        parts.append(f"restarts {signal.count}")
    return "; ".join(parts)


def pod_observations(pod: K8sPod) -> list[Observation]:
    name = quote(pod.metadata.name, 120) if pod.metadata and isinstance(pod.metadata.name, str) else None
    return [Observation(sig, DESCRIBE_POD, sig.at, signal_text(sig), name) for sig in pod_signals(pod)]


def _event_when(event: K8sEvent) -> datetime | None:
    return event.last_timestamp or event.event_time or event.first_timestamp


def event_row(event: K8sEvent) -> KubeEventRow:
    obj = event.involved_object
    involved = f"{quote(obj.kind, 30) if obj and obj.kind else '?'}/{quote(obj.name, 120) if obj and obj.name else '?'}"
    return KubeEventRow(
        type=quote(event.type, 20) if event.type else None,
        reason=quote(event.reason, 80) if event.reason else None,
        message=quote(event.message, 500),
        count=event.occurrences,
        last_seen=_event_when(event),
        involved=involved,
    )


def event_text(event: K8sEvent) -> str:
    row = event_row(event)
    count = f" x{row.count}" if row.count and row.count > 1 else ""
    return f'{row.involved} event {row.type or ""} {row.reason or "(no reason)"}{count}: "{row.message}"'.replace(
        "  ", " "
    )


def events_observations(events: Sequence[K8sEvent]) -> list[Observation]:
    found: list[Observation] = []
    for event in events:
        text = event_text(event)
        obj = event.involved_object
        pod = quote(obj.name, 120) if obj is not None and obj.kind == "Pod" and isinstance(obj.name, str) else None
        found.extend(
            Observation(sig, EVENTS, sig.at or _event_when(event), text, pod) for sig in k8s_event_signals(event)
        )
    return found


def events_found(events: Sequence[K8sEvent]) -> KubeEventsFound:
    return KubeEventsFound(rows=tuple(event_row(event) for event in events))


def log_finding(excerpt: LogExcerpt, before: datetime | None) -> tuple[LogFound, LogFinding | None]:
    finding = explaining_line(excerpt.lines, before=before)
    index = finding.line_no - 1 if finding is not None else None
    found = LogFound(
        container=quote(excerpt.container, 80),
        previous=excerpt.previous,
        lines=tuple(excerpt.lines),
        explaining_line=index,
        truncated=excerpt.truncated,
        note=quote(excerpt.note, 300) if excerpt.note else None,
    )
    return found, finding


def log_observation(
    excerpt: LogExcerpt, finding: LogFinding, at: datetime | None, pod: str | None = None
) -> Observation | None:
    """A GPU out-of-memory in the log is a signal of its own; any other explaining line is cited, not ranked."""
    if not finding.gpu_oom:
        return None
    signal = Signal(kind=SignalKind.GPU_OOM, detail=finding.text, container=excerpt.container, at=at)
    return Observation(signal, LOGS, at, log_line_text(excerpt, finding), pod)


def log_line_text(excerpt: LogExcerpt, finding: LogFinding) -> str:
    which = "previous instance" if excerpt.previous else "current instance"
    return f'Log line {finding.line_no} of container {quote(excerpt.container, 80)} ({which}): "{quote(finding.text)}"'


def node_observations(node: K8sNode) -> list[Observation]:
    name = quote(node.metadata.name if node.metadata else None, 120)
    return [
        Observation(sig, DESCRIBE_NODE, sig.at, f"Node {name}: {quote(sig.detail, 300)}") for sig in node_signals(node)
    ]


def node_found(node: K8sNode) -> NodeFound:
    conditions = tuple(
        NodeConditionRow(
            type=quote(cond.type, 40),
            status=quote(cond.status, 10),
            reason=quote(cond.reason, 80) if cond.reason else None,
            message=quote(cond.message, 300) if cond.message else None,
            since=cond.last_transition_time,
        )
        for cond in (node.status.conditions if node.status and node.status.conditions else ())
    )
    taints = tuple(
        f"{quote(t.key, 120)}{'=' + quote(t.value, 60) if t.value else ''}:{quote(t.effect, 20)}"
        for t in (node.spec.taints if node.spec and node.spec.taints else ())
    )
    return NodeFound(
        name=quote(node.metadata.name if node.metadata else None, 120),
        conditions=conditions,
        taints=taints,
        unschedulable=bool(node.spec and node.spec.unschedulable),
    )
