"""A key an object gives twice decides nothing silently: in an API body the field is dropped and named (the
rest of the body kept), whichever way the body is read (one pass or the tolerant way, the C decoder or the
iterative one); a case bundle is refused, naming where; a recording keeps such a body as it came.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from core.diagnosis.request import DiagnosisRequest
from core.models import safe_json
from core.models.history_compact import parse_history_bytes
from core.models.json_keys import DuplicateKey
from core.models.pages import parse_object_bytes, parse_page_bytes
from core.models.runai import HistoryRecord, Workload
from core.sim.bundle import BundleError, load_bundle, parse_bundle
from tests.engine.test_rule_cases import bundle_of, diagnose_bundle, oom_story
from tests.integration.test_record import record_and_replay, verdict
from tui.cli import main as cli_main

TWICE = '"phase": "Failed", "phase": "Running"'


def _with_twice(body: str, key: str, first: str, then: str) -> str:
    doubled = body.replace(f'"{key}": "{first}"', f'"{key}": "{first}", "{key}": "{then}"', 1)
    assert doubled != body
    return doubled


# -- decoding ---------------------------------------------------------------------------------------------------
def test_different_values_become_a_marker_and_the_same_value_twice_is_kept() -> None:
    data = safe_json.loads('{"a": {"phase": "Failed", "x": 1, "phase": "Running"}, "b": 1, "b": 1}')
    marker = data["a"]["phase"]
    assert isinstance(marker, DuplicateKey) and marker.values == ["Failed", "Running"]
    assert data["a"]["x"] == 1 and data["b"] == 1
    assert "given twice" in marker.what and '"Failed", then "Running"' in marker.what


def test_the_iterative_decoder_marks_a_key_given_twice_too() -> None:
    deep = "[" * 5000 + "]" * 5000  # past the C decoder's stack: the iterative decoder reads the body
    data = safe_json.loads('{"deep": ' + deep + ', "phase": "Failed", "phase": "Running"}')
    assert isinstance(data["phase"], DuplicateKey)


@pytest.mark.parametrize("size", ["small", "large"], ids=["tolerant-path", "one-pass-size"])
def test_a_workload_body_with_phase_twice_keeps_everything_but_the_phase(size: str) -> None:
    s = oom_story("r-dup-unit", "dup-unit")
    workload = s.entry()["workload"]
    if size == "large":
        workload["annotations"] = [{"name": f"note-{i}", "value": "x" * 64} for i in range(400)]  # > 16 KiB
    body = _with_twice(json.dumps(workload), "phase", "Failed", "Running").encode()
    assert (len(body) > 16 * 1024) is (size == "large")
    parsed = parse_object_bytes(body, Workload, "workload")
    assert parsed.phase is None and parsed.name == "dup-unit" and parsed.id == workload["id"]
    [problem] = parsed.parse_problems()
    assert problem.startswith("phase: the key 'phase' is given twice") and "none of them was used" in problem


def test_a_page_with_a_key_given_twice_in_one_item_names_that_item_only() -> None:
    records = [{"meta": {"creationTimestamp": f"2026-11-30T10:{i:02d}:00Z", "type": "PhaseUpdate"},
                "spec": {"phaseUpdate": {"phase": "Running"}}} for i in range(60)] * 5
    body = json.dumps({"records": records, "next": None})
    body = body.replace('"type": "PhaseUpdate"', '"type": "PhaseUpdate", "type": "Event"', 1).encode()
    for page in (parse_history_bytes(body, max_items=500), parse_page_bytes(body, "records", HistoryRecord)):
        assert len(page.items) == 300
    page = parse_history_bytes(body, max_items=500)
    assert [p.index for p in page.problems] == [0] and "'type' is given twice" in page.problems[0].message


# -- a diagnosis over real HTTP ------------------------------------------------------------------------------------
def _served_twice(key: str, then: str) -> tuple[dict[str, Any], Any]:
    """An OOM story whose workload read answers its own body with `key` given a second value, `then`."""
    s = oom_story("r-dup", "dup-phase")
    bundle = bundle_of([s])
    workload = bundle["workloads"][0]["workload"]
    body = _with_twice(json.dumps(workload), key, workload[key], then)
    bundle["faults"] = [{"match": f"GET /api/v1/workloads/{workload['id']}", "status": 200, "times": 9, "body": body}]
    return bundle, s


async def test_a_phase_given_twice_does_not_decide_the_diagnosis() -> None:
    bundle, s = _served_twice("phase", "Running")
    report, _ = await diagnose_bundle(bundle, cluster_id=s.cluster, workload_id=s.id)
    assert report.workload.phase is None
    assert report.category is None and report.outcome != "diagnosed"  # neither "Failed" nor "Running" believed
    named = [m for m in report.missing if "'phase' is given twice" in m.why]
    assert len(named) == 1 and '"Failed", then "Running"' in named[0].why
    assert not any(m.what.startswith("workload fields") for m in report.missing)  # said once, as unreadable


async def test_an_id_given_twice_is_named_and_the_reads_go_on_at_the_id_asked_for() -> None:
    bundle, s = _served_twice("id", "another-id")
    report, requests = await diagnose_bundle(bundle, cluster_id=s.cluster, workload_id=s.id)
    assert report.category == "OOM_KILLED" and report.workload.id == s.id
    assert any("'id' is given twice" in m.why for m in report.missing)
    assert any(r.path == f"/api/v1/workloads/{s.id}/history" and r.status == 200 for r in requests)


async def test_a_recording_keeps_the_body_as_it_came_and_replays_the_same_verdict() -> None:
    raw, s = _served_twice("phase", "Running")
    bundle = parse_bundle(raw, "dup")
    request = DiagnosisRequest(cluster_id=s.cluster, workload_id=s.id, now=bundle.captured_at)
    [(original, again, recorded)] = await record_and_replay(bundle, [request])
    assert verdict(again) == verdict(original)
    assert any(TWICE in (f.get("body") or "") for f in recorded.get("faults", []))


# -- a case bundle ------------------------------------------------------------------------------------------------
def test_a_bundle_with_a_key_given_twice_is_refused_naming_where(tmp_path: Path) -> None:
    s = oom_story("r-dup-bundle", "dup-bundle")
    text = _with_twice(json.dumps(bundle_of([s])), "phase", "Failed", "Running")
    path = tmp_path / "dup.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BundleError) as refused:
        load_bundle(path)
    assert refused.value.path == "workloads[0].workload"
    assert "'phase' is given twice" in refused.value.problem and "each key once" in refused.value.problem
    code, _, err = _cli(["diagnose", "--case", str(path), "--cluster-id", s.cluster, "--workload-id", s.id])
    assert code == 1 and "workloads[0].workload" in err and "'phase' is given twice" in err and "Traceback" not in err


def test_a_bundle_giving_one_key_the_same_value_twice_loads(tmp_path: Path) -> None:
    s = oom_story("r-same-bundle", "same-bundle")
    text = _with_twice(json.dumps(bundle_of([s])), "phase", "Failed", "Failed")
    path = tmp_path / "same.json"
    path.write_text(text, encoding="utf-8")
    assert load_bundle(path).workloads[0]["workload"]["phase"] == "Failed"


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()
