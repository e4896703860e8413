"""kubectl_status against the STATUS column kubectl prints, one row per rule of its pod printer."""

from __future__ import annotations

from typing import Any

import pytest

from core.diagnosis.kubectl_status import kubectl_status
from core.models.kube import K8sPod

T = "2026-11-30T11:24:50Z"


def run(ready: bool = True) -> dict[str, Any]:
    return {"ready": ready, "state": {"running": {"startedAt": T}}}


def wait(reason: str, message: str = "") -> dict[str, Any]:
    return {"ready": False, "state": {"waiting": {"reason": reason, "message": message}}}


def term(code: int, reason: str | None = None, signal: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"exitCode": code, "finishedAt": T}
    if reason is not None:
        body["reason"] = reason
    if signal is not None:
        body["signal"] = signal
    return {"ready": False, "state": {"terminated": body}}


def named(name: str, status: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, **status}


def pod(
    phase: str | None = "Running",
    *,
    containers: list[dict[str, Any]] | None = None,
    inits: list[dict[str, Any]] | None = None,
    init_spec: list[dict[str, Any]] | None = None,
    reason: str | None = None,
    conditions: list[dict[str, Any]] | None = None,
    deleting: bool = False,
) -> K8sPod:
    status: dict[str, Any] = {}
    if phase is not None:
        status["phase"] = phase
    if reason is not None:
        status["reason"] = reason
    if conditions is not None:
        status["conditions"] = conditions
    if containers is not None:
        status["containerStatuses"] = [named(f"c{i}", c) for i, c in enumerate(containers)]
    if inits is not None:
        status["initContainerStatuses"] = [named(f"init{i}", c) for i, c in enumerate(inits)]
    metadata: dict[str, Any] = {"name": "p", "namespace": "ns"}
    if deleting:
        metadata["deletionTimestamp"] = T
    spec: dict[str, Any] = {"containers": [{"name": f"c{i}"} for i in range(len(containers or []))]}
    if init_spec is not None:
        spec["initContainers"] = init_spec
    elif inits is not None:
        spec["initContainers"] = [{"name": f"init{i}"} for i in range(len(inits))]
    return K8sPod.model_validate({"metadata": metadata, "spec": spec, "status": status})


READY = [{"type": "Ready", "status": "True"}]
NOT_READY = [{"type": "Ready", "status": "False"}]

ROWS: list[tuple[str, K8sPod, str]] = [
    ("running", pod(containers=[run()]), "Running"),
    ("pending no statuses", pod("Pending"), "Pending"),
    ("succeeded", pod("Succeeded", containers=[term(0, "Completed")]), "Completed"),
    ("failed error", pod("Failed", containers=[term(1, "Error")]), "Error"),
    ("oom", pod("Failed", containers=[term(137, "OOMKilled")]), "OOMKilled"),
    ("crash loop", pod(containers=[wait("CrashLoopBackOff")]), "CrashLoopBackOff"),
    ("image pull", pod("Pending", containers=[wait("ImagePullBackOff")]), "ImagePullBackOff"),
    ("creating", pod("Pending", containers=[wait("ContainerCreating")]), "ContainerCreating"),
    (
        "config error",
        pod("Pending", containers=[wait("CreateContainerConfigError")]),
        "CreateContainerConfigError",
    ),
    ("exit code no reason", pod("Failed", containers=[term(3)]), "ExitCode:3"),
    ("signal no reason", pod("Failed", containers=[term(137, signal=9)]), "Signal:9"),
    ("reason beats signal", pod("Failed", containers=[term(137, "Error", signal=9)]), "Error"),
    ("first container wins", pod("Failed", containers=[term(1, "Error"), term(137, "OOMKilled")]), "Error"),
    ("waiting beats running sibling", pod(containers=[run(), wait("CrashLoopBackOff")]), "CrashLoopBackOff"),
    (
        "completed with running ready",
        pod(containers=[run(), term(0, "Completed")], conditions=READY),
        "Running",
    ),
    (
        "completed with running not ready",
        pod(containers=[run(), term(0, "Completed")], conditions=NOT_READY),
        "NotReady",
    ),
    ("evicted reason", pod("Failed", reason="Evicted", containers=[term(137, "Error")]), "Error"),
    ("evicted no containers", pod("Failed", reason="Evicted"), "Evicted"),
    ("deadline", pod("Failed", reason="DeadlineExceeded"), "DeadlineExceeded"),
    ("init running", pod("Pending", inits=[run()], containers=[wait("PodInitializing")]), "Init:0/1"),
    (
        "init second of two",
        pod("Pending", inits=[term(0, "Completed"), run()], containers=[wait("PodInitializing")]),
        "Init:1/2",
    ),
    (
        "init error",
        pod("Pending", inits=[term(1, "Error")], containers=[wait("PodInitializing")]),
        "Init:Error",
    ),
    (
        "init crash loop",
        pod("Pending", inits=[wait("CrashLoopBackOff")], containers=[wait("PodInitializing")]),
        "Init:CrashLoopBackOff",
    ),
    ("init image pull", pod("Pending", inits=[wait("ImagePullBackOff")]), "Init:ImagePullBackOff"),
    ("init exit code", pod("Pending", inits=[term(2)]), "Init:ExitCode:2"),
    ("init signal", pod("Pending", inits=[term(137, signal=9)]), "Init:Signal:9"),
    ("init waiting PodInitializing", pod("Pending", inits=[wait("PodInitializing")]), "Init:0/1"),
    ("init done then main", pod(inits=[term(0, "Completed")], containers=[run()]), "Running"),
    (
        "init failed with Initialized true shows main",
        pod(
            inits=[term(1, "Error")],
            containers=[wait("CrashLoopBackOff")],
            conditions=[{"type": "Initialized", "status": "True"}],
        ),
        "CrashLoopBackOff",
    ),
    (
        "sidecar started is skipped",
        pod(
            inits=[{**run(), "started": True}, run()],
            containers=[wait("PodInitializing")],
            init_spec=[{"name": "init0", "restartPolicy": "Always"}, {"name": "init1"}],
        ),
        "Init:1/2",
    ),
    ("terminating", pod(containers=[run()], deleting=True), "Terminating"),
    ("node lost deleting", pod(reason="NodeLost", containers=[run()], deleting=True), "Unknown"),
    (
        "deleting a failed pod keeps its status",
        pod("Failed", containers=[term(1, "Error")], deleting=True),
        "Error",
    ),
    ("node lost not deleting", pod(reason="NodeLost"), "NodeLost"),
    (
        "scheduling gated",
        pod("Pending", conditions=[{"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]),
        "SchedulingGated",
    ),
    ("no phase at all", pod(None), ""),
]


@pytest.mark.parametrize(("name", "subject", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_kubectl_status(name: str, subject: K8sPod, expected: str) -> None:
    assert kubectl_status(subject) == expected


def test_empty_pod_object() -> None:
    assert kubectl_status(K8sPod.model_validate({})) == ""


def test_init_count_uses_statuses_when_spec_is_missing() -> None:
    subject = K8sPod.model_validate(
        {
            "status": {
                "phase": "Pending",
                "initContainerStatuses": [
                    {"name": "a", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}},
                    {"name": "b", "state": {"running": {}}},
                    {"name": "c", "state": {"waiting": {}}},
                ],
            }
        }
    )
    assert kubectl_status(subject) == "Init:1/3"
