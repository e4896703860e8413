"""Run:ai models, timestamps and tolerant page parsing, against the example case bundles."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from core.models import (
    METRIC_TYPES,
    SEED_EXTRA_PHASES,
    TERMINAL_PHASES,
    WORKLOAD_PHASES,
    ApiErrorBody,
    Cluster,
    HistoryRecord,
    MetricSample,
    MetricsResponse,
    Project,
    QuantityError,
    ResourceSet,
    RunaiPod,
    ShapeError,
    Workload,
    WorkloadEvent,
    WorkloadSpecDoc,
    parse_json,
    parse_list,
    parse_object,
    parse_page,
    parse_timestamp,
)
from tests.paths import CASES

CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"


def load_entry(name: str) -> dict[str, Any]:
    bundle = json.loads((CASES / f"{name}.json").read_text())
    return bundle["workloads"][0]


@pytest.fixture(scope="module")
def oom() -> dict[str, Any]:
    return load_entry("example-oom")


@pytest.fixture(scope="module")
def preempted() -> dict[str, Any]:
    return load_entry("example-preempted")


@pytest.fixture(scope="module")
def image_pull() -> dict[str, Any]:
    return load_entry("example-image-pull")


# --- known-value sets -------------------------------------------------------------------------------------


def test_phase_sets() -> None:
    assert len(WORKLOAD_PHASES) == 14
    assert {"Failed", "Completed", "Stopped", "Pending", "Degraded"} <= WORKLOAD_PHASES
    assert {"Crashed", "Succeeded", "Suspended"} == SEED_EXTRA_PHASES
    assert not SEED_EXTRA_PHASES & WORKLOAD_PHASES
    assert {"Failed", "Completed", "Stopped", "Crashed", "Succeeded"} == TERMINAL_PHASES
    assert "CPU_MEMORY_LIMIT_BYTES" in METRIC_TYPES and len(METRIC_TYPES) == 9


# --- workload -----------------------------------------------------------------------------------------------


def test_oom_workload(oom: dict[str, Any]) -> None:
    wl = parse_object(oom["workload"], Workload, "workload")
    assert wl.id == "9c272e2c-4cbd-59c9-ad76-2b982958772c"
    assert wl.name == "whisper-ft"
    assert wl.phase == "Failed"
    assert wl.k8s_phase == "Failed"
    assert wl.cluster_id == CLUSTER
    assert wl.project_name == "speech"
    assert wl.project_id == "77"
    assert wl.namespace == "runai-speech"
    assert wl.phase_updated_at == datetime(2026, 11, 30, 11, 25, tzinfo=UTC)
    assert wl.k8s_phase_updated_at == datetime(2026, 11, 30, 11, 25, tzinfo=UTC)
    assert wl.deleted_at is None and wl.completed_at is None
    assert wl.requested_pods is not None and wl.requested_pods.number == 1
    assert wl.requested_pods.parallelism is None
    assert wl.total_running_time_seconds == 3600
    assert wl.preemptible is True
    assert wl.images == ["nvcr.io/nvidia/pytorch:24.05-py3"]
    assert wl.pending_scheduling_messages == []
    resources = wl.pods_requested_resources
    assert resources is not None
    assert resources.memory_limit_bytes() == 25769803776
    assert resources.memory_request_bytes() == 25769803776
    assert resources.gpu is not None and resources.gpu.request == 1 and resources.gpu.limit is None
    assert resources.cpu is not None and resources.cpu.limit == 8
    assert wl.allocated_resources is not None and wl.allocated_resources.memory_bytes() == 0
    assert wl.missing_required() == []
    assert wl.parse_problems() == []
    # A key the model does not declare is kept.
    assert wl.model_extra == {"tenantId": 1001}


def test_workload_wire_names_round_trip(oom: dict[str, Any]) -> None:
    wl = Workload.model_validate(oom["workload"])
    dumped = wl.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert dumped["k8sPhase"] == "Failed"
    assert dumped["k8sPhaseUpdatedAt"] == "2026-11-30T11:25:00Z"
    assert dumped["phaseUpdatedAt"] == "2026-11-30T11:25:00Z"
    assert dumped["tenantId"] == 1001
    assert "k8SPhase" not in dumped


def test_workload_by_python_name() -> None:
    wl = Workload(project_name="nlp", k8s_phase="Running")
    assert wl.project_name == "nlp" and wl.k8s_phase == "Running"


def test_unknown_phase_kept_as_string() -> None:
    wl = parse_object({"id": "a", "phase": "Hibernating"}, Workload, "workload")
    assert wl.phase == "Hibernating"
    assert wl.phase not in WORKLOAD_PHASES


def test_missing_required_names_wire_keys() -> None:
    wl = parse_object({"name": "x", "phase": ""}, Workload, "workload")
    assert wl.missing_required() == ["id", "clusterId", "projectName", "phase"]
    assert wl.phase_updated_at is None and wl.conditions is None and wl.namespace is None


def test_project_id_as_number_is_text() -> None:
    wl = parse_object({"projectId": 77, "departmentId": 1}, Workload, "workload")
    assert wl.project_id == "77" and wl.department_id == "1"


def test_wrong_typed_field_dropped_rest_kept(oom: dict[str, Any]) -> None:
    raw = copy.deepcopy(oom["workload"])
    raw["runningPods"] = "lots"
    raw["conditions"] = [{"type": "Ready", "status": "False"}, "garbage", {"type": "Other"}]
    raw["requestedPods"] = ["not", "an", "object"]
    before = copy.deepcopy(raw)
    wl = parse_object(raw, Workload, "workload")
    assert raw == before  # the caller's body is not modified
    assert wl.running_pods is None
    assert wl.requested_pods is None
    assert wl.conditions is not None and [c.type for c in wl.conditions] == ["Ready", "Other"]
    assert wl.name == "whisper-ft" and wl.phase == "Failed"
    problems = wl.parse_problems()
    assert any(p.startswith("runningPods: ") and "'lots'" in p for p in problems)
    assert any(p.startswith("conditions[1]: ") for p in problems)
    assert any(p.startswith("requestedPods: ") for p in problems)


def test_memory_helpers_raise_on_malformed_quantity() -> None:
    resources = ResourceSet.model_validate({"cpuMemory": {"request": "24Gx", "limit": "1.5Gi"}})
    with pytest.raises(QuantityError, match="'24Gx'"):
        resources.memory_request_bytes()
    assert resources.memory_limit_bytes() == 1610612736
    assert ResourceSet().memory_limit_bytes() is None
    assert ResourceSet.model_validate({"cpuMemory": {}}).memory_request_bytes() is None


def test_gpu_request_float_or_int() -> None:
    resources = ResourceSet.model_validate({"gpu": {"request": 0.5, "limit": 1}, "gpuRequestType": "portion"})
    assert resources.gpu is not None
    assert resources.gpu.request == 0.5 and isinstance(resources.gpu.request, float)
    assert resources.gpu.limit == 1 and isinstance(resources.gpu.limit, int)


def test_one_megabyte_string_field() -> None:
    big = "x" * 1_000_000
    wl = parse_object({"id": "a", "phaseMessage": big}, Workload, "workload")
    assert wl.phase_message == big
    assert wl.parse_problems() == []


def test_pending_scheduling_messages() -> None:
    wl = parse_object(
        {
            "pendingSchedulingMessages": [
                {"nodePool": "default", "reason": "NotEnoughGPUs", "userMessage": "m"}
            ]
        },
        Workload,
        "workload",
    )
    assert wl.pending_scheduling_messages is not None
    message = wl.pending_scheduling_messages[0]
    assert (message.node_pool, message.reason, message.user_message) == ("default", "NotEnoughGPUs", "m")
    assert message.org_type is None


# --- timestamps --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-30T11:25:00Z", datetime(2026, 11, 30, 11, 25, tzinfo=UTC)),
        ("2026-11-30T11:25:00.5Z", datetime(2026, 11, 30, 11, 25, 0, 500000, tzinfo=UTC)),
        ("2026-11-30T11:25:00.123456789Z", datetime(2026, 11, 30, 11, 25, 0, 123456, tzinfo=UTC)),
        ("2026-11-30T13:25:00+02:00", datetime(2026, 11, 30, 11, 25, tzinfo=UTC)),
        ("2026-11-30T06:25:00-0500", datetime(2026, 11, 30, 11, 25, tzinfo=UTC)),
        ("2026-11-30T11:25:00", datetime(2026, 11, 30, 11, 25, tzinfo=UTC)),  # naive = UTC
        ("2026-11-30 11:25:00Z", datetime(2026, 11, 30, 11, 25, tzinfo=UTC)),
        ("", None),
        (None, None),
    ],
)
def test_parse_timestamp(text: str | None, expected: datetime | None) -> None:
    parsed = parse_timestamp(text)
    assert parsed == expected
    if parsed is not None:
        assert parsed.tzinfo is not None


def test_offset_is_preserved() -> None:
    parsed = parse_timestamp("2026-11-30T13:25:00+02:00")
    assert parsed is not None and parsed.utcoffset() == timedelta(hours=2)
    assert parsed.tzinfo == timezone(timedelta(hours=2))


@pytest.mark.parametrize(
    "text", ["yesterday", "2026-13-45T00:00:00Z", "2026-11-30", "1700000000", "x" * 5000]
)
def test_bad_timestamp_becomes_none_with_problem(text: str) -> None:
    event = parse_object(
        {"createdAt": text, "type": "Warning", "message": "m", "clusterId": CLUSTER}, WorkloadEvent, "event"
    )
    assert event.created_at is None
    assert event.message == "m"
    problems = event.parse_problems()
    assert len(problems) == 1
    assert problems[0].startswith("createdAt: unparsable timestamp ")
    assert text[:20] in problems[0]
    assert len(problems[0]) < 300


def test_bad_timestamp_via_model_validate_does_not_raise() -> None:
    pod = RunaiPod.model_validate({"k8sPhaseUpdatedAt": "soon", "name": "p"})
    assert pod.k8s_phase_updated_at is None
    assert pod.parse_problems() == [
        "k8sPhaseUpdatedAt: unparsable timestamp 'soon' (not an ISO-8601 timestamp)"
    ]


# --- events, spec, pods, history, metrics ------------------------------------------------------------------


def test_events_page(image_pull: dict[str, Any]) -> None:
    page = parse_page({"events": image_pull["events"], "next": None}, "events", WorkloadEvent)
    assert page.next is None and page.problems == []
    assert [e.reason for e in page.items] == ["Failed", "BackOff"]
    first = page.items[0]
    assert first.type == "Warning"
    assert first.source == "kubelet"
    assert first.message is not None and "429 Too Many Requests" in first.message
    assert first.created_at == datetime(2026, 11, 30, 11, 54, tzinfo=UTC)
    assert first.involved_object is not None
    assert (first.involved_object.kind, first.involved_object.name) == ("Pod", "tts-train-0-0")
    assert first.involved_object.namespace == "runai-speech"


def test_preempted_event(preempted: dict[str, Any]) -> None:
    event = parse_object(preempted["events"][0], WorkloadEvent, "event")
    assert event.reason == "Evict"
    assert event.involved_object is not None and event.involved_object.kind == "PodGroup"
    assert event.source == "runai-scheduler"


def test_spec_document(oom: dict[str, Any]) -> None:
    doc = parse_object(oom["spec"], WorkloadSpecDoc, "spec")
    assert doc.workload_id == "9c272e2c-4cbd-59c9-ad76-2b982958772c"
    assert doc.desired_phase == "Running" and doc.actual_phase == "Failed"
    assert doc.created_by == "alice@example.com"
    assert doc.model_extra is not None and doc.model_extra["requestedName"] == "whisper-ft"
    spec = doc.spec
    assert spec is not None
    assert spec.restart_policy == "Never" and spec.backoff_limit == 0
    assert spec.command == "python train_whisper.py"
    assert spec.environment_variables == [] and spec.annotations == []
    assert spec.compute is not None
    assert spec.compute.memory_limit_bytes() == 25769803776
    assert spec.compute.cpu_core_limit == 8
    assert spec.compute.gpu_portion_request == 1.0
    assert spec.storage is not None and spec.storage.pvc == [] and spec.storage.nfs is None
    assert spec.annotation("runai-submit-command") is None


def test_spec_annotations_env_storage() -> None:
    doc = parse_object(
        {
            "spec": {
                "annotations": [{"name": "runai-submit-command", "value": "runai submit x"}, {"name": "a"}],
                "environmentVariables": [
                    {"name": "A", "value": "1"},
                    {"name": "TOKEN", "secret": {"name": "s", "key": "k"}},
                    {"name": "C", "configMap": {"name": "cm", "key": "ck"}, "exclude": True},
                ],
                "storage": {
                    "pvc": [{"name": "d", "claimName": "claim", "path": "/data", "readOnly": True}],
                    "hostPath": [{"path": "/mnt", "mountPath": "/m"}],
                    "s3": [{"bucket": "b"}],
                },
                "distributedFramework": "PyTorch",
                "numWorkers": 3,
            }
        },
        WorkloadSpecDoc,
        "spec",
    )
    spec = doc.spec
    assert spec is not None
    assert spec.annotation("runai-submit-command") == "runai submit x"
    assert spec.annotation("a") is None
    env = spec.environment_variables
    assert env is not None
    assert env[1].secret is not None and (env[1].secret.name, env[1].secret.key) == ("s", "k")
    assert env[1].value is None
    assert env[2].config_map is not None and env[2].config_map.key == "ck" and env[2].exclude is True
    storage = spec.storage
    assert storage is not None and storage.pvc is not None
    assert storage.pvc[0].claim_name == "claim" and storage.pvc[0].read_only is True
    assert storage.host_path is not None and storage.host_path[0].model_extra == {
        "path": "/mnt",
        "mountPath": "/m",
    }
    assert storage.s3 is not None and storage.s3[0].bucket == "b"
    assert spec.distributed_framework == "PyTorch" and spec.num_workers == 3


def test_oom_pod(oom: dict[str, Any]) -> None:
    page = parse_page({"pods": oom["pods"]}, "pods", RunaiPod)
    assert page.problems == [] and page.next is None
    pod = page.items[0]
    assert pod.k8s_phase == "OOMKilled"
    assert pod.k8s_phase_updated_at == datetime(2026, 11, 30, 11, 25, tzinfo=UTC)
    assert pod.node_name == "gpu-node-a1"
    assert pod.containers is not None and pod.containers[0].name == "main"
    assert pod.containers[0].started_at == datetime(2026, 11, 30, 10, 30, tzinfo=UTC)
    assert pod.requested_resources is not None
    assert pod.requested_resources.memory_limit_bytes() == 25769803776
    assert pod.allocated_resources is not None and pod.allocated_resources.memory_bytes() == 25769803776
    assert pod.completed_at == datetime(2026, 11, 30, 11, 25, tzinfo=UTC)
    assert pod.measurements is None


def test_preempted_pod_has_no_node(preempted: dict[str, Any]) -> None:
    pod = parse_object(preempted["pods"][0], RunaiPod, "pod")
    assert pod.node_name is None and pod.k8s_phase == "Pending"
    assert pod.containers is not None and pod.containers[0].started_at is None


def test_history(oom: dict[str, Any]) -> None:
    page = parse_page({"records": oom["history"], "next": 4}, "records", HistoryRecord)
    assert page.next == 4 and page.problems == []
    kinds = [(r.is_event, r.is_phase_update) for r in page.items]
    assert kinds == [(False, True), (False, True), (True, False), (False, True)]
    event_record = page.items[2]
    assert event_record.spec is not None and event_record.spec.event is not None
    assert event_record.spec.event.reason == "OOMKilled"
    assert event_record.timestamp == datetime(2026, 11, 30, 11, 24, 54, tzinfo=UTC)
    last = page.items[3]
    assert last.spec is not None and last.spec.phase_update is not None
    assert last.spec.phase_update.phase == "Failed"
    assert "OOMKilled" in (last.spec.phase_update.phase_message or "")


def test_bad_timestamp_in_one_history_record_keeps_the_others(oom: dict[str, Any]) -> None:
    records = copy.deepcopy(oom["history"])
    records[3]["meta"]["creationTimestamp"] = "not-a-time"
    page = parse_page({"records": records}, "records", HistoryRecord)
    assert len(page.items) == 4
    assert [p.index for p in page.problems] == [3]
    assert page.problems[0].message.startswith("records[3].meta.creationTimestamp: unparsable timestamp")
    assert "'not-a-time'" in page.problems[0].message
    assert page.items[3].meta is not None and page.items[3].meta.creation_timestamp is None
    assert page.items[3].timestamp is None
    assert page.items[3].spec is not None and page.items[3].spec.phase_update is not None
    assert page.items[3].spec.phase_update.phase == "Failed"
    assert page.items[2].timestamp == datetime(2026, 11, 30, 11, 24, 54, tzinfo=UTC)


def test_history_timestamp_falls_back_to_event_time() -> None:
    record = HistoryRecord.model_validate(
        {"meta": {"type": "Event"}, "spec": {"event": {"createdAt": "2026-11-30T10:00:00Z"}}}
    )
    assert record.timestamp == datetime(2026, 11, 30, 10, tzinfo=UTC)
    untyped = HistoryRecord.model_validate({"spec": {"phaseUpdate": {"phase": "Running"}}})
    assert untyped.is_phase_update and not untyped.is_event


def test_metrics(oom: dict[str, Any]) -> None:
    metrics = parse_object({"measurements": oom["metrics"]}, MetricsResponse, "metrics")
    usage = metrics.series("CPU_MEMORY_USAGE_BYTES")
    assert len(usage) == 1 and usage[0].labels is None
    values = usage[0].values
    assert values is not None and len(values) == 111
    peak = max(n for n in (s.number() for s in values) if n is not None)
    assert peak == 25447681228
    assert values[0].timestamp == datetime(2026, 11, 30, 10, 30, tzinfo=UTC)
    limit = metrics.series("CPU_MEMORY_LIMIT_BYTES")[0].values
    assert limit is not None and {s.value for s in limit} == {"25769803776"}
    assert metrics.series("GPU_UTILIZATION") == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12.5", 12.5),
        ("0", 0.0),
        ("NaN", None),
        ("+Inf", None),
        ("", None),
        ("abc", None),
        (None, None),
        (3, 3.0),
    ],
)
def test_metric_sample_number(value: Any, expected: float | None) -> None:
    assert (
        MetricSample.model_validate({"value": value, "timestamp": "2026-11-30T10:00:00Z"}).number()
        == expected
    )


def test_metric_series_with_null_values() -> None:
    metrics = parse_object(
        {"measurements": [{"type": "POD_COUNT", "labels": {"a": "b"}, "values": None}]},
        MetricsResponse,
        "metrics",
    )
    assert metrics.measurements is not None
    assert metrics.measurements[0].values is None and metrics.measurements[0].labels == {"a": "b"}


def test_clusters_and_projects() -> None:
    page = parse_list(
        [{"uuid": CLUSTER, "name": "c", "version": "2.24.0", "lastLiveness": "2026-11-30T11:59:00Z"}, "junk"],
        Cluster,
        "clusters",
    )
    assert page.items[0].uuid == CLUSTER and page.items[0].version == "2.24.0"
    assert page.items[0].last_liveness == datetime(2026, 11, 30, 11, 59, tzinfo=UTC)
    assert (
        page.problems[0].index == 1
        and page.problems[0].message == "clusters[1]: expected an object, got a string"
    )
    projects = parse_page(
        {"projects": [{"name": "nlp", "id": 5, "clusterId": CLUSTER, "status": {"namespace": "team-nlp"}}]},
        "projects",
        Project,
    )
    project = projects.items[0]
    assert project.id == "5"
    assert project.status is not None and project.status.namespace == "team-nlp"


def test_error_body() -> None:
    body = parse_object({"code": 404, "message": "workload not found"}, ApiErrorBody, "error")
    assert body.code == 404 and body.details is None


# --- page envelope -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ([], "expected an object with a 'workloads' list, got a list"),
        ("text", "expected an object with a 'workloads' list, got a string"),
        (None, "got null"),
        ({"code": 500, "message": "boom"}, "got an object without 'workloads' (keys: 'code, message')"),
        ({"workloads": None}, "got 'workloads': null"),
        ({"workloads": {"a": 1}}, "got 'workloads': an object"),
        ({"workloads": [], "next": "ten"}, "'next' must be a non-negative integer offset, got 'ten'"),
        ({"workloads": [], "next": True}, "'next'"),
        ({"workloads": [], "next": -1}, "'next'"),
        ({"workloads": [], "next": 1.5}, "'next'"),
    ],
)
def test_page_shape_errors(body: Any, fragment: str) -> None:
    with pytest.raises(ShapeError) as caught:
        parse_page(body, "workloads", Workload)
    assert fragment in str(caught.value)


@pytest.mark.parametrize(("raw", "expected"), [(50, 50), ("50", 50), (0, 0), (None, None)])
def test_page_next(raw: Any, expected: int | None) -> None:
    assert parse_page({"workloads": [], "next": raw}, "workloads", Workload).next == expected
    assert parse_page({"workloads": []}, "workloads", Workload).next is None


def test_bad_items_do_not_lose_the_page(oom: dict[str, Any], preempted: dict[str, Any]) -> None:
    broken = copy.deepcopy(preempted["workload"])
    broken["phaseUpdatedAt"] = "garbage"
    broken["requestedPods"] = {"number": "many"}
    body = {"workloads": [oom["workload"], 42, broken, ["x"]], "next": "3"}
    page = parse_page(body, "workloads", Workload)
    assert page.next == 3
    assert [w.name for w in page.items] == ["whisper-ft", "hp-search-17"]
    messages = {p.index: [] for p in page.problems}
    for problem in page.problems:
        messages[problem.index].append(problem.message)
    assert messages[1] == ["workloads[1]: expected an object, got a number"]
    assert messages[3] == ["workloads[3]: expected an object, got a list"]
    assert any(
        m.startswith("workloads[2].phaseUpdatedAt: unparsable timestamp 'garbage'") for m in messages[2]
    )
    assert any(m.startswith("workloads[2].requestedPods.number: ") for m in messages[2])
    assert page.items[1].requested_pods is not None and page.items[1].requested_pods.number is None
    assert page.items[1].phase_updated_at is None and page.items[1].phase == "Pending"


def test_parse_object_shape_error() -> None:
    with pytest.raises(ShapeError, match=r"^workload 9c27: expected an object, got a list$"):
        parse_object([], Workload, "workload 9c27")


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b'{"workloads": [', "malformed JSON at line 1"),
        ("not json", "malformed JSON"),
        (b"\xff\xfe\x00garbage", "workloads"),
        ("[" * 100_000, "workloads"),
    ],
)
def test_parse_json_errors(raw: bytes | str, fragment: str) -> None:
    with pytest.raises(ShapeError) as caught:
        parse_json(raw, "workloads")
    assert fragment in str(caught.value)
    assert str(caught.value).startswith("workloads: ")


def test_hostile_text_in_problem_is_escaped() -> None:
    wl = parse_object({"createdAt": "\x1b]8;;http://evil\x07click\u202e"}, Workload, "workload")
    (problem,) = wl.parse_problems()
    assert "\x1b" not in problem and "\u202e" not in problem and "\x07" not in problem
