"""core/v1 Pod, Event and Node models parsed from raw API JSON."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from core.models import (
    POD_PHASES,
    K8sEvent,
    K8sEventList,
    K8sNode,
    K8sPod,
    parse_object,
    parse_page,
    quantity_to_bytes,
)
from tests.paths import CASES


@pytest.fixture(scope="module")
def kube() -> dict[str, Any]:
    return json.loads((CASES / "example-oom.json").read_text())["kubernetes"]


def test_oom_pod(kube: dict[str, Any]) -> None:
    pod = parse_object(kube["pods"][0], K8sPod, "pod")
    assert pod.parse_problems() == []
    assert pod.model_extra == {"apiVersion": "v1", "kind": "Pod"}
    assert pod.metadata is not None
    assert pod.metadata.name == "whisper-ft-0-0" and pod.metadata.namespace == "runai-speech"
    assert pod.metadata.uid == "c781bc94-5fc1-5fd1-94b5-d244a74850cb"
    assert pod.metadata.creation_timestamp == datetime(2026, 11, 30, 10, 28, tzinfo=UTC)
    assert pod.metadata.deletion_timestamp is None and pod.metadata.owner_references is None
    assert pod.spec is not None and pod.spec.restart_policy == "Never" and pod.spec.node_name == "gpu-node-a1"
    assert pod.spec.containers is not None
    resources = pod.spec.containers[0].resources
    assert resources is not None and resources.limits is not None
    assert quantity_to_bytes(resources.limits["memory"]) == 25769803776
    assert resources.requests is None
    assert pod.spec.init_containers is None
    status = pod.status
    assert status is not None and status.phase == "Failed" and status.phase in POD_PHASES
    assert status.conditions == [] and status.reason is None
    assert status.container_statuses is not None
    container = status.container_statuses[0]
    assert container.name == "main" and container.ready is False and container.restart_count == 0
    assert container.image_id == "" and container.started is False
    assert container.state is not None and container.state.terminated is not None
    terminated = container.state.terminated
    assert terminated.exit_code == 137
    assert terminated.reason == "OOMKilled"
    assert terminated.signal is None
    assert terminated.started_at == datetime(2026, 11, 30, 10, 30, tzinfo=UTC)
    assert terminated.finished_at == datetime(2026, 11, 30, 11, 25, tzinfo=UTC)
    assert terminated.container_id == "containerd://1fcbc66d00f85ffdbe105691deaf73d2"
    assert container.last_state is not None and container.last_state.is_empty()
    assert not container.state.is_empty()


def test_wire_names_of_ids() -> None:
    pod = K8sPod.model_validate(
        {
            "status": {
                "containerStatuses": [
                    {"imageID": "sha256:abc", "containerID": "containerd://1", "lastState": {}},
                ]
            }
        }
    )
    assert pod.status is not None and pod.status.container_statuses is not None
    status = pod.status.container_statuses[0]
    assert status.image_id == "sha256:abc" and status.container_id == "containerd://1"
    dumped = status.model_dump(by_alias=True, exclude_none=True)
    assert dumped["imageID"] == "sha256:abc" and dumped["containerID"] == "containerd://1"
    assert "imageId" not in dumped


def test_crashloop_pod_with_last_state_and_init_containers() -> None:
    raw = {
        "metadata": {
            "name": "p",
            "deletionTimestamp": "2026-11-30T11:00:00Z",
            "ownerReferences": [
                {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "u", "controller": True}
            ],
            "labels": {"app": "x"},
        },
        "spec": {
            "initContainers": [
                {"name": "init", "image": "busybox", "command": ["sh", "-c"], "args": ["true"]}
            ]
        },
        "status": {
            "phase": "Running",
            "reason": "Evicted",
            "message": "The node was low on resource: memory.",
            "startTime": "2026-11-30T10:00:00Z",
            "conditions": [
                {
                    "type": "DisruptionTarget",
                    "status": "True",
                    "reason": "PreemptionByScheduler",
                    "lastTransitionTime": "2026-11-30T10:59:00Z",
                }
            ],
            "initContainerStatuses": [
                {"name": "init", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
            ],
            "containerStatuses": [
                {
                    "name": "main",
                    "restartCount": 5,
                    "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s"}},
                    "lastState": {"terminated": {"exitCode": 1, "reason": "Error", "signal": 9}},
                }
            ],
        },
    }
    pod = parse_object(raw, K8sPod, "pod")
    assert pod.metadata is not None and pod.metadata.deletion_timestamp == datetime(
        2026, 11, 30, 11, tzinfo=UTC
    )
    assert pod.metadata.owner_references is not None
    owner = pod.metadata.owner_references[0]
    assert (owner.kind, owner.name, owner.controller, owner.api_version) == ("Job", "j", True, "batch/v1")
    assert pod.metadata.labels == {"app": "x"}
    assert pod.spec is not None and pod.spec.init_containers is not None
    assert pod.spec.init_containers[0].command == ["sh", "-c"]
    status = pod.status
    assert status is not None and status.reason == "Evicted"
    assert status.start_time == datetime(2026, 11, 30, 10, tzinfo=UTC)
    assert status.conditions is not None and status.conditions[0].reason == "PreemptionByScheduler"
    assert status.init_container_statuses is not None
    init_state = status.init_container_statuses[0].state
    assert (
        init_state is not None and init_state.terminated is not None and init_state.terminated.exit_code == 0
    )
    assert status.container_statuses is not None
    main = status.container_statuses[0]
    assert main.restart_count == 5
    assert main.state is not None and main.state.waiting is not None
    assert main.state.waiting.reason == "CrashLoopBackOff"
    assert main.last_state is not None and main.last_state.terminated is not None
    assert main.last_state.terminated.exit_code == 1 and main.last_state.terminated.signal == 9


def test_running_state() -> None:
    pod = K8sPod.model_validate(
        {
            "status": {
                "containerStatuses": [{"state": {"running": {"startedAt": "2026-11-30T10:00:00.000001Z"}}}]
            }
        }
    )
    assert pod.status is not None and pod.status.container_statuses is not None
    state = pod.status.container_statuses[0].state
    assert state is not None and state.running is not None
    assert state.running.started_at == datetime(2026, 11, 30, 10, 0, 0, 1, tzinfo=UTC)


def test_bad_exit_code_is_dropped_and_reported(kube: dict[str, Any]) -> None:
    raw = copy.deepcopy(kube["pods"][0])
    raw["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] = "one-three-seven"
    raw["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"] = "later"
    pod = parse_object(raw, K8sPod, "pod")
    assert pod.status is not None and pod.status.container_statuses is not None
    terminated = pod.status.container_statuses[0].state.terminated  # type: ignore[union-attr]
    assert terminated is not None
    assert terminated.exit_code is None and terminated.finished_at is None
    assert terminated.reason == "OOMKilled"
    problems = pod.parse_problems()
    assert any(p.startswith("status.containerStatuses[0].state.terminated.exitCode: ") for p in problems)
    assert any(
        p.startswith("status.containerStatuses[0].state.terminated.finishedAt: unparsable timestamp 'later'")
        for p in problems
    )


def test_node(kube: dict[str, Any]) -> None:
    node = parse_object(kube["nodes"][0], K8sNode, "node")
    assert node.metadata is not None and node.metadata.name == "gpu-node-a1"
    assert node.metadata.labels == {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}
    assert node.spec is not None and node.spec.taints == [] and node.spec.unschedulable is False
    ready = node.condition("Ready")
    assert ready is not None and ready.status == "True" and ready.reason == "KubeletReady"
    assert ready.last_heartbeat_time == datetime(2026, 11, 30, 12, tzinfo=UTC)
    memory = node.condition("MemoryPressure")
    assert memory is not None and memory.status == "False"
    assert node.condition("PIDPressure") is None
    assert node.status is not None and node.status.capacity is not None
    assert quantity_to_bytes(node.status.capacity["memory"]) == 2113683332 * 1024
    assert node.status.capacity["nvidia.com/gpu"] == "8"
    assert node.status.allocatable is None


def test_node_taints() -> None:
    node = K8sNode.model_validate(
        {
            "spec": {
                "unschedulable": True,
                "taints": [
                    {
                        "key": "node.kubernetes.io/unreachable",
                        "effect": "NoExecute",
                        "timeAdded": "2026-11-30T10:00:00Z",
                    }
                ],
            }
        }
    )
    assert node.spec is not None and node.spec.taints is not None
    taint = node.spec.taints[0]
    assert (
        taint.key == "node.kubernetes.io/unreachable" and taint.effect == "NoExecute" and taint.value is None
    )
    assert taint.time_added == datetime(2026, 11, 30, 10, tzinfo=UTC)
    assert node.condition("Ready") is None


EVENTS = {
    "kind": "EventList",
    "apiVersion": "v1",
    "metadata": {"resourceVersion": "1"},
    "items": [
        {
            "metadata": {"name": "p.1", "namespace": "runai-speech"},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "runai-speech", "uid": "u1"},
            "reason": "BackOff",
            "message": "Back-off restarting failed container main in pod p",
            "type": "Warning",
            "count": 7,
            "firstTimestamp": "2026-11-30T10:00:00Z",
            "lastTimestamp": "2026-11-30T10:30:00Z",
            "source": {"component": "kubelet", "host": "gpu-node-a1"},
        },
        {
            "metadata": {"name": "n.1"},
            "involvedObject": {"kind": "Node", "name": "gpu-node-a1"},
            "reason": "OOMKilling",
            "message": "Memory cgroup out of memory: Killed process 4242 (python)",
            "type": "Warning",
            "eventTime": "2026-11-30T10:31:00.123456Z",
            "firstTimestamp": None,
            "series": {"count": 3, "lastObservedTime": "2026-11-30T10:35:00Z"},
            "reportingComponent": "kernel-monitor",
        },
    ],
}


def test_event_list() -> None:
    events = parse_object(EVENTS, K8sEventList, "events")
    assert events.model_extra is not None and events.model_extra["kind"] == "EventList"
    assert events.items is not None and len(events.items) == 2
    first, second = events.items
    assert first.involved_object is not None and first.involved_object.uid == "u1"
    assert first.count == 7 and first.occurrences == 7
    assert first.last_timestamp == datetime(2026, 11, 30, 10, 30, tzinfo=UTC)
    assert first.source is not None and first.source.host == "gpu-node-a1"
    assert first.event_time is None and first.series is None
    assert second.involved_object is not None and second.involved_object.kind == "Node"
    assert second.first_timestamp is None
    assert second.event_time == datetime(2026, 11, 30, 10, 31, 0, 123456, tzinfo=UTC)
    assert second.series is not None and second.series.last_observed_time == datetime(
        2026, 11, 30, 10, 35, tzinfo=UTC
    )
    assert second.occurrences == 3 and second.count is None
    assert second.reporting_component == "kernel-monitor"


def test_event_page_keeps_good_items() -> None:
    body = copy.deepcopy(EVENTS)
    body["items"].insert(1, "not an event")
    body["items"][0]["count"] = {"bad": 1}
    page = parse_page(body, "items", K8sEvent)
    assert [e.reason for e in page.items] == ["BackOff", "OOMKilling"]
    assert page.items[0].count is None and page.items[0].occurrences is None
    messages = [p.message for p in page.problems]
    assert messages[0].startswith("items[0].count: ")
    assert messages[1] == "items[1]: expected an object, got a string"


def test_unknown_pod_phase_and_missing_fields() -> None:
    pod = parse_object({"status": {"phase": "Hibernating"}}, K8sPod, "pod")
    assert pod.status is not None and pod.status.phase == "Hibernating" and pod.status.phase not in POD_PHASES
    assert pod.metadata is None and pod.spec is None
    assert pod.status.container_statuses is None


def test_huge_message_field() -> None:
    big = "E" * 1_000_000
    event = parse_object({"message": big, "reason": "Failed"}, K8sEvent, "event")
    assert event.message == big and event.parse_problems() == []
