"""Step 4, Tier 2: Kubernetes objects turned into observations, cited evidence and the panes' rows.

The report names these reads as the kubectl commands a person would run (`kubectl describe pod` and so on);
they are made through the API, read-only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from core.diagnosis.kubectl_status import kubectl_status
from core.diagnosis.log_scan import LogFinding, LogKind, ScannedLog, last_words
from core.diagnosis.log_yearless import SKEW, Window, as_utc
from core.diagnosis.observations import Observation, quote
from core.diagnosis.programs import SHELLS, documents, exit_note, program_of
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


def programs(pod: K8sPod) -> dict[str, str | None]:
    """What each container of the pod runs (core/diagnosis/programs.py), by container name."""
    spec = pod.spec
    containers = ((spec.containers or []) + (spec.init_containers or [])) if spec is not None else []
    return {c.name: program_of(c.command, c.args, c.image) for c in containers if c.name}


def program_bases(pod: K8sPod) -> dict[str, str]:
    """Where each container's program was read, by container name: its command, or only its image (an exit
    code read as that program's shows what the reading rests on)."""
    spec = pod.spec
    containers = ((spec.containers or []) + (spec.init_containers or [])) if spec is not None else []
    out: dict[str, str] = {}
    for c in containers:
        if not c.name or program_of(c.command, c.args, c.image) is None:
            continue
        if program_of(c.command, c.args, None) is None and c.image:
            out[c.name] = f"its image {quote(c.image, 160)}"
        else:
            out[c.name] = f"its command {quote(' '.join([*(c.command or []), *(c.args or [])]), 120)}"
    return out


def _row(status: ContainerStatus, init: bool, program: str | None) -> ContainerRow:
    state, code = _state_text(status.state)
    last, last_code = _state_text(status.last_state)
    exit_code = code if code is not None else last_code
    meaning = exit_note(exit_code, program) if exit_code is not None else None
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
    runs = programs(pod)
    rows: list[ContainerRow] = []
    if status is not None:
        rows += [_row(item, True, runs.get(item.name or "")) for item in status.init_container_statuses or ()]
        rows += [_row(item, False, runs.get(item.name or "")) for item in status.container_statuses or ()]
    name = pod.metadata.name if pod.metadata else None
    node = pod.spec.node_name if pod.spec else None
    return ContainersFound(
        pod=quote(name, 120),
        status=quote(kubectl_status(pod), 80),
        node=quote(node, 120) if node else None,
        rows=tuple(rows),
    )


def signal_text(signal: Signal, program: str | None = None, basis: str | None = None) -> str:
    """The evidence line of a pod's signal; an exit code is read for the program the container runs, and when
    that program documents the code, where the program was read (`basis`: its image, its command) is said."""
    parts: list[str] = []
    if signal.container:
        parts.append(f"{'Init container' if signal.init else 'Container'} {quote(signal.container, 80)}")
    parts.append(quote(signal.detail, 300))
    if signal.exit_code is not None:
        note = exit_note(signal.exit_code, program)
        if basis and documents(program, signal.exit_code):
            note = f"{note}, read from {basis}"
        parts.append(f"exit {signal.exit_code}: {note}")
    if signal.count is not None and signal.kind in {SignalKind.CRASH_LOOP, SignalKind.INIT_FAILED}:
        parts.append(f"restarts {signal.count}")
    return "; ".join(parts)


def pod_place(pod: K8sPod | None) -> tuple[str | None, str | None]:
    """The pod's name (cleaned) and the node it ran on, as the pod object says."""
    if pod is None:
        return None, None
    name = pod.metadata.name if pod.metadata else None
    return (quote(name, 120) if isinstance(name, str) and name else None), (pod.spec.node_name if pod.spec else None)


def pod_observations(pod: K8sPod) -> list[Observation]:
    name, node = pod_place(pod)
    runs, bases = programs(pod), program_bases(pod)
    return [
        Observation(
            sig, DESCRIBE_POD, sig.at, signal_text(sig, runs.get(sig.container or ""), bases.get(sig.container or "")),
            name, node,
        )
        for sig in pod_signals(pod)
    ]


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
        node = obj.name if obj is not None and obj.kind == "Node" else None
        found.extend(
            Observation(sig, EVENTS, sig.at or _event_when(event), text, pod, node) for sig in k8s_event_signals(event)
        )
    return found


def events_found(events: Sequence[K8sEvent]) -> KubeEventsFound:
    return KubeEventsFound(rows=tuple(event_row(event) for event in events))


@dataclass(frozen=True, slots=True)
class LogInstance:
    """The container instance a log was read from, as the pod shows it: when it ended, with what exit code, and
    the program it ran. Any part may be unknown."""

    end: datetime | None = None
    exit_code: int | None = None
    program: str | None = None


def log_instance(pod: K8sPod | None, excerpt: LogExcerpt) -> LogInstance:
    status = pod.status if pod is not None else None
    if pod is None or status is None:
        return LogInstance()
    program = programs(pod).get(excerpt.container)
    for item in (status.container_statuses or []) + (status.init_container_statuses or []):
        if item.name == excerpt.container:
            state = item.last_state if excerpt.previous else item.state
            term = state.terminated if state is not None else None
            if term is not None:
                return LogInstance(term.finished_at, term.exit_code, program)
    return LogInstance(program=program)


def log_window(pod: K8sPod | None, excerpt: LogExcerpt, read_at: datetime | None) -> Window:
    """When the container instance whose log was read ran, as the pod says: its startedAt, else the pod's start
    (no instance of its containers started earlier), to its finishedAt, else `read_at` (no line of it can be
    later than the read). A startedAt after the finishedAt, or before the pod was created (containerd gives a
    container that never started 1970-01-01), is no start of this run: the pod's start is used instead."""
    status = pod.status if pod is not None else None
    statuses = (status.container_statuses or []) + (status.init_container_statuses or []) if status else []
    created = pod.metadata.creation_timestamp if pod is not None and pod.metadata is not None else None
    start = end = None
    for item in statuses:
        if item.name != excerpt.container:
            continue
        state = item.last_state if excerpt.previous else item.state
        if state is not None and state.terminated is not None:
            start, end = state.terminated.started_at, state.terminated.finished_at
        elif state is not None and state.running is not None:
            start = state.running.started_at
        break
    if start is not None and ((end is not None and as_utc(start) > as_utc(end)) or (
        created is not None and as_utc(start) < as_utc(created) - SKEW
    )):
        start = None
    if start is None and status is not None:
        start = status.start_time
    if start is None:
        start = created
    return Window(start, end or read_at, running=end is None)


def log_finding(
    excerpt: LogExcerpt, scan: ScannedLog, *, exited_zero: bool = False
) -> tuple[LogFound, LogFinding | None]:
    """The log as the pane shows it and its explaining line, from what `scan` (log_scan.scanned) found in its
    lines. `exited_zero`: its instance ended with exit 0, so when no line reads as a failure its last line is what
    it said as it stopped."""
    finding = scan.finding
    if finding is None and exited_zero:
        finding = last_words(excerpt.lines)
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
    excerpt: LogExcerpt, finding: LogFinding, at: datetime | None, pod: str | None = None, node: str | None = None
) -> Observation | None:
    """A GPU out-of-memory in the log is a signal of its own; any other explaining line is cited, not ranked."""
    if not finding.gpu_oom:
        return None
    signal = Signal(kind=SignalKind.GPU_OOM, detail=finding.text, container=excerpt.container, at=at)
    return Observation(signal, excerpt.source, at, log_line_text(excerpt, finding), pod, node)


def log_line_text(excerpt: LogExcerpt, finding: LogFinding, instance: LogInstance | None = None) -> str:
    """The cited line; for a shell script whose line names the command that failed (curl's `curl: (6)`), what
    the exit code the shell passed on means for that command."""
    text = _line_text(excerpt, finding.line_no, finding.said, finding.kind is LogKind.LAST_WORDS,
                      meter=finding.after_meter is not None)
    if instance is None or instance.program not in SHELLS or instance.exit_code is None:
        return text
    named, code = finding.program, instance.exit_code
    if named is not None and named != instance.program and (documents(named, code) or named in SHELLS):
        text += f"; exit {code}: {exit_note(code, named)}"
    return text


def _line_text(excerpt: LogExcerpt, line_no: int, text: str, last: bool = False, *, meter: bool = False) -> str:
    """`meter`: `text` is the line from a tool's error on, a progress meter having been written before it."""
    which = "previous instance" if excerpt.previous else "current instance"
    last_said = ", the last it wrote before it exited 0" if last else ""
    after = ", after a progress meter on the same line" if meter else ""
    container = quote(excerpt.container, 80)
    return f'Log line {line_no} of container {container} ({which}){last_said}{after}: "{quote(text)}"'


def log_infra_observations(
    excerpt: LogExcerpt, scan: ScannedLog, pod: str | None, node: str | None, at: datetime | None
) -> list[Observation]:
    """The GPU hardware, driver and fabric faults `scan` found in the log, each at its last line before the end,
    dated `at`."""
    return [
        Observation(signal, excerpt.source, at, _line_text(excerpt, line_no, excerpt.lines[line_no - 1]), pod, node)
        for line_no, signal in scan.signals
    ]


def node_observations(node: K8sNode) -> list[Observation]:
    raw = node.metadata.name if node.metadata else None
    name = quote(raw, 120)
    return [
        Observation(sig, DESCRIBE_NODE, sig.at, f"Node {name}: {quote(sig.detail, 300)}", node=raw)
        for sig in node_signals(node)
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
