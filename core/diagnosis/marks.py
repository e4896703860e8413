"""Progress marks: what shows that a pod, its node or the workload got past a step of its start.

A failure signal can be taken back by a later event: a pull error by the image pulled and the container started,
a failed mount by the container created, an init container's failure by its completion, a node's NotReady by its
Ready again, a preemption by the workload running again. A `Mark` is such an event: the step it shows done, when,
and what it is about (pod, container, image, node). core/diagnosis/supersede.py weighs the failure signals
against them.

The kubelet's steps for one pod run in this order: the volumes mount, the sandbox is created, the init containers
run one after another to completion, then each main container's image is pulled, the container created and
started. A mark of a later step shows every earlier step of the same pod done (`Step`'s order). Marks are read
from the same objects the signals are: Kubernetes and Run:ai events (`Pulled`, `Created`, `Started`,
`NodeReady`), a pod's container states and conditions, Run:ai's pods (`containers[].startedAt`), the
workload's phase and its history's moves to Running, and a node's Ready condition.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum

from core.diagnosis.observations import quote
from core.models.kube import ContainerStatus, K8sEvent, K8sNode, K8sPod
from core.models.runai import RunaiPod, Workload


class Step(IntEnum):
    """How far a pod (or the workload) got, in the kubelet's order."""

    NODE_READY = 0
    MOUNTED = 1
    SANDBOX = 2
    INIT_DONE = 3
    PULLED = 4
    CREATED = 5
    STARTED = 6
    RUNNING = 7  # the workload itself ran (Run:ai's phase Running): every pod got past its start


@dataclass(frozen=True, slots=True)
class Mark:
    """One sign of progress: the step done, when, and what it is about (any part may be unknown). `pod` is
    cleaned as observations carry it; `node` is raw, as observations carry it."""

    step: Step
    at: datetime
    source: str  # the read it came from, in the seed's names
    what: str  # a few words for the report: "image pulled", "container main started", ...
    pod: str | None = None
    container: str | None = None
    image: str | None = None
    node: str | None = None
    init: bool | None = None  # an init container's (None: not known, as an event does not say)


_IMAGE_RE = re.compile(r"image \"([^\"\n]{1,512})\"", re.IGNORECASE)
_CONTAINER_RE = re.compile(r"^(?:Created|Started) container:? ?\"?([a-z0-9](?:[-a-z0-9.]{0,61}[a-z0-9])?)\"?\s*$", re.I)
_PULLED_RE = re.compile(r"successfully pulled image|already present on machine", re.IGNORECASE)
_MOUNTED_RE = re.compile(r"MountVolume\.\w{1,32} succeeded", re.IGNORECASE)
_NODE_READY_RE = re.compile(r"status is now: NodeReady\b", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def _event_step(reason: str, message: str) -> tuple[Step, str | None, str | None] | None:
    """The step a kubelet (or node controller) event says was done, with its container and image."""
    r = reason.strip().lower()
    text = message[:2048]
    if r == "pulled" or _PULLED_RE.search(text):
        image = _IMAGE_RE.search(text)
        return Step.PULLED, None, image.group(1) if image else None
    if r in ("created", "started"):
        found = _CONTAINER_RE.match(text.strip())
        return (Step.CREATED if r == "created" else Step.STARTED), (found.group(1) if found else None), None
    if r == "successfulmountvolume" or _MOUNTED_RE.search(text):
        return Step.MOUNTED, None, None
    if r == "nodeready" or _NODE_READY_RE.search(text):
        return Step.NODE_READY, None, None
    return None


_WHAT = {
    Step.NODE_READY: "node Ready again",
    Step.MOUNTED: "volumes mounted",
    Step.SANDBOX: "pod sandbox created",
    Step.INIT_DONE: "init containers completed",
    Step.PULLED: "image pulled",
    Step.CREATED: "container created",
    Step.STARTED: "container started",
    Step.RUNNING: "phase Running",
}


def _what(step: Step, container: str | None, init: bool = False) -> str:
    if container and step in (Step.CREATED, Step.STARTED):
        return f"{'init container' if init else 'container'} {quote(container, 80)} {_WHAT[step].split()[-1]}"
    if container and step is Step.INIT_DONE:
        return f"init container {quote(container, 80)} completed"
    return _WHAT[step]


def event_mark(
    reason: object, message: object, at: datetime | None, source: str, kind: str | None, name: str | None
) -> Mark | None:
    """The mark one event gives (Run:ai's or Kubernetes'), or None."""
    if at is None or not isinstance(reason, str | None) or not isinstance(message, str | None):
        return None
    found = _event_step(reason or "", message or "")
    if found is None:
        return None
    step, container, image = found
    if step is Step.NODE_READY:
        if kind != "Node" or not name:
            return None
        return Mark(step, at, source, f"node {quote(name, 120)} Ready again", node=name)
    if kind not in (None, "Pod"):
        return None
    pod = quote(name, 120) if kind == "Pod" and name else None
    return Mark(step, at, source, _what(step, container), pod=pod, container=container, image=image)


def k8s_event_mark(event: K8sEvent, source: str) -> Mark | None:
    obj = event.involved_object
    at = (
        (event.series.last_observed_time if event.series else None)
        or event.last_timestamp
        or event.event_time
        or event.first_timestamp
    )
    return event_mark(event.reason, event.message, at, source, obj.kind if obj else None, obj.name if obj else None)


def _status_marks(status: ContainerStatus, pod: str | None, node: str | None, init: bool, source: str) -> list[Mark]:
    found: list[Mark] = []
    name = status.name
    for state in (status.state, status.last_state):
        if state is None:
            continue
        started = state.running.started_at if state.running is not None else None
        term = state.terminated
        if term is not None:
            started = term.started_at
            done = (term.exit_code == 0) or (term.exit_code is None and (term.reason or "").lower() == "completed")
            if init and done and term.finished_at is not None:
                found.append(Mark(Step.INIT_DONE, term.finished_at, source, _what(Step.INIT_DONE, name), pod,
                                  name, status.image, node, True))
        if started is not None:
            found.append(Mark(Step.STARTED, started, source, _what(Step.STARTED, name, init), pod, name,
                              status.image, node, init))
    return found


_CONDITION_STEPS = {"PodReadyToStartContainers": Step.SANDBOX, "Initialized": Step.INIT_DONE}


def pod_marks(pod: K8sPod, source: str) -> list[Mark]:
    """What the pod's own status shows done: each container instance's start, each init container's completion,
    the sandbox and the init containers done (its conditions)."""
    meta, spec, status = pod.metadata, pod.spec, pod.status
    name = quote(meta.name, 120) if meta is not None and meta.name else None
    node = spec.node_name if spec is not None else None
    if status is None:
        return []
    found: list[Mark] = []
    for item in status.init_container_statuses or ():
        found += _status_marks(item, name, node, True, source)
    for item in status.container_statuses or ():
        found += _status_marks(item, name, node, False, source)
    for cond in status.conditions or ():
        step = _CONDITION_STEPS.get(cond.type or "")
        if step is not None and cond.status == "True" and cond.last_transition_time is not None:
            found.append(Mark(step, cond.last_transition_time, source, _WHAT[step], name, node=node))
    return found


def runai_pod_marks(pods: Iterable[RunaiPod], source: str) -> list[Mark]:
    """Each container start Run:ai's pods record (`containers[].startedAt`)."""
    found: list[Mark] = []
    for pod in pods:
        name = quote(pod.name, 120) if pod.name else None
        for c in pod.containers or ():
            if c.started_at is not None:
                found.append(Mark(Step.STARTED, c.started_at, source, _what(Step.STARTED, c.name), name, c.name,
                                  c.image, pod.node_name))
    return found


def workload_marks(w: Workload, source: str) -> list[Mark]:
    """The workload running now, since its last phase change."""
    if (w.phase or "") == "Running" and w.phase_updated_at is not None:
        return [Mark(Step.RUNNING, w.phase_updated_at, source, _WHAT[Step.RUNNING])]
    return []


def running_mark(at: datetime, source: str) -> Mark:
    """A move of the workload to Running, as its history records it."""
    return Mark(Step.RUNNING, at, source, _WHAT[Step.RUNNING])


def node_marks(node: K8sNode, source: str) -> list[Mark]:
    """The node Ready since its Ready condition last changed."""
    name = node.metadata.name if node.metadata is not None else None
    if not name or node.status is None:
        return []
    for cond in node.status.conditions or ():
        if cond.type == "Ready" and cond.status == "True" and cond.last_transition_time is not None:
            return [Mark(Step.NODE_READY, cond.last_transition_time, source, f"node {quote(name, 120)} Ready",
                         node=name)]
    return []


def events_marks(events: Sequence[K8sEvent], source: str) -> list[Mark]:
    return [m for e in events if (m := k8s_event_mark(e, source)) is not None]
