"""`runai-triage record`: record a diagnosis, replay the bundle, get the same report; and nothing secret kept.

Every demo story, every shared example and every rule bundle is diagnosed through a recording tap over real
HTTP (httpx for Run:ai, the kubernetes client for Tier 2), the recording is turned into a case bundle, and that
bundle is diagnosed again from a fresh simulated tenant: the whole report must be equal (evidence, findings and
the other pods that failed on a finding's node, missing, recommendations), the memory sample count nearly.
The redaction corpus, planted in every field a bundle carries, must leave no piece of any secret in a recording.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.record import RecordingTap, recorded_bundle
from core.sim.bundle import CaseBundle, load_bundle, parse_bundle
from core.sim.demo import demo_expectations, load_demo_bundle
from core.sources.errors import ApiError, ReadOnlyViolation
from core.tenant import Tenant, open_bundle_tenant
from tests.engine.test_report_format import EXAMPLE_CLUSTER, EXAMPLES
from tests.paths import CASES
from tests.redaction.corpus import CREDENTIALS
from tests.redaction.leaks import readable, shown
from tests.redaction.planting import MARKERS, credentials_bundle
from tui.cli import main as cli_main

module_loop = pytest.mark.asyncio(loop_scope="module")


def verdict(report: Report) -> tuple[Any, ...]:
    """The fields a replay must reproduce exactly (the sample count nearly: see `samples_match`)."""
    memory = report.memory
    figures = None if memory is None else (memory.request_bytes, memory.limit_bytes, memory.peak_bytes)
    rec = report.recurrence
    return report.outcome, report.category, rec.count, rec.lookback, rec.recurring, figures


def samples_match(original: Report, again: Report) -> bool:
    """A recording keeps the points a range query returned, at the query's instants; the simulator answers the
    replayed query from them with Prometheus' 300 s staleness, so after a gap in the series up to 300 s of
    instants more can come back (deleted-pod-oom: 971 samples, replayed 981). Never fewer, and never more than
    one staleness window per window read."""
    a = original.memory.samples if original.memory is not None else None
    b = again.memory.samples if again.memory is not None else None
    if a is None or b is None or a == b:
        return a == b
    assert original.memory is not None
    step = min((float(w.get("stepSeconds") or 0) for w in original.memory.windows), default=0.0) or 1.0
    return 0 < b - a <= len(original.memory.windows) * int(300 / step) + 1


_SAMPLES = re.compile(r"\b\d+ samples\b")
# The samples' own range (issue 34): its end moves with the instants the staleness adds, as the count does.
_RANGE_END = re.compile(r"(N samples from \S+ to )\S+?(?=[\s;,)\"]|$)")


def whole(report: Report) -> dict[str, Any]:
    """The whole report as JSON, the memory sample count and the last sample's time taken out (checked apart by
    `samples_match`)."""
    text = _RANGE_END.sub(r"\1T", _SAMPLES.sub("N samples", json.dumps(report.to_json_dict())))
    data = json.loads(text)
    if data.get("memory"):
        data["memory"].pop("samples", None)
    return data


def report_diff(original: Report, again: Report) -> list[str]:
    """Where the replayed report differs from the original: top-level keys, with the two values."""
    a, b = whole(original), whole(again)
    return [f"{key}: {a.get(key)!r} != {b.get(key)!r}" for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]


async def _diagnose(tenant: Tenant, request: DiagnosisRequest) -> Report:
    return await run_to_report(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable)


async def record_and_replay(
    bundle: CaseBundle, requests: list[DiagnosisRequest]
) -> list[tuple[Report, Report, dict[str, Any]]]:
    """Each request diagnosed on `bundle` through a tap, its recording replayed from a tenant of its own."""
    tap = RecordingTap()
    results = []
    async with open_bundle_tenant(bundle, label="recorded", tap=tap) as tenant:
        secrets = tenant.runai.tokens.secrets()
        for request in requests:
            original = await _diagnose(tenant, request)
            assert tenant.captured_at is not None
            recorded, _ = recorded_bundle(
                tap.drain(), kube=tap.kube_seen, captured_at=request.now or tenant.captured_at, secrets=secrets
            )
            replay_bundle = parse_bundle(json.loads(json.dumps(recorded)), "recording")
            async with open_bundle_tenant(replay_bundle, label="replay") as replay:
                again = await _diagnose(replay, request)
            results.append((original, again, recorded))
    return results


@pytest.fixture(scope="module")
def demo_bundle() -> CaseBundle:
    return load_demo_bundle()


def _story_request(case: dict[str, Any], now: Any) -> DiagnosisRequest:
    kwargs: dict[str, Any] = {"cluster_id": case["clusterId"], "lookback": case.get("lookback") or "24h", "now": now}
    if case.get("lookup") == "id" and case.get("workloadId"):
        kwargs["workload_id"] = case["workloadId"]
    else:
        kwargs.update(name=case["name"], project=case["project"], active=case.get("intent") == "active")
    return DiagnosisRequest(**kwargs)


@module_loop
async def test_every_demo_story_replays_to_the_same_report(demo_bundle: CaseBundle) -> None:
    stories = demo_expectations()
    requests = [_story_request(case, demo_bundle.captured_at) for case in stories]
    results = await record_and_replay(demo_bundle, requests)
    mismatches = [
        (case["key"], report_diff(original, again))
        for case, (original, again, _) in zip(stories, results, strict=True)
        if report_diff(original, again) or not samples_match(original, again)
    ]
    assert mismatches == []
    # The findings' other victims on their node came back from the recorded pod list, not from nothing.
    victims = {
        case["key"]: [pod.name for f in original.findings for pod in f.other_pods or ()]
        for case, (original, _, _) in zip(stories, results, strict=True)
    }
    assert victims["xid79-16pod"] and victims["driver-mismatch"] and victims["disk-pressure-evicted"]
    # The recordings are small: one story's answers, not the tenant.
    assert max(len(recorded["workloads"]) for _, _, recorded in results) < 50


@module_loop
@pytest.mark.parametrize("name", sorted(EXAMPLES))
async def test_every_shared_example_replays_to_the_same_verdict(name: str) -> None:
    bundle = load_bundle(CASES / f"{name}.json")
    request = DiagnosisRequest(cluster_id=EXAMPLE_CLUSTER, workload_id=EXAMPLES[name], now=bundle.captured_at)
    [(original, again, recorded)] = await record_and_replay(bundle, [request])
    assert verdict(again) == verdict(original)
    if name == "example-image-pull":
        # The pods read failed once with 503 and was retried: the recording keeps that failure as a fault.
        assert [f["status"] for f in recorded["faults"]] == [503]
        assert recorded["faults"][0]["match"].endswith("/pods")


@module_loop
@pytest.mark.parametrize("path", sorted((CASES / "rules").glob("*.json")), ids=lambda p: p.stem)
async def test_every_rule_bundle_replays_to_the_same_verdict(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    bundle = parse_bundle(raw, path.name)
    request = DiagnosisRequest(now=bundle.captured_at, **raw["request"])
    [(original, again, _)] = await record_and_replay(bundle, [request])
    assert verdict(again) == verdict(original)


@module_loop
async def test_no_planted_secret_is_kept_in_any_recording() -> None:
    raw, stories = credentials_bundle(CREDENTIALS)
    bundle = parse_bundle(raw, "hostile-credentials")
    requests = [DiagnosisRequest(cluster_id=s.cluster, workload_id=s.id, now=bundle.captured_at) for s in stories]
    results = await record_and_replay(bundle, requests)
    leaks, reached = [], set()
    for cred, (original, again, recorded) in zip(CREDENTIALS, results, strict=True):
        text = readable(json.dumps(recorded), "json")
        if shown(cred.secret, text):
            leaks.append(cred.kind)
        reached |= {field for field, marker in MARKERS.items() if marker in text}
        assert verdict(again) == verdict(original), cred.kind
    assert leaks == []
    # The check means something: the text around each secret was recorded, field by field.
    assert {"workload phaseMessage", "Run:ai event message", "log text", "pod env value", "spec env value",
            "Kubernetes node event message", "node taint value"} <= reached


@pytest_asyncio.fixture
async def tapped(demo_bundle: CaseBundle) -> AsyncIterator[tuple[Tenant, RecordingTap]]:
    tap = RecordingTap()
    async with open_bundle_tenant(demo_bundle, label="tapped", tap=tap) as tenant:
        yield tenant, tap


@module_loop
async def test_no_token_header_or_kubeconfig_content_is_kept(tapped: tuple[Tenant, RecordingTap]) -> None:
    tenant, tap = tapped
    case = next(c for c in demo_expectations() if c["category"] == "NODE_FAILURE")
    await _diagnose(tenant, _story_request(case, tenant.captured_at))
    assert tenant.control_plane is not None and tap.kube_seen
    recorded, _ = recorded_bundle(tap.drain(), kube=True, captured_at=tenant.captured_at,  # type: ignore[arg-type]
                                  secrets=tenant.runai.tokens.secrets())
    text = json.dumps(recorded)
    for secret in (*tenant.runai.tokens.secrets(), tenant.control_plane.kube_token):
        assert secret not in text
    assert "Authorization" not in text and "Bearer" not in text and "/token" not in text
    assert recorded["kubernetes"]["nodes"], "the node read was recorded"


@module_loop
async def test_the_read_only_guard_still_refuses_writes_under_a_tap(tapped: tuple[Tenant, RecordingTap]) -> None:
    tenant, tap = tapped
    with pytest.raises(ReadOnlyViolation):
        await tenant.runai.http.post("/api/v1/workloads/x/suspend")
    kube = tenant.kube
    assert kube is not None
    pool = kube._api_client.rest_client.pool_manager  # the tapped entry point
    with pytest.raises(ReadOnlyViolation):
        pool.request("DELETE", f"{kube._api_client.configuration.host}/api/v1/namespaces/x/pods/y")
    assert tap.drain() == []  # a refused request is no answer, and nothing was sent


@module_loop
async def test_failed_reads_are_kept_as_faults_and_replay_the_same_way(demo_bundle: CaseBundle) -> None:
    case = next(c for c in demo_expectations() if c["category"] == "OOM_KILLED" and c.get("lookup") == "id")
    wid = case["workloadId"]
    raw = dict(demo_bundle.raw)
    raw["faults"] = [
        {"match": f"GET /api/v1/workloads/{wid}/events", "status": 500, "times": 10},  # every attempt fails
        {"match": f"GET /api/v1/workloads/{wid}/history", "status": 0, "times": 10},  # no answer at all
    ]
    bundle = parse_bundle(raw, "faulty")
    request = _story_request(case, bundle.captured_at)
    [(original, again, recorded)] = await record_and_replay(bundle, [request])
    assert verdict(again) == verdict(original)
    kept = {(f["match"].rsplit("/", 1)[-1], f["status"]) for f in recorded["faults"]}
    assert kept == {("events", 500), ("history", 0)}
    assert {m.what for m in again.missing} == {m.what for m in original.missing}


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def test_record_then_diagnose_case_from_the_command_line(tmp_path: Path) -> None:
    case = next(c for c in demo_expectations() if c.get("lookup") == "name" and c["outcome"] == "diagnosed")
    target = tmp_path / "incident.json"
    ids = ["--cluster-id", case["clusterId"], "--name", case["name"], "--project", case["project"],
           "--lookback", case.get("lookback") or "24h"]
    code, out, err = _cli(["record", "--demo", *ids, "--out", str(target), "--format", "json"])
    assert code == 0, err
    assert f"wrote {target}" in err
    recorded_report = json.loads(out)
    code, replayed, err = _cli(["diagnose", "--case", str(target), *ids, "--format", "json"])
    assert code == 0, err
    again = json.loads(replayed)
    for key in ("outcome", "category", "recurrence", "memory", "workload"):
        assert again[key] == recorded_report[key], key
    # Never over an existing file without --force; a usage error says so.
    code, _, err = _cli(["record", "--demo", *ids, "--out", str(target)])
    assert code == 2 and "--force" in err
    assert _cli(["record", "--demo", *ids, "--out", str(target), "--force"])[0] == 0


def test_record_needs_what_diagnose_needs(tmp_path: Path) -> None:
    code, _, err = _cli(["record", "--demo", "--out", str(tmp_path / "x.json")])
    assert code == 2 and "cluster id" in err
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_an_out_that_is_a_directory_is_a_usage_error_and_leaves_nothing_beside_it(
    tmp_path: Path, force: list[str]
) -> None:
    case = next(c for c in demo_expectations() if c.get("lookup") == "name" and c["outcome"] == "diagnosed")
    target = tmp_path / "reports"
    target.mkdir()
    ids = ["--cluster-id", case["clusterId"], "--name", case["name"], "--project", case["project"]]
    code, out, err = _cli(["record", "--demo", *ids, "--out", str(target), *force])
    # --force cannot help with a directory, so the message must not suggest it; it names a file to use instead.
    assert code == 2 and out == "", err
    assert "is a directory" in err and str(target / "incident.json") in err and "--force" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]  # no .partial left beside it
    assert list(target.iterdir()) == []


def test_a_diagnosis_that_cannot_report_is_still_recorded_and_replays_the_failure(tmp_path: Path) -> None:
    raw = json.loads((CASES / "rules" / "failed-app-exit.json").read_text(encoding="utf-8"))
    request = raw["request"]
    # The workload's own read never gets an answer: no report, exit status 1; what was read is still kept.
    raw["faults"] = [{"match": f"GET /api/v1/workloads/{request['workload_id']}", "status": 0, "times": 100}]
    source = tmp_path / "source.json"
    source.write_text(json.dumps(raw), encoding="utf-8")
    target = tmp_path / "failure.json"
    ids = ["--cluster-id", request["cluster_id"], "--workload-id", request["workload_id"]]
    code, out, err = _cli(["record", "--case", str(source), *ids, "--out", str(target)])
    assert code == 1 and out == ""
    assert "no report could be produced" in err and f"wrote {target}" in err and "Traceback" not in err
    recorded = json.loads(target.read_text(encoding="utf-8"))
    assert [(f["status"], f["times"] >= 1) for f in recorded["faults"]] == [(0, True)]
    code, _, replay_err = _cli(["diagnose", "--case", str(target), *ids])
    assert code == 1 and "no report could be produced" in replay_err


def test_record_with_no_kube_reads_and_keeps_no_kubernetes(tmp_path: Path) -> None:
    case = next(c for c in demo_expectations() if c.get("lookup") == "name" and c["outcome"] == "diagnosed")
    target = tmp_path / "tier1-only.json"
    ids = ["--cluster-id", case["clusterId"], "--name", case["name"], "--project", case["project"],
           "--lookback", case.get("lookback") or "24h"]
    code, out, err = _cli(["record", "--demo", "--no-kube", *ids, "--out", str(target), "--format", "json"])
    assert code == 0, err
    report = json.loads(out)
    assert any("--no-kube" in m["why"] for m in report["missing"]), report["missing"]
    assert "kubernetes" not in json.loads(target.read_text(encoding="utf-8"))


@module_loop
async def test_an_answer_with_no_place_in_the_bundle_replays_as_a_failed_read_that_says_so() -> None:
    from core.record.bundle import build_bundle
    from core.record.tap import Exchange

    path = "/api/v1/nodepools"  # a Run:ai read case@1 has no place for
    raw, notes = build_bundle(
        [Exchange("runai", path, (), 200, b'{"nodePools": []}')], captured_at=datetime_now(), kube=False
    )
    assert any(path in note and "replay shows that read as failed" in note for note in notes)
    async with open_bundle_tenant(parse_bundle(raw, "recording"), label="replay") as replay:
        # Never an empty answer that reads as "nothing there": a failed read that says it was not recorded.
        with pytest.raises(ApiError, match="not in this recording") as failed:
            await replay.runai._get_json(path, {}, resource="node pools")
    assert failed.value.status == 500


def datetime_now() -> Any:
    from datetime import UTC, datetime

    return datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@module_loop
async def test_a_refused_pod_list_replays_refused_and_the_pods_read_by_name_still_answer(
    demo_bundle: CaseBundle,
) -> None:
    case = next(c for c in demo_expectations() if c["key"] == "xid79-16pod")
    raw = dict(demo_bundle.raw)
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "Forbidden",
              "code": 403, "message": 'pods is forbidden: User "reader" cannot list resource "pods" in API group '
              '"" at the cluster scope'}
    raw["faults"] = [{"match": "GET /api/v1/pods", "status": 403, "times": 10, "body": json.dumps(status)}]
    bundle = parse_bundle(raw, "list-refused")
    [(original, again, recorded)] = await record_and_replay(bundle, [_story_request(case, bundle.captured_at)])
    assert report_diff(original, again) == []
    [finding] = [f for f in again.findings if f.kind == "gpu-hardware"]
    assert finding.other_pods_note is not None and "could not be checked" in finding.other_pods_note
    assert "pods" not in recorded["kubernetes"].get("forbidden", [])  # the pods read by name still answer
    assert any(f["match"] == "GET /api/v1/pods" and f["status"] == 403 for f in recorded["faults"])
