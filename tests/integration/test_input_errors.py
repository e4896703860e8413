"""Issue 8 item 6: out-of-range and hostile input gets a message naming what is wrong, never "internal error".

Driven through the real command line (`tui.cli.main`, in process) on case bundles served by the simulator.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.fault_rig import OOM_CASE, OOM_CLUSTER, OOM_ID
from tui.cli import main

BASE = ["diagnose", "--cluster-id", OOM_CLUSTER]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err, captured.err
    return code, captured.out, captured.err


def _case(tmp_path: Path, change: Any = None, name: str = "case.json") -> Path:
    data = json.loads(OOM_CASE.read_text(encoding="utf-8"))
    if change is not None:
        change(data)
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "workload_id",
    ["../../api/v1/secrets", "a" * 10_000, "\x1b[31mred\x1b[0m", "id with spaces", "x/y", "%2e%2e", ""],
    ids=["path", "10k", "escapes", "spaces", "slash", "encoded", "empty-after-strip"],
)
def test_an_invalid_workload_id_is_a_usage_error(
    workload_id: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if workload_id == "":
        workload_id = "   "
    code, out, err = _run([*BASE, "--case", str(_case(tmp_path)), "--workload-id", workload_id], capsys)
    assert code == 2 and out == ""
    assert "--workload-id" in err or "workload id" in err
    assert "\x1b" not in err and len(err) < 2000


@pytest.mark.parametrize(
    ("now", "words"),
    [
        ("0001-01-01T00:00:00Z", "year 1 is outside 1900-2999"),
        ("0001-01-01T00:30:00+01:00", "cannot be expressed in UTC"),
        ("9999-12-31T23:59:59-01:00", "cannot be expressed in UTC"),
        ("yesterday", "is not an ISO-8601 time"),
    ],
)
def test_an_unusable_now_is_a_usage_error(
    now: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run([*BASE, "--case", str(_case(tmp_path)), "--workload-id", OOM_ID, "--now", now], capsys)
    assert code == 2 and "--now" in err and words in err


@pytest.mark.parametrize(
    ("captured", "words"),
    [
        ("0001-01-01T00:00:00Z", "capturedAt (0001-01-01T00:00:00+00:00) cannot be the time of a diagnosis"),
        ("0001-01-01T00:30:00+01:00", "capturedAt: not an ISO-8601 timestamp"),
    ],
)
def test_a_captured_at_so_early_the_lookback_underflows_is_named(
    captured: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _case(tmp_path, lambda d: d.update(capturedAt=captured))
    code, _, err = _run([*BASE, "--case", str(path), "--workload-id", OOM_ID], capsys)
    assert code == 1 and words in err


def test_a_damaged_gzip_bundle_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    packed = bytearray(gzip.compress(OOM_CASE.read_bytes()))
    packed[40:60] = bytes(b ^ 0xFF for b in packed[40:60])
    path = tmp_path / "damaged.json.gz"
    path.write_bytes(bytes(packed))
    code, _, err = _run([*BASE, "--case", str(path), "--workload-id", OOM_ID], capsys)
    assert code == 1 and "damaged gzip data" in err and str(path) in err


def test_bundle_problems_at_the_top_of_the_file_are_the_files_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `$` (a JSON path's top) means nothing to a user: the message names the file and the problem.
    absent = tmp_path / "absent.json"
    code, _, err = _run([*BASE, "--case", str(absent), "--workload-id", OOM_ID], capsys)
    assert code == 1 and f"{absent}: file not found" in err and "$" not in err
    no_format = _case(tmp_path, lambda data: data.pop("format"))
    code, _, err = _run([*BASE, "--case", str(no_format), "--workload-id", OOM_ID], capsys)
    assert code == 1 and f"{no_format}: missing required key 'format'" in err and "$" not in err
    no_id = _case(tmp_path, lambda data: data["workloads"][0]["workload"].pop("id"), name="no-id.json")
    code, _, err = _run([*BASE, "--case", str(no_id), "--workload-id", OOM_ID], capsys)
    assert code == 1 and "workloads[0].workload" in err and "missing required key 'id'" in err


def test_a_metric_value_of_5000_digits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # As a JSON number the bundle cannot be decoded, and the message says why; as text the report goes on.
    digits = "9" * 5000
    text = json.loads(OOM_CASE.read_text(encoding="utf-8"))
    text["workloads"][0]["metrics"][0]["values"][0]["value"] = "PLACEHOLDER"
    as_number = tmp_path / "number.json"
    as_number.write_text(json.dumps(text).replace('"PLACEHOLDER"', digits), encoding="utf-8")
    code, _, err = _run([*BASE, "--case", str(as_number), "--workload-id", OOM_ID], capsys)
    assert code == 1 and "integer literal longer than 4,300 digits" in err
    as_text = tmp_path / "text.json"
    as_text.write_text(json.dumps(text).replace("PLACEHOLDER", digits), encoding="utf-8")
    code, out, _ = _run([*BASE, "--case", str(as_text), "--workload-id", OOM_ID], capsys)
    assert code == 0 and out.startswith("Category: OOM_KILLED")


def _edge_times(data: dict[str, Any]) -> None:
    entry = data["workloads"][0]
    entry["workload"]["createdAt"] = "0001-01-01T00:00:00+01:00"
    entry["workload"]["completedAt"] = "9999-12-31T23:59:59-01:00"
    entry["events"][0]["createdAt"] = "0001-01-01T00:00:00Z"
    entry["history"][0]["meta"]["creationTimestamp"] = "9999-12-31T23:59:59Z"
    entry["pods"][0]["createdAt"] = "0001-01-01T00:30:00+01:00"


def test_timestamps_at_the_edges_of_the_calendar_do_not_stop_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _case(tmp_path, _edge_times)
    code, out, _ = _run([*BASE, "--case", str(path), "--workload-id", OOM_ID, "--format", "json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["schema"] == "runai-triage/report@1" and report["workload"]["id"] == OOM_ID


@pytest.mark.parametrize("depth", [600, 990, 5000])
def test_deep_json_in_every_runai_answer_gives_a_report(
    depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def plant(data: dict[str, Any]) -> None:
        data["faults"] = [
            {"match": f"GET {path}", "status": 200, "times": 9, "kind": "deep-json", "depth": depth, "field": field}
            for path, field in [
                ("/api/v1/workloads/{id}", "phaseMessage"),
                ("/api/v1/workloads/{id}/events", "message"),
                ("/api/v1/workloads/trainings/{id}", "spec"),
                ("/api/v1/workloads/{id}/pods", "nodeName"),
                ("/api/v1/workloads/{id}/history", "meta"),
                ("/api/v1/workloads/{id}/metrics", "labels"),
            ]
        ]

    path = _case(tmp_path, plant)
    code, out, _ = _run([*BASE, "--case", str(path), "--workload-id", OOM_ID, "--format", "json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["outcome"] == "diagnosed" and report["workload"]["id"] == OOM_ID


def test_a_base_url_with_a_port_out_of_range_is_named(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RUNAI_BEARER_TOKEN", "a-token")
    code, _, err = _run([*BASE, "--base-url", "http://127.0.0.1:99999", "--workload-id", OOM_ID], capsys)
    assert code == 1 and "port 99999 is out of range (1-65535)" in err


@pytest.mark.parametrize("kind", ["garbage-status", "truncated", "html"])
def test_a_workload_read_answered_badly_is_not_a_network_problem(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def fault(data: dict[str, Any]) -> None:
        data["faults"] = [{"match": "GET /api/v1/workloads/{id}", "status": 200, "times": 9, "kind": kind}]

    code, _, err = _run([*BASE, "--case", str(_case(tmp_path, fault)), "--workload-id", OOM_ID], capsys)
    assert code == 1
    assert "VPN" not in err.replace("not a network or VPN problem", "")
    assert "the network" not in err
    assert "was reached" in err or "HTML page" in err


# -- one voice for every bad value (issue 27, point 11) ----------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["diagnose", "--demo", "--cluster-id", OOM_CLUSTER, "--workload-id", OOM_ID, "--lookback", "-5d"],
         "--lookback '-5d' is not understood"),
        (["scan", "--demo", "--cluster-id", OOM_CLUSTER, "--since", "-2h"], "--since '-2h' is not understood"),
        (["scan", "--demo", "--cluster-id", OOM_CLUSTER, "--concurrency", "abc"],
         "argument --concurrency: invalid int value: 'abc'"),
        (["diagnose", "--demo", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
    ],
)
def test_a_bad_value_gets_the_tools_own_line_not_the_usage(
    args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own checks end the program
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    out, err = captured.out, captured.err
    assert code == 2 and out == ""
    assert words in err and "usage:" not in err and f"See `runai-triage {args[0]} --help`" in err, err


def test_a_base_url_that_is_not_a_url_is_said_before_credentials(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("RUNAI_BASE_URL", "RUNAI_BEARER_TOKEN", "RUNAI_API_TOKEN", "RUNAI_CLIENT_ID", "RUNAI_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RUNAI_CLI_CONFIG_PATH", str(tmp_path))
    code, out, err = _run(["diagnose", "--base-url", "not-a-url", "--cluster-id", "c", "--name", "x", "--project",
                           "y"], capsys)
    assert code == 1 and out == ""
    assert "--base-url 'not-a-url' is not an http(s) URL" in err and "credentials for" not in err, err


def test_the_top_level_help_says_a_cluster_is_an_id_or_a_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    shown = capsys.readouterr().out
    assert "--cluster-id CLUSTER" in shown and "--cluster-id UUID" not in shown
