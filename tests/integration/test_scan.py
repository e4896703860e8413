"""`runai-triage scan` and the batch it runs on, against the demo tenant and small bundles over real HTTP.

Every scanned workload's verdict must be what diagnosing it alone gives; every Failed or Stopped workload of the
window must be in the scan; the output groups and orders as documented; the exit status and the progress bar
follow the rules; and a batch never has more reads in flight than its politeness budget allows.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest, UsageError
from core.models.base import parse_timestamp
from core.sim.bundle import CaseBundle, parse_bundle
from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.tenant import Tenant, open_bundle_tenant
from core.triage.batch import Politeness, diagnose_many
from core.triage.scan import ScanRequest, ScanResult, scan
from core.triage.scan_render import SCAN_RENDERERS, to_dict
from tests.paths import CASES
from tui.cli import main as cli_main
from tui.commands.headless import flag

# The demo tenant (one loopback server) is shared by the module, so its async tests share one event loop.
module_loop = pytest.mark.asyncio(loop_scope="module")

ROOT = Path(__file__).resolve().parents[2]
EAST = DEMO_CLUSTERS[0]["uuid"]


@pytest.fixture(scope="module")
def demo_bundle() -> CaseBundle:
    return load_demo_bundle()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def demo(demo_bundle: CaseBundle) -> AsyncIterator[Tenant]:
    async with open_bundle_tenant(demo_bundle, label="demo") as tenant:
        yield tenant


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def week(demo: Tenant) -> ScanResult:
    request = ScanRequest(cluster_id=EAST, since="7d")
    assert demo.captured_at is not None
    return await scan(request, demo.runai, demo.kube, tier2_unavailable=demo.kube_unavailable, now=demo.captured_at)


@module_loop
async def test_every_scanned_verdict_is_the_single_diagnosis(demo: Tenant, week: ScanResult) -> None:
    assert len(week.entries) > 20
    for entry in week.entries:
        alone = await run_to_report(
            entry.verdict.request, demo.runai, demo.kube, tier2_unavailable=demo.kube_unavailable
        )
        report = entry.verdict.report
        assert report is not None, entry.verdict.failure
        got = (report.outcome, report.category, report.recurrence.count, report.memory)
        assert got == (alone.outcome, alone.category, alone.recurrence.count, alone.memory), entry.workload.name


def test_every_failed_or_stopped_workload_of_the_window_is_scanned(demo_bundle: CaseBundle, week: ScanResult) -> None:
    start, end = week.start, week.end
    expected = set()
    for item in demo_bundle.workloads:
        w = item["workload"]
        when = parse_timestamp(w["phaseUpdatedAt"])
        if w["clusterId"] == EAST and w["phase"] in ("Failed", "Stopped") and not w.get("deletedAt") \
                and start <= when <= end:
            expected.add(w["id"])
    scanned = {e.workload.id for e in week.entries}
    assert expected and expected <= scanned
    # Pending or Running ones are kept only with a failing pod, which the diagnosis confirms in scope, or with
    # pods the API server refused: no pod ever ran, so the diagnosis routes it out and names the refusal.
    for entry in week.entries:
        if entry.workload.phase in ("Pending", "Running", "Degraded"):
            report = entry.verdict.report
            assert report is not None, entry.why
            if "admission denied" in entry.why:
                assert report.outcome == "pending" and [f.kind for f in report.findings] == ["admission"]
            else:
                assert report.outcome == "diagnosed", entry.why
    assert all(start <= e.workload.phase_updated_at <= end for e in week.entries)  # type: ignore[operator]


def test_groups_are_largest_first_and_newest_first_inside(week: ScanResult) -> None:
    groups = week.groups()
    sizes = [len(entries) for _, entries in groups]
    assert sizes == sorted(sizes, reverse=True)
    assert sum(sizes) == len(week.entries)
    for label, entries in groups:
        assert {e.label for e in entries} == {label}
        times = [e.workload.phase_updated_at for e in entries]
        assert times == sorted(times, reverse=True)  # type: ignore[type-var]


def test_renderings(week: ScanResult) -> None:
    text = SCAN_RENDERERS["text"](week)
    first = week.groups()[0]
    assert f"{first[0]} ({len(first[1])})" in text
    assert text.splitlines()[1].startswith(f"{len(week.entries)} workloads failed or need attention: ")
    doc = json.loads(SCAN_RENDERERS["json"](week))
    assert doc["schema"] == "runai-triage/scan@1"
    assert len(doc["results"]) == len(week.entries)
    assert all(r["report"]["schema"] == "runai-triage/report@1" for r in doc["results"])
    assert doc["counts"] == {label: len(entries) for label, entries in week.groups()}
    lines = SCAN_RENDERERS["jsonl"](week).splitlines()
    assert len(lines) == len(week.entries)
    reports = [json.loads(line) for line in lines]
    assert [r["workload"]["id"] for r in reports] == [r["workloadId"] for r in doc["results"]]
    markdown = SCAN_RENDERERS["markdown"](week)
    assert markdown.startswith("## ") and f"### {first[0].replace('_', chr(92) + '_')}" in markdown


@module_loop
async def test_narrowing_by_project_and_name_prefix(demo: Tenant, week: ScanResult) -> None:
    assert demo.captured_at is not None
    some = week.entries[0].workload
    prefix = (some.name or "")[:3]
    request = ScanRequest(cluster_id=EAST, since="7d", project=some.project_name, name_prefix=prefix)
    narrow = await scan(request, demo.runai, None, tier2_unavailable="off", now=demo.captured_at)
    expected = {
        e.workload.id for e in week.entries
        if e.workload.project_name == some.project_name and (e.workload.name or "").startswith(prefix)
    }
    assert {e.workload.id for e in narrow.entries} == expected
    assert some.id in expected


def test_usage_errors_say_what_to_add() -> None:
    with pytest.raises(UsageError, match="cluster id"):
        ScanRequest(cluster_id=" ")
    # Each names the option that is wrong (the window is since, not the lookback), as data: the command line
    # says it as its flag (an MCP tool as its argument: tests/integration/test_mcp.py), plain words otherwise.
    for asked, words in (
        ({"since": "yesterday"}, r"^--since 'yesterday' is not understood"),
        ({"lookback": "0h"}, r"^--lookback '0h' must be longer than zero"),
        ({"concurrency": 0}, r"^--concurrency must be a whole number from 1 to \d+, got 0$"),
        ({"max_workloads": 0}, r"^--max-workloads 0: scan from 1 to 5,000"),
        ({"project": "a,b"}, r"^--project .*comma"),
        ({"name_prefix": "a,b"}, r"^--name-prefix .*comma"),
    ):
        with pytest.raises(UsageError) as refused:
            ScanRequest(cluster_id=EAST, **asked)
        option = next(iter(asked))
        assert re.search(words, refused.value.worded(flag)), refused.value.worded(flag)
        assert str(refused.value).startswith(option.replace("_", " ")) and "--" not in str(refused.value)


def _bundle(faults: list[dict[str, Any]] | None = None) -> CaseBundle:
    cluster = "0b9e6f2a-1c3d-4e5f-8a7b-9c0d1e2f3a4b"
    workloads = []
    for i, phase in enumerate(["Failed", "Failed", "Completed"]):
        workloads.append({"workload": {
            "id": f"00000000-0000-4000-8000-00000000000{i}", "name": f"job-{i}", "clusterId": cluster,
            "projectName": "team", "phase": phase, "type": "Training",
            "phaseUpdatedAt": f"2026-11-30T1{i}:00:00Z", "phaseMessage": "exit code 1",
        }})
    return parse_bundle({
        "format": "runai-triage/case@1", "capturedAt": "2026-11-30T12:30:00Z",
        "clusters": [{"uuid": cluster, "name": "c"}], "workloads": workloads, "faults": faults or [],
    }, "scan-test")


@module_loop
async def test_a_diagnosis_without_a_report_is_a_result_and_the_rest_go_on() -> None:
    # The first workload's own read never answers: no report for it, a verdict for the other.
    broken = "GET /api/v1/workloads/00000000-0000-4000-8000-000000000000"
    async with open_bundle_tenant(_bundle([{"match": broken, "status": 0, "times": 100}]), label="t") as tenant:
        assert tenant.captured_at is not None
        request = ScanRequest(cluster_id="0b9e6f2a-1c3d-4e5f-8a7b-9c0d1e2f3a4b", since="24h")
        result = await scan(request, tenant.runai, None, tier2_unavailable="none", now=tenant.captured_at)
    by_name = {e.workload.name: e for e in result.entries}
    assert set(by_name) == {"job-0", "job-1"}  # Completed is never a candidate
    assert by_name["job-0"].verdict.report is None and "no report" in (by_name["job-0"].verdict.failure or "")
    assert by_name["job-1"].verdict.report is not None
    doc = to_dict(result)
    assert doc["counts"] == {"no report": 1, by_name["job-1"].label: 1}


@module_loop
async def test_a_batch_keeps_to_its_politeness_budget(demo_bundle: CaseBundle) -> None:
    """Reads in flight, counted where the engine makes them, never exceed the budget (slow server: they pile)."""

    class Counting:
        def __init__(self, inner: Any) -> None:
            self.inner, self.now, self.peak, self.calls = inner, 0, 0, 0

        def __getattr__(self, name: str) -> Any:
            call = getattr(self.inner, name)
            if not asyncio.iscoroutinefunction(call):
                return call

            async def counted(*args: Any, **kwargs: Any) -> Any:
                self.now += 1
                self.calls += 1
                self.peak = max(self.peak, self.now)
                try:
                    return await call(*args, **kwargs)
                finally:
                    self.now -= 1

            return counted

    async with open_bundle_tenant(demo_bundle, label="slow", latency_ms=20) as tenant:
        assert tenant.captured_at is not None
        ids = [w["workload"]["id"] for w in demo_bundle.workloads if w["workload"]["phase"] == "Failed"][:12]
        requests = [DiagnosisRequest(cluster_id=EAST, workload_id=i, now=tenant.captured_at) for i in ids]
        counting = Counting(tenant.runai)
        budget = Politeness(diagnoses=3, requests=4)
        done = [i async for i, _ in diagnose_many(requests, counting, None, tier2_unavailable="x",
                                                  politeness=budget)]
    assert sorted(done) == list(range(len(requests)))
    assert counting.calls >= 2 * len(requests)
    assert counting.peak == budget.requests  # reached (the server is slow) and never exceeded


def _cli(argv: list[str], *, tty: bool = False) -> tuple[int, str, str]:
    class Err(io.StringIO):
        def isatty(self) -> bool:
            return tty

    out, err = io.StringIO(), Err()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def test_cli_exit_status_and_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    args = ["scan", "--demo", "--cluster-id", EAST, "--since", "2h", "--format", "jsonl"]
    code, out, err = _cli(args)
    assert code == 0 and err == ""
    assert all(json.loads(line)["schema"].startswith("runai-triage/") for line in out.splitlines())
    code, _, err = _cli(args, tty=True)
    assert code == 0 and "diagnosing [" in err and err.endswith("\n")
    assert _cli(["scan", "--demo"])[0] == 2
    assert "cluster id" in _cli(["scan", "--demo"])[2]
    code, _, err = _cli(["scan", "--case", str(tmp_path / "missing.json"), "--cluster-id", EAST])
    assert code == 1 and "file not found" in err and "Traceback" not in err


def test_cli_unreachable_tenant_is_status_1_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUNAI_BEARER_TOKEN", "token-for-a-server-that-is-not-there")
    monkeypatch.setenv("RUNAI_CLI_CONFIG_PATH", "/nonexistent")
    code, _, err = _cli(["scan", "--base-url", "http://127.0.0.1:9", "--no-kube", "--cluster-id", EAST])
    assert code == 1
    assert "list of workloads could not be read" in err and "Traceback" not in err


def test_the_scan_command_runs_without_loading_textual() -> None:
    code = (
        "import sys, io, contextlib; from tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['scan', '--demo', '--cluster-id', '{EAST}', '--since', '1h'])\n"
        "print(rc, sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.stdout.strip() == "0 []", run.stderr


def test_window_start_is_the_since_before_now(week: ScanResult) -> None:
    assert week.end - week.start == timedelta(days=7)


def test_scan_with_no_kube_and_a_cluster_name_reads_no_kubernetes() -> None:
    # The cluster by its exact name, as diagnose takes it: the scan lists that cluster's workloads.
    code, out, err = _cli(["scan", "--demo", "--no-kube", "--cluster-id", "demo-east", "--since", "2h",
                           "--format", "json"])
    assert code == 0, err
    scanned = json.loads(out)
    assert scanned["clusterId"] == EAST
    reports = [r["report"] for r in scanned["results"] if r.get("report")]
    assert reports, scanned
    for report in reports:
        if report["outcome"] == "diagnosed":
            assert any("--no-kube" in m["why"] for m in report["missing"]), report["missing"]
            assert not any(s.startswith("kubectl") for e in report["evidence"] for s in e["sources"])


def test_scan_of_an_unknown_cluster_lists_the_tenants_clusters() -> None:
    code, out, err = _cli(["scan", "--demo", "--cluster-id", "no-such-cluster", "--since", "2h"])
    assert code == 1 and out == ""
    assert "not a cluster of this tenant" in err and EAST in err


def test_the_text_says_why_with_the_log_line_and_flags_infrastructure() -> None:
    code, out, err = _cli(["scan", "--demo", "--cluster-id", EAST, "--since", "2h"])
    assert code == 0, err
    blocks = out.split("\n  20")  # one block per workload: its heading line starts with the date
    xid = next(b for b in blocks if "llama-405b-pretrain" in b)
    # The container never restarted: the line is from its current instance, and says so (issue 27, point 7).
    assert "CUDA error: unspecified launch failure" in xid and "(current instance)" in xid and "(kubectl logs)" in xid
    assert "⚑ Not the workload's fault: gpu-hardware on node gpu-e-47, for the administrator" in xid
    evicted = next(b for b in blocks if "graph-embed" in b)
    assert "⚑ The node ran short: node-pressure" in evicted  # it used far over its request: not cleared


@module_loop
async def test_the_clusters_list_is_read_once_per_scan(demo_bundle: CaseBundle) -> None:
    # Every diagnosis checks its cluster against the list; within one scan it is one read, however many diagnoses.
    async with open_bundle_tenant(demo_bundle, label="demo") as tenant:
        assert tenant.control_plane is not None and tenant.captured_at is not None
        result = await scan(ScanRequest(cluster_id="demo-east", since="24h"), tenant.runai, None,
                            tier2_unavailable="off", now=tenant.captured_at)
        requests = tenant.control_plane.requests
    assert len(result.entries) > 10
    assert sum(1 for r in requests if r.path == "/api/v1/clusters") == 1
    assert all(e.verdict.report is not None for e in result.entries)


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_scan_of_one_workload_counts_it_in_the_singular(fmt: str) -> None:
    oom = CASES / "example-oom.json"
    code, out, err = _cli(["scan", "--case", str(oom), "--cluster-id", "05664dde-1ea7-5931-81c6-fcd52b6608e7",
                           "--since", "7d", "--format", fmt])
    assert code == 0, err
    assert "1 workload failed or needs attention" in out, out
    assert "Listed 1 row;" in out, out
    assert "1 workloads" not in out and "1 rows" not in out


def test_a_scan_keeps_each_report_but_not_the_events_a_screen_would_replay(week: ScanResult) -> None:
    # Thousands of diagnoses' progress events (metric samples among them) would hold far more than the reports.
    assert week.entries and all(e.verdict.report is not None or e.verdict.failure for e in week.entries)
    assert all(e.verdict.events == () for e in week.entries)


# -- a cluster the control plane cannot see, an unknown project, a filter that matches nothing (issue 27) ----
EDGE = "demo-edge"  # the demo cluster that lost its connection three hours before the capture


def test_a_disconnected_cluster_is_said_in_every_format_with_an_exit_status_of_its_own() -> None:
    code, out, err = _cli(["scan", "--demo", "--cluster-id", EDGE])
    assert code == 3, err
    lines = out.splitlines()
    assert lines[1].startswith(f"⚑ cluster {EDGE}: status Disconnected, last report 2 h 58 min ago")
    assert "may be stale" in lines[1] and "may be stale" in lines[2]
    assert "Nothing failed or needs attention in the window." not in out  # never a plain all clear
    code, out, _ = _cli(["scan", "--demo", "--cluster-id", EDGE, "--format", "json"])
    data = json.loads(out)
    assert code == 3 and data["clusterStale"] is True
    assert data["cluster"]["status"] == "Disconnected" and data["cluster"]["lastLiveness"].startswith("2026-11-30T09")
    code, out, _ = _cli(["scan", "--demo", "--cluster-id", EDGE, "--format", "jsonl"])
    first = json.loads(out.splitlines()[0])
    assert code == 3 and first["schema"] == "runai-triage/scan-cluster@1" and first["stale"] is True
    code, out, _ = _cli(["scan", "--demo", "--cluster-id", EDGE, "--format", "markdown"])
    assert code == 3 and "⚑ cluster" in out
    # A connected cluster: exit 0, and its state in the JSON says so.
    code, out, _ = _cli(["scan", "--demo", "--cluster-id", "demo-east", "--format", "json", "--since", "2h"])
    assert code == 0 and json.loads(out)["clusterStale"] is False


@pytest.mark.parametrize("project", ["nosuch", "NLP"])
def test_an_unknown_project_is_an_error_that_lists_the_clusters_projects(project: str) -> None:
    code, out, err = _cli(["scan", "--demo", "--cluster-id", "demo-east", "--project", project])
    assert code == 1 and out == ""
    assert f"{project} is not a project of cluster demo-east" in err
    assert "Its projects: nlp, research, speech, vision." in err
    assert "--project" in err and "Traceback" not in err


def test_a_filter_that_matches_nothing_says_so() -> None:
    code, out, _ = _cli(["scan", "--demo", "--cluster-id", "demo-east", "--name-prefix", "zzz-no-such"])
    assert code == 0
    assert "No workload with a name starting 'zzz-no-such' on this cluster, at any time: the filters match nothing." \
        in out
    code, out, _ = _cli(["scan", "--demo", "--cluster-id", "demo-east", "--project", "nlp", "--name-prefix", "llama",
                         "--since", "5m"])
    assert code == 0
    assert "Nothing failed or needs attention in the window. (The filters match 1 workload at other times.)" in out
