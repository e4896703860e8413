"""`runai-triage nodes` on the demo tenant, over real HTTP: the bad node first with its real denominator, every
node's count checked against the simulator's own pods, the verdicts the same engine gives alone, nodes@1 as
report-format.md writes it, the exit status cron reads, and a recording that replays to the same view.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from core.diagnosis.engine import run_to_report
from core.models.base import parse_timestamp
from core.sim.bundle import CaseBundle, parse_instant
from core.sim.demo import DEMO_CLUSTERS, demo_expectations, load_demo_bundle
from core.tenant import Tenant, open_bundle_tenant
from core.triage.nodes import NodesRequest, NodesResult, nodes_view
from core.triage.nodes_render import to_dict
from tui.cli import main as cli_main

module_loop = pytest.mark.asyncio(loop_scope="module")
ROOT = Path(__file__).resolve().parents[2]
EAST = DEMO_CLUSTERS[0]["uuid"]
STORM_NODE = "gpu-e-23"
STORM_KEYS = {e["workloadId"] for e in demo_expectations() if e["key"].startswith("storm-")}


@pytest.fixture(scope="module")
def demo_bundle() -> CaseBundle:
    return load_demo_bundle()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def demo(demo_bundle: CaseBundle) -> AsyncIterator[Tenant]:
    async with open_bundle_tenant(demo_bundle, label="demo") as tenant:
        yield tenant


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def day(demo: Tenant) -> NodesResult:
    assert demo.captured_at is not None
    return await nodes_view(NodesRequest(EAST), demo.runai, demo.kube, now=demo.captured_at)


def _ran(pod: dict[str, Any], start: datetime, end: datetime) -> bool:
    created, completed, deleted = (parse_instant(pod.get(k)) for k in ("createdAt", "completedAt", "deletedAt"))
    return bool(pod.get("nodeName")) and created is not None and created <= end and all(
        at is None or at >= start for at in (completed, deleted)
    )


def simulator_denominators(bundle: CaseBundle, cluster: str, start: datetime, end: datetime) -> dict[str, set[str]]:
    """node -> the workloads with a pod on it in the window, straight from the bundle the simulator serves."""
    found: dict[str, set[str]] = {}
    for entry in bundle.workloads:
        for pod in entry.get("pods") or []:
            if pod.get("clusterId") == cluster and _ran(pod, start, end):
                found.setdefault(pod["nodeName"], set()).add(entry["workload"]["id"])
    return found


def test_the_bad_node_comes_first_with_its_failed_over_total_and_cause(day: NodesResult) -> None:
    first = day.rows[0]
    assert first.name == STORM_NODE
    assert (first.failed, first.workloads) == (8, 11)
    assert first.verdicts == {"CRASH_APP_ERROR": 7, "OOM_KILLED": 1}
    assert first.cause is not None and first.cause.key == "gpu-hardware" and first.cause.count == 7
    assert "Xid 79" in first.cause.text
    assert {f.workload_id for f in first.failures} == STORM_KEYS - {
        e["workloadId"] for e in demo_expectations() if e["key"].startswith("storm-node-ok")
    }
    # Four projects lost work there; nothing else in the cluster shares a cause.
    assert {f.project for f in first.failures} == {"nlp", "vision", "speech", "research"}
    assert [row.name for row in day.rows if row.cause is not None] == [STORM_NODE]
    assert [row.name for row in day.crossing] == [STORM_NODE]


def test_every_denominator_is_the_simulators_own_pods(demo_bundle: CaseBundle, day: NodesResult) -> None:
    expected = simulator_denominators(demo_bundle, EAST, day.start, day.end)
    assert len(expected) > 40  # many healthy nodes beside the bad one
    got = {row.name: set(row.ran) for row in day.rows if row.ran}
    assert got == expected
    # Deleted pods count (a stopped workload's pods are deleted): the list is not the live pods alone.
    deleted = {p["workloadId"] for e in demo_bundle.workloads for p in e.get("pods") or []
               if p.get("deletedAt") and p.get("clusterId") == EAST and _ran(p, day.start, day.end)}
    assert deleted and deleted <= {wid for row in day.rows for wid in row.ran}
    # Nodes listed now with nothing in the window are rows too, with a zero denominator.
    assert all(row.workloads == len(expected.get(row.name, ())) for row in day.rows)


def test_the_ranking_puts_a_shared_cause_first_then_failures_then_rate(day: NodesResult) -> None:
    keys = [(row.cause is None, -row.failed, -(row.rate or 0.0), row.name) for row in day.rows]
    assert keys == sorted(keys)


@module_loop
async def test_each_verdict_is_what_the_engine_says_alone(demo: Tenant, day: NodesResult) -> None:
    for failure in day.rows[0].failures:
        assert failure.verdict is not None and failure.verdict.report is not None
        alone = await run_to_report(failure.verdict.request, demo.runai, demo.kube)
        assert (alone.outcome, alone.category) == (failure.verdict.report.outcome, failure.verdict.report.category)


def test_nodes_at_1_has_every_key_report_format_names(day: NodesResult) -> None:
    doc = json.loads(json.dumps(to_dict(day)))
    assert doc["schema"] == "runai-triage/nodes@1"
    assert set(doc["cluster"]) >= {"id", "name", "state", "stale"} and doc["cluster"]["state"] == "Connected"
    assert parse_timestamp(doc["window"]["until"]) - parse_timestamp(doc["window"]["since"]) == day.end - day.start
    for node in doc["nodes"]:
        assert set(node) >= {"node", "pool", "state", "workloads", "failed", "verdicts", "cause", "findings",
                             "failures"}
        assert set(node["state"]) >= {"ready", "cordoned", "taints", "gpus"}
        assert sum(node["verdicts"].values()) == node["failed"] == len(node["failures"]) <= node["workloads"]
        for failure in node["failures"]:
            assert set(failure) >= {"workload", "category", "endedAt", "line", "source"}
            assert set(failure["workload"]) >= {"id", "name", "project"}
    bad = doc["nodes"][0]
    assert bad["node"] == STORM_NODE and bad["state"] == {**bad["state"], "ready": True, "cordoned": False, "gpus": 8}
    assert bad["cause"].startswith("gpu-hardware: ") and "(from 11-29 21:58)" in bad["cause"]
    assert [f["kind"] for f in bad["findings"]] == ["gpu-hardware"] and bad["findings"][0]["node"] == STORM_NODE


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_command_ranks_the_bad_node_first_and_tells_cron() -> None:
    code, out, err = _cli(["nodes", "--demo", "--cluster-id", "demo-east"])
    assert code == 4, err
    table = out.splitlines()
    head = next(i for i, text in enumerate(table) if "WORKLOADS" in text)
    assert table[head + 1].split()[:2] == ["⚑", STORM_NODE]
    assert table[head + 1].split()[5:8] == ["11", "8", "73%"]
    assert table[head + 2].strip().startswith("cause: gpu-hardware:") and "7 of 8 failures" in table[head + 2]
    # A threshold no node reaches: 0 for cron.
    code, _, err = _cli(["nodes", "--demo", "--cluster-id", "demo-east", "--fail-rate", "80%"])
    assert code == 0, err
    code, _, _ = _cli(["nodes", "--demo", "--cluster-id", "demo-east", "--fail-rate", "0.7", "--min-workloads", "12"])
    assert code == 0


def test_a_stale_cluster_is_exit_3_and_said() -> None:
    code, out, err = _cli(["nodes", "--demo", "--cluster-id", "demo-edge", "--fail-rate", "1"])
    assert code == 3, err
    assert "⚑ cluster demo-edge: status Disconnected" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--fail-rate", "half"], "--fail-rate 'half'"),
        (["--fail-rate", "0"], "more than 0 and at most 1"),
        (["--fail-rate", "150%"], "at most 1"),
        (["--min-workloads", "0"], "--min-workloads 0"),
        (["--force"], "--force only goes with --record"),
        (["--since", "soon"], "--since"),
        (["--node", "a,b"], "--node must be"),
    ],
)
def test_usage_errors_say_what_to_fix(argv: list[str], said: str) -> None:
    code, out, err = _cli(["nodes", "--demo", "--cluster-id", "demo-east", *argv])
    assert code == 2 and out == "" and said in err and "Traceback" not in err


def test_an_unknown_node_lists_the_clusters_nodes() -> None:
    code, out, err = _cli(["nodes", "--demo", "--cluster-id", "demo-east", "--node", "gpu-x-99"])
    assert code == 1 and out == ""
    assert "gpu-x-99 is not a node of this cluster" in err and "Its nodes: gpu-d-01, " in err and "--node" in err


def test_a_recording_replays_to_the_same_view(tmp_path: Path) -> None:
    bundle = tmp_path / "nodes.json"
    argv = ["--cluster-id", "demo-east", "--node", STORM_NODE, "--format", "json"]
    code, live, err = _cli(["nodes", "--demo", *argv, "--record", str(bundle)])
    assert code == 4 and "wrote" in err and "Replay: runai-triage nodes --case" in err
    kept = json.loads(bundle.read_text(encoding="utf-8"))
    assert {n["name"] for n in kept["nodes"]} >= {STORM_NODE}  # the view's node list is kept at the top
    code, replayed, err = _cli(["nodes", "--case", str(bundle), *argv])
    assert code == 4, err
    before, after = json.loads(live), json.loads(replayed)
    assert before.pop("reads") >= after.pop("reads") > 0
    assert before == after
    # Never over an existing file by surprise.
    code, _, err = _cli(["nodes", "--demo", *argv, "--record", str(bundle)])
    assert code == 2 and "exists" in err


def test_the_nodes_command_runs_without_loading_textual() -> None:
    code = (
        "import sys, io, contextlib; from tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['nodes', '--demo', '--cluster-id', '{EAST}', '--node', '{STORM_NODE}'])\n"
        "print(rc, sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.stdout.strip() == "4 []", run.stderr
