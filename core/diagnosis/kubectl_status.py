"""The STATUS column of ``kubectl get pods``, computed from a pod the same way kubectl's printer does.

Users quote this string ("it says Init:CrashLoopBackOff"), and Run:ai's ``k8sPhase`` carries strings of this
shape, so the report shows the same words. The rules, in kubectl's order:

1. Start from ``status.phase``; a non-empty ``status.reason`` replaces it; a PodScheduled condition with
   reason SchedulingGated gives ``SchedulingGated``.
2. Init containers in order: skip those terminated with exit 0 (and started sidecars, i.e. init containers
   with ``restartPolicy: Always``). The first other one decides: terminated -> ``Init:<Reason>``, or without
   a reason ``Init:Signal:N`` / ``Init:ExitCode:N``; waiting with a reason other than PodInitializing ->
   ``Init:<Reason>``; anything else -> ``Init:i/N`` (i init containers done out of N).
3. If initialisation is not in progress (or the Initialized condition is True), main containers from last to
   first: a waiting reason, a terminated reason, ``Signal:N``, ``ExitCode:N``; the first container in the
   list wins because it is visited last. ``Completed`` while a container is still running and ready becomes
   ``Running`` when the pod has a Ready=True condition, else ``NotReady``.
4. With a deletionTimestamp: reason ``NodeLost`` shows ``Unknown``; otherwise a pod not yet in a terminal
   phase (Succeeded/Failed) shows ``Terminating``. Current kubectl keeps a terminal pod's status while it is
   deleted.
"""

from __future__ import annotations

from core.models.kube import ContainerStatus, K8sPod, PodCondition

_TERMINAL_PHASES = frozenset({"Succeeded", "Failed"})


def _condition_true(conditions: list[PodCondition] | None, condition_type: str) -> bool:
    return any(item.type == condition_type and item.status == "True" for item in conditions or [])


def _sidecar_names(pod: K8sPod) -> set[str]:
    names: set[str] = set()
    for container in (pod.spec.init_containers if pod.spec else None) or []:
        # The model does not declare restartPolicy on containers; it is kept among the extra keys.
        if (container.model_extra or {}).get("restartPolicy") == "Always" and container.name:
            names.add(container.name)
    return names


def _init_total(pod: K8sPod, statuses: list[ContainerStatus]) -> int:
    spec_count = len((pod.spec.init_containers if pod.spec else None) or [])
    return spec_count or len(statuses)


def _init_status(pod: K8sPod, statuses: list[ContainerStatus]) -> str | None:
    """The Init:... string while initialisation is unfinished, or None when every init container is done."""
    sidecars = _sidecar_names(pod)
    total = _init_total(pod, statuses)
    for index, item in enumerate(statuses):
        state = item.state
        terminated = state.terminated if state else None
        waiting = state.waiting if state else None
        if terminated is not None and terminated.exit_code == 0:
            continue
        if item.name in sidecars and item.started:
            continue
        if terminated is not None:
            if terminated.reason:
                return f"Init:{terminated.reason}"
            if terminated.signal:
                return f"Init:Signal:{terminated.signal}"
            return f"Init:ExitCode:{terminated.exit_code if terminated.exit_code is not None else 0}"
        if waiting is not None and waiting.reason and waiting.reason != "PodInitializing":
            return f"Init:{waiting.reason}"
        return f"Init:{index}/{total}"
    return None


def kubectl_status(pod: K8sPod) -> str:
    """What ``kubectl get pod`` prints under STATUS for this pod ("" when the pod reports no phase at all)."""
    status = pod.status
    phase = (status.phase if status else None) or ""
    reason = phase
    if status is not None and status.reason:
        reason = status.reason
    conditions = status.conditions if status else None
    for condition in conditions or []:
        if condition.type == "PodScheduled" and condition.reason == "SchedulingGated":
            reason = "SchedulingGated"

    init_statuses = (status.init_container_statuses if status else None) or []
    init_reason = _init_status(pod, init_statuses)
    if init_reason is not None:
        reason = init_reason
    if init_reason is None or _condition_true(conditions, "Initialized"):
        has_running = False
        for item in reversed((status.container_statuses if status else None) or []):
            state = item.state
            waiting = state.waiting if state else None
            terminated = state.terminated if state else None
            if waiting is not None and waiting.reason:
                reason = waiting.reason
            elif terminated is not None and terminated.reason:
                reason = terminated.reason
            elif terminated is not None:
                if terminated.signal:
                    reason = f"Signal:{terminated.signal}"
                else:
                    reason = f"ExitCode:{terminated.exit_code if terminated.exit_code is not None else 0}"
            elif item.ready and state is not None and state.running is not None:
                has_running = True
        if reason == "Completed" and has_running:
            reason = "Running" if _condition_true(conditions, "Ready") else "NotReady"

    deleting = pod.metadata is not None and pod.metadata.deletion_timestamp is not None
    if deleting and status is not None and status.reason == "NodeLost":
        reason = "Unknown"
    elif deleting and phase not in _TERMINAL_PHASES:
        reason = "Terminating"
    return reason
