"""Case bundle loading: the example cases load, and each kind of broken bundle names its problem and place."""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from core.sim.bundle import BundleError, load_bundle, parse_bundle
from tests.paths import CASES

WID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"


def _good() -> dict[str, Any]:
    return {
        "format": "runai-triage/case@1",
        "capturedAt": "2026-11-30T12:00:00Z",
        "workloads": [
            {
                "workload": {
                    "id": "w-0",
                    "name": "a",
                    "clusterId": "c",
                    "projectName": "p",
                    "phase": "Failed",
                    "phaseUpdatedAt": "2026-11-30T11:00:00Z",
                },
                "history": [{"meta": {"creationTimestamp": "2026-11-30T11:00:00Z"}, "spec": {}}],
                "metrics": [
                    {
                        "type": "GPU_UTILIZATION",
                        "values": [{"value": "1", "timestamp": "2026-11-30T11:00:00Z"}],
                    }
                ],
            },
            {
                "workload": {
                    "id": "w-1",
                    "name": "b",
                    "clusterId": "c",
                    "projectName": "p",
                    "phase": "Failed",
                    "phaseUpdatedAt": "2026-11-30T11:00:00Z",
                }
            },
        ],
        "kubernetes": {
            "pods": [{"metadata": {"name": "p", "namespace": "ns"}}],
            "logs": [{"namespace": "ns", "pod": "p", "container": "c", "previous": False, "text": "x"}],
            "forbidden": ["events"],
        },
        "faults": [{"match": "GET /api/v1/workloads/{id}", "status": 503, "times": 1}],
    }


Mutation = Callable[[dict[str, Any]], None]


def _set(path: list[Any], value: Any) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        cur: Any = d
        for key in path[:-1]:
            cur = cur[key]
        cur[path[-1]] = value

    return mutate


def _del(path: list[Any]) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        cur: Any = d
        for key in path[:-1]:
            cur = cur[key]
        del cur[path[-1]]

    return mutate


W0 = ["workloads", 0]
BROKEN: list[tuple[str, Mutation, str, str]] = [
    ("no format", _del(["format"]), "$", "missing required key 'format'"),
    (
        "other format",
        _set(["format"], "runai-triage/case@2"),
        "format",
        "unsupported format 'runai-triage/case@2'; this tool reads runai-triage/case@1",
    ),
    ("no capturedAt", _del(["capturedAt"]), "$", "missing required key 'capturedAt'"),
    (
        "bad capturedAt",
        _set(["capturedAt"], "yesterday"),
        "capturedAt",
        "not an ISO-8601 timestamp: yesterday",
    ),
    ("no workloads", _del(["workloads"]), "$", "missing required key 'workloads'"),
    ("workloads not list", _set(["workloads"], {"a": 1}), "workloads", "expected a list, got an object"),
    ("entry not object", _set(["workloads", 1], "w-1"), "workloads[1]", "expected an object, got a string"),
    ("no workload", _del([*W0, "workload"]), "workloads[0]", "missing required key 'workload'"),
    ("no id", _del([*W0, "workload", "id"]), "workloads[0].workload", "missing required key 'id'"),
    (
        "no projectName",
        _del([*W0, "workload", "projectName"]),
        "workloads[0].workload",
        "missing required key 'projectName'",
    ),
    (
        "phase not string",
        _set([*W0, "workload", "phase"], 3),
        "workloads[0].workload.phase",
        "expected a non-empty string, got a number",
    ),
    (
        "bad phaseUpdatedAt",
        _set(["workloads", 1, "workload", "phaseUpdatedAt"], "soon"),
        "workloads[1].workload.phaseUpdatedAt",
        "not an ISO-8601 timestamp: soon",
    ),
    (
        "duplicate id",
        _set(["workloads", 1, "workload", "id"], "w-0"),
        "workloads[1].workload.id",
        "duplicate workload id 'w-0' (also workloads[0])",
    ),
    (
        "events not list",
        _set([*W0, "events"], "none"),
        "workloads[0].events",
        "expected a list or null, got a string",
    ),
    ("pods not list", _set([*W0, "pods"], None), "workloads[0].pods", "expected a list, got null"),
    (
        "history not list",
        _set([*W0, "history"], {}),
        "workloads[0].history",
        "expected a list, got an object",
    ),
    (
        "history without timestamp",
        _del([*W0, "history", 0, "meta", "creationTimestamp"]),
        "workloads[0].history[0].meta",
        "missing required key 'creationTimestamp'",
    ),
    (
        "metrics not list",
        _set([*W0, "metrics"], "x"),
        "workloads[0].metrics",
        "expected a list, got a string",
    ),
    (
        "series without type",
        _del([*W0, "metrics", 0, "type"]),
        "workloads[0].metrics[0]",
        "missing required key 'type'",
    ),
    (
        "value without timestamp",
        _del([*W0, "metrics", 0, "values", 0, "timestamp"]),
        "workloads[0].metrics[0].values[0]",
        "missing required key 'timestamp'",
    ),
    (
        "unknown forbidden",
        _set(["kubernetes", "forbidden"], ["events", "secrets"]),
        "kubernetes.forbidden[1]",
        "unknown resource name 'secrets'",
    ),
    (
        "log without text",
        _del(["kubernetes", "logs", 0, "text"]),
        "kubernetes.logs[0]",
        "missing required key 'text'",
    ),
    (
        "log without container",
        _del(["kubernetes", "logs", 0, "container"]),
        "kubernetes.logs[0]",
        "missing required key 'container'",
    ),
    (
        "bad fault match",
        _set(["faults", 0, "match"], "/api/v1/workloads"),
        "faults[0].match",
        "bad match /api/v1/workloads",
    ),
    (
        "lowercase method",
        _set(["faults", 0, "match"], "get /api/v1/x"),
        "faults[0].match",
        "bad match get /api/v1/x",
    ),
    (
        "status not int",
        _set(["faults", 0, "status"], "503"),
        "faults[0].status",
        "expected an integer, got a string: 503",
    ),
    (
        "times not int",
        _set(["faults", 0, "times"], 1.5),
        "faults[0].times",
        "expected an integer, got a number: 1.5",
    ),
    (
        "times bool",
        _set(["faults", 0, "times"], True),
        "faults[0].times",
        "expected an integer, got a boolean: true",
    ),
]


@pytest.mark.parametrize(("label", "mutate", "path", "problem"), BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_bundles_name_path_and_problem(label: str, mutate: Mutation, path: str, problem: str) -> None:
    data = _good()
    mutate(data)
    with pytest.raises(BundleError) as err:
        parse_bundle(data, source="case.json")
    assert err.value.path == path
    assert err.value.problem == problem
    assert str(err.value).startswith(f"case.json: {problem}" if path == "$" else f"case.json: {path}: {problem}")


def test_root_must_be_an_object() -> None:
    with pytest.raises(BundleError) as err:
        parse_bundle([1, 2], source="x.json")
    assert str(err.value) == "x.json: expected a JSON object at the top level, got a list"


def test_first_error_in_document_order_wins() -> None:
    data = _good()
    _del(["workloads", 1, "workload", "name"])(data)
    _set(["kubernetes", "forbidden"], ["secrets"])(data)
    _del(["workloads", 0, "workload", "clusterId"])(data)
    with pytest.raises(BundleError) as err:
        parse_bundle(data)
    assert (err.value.path, err.value.problem) == (
        "workloads[0].workload",
        "missing required key 'clusterId'",
    )


def test_hint_is_added_when_useful() -> None:
    data = _good()
    data["capturedAt"] = "30/11/2026"
    with pytest.raises(BundleError) as err:
        parse_bundle(data, source="f")
    assert (
        str(err.value)
        == "f: capturedAt: not an ISO-8601 timestamp: 30/11/2026 (write it like 2026-11-30T12:00:00Z)"
    )


def test_huge_and_hostile_values_are_shortened_and_escaped() -> None:
    data = _good()
    data["format"] = "\x1b[31mevil" + "A" * 100_000
    with pytest.raises(BundleError) as err:
        parse_bundle(data)
    text = str(err.value)
    assert "\x1b" not in text and "\\x1b" in text
    assert len(text) < 300 and "(100009 chars)" in text


def test_examples_load_with_presence_preserved() -> None:
    bundle = load_bundle(CASES / "example-oom.json")
    assert bundle.captured_at == datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert bundle.source.endswith("example-oom.json")
    entry = bundle.workload_entry(WID)
    assert entry is not None and entry["workload"]["name"] == "whisper-ft"
    assert bundle.workload_entry("nope") is None
    assert bundle.kubernetes is not None and bundle.kubernetes["logs"][0]["container"] == "main"
    assert bundle.clusters[0]["name"] == "example-cluster" and bundle.projects == [] and bundle.faults == []
    pull = load_bundle(CASES / "example-image-pull.json")
    assert [(f.method, f.template, f.status, f.times, f.remaining) for f in pull.faults] == [
        ("GET", "/api/v1/workloads/{id}/pods", 503, 1, 1)
    ]
    assert pull.kubernetes is None
    preempted = load_bundle(CASES / "example-preempted.json")
    assert len(preempted.workloads) == 1


def test_absent_and_null_events_stay_distinct() -> None:
    data = _good()
    data["workloads"][0]["events"] = None
    bundle = parse_bundle(data)
    first, second = bundle.workload_entry("w-0"), bundle.workload_entry("w-1")
    assert first is not None and second is not None
    assert "events" in first and first["events"] is None
    assert "events" not in second
    assert bundle.raw is data


def test_fault_fields_are_read() -> None:
    data = _good()
    data["faults"] = [
        {"match": "GET /api/v1/workloads/{id}/history", "status": 0, "times": 2, "delayMs": 1500},
        {"match": "GET /api/v1/clusters", "status": 429, "times": 1, "retryAfter": 2.5, "body": "{bad"},
    ]
    hang, limited = parse_bundle(data).faults
    assert (hang.status, hang.delay_ms, hang.remaining, hang.body) == (0, 1500, 2, None)
    assert (limited.retry_after, limited.body, limited.delay_ms) == (2.5, "{bad", None)
    assert hang.matches("GET", "/api/v1/workloads/abc/history")
    assert not hang.matches("GET", "/api/v1/workloads/abc/events")
    assert not hang.matches("POST", "/api/v1/workloads/abc/history")


def test_gzip_and_plain_files(tmp_path: Path) -> None:
    raw = json.dumps(_good()).encode()
    (tmp_path / "a.json.gz").write_bytes(gzip.compress(raw))
    (tmp_path / "b.json").write_bytes(raw)
    assert [w["workload"]["id"] for w in load_bundle(tmp_path / "a.json.gz").workloads] == ["w-0", "w-1"]
    assert load_bundle(str(tmp_path / "b.json")).source == str(tmp_path / "b.json")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'{"format": "runai-triage/case@1",\n  "capturedAt": }', "not valid JSON at line 2 column 17"),
        (b"", "not valid JSON at line 1 column 1"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b"\x1f\x8bnot really gzip", "damaged gzip data"),
    ],
)
def test_unreadable_files(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(BundleError) as err:
        load_bundle(path)
    assert err.value.path == "$"
    assert problem in err.value.problem
    assert str(err.value).startswith(f"{path}: ") and "$" not in str(err.value)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="file not found"):
        load_bundle(tmp_path / "absent.json")
    with pytest.raises(BundleError, match="is a directory"):
        load_bundle(tmp_path)


def test_bundle_error_is_a_value_error() -> None:
    data = copy.deepcopy(_good())
    data["workloads"] = None
    with pytest.raises(ValueError, match="workloads: expected a list, got null"):
        parse_bundle(data)
