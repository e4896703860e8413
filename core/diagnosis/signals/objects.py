"""Signals from Kubernetes objects: a pod's containers, status and conditions, and one event.

A pod keeps every signal it shows (one container can show a CrashLoopBackOff now and the OOMKilled that caused
it in `lastState`), strongest first. Each container's waiting reason, current and last termination are read;
an init container's failure is INIT_FAILED except what the init family keeps (OOM, pull, system kills), and a
sidecar (an init container with restartPolicy Always) is read like a main container. The node's own signals
are core/diagnosis/signals/node.py.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.diagnosis.exit_codes import SIGNAL_NUMBERS, exit_code_meaning
from core.diagnosis.signals.classify import classify_message
from core.diagnosis.signals.container_start import START_REASONS
from core.diagnosis.signals.model import Signal, SignalKind, rank_signals
from core.diagnosis.signals.text import INIT_PREFIX, as_text, detail
from core.models.kube import ContainerState, ContainerStatus, K8sEvent, K8sPod

K = SignalKind
_TERMINATED_SOURCE = "containerStatuses"
# The app's own last words may name a GPU or fabric fault; a "cluster" it could not reach is its own business.
_FROM_TERMINATION_MESSAGE = frozenset({K.GPU_OOM, K.OOM_KILLED, K.GPU_HARDWARE, K.GPU_DRIVER, K.NETWORK_FABRIC})
_INIT_SOURCE = "initContainerStatuses"


def _restartable_init_names(pod: K8sPod) -> set[str]:
    """Sidecar init containers (restartPolicy Always): they run for the pod's whole life, like main ones."""
    names: set[str] = set()
    for container in (pod.spec.init_containers if pod.spec else None) or []:
        extra = container.model_extra or {}
        if extra.get("restartPolicy") == "Always" and container.name:
            names.add(container.name)
    return names


def _terminated_signals(
    status: ContainerStatus, state: ContainerState | None, *, init: bool, previous: bool, src: str
) -> list[Signal]:
    if state is None or state.terminated is None:
        return []
    term = state.terminated
    reason = as_text(term.reason).strip()
    message = as_text(term.message)
    code = term.exit_code
    if code is None and term.signal:
        code = 128 + term.signal
    where = f"{src}[{status.name}].{'lastState' if previous else 'state'}.terminated"
    head = f"{reason or 'terminated'}" + (f" (exit {code})" if code is not None else "")
    base: dict[str, Any] = {
        "detail": detail("", f"{head}: {message.strip()}" if message.strip() else head),
        "exit_code": code,
        "reason": reason or None,
        "container": status.name,
        "init": init,
        "at": term.finished_at,
        "source": where,
    }
    lowered = reason.lower()
    signals: list[Signal] = []
    if lowered == "oomkilled":
        signals.append(Signal(kind=K.OOM_KILLED, resource="memory", **base))
    elif lowered in START_REASONS:
        signals.append(Signal(kind=K.INIT_FAILED if init else K.START_ERROR, **base))
    elif code is not None and code != 0:
        meaning = exit_code_meaning(code)
        if meaning.is_system_signal:
            kind = K.SIGKILLED if meaning.signal == SIGNAL_NUMBERS["SIGKILL"] else K.SIGTERMED
        else:
            kind = K.INIT_FAILED if init else K.APP_EXIT
        signals.append(Signal(kind=kind, note=meaning.meaning, **base))
    elif code is None and lowered and lowered != "completed":
        signals.append(Signal(kind=K.INIT_FAILED if init else K.CONTAINER_ERROR, **base))
    if message.strip() and lowered != "oomkilled":
        # The termination message may be the app's own last words (terminationMessagePath), or the runtime's
        # (a GPU hook that failed at start): classify it too.
        for extra in classify_message(None, message, source=where):
            if extra.kind in _FROM_TERMINATION_MESSAGE:
                signals.append(replace(extra, container=status.name, init=init, at=term.finished_at))
    return signals


def _waiting_signals(status: ContainerStatus, *, init: bool, src: str) -> list[Signal]:
    state = status.state
    if state is None or state.waiting is None:
        return []
    waiting = state.waiting
    reason = as_text(waiting.reason).strip()
    if not reason or reason.lower() in {"containercreating", "podinitializing"}:
        return []
    where = f"{src}[{status.name}].state.waiting"
    signals: list[Signal] = []
    for item in classify_message((INIT_PREFIX if init else "") + reason, waiting.message, source=where):
        update: dict[str, Any] = {"container": status.name, "init": init, "source": where}
        if item.kind in {K.CRASH_LOOP, K.INIT_FAILED} and status.restart_count is not None:
            update["count"] = status.restart_count
        signals.append(replace(item, **update))
    return signals


def _container_signals(status: ContainerStatus, *, init: bool, src: str) -> list[Signal]:
    signals = _waiting_signals(status, init=init, src=src)
    signals += _terminated_signals(status, status.state, init=init, previous=False, src=src)
    signals += _terminated_signals(status, status.last_state, init=init, previous=True, src=src)
    return signals


def pod_signals(pod: K8sPod) -> list[Signal]:
    """Signals from one Kubernetes pod: container and init-container states, pod reason and conditions."""
    status = pod.status
    if status is None:
        return []
    signals: list[Signal] = []
    sidecars = _restartable_init_names(pod)
    for item in status.init_container_statuses or []:
        signals += _container_signals(item, init=item.name not in sidecars, src=_INIT_SOURCE)
    for item in status.container_statuses or []:
        signals += _container_signals(item, init=False, src=_TERMINATED_SOURCE)
    if status.reason or status.message:
        signals += classify_message(status.reason, status.message, source="pod.status", kind="Pod")
    for condition in status.conditions or []:
        if condition.type == "DisruptionTarget" and as_text(condition.status) == "True":
            reason = as_text(condition.reason).strip()
            preempted = reason.lower() in {"preemptionbyscheduler", "preemptionbykubescheduler"}
            signals.append(
                Signal(
                    kind=K.PREEMPTED if preempted else K.DISRUPTION_TARGET,
                    detail=detail(reason, as_text(condition.message)),
                    reason=reason or None,
                    at=condition.last_transition_time,
                    source="pod.status.conditions[DisruptionTarget]",
                )
            )
    return rank_signals(signals)


def k8s_event_signals(event: K8sEvent) -> list[Signal]:
    """Signals from one Kubernetes event, with its occurrence count and last time."""
    involved = event.involved_object
    component = event.source.component if event.source else None
    source = component or event.reporting_component
    at = (
        (event.series.last_observed_time if event.series else None)
        or event.last_timestamp
        or event.event_time
        or event.first_timestamp
    )
    found = classify_message(event.reason, event.message, source=source, kind=involved.kind if involved else None)
    return [replace(item, at=at, count=event.occurrences, source=source) for item in found]
