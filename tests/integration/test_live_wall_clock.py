"""The live demo tenant on the wall clock (`serve --demo --live`, `--demo --live`): its stories shifted to end when
it starts, its connected clusters reporting as time goes on.

A real-mode client uses its own "now": against `serve --demo --live` its diagnosis equals the `--demo` one (every
moment shifted by the same amount), and over an hour of (stepped) wall-clock time no diagnosis grows a false
"cluster last reported N ago" finding, while the cluster that really lost its connection keeps its finding.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.sim.bundle import CaseBundle
from core.sim.demo import DEMO_CLUSTERS, TENANT_CLUSTERS, demo_expectations, load_demo_bundle
from core.sim.live.plane import HEARTBEAT_S, LiveControlPlane
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.sim.live.shift import shift_bundle, shift_json, shift_yearless
from core.sim.loopback import LoopbackServer
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient, filter_item
from core.tenant import open_bundle_tenant

ROOT = Path(__file__).resolve().parents[2]
EAST, EDGE = DEMO_CLUSTERS[0]["uuid"], TENANT_CLUSTERS[2]["uuid"]
STARTED = 1_796_000_000.25  # a wall-clock moment, not a whole second: the tenant starts at the second it is in


@pytest.fixture(scope="module")
def demo_bundle() -> CaseBundle:
    return load_demo_bundle()


def test_shifting_moves_every_moment_and_nothing_else(demo_bundle: CaseBundle) -> None:
    before = json.dumps(demo_bundle.raw)
    seconds = 5 * 86400 + 3 * 3600 + 17 * 60 + 42
    moved = shift_bundle(demo_bundle, seconds)
    assert json.dumps(demo_bundle.raw) == before  # the still bundle is not touched
    assert moved.captured_at - demo_bundle.captured_at == timedelta(seconds=seconds)
    for old, new in zip(demo_bundle.workloads, moved.workloads, strict=True):
        o, n = old["workload"], new["workload"]
        assert n["id"] == o["id"] and n["name"] == o["name"]
        shifted = datetime.fromisoformat(n["phaseUpdatedAt"]) - datetime.fromisoformat(o["phaseUpdatedAt"])
        assert shifted == timedelta(seconds=seconds)
    log = next(entry["text"] for entry in moved.kubernetes["logs"] if "[2026-12-05 14:47:46,118]" in entry["text"])
    assert "torch.distributed.elastic" in log  # "[2026-11-30 11:30:04,118]", 5 days 3:17:42 later
    edge = next(c for c in moved.clusters if c["uuid"] == EDGE)
    assert edge["lastLiveness"] == "2026-12-05T12:19:42Z"
    assert edge["status"]["conditions"][0]["message"].endswith("since 12:19")  # was "since 09:02"
    # Nothing but moments changed: shifted back, the bundle is the same document.
    assert json.dumps(shift_json(moved.raw, -timedelta(seconds=seconds))["workloads"]) == json.dumps(
        demo_bundle.raw["workloads"])


@pytest.fixture
def on_the_wall(demo_bundle: CaseBundle) -> Iterator[tuple[LiveControlPlane, list[float], RunaiClient]]:
    """A live tenant on a wall clock the test moves (what `serve --demo --live` runs, sped up)."""
    wall = [STARTED]
    plane = LiveControlPlane(demo_bundle, LiveSettings(seed=1), wall=lambda: wall[0])
    server = LoopbackServer(plane)
    url = server.start()
    client = RunaiClient(url, BearerToken(plane.issue_token()))
    try:
        yield plane, wall, client
    finally:
        server.stop()


async def clusters(client: RunaiClient) -> dict[str, Any]:
    page = await client.list_clusters_page()
    return {c.uuid: c for c in page.items}


def control_plane_findings(report: Report) -> list[str]:
    return [f.text for f in report.findings if f.kind == "control-plane"]


async def test_an_hour_on_the_wall_clock_has_no_false_control_plane_finding(
    on_the_wall: tuple[LiveControlPlane, list[float], RunaiClient], demo_bundle: CaseBundle
) -> None:
    plane, wall, client = on_the_wall
    assert plane.bundle.captured_at == datetime.fromtimestamp(int(STARTED), UTC)  # it starts now
    story = next(e for e in demo_expectations() if e["category"] == "OOM_KILLED" and e["lookup"] == "id")
    edge_story = next((e for e in demo_expectations() if e["clusterId"] == EDGE and e["lookup"] == "id"), None)
    for minutes in (0, 20, 45, 60):
        wall[0] = STARTED + minutes * 60
        now = datetime.fromtimestamp(wall[0], UTC)  # what a real-mode client takes for "now"
        assert plane.clock() == now
        # A still story and the newest moving failure, diagnosed as a real-mode client would.
        page = await client.list_workloads(filters=[filter_item("clusterId", "==", EAST),
                                                    filter_item("phase", "==", "Failed")],
                                           sort_by="phaseUpdatedAt", sort_order="desc", limit=1)
        ids = {story["workloadId"], *(w.id for w in page.items if w.id)}
        for wid in ids:
            report = await run_to_report(DiagnosisRequest(cluster_id=EAST, workload_id=wid, now=now), client,
                                         None, tier2_unavailable="Tier 1 only in this test")
            assert report.outcome == "diagnosed" and control_plane_findings(report) == [], (minutes, wid)
        if edge_story is not None:
            report = await run_to_report(DiagnosisRequest(cluster_id=EDGE, workload_id=edge_story["workloadId"],
                                                          now=now), client, None, tier2_unavailable="Tier 1 only")
            assert control_plane_findings(report)  # a real one: that cluster did stop reporting
        listed = await clusters(client)
        east = listed[EAST]
        assert east.last_liveness is not None and timedelta(0) <= now - east.last_liveness < timedelta(
            seconds=HEARTBEAT_S)
        assert listed[EDGE].last_liveness < plane.bundle.captured_at  # the lost cluster stays lost
    moved = list(itertools.takewhile(lambda a: a.start < 3600, actors(1)))
    assert len(plane.world.at(plane.clock()).workloads) >= len(demo_bundle.workloads) + len(moved) > 2300


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=180, check=False, env=env)


def comparable(report: dict[str, Any], back: timedelta) -> dict[str, Any]:
    """A report with its moments shifted back, without the moment it was made at."""
    moved = shift_json(report, -back)
    for key in ("generatedAt", "lookbackStart"):
        moved.pop(key, None)
    return moved


def test_a_real_mode_diagnosis_against_serve_demo_live_equals_the_demo_one(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    server = subprocess.Popen([sys.executable, "-m", "tui.cli", "serve", "--demo", "--live", "--kubeconfig-out",
                               str(kubeconfig)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(3)]
        url = lines[0].rsplit(" at ", 1)[1].strip()
        start = datetime.fromisoformat(re.search(r"on your clock from (\S+) ", lines[1]).group(1))  # type: ignore[union-attr]
        assert abs(start.timestamp() - time.time()) < 60
        back = start - load_demo_bundle().captured_at
        env = {**os.environ, "RUNAI_CLIENT_ID": "any", "RUNAI_CLIENT_SECRET": "any"}
        picked: dict[str, dict[str, Any]] = {}
        for story in demo_expectations():
            if story["lookup"] == "id" and story["clusterId"] == EAST and story["category"] not in picked:
                picked[story["category"]] = story
        assert len(picked) >= 4
        for story in list(picked.values())[:5]:
            ask = ("--cluster-id", "demo-east", "--workload-id", story["workloadId"], "--lookback",
                   story.get("lookback") or "24h", "--format", "json")
            real = run_cli("diagnose", "--base-url", url, "--kubeconfig", str(kubeconfig), *ask, env=env)
            demo = run_cli("diagnose", "--demo", *ask)
            assert real.returncode == 0 and demo.returncode == 0, real.stderr + demo.stderr
            live_report, demo_report = json.loads(real.stdout), json.loads(demo.stdout)
            assert control_plane_findings(Report.model_validate(live_report)) == []
            assert comparable(live_report, back) == comparable(demo_report, timedelta(0)), story["key"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_stamps_without_a_year_move_with_the_rest() -> None:
    days = timedelta(days=5, hours=3, minutes=17, seconds=42)
    captured = datetime(2026, 11, 30, 12, tzinfo=UTC)
    log = ("[rank3]:[E1130 11:25:00.412 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective\n"
           "ERROR 11-30 11:41:07 engine.py:389] RuntimeError: Engine loop has died\n"
           "I2026 was a good year; E9999 99:99:99 is no stamp\n")
    assert shift_yearless(log, days, captured) == (
        "[rank3]:[E1205 14:42:42.412 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective\n"
        "ERROR 12-05 14:58:49 engine.py:389] RuntimeError: Engine loop has died\n"
        "I2026 was a good year; E9999 99:99:99 is no stamp\n"
    )


def test_glog_stamps_behind_a_launchers_tag_move_into_the_new_year() -> None:
    # torchrun's `[default0]:` and mpirun's `[1,13]<stderr>:` stand straight before the stamp; a live tenant
    # started in early January moves a November capture's stamps across New Year.
    captured = datetime(2026, 11, 30, 12, tzinfo=UTC)
    delta = datetime(2027, 1, 3, 9, tzinfo=UTC) - captured
    log = ("[default0]:E1130 11:41:10.000000 1 a.cc:1] x\n[1,13]<stderr>:W1130 11:41:11 1 a.cc:2] y\n"
           "step 12:E1130 11:41:10 is no stamp\n")
    assert shift_yearless(log, delta, captured) == (
        "[default0]:E0103 08:41:10.000000 1 a.cc:1] x\n[1,13]<stderr>:W0103 08:41:11 1 a.cc:2] y\n"
        "step 12:E1130 11:41:10 is no stamp\n"
    )
    # Across New Year, and a stamp of last year's December read in a January capture.
    assert shift_yearless("E1231 23:59:00.1 1 a.cc:1] x", timedelta(minutes=2), captured) == (
        "E0101 00:01:00.1 1 a.cc:1] x"
    )
    january = datetime(2027, 1, 1, 0, 5, tzinfo=UTC)
    assert shift_yearless("W1231 23:59:59 1 a.cc:1] x", timedelta(days=59), january) == "W0228 23:59:59 1 a.cc:1] x"


async def test_the_demos_glog_stamps_are_read_alike_when_it_moves(demo_bundle: CaseBundle) -> None:
    # The demo's NCCL watchdog lines (`[rank3]:[E1130 11:25:00.412 ...]`) moved with their pods: read as times in
    # the live tenant as in the still one, never "outside the container's run".
    seconds = int(timedelta(days=37, hours=5, minutes=3).total_seconds())
    moved = shift_bundle(demo_bundle, seconds)
    names = {"llama-70b-dist", "llama-3-70b-pt", "llama-405b-pretrain", "moe-8x7b-dist"}
    stories = [e for e in demo_expectations() if e["name"] in names and e["lookup"] == "id"]
    assert {e["name"] for e in stories} == names
    for story in stories:
        reports = []
        for bundle in (demo_bundle, moved):
            async with open_bundle_tenant(bundle, label="shifted") as tenant:
                reports.append(await run_to_report(
                    DiagnosisRequest(cluster_id=story["clusterId"], workload_id=story["workloadId"],
                                     now=tenant.captured_at), tenant.runai, tenant.kube))
        still, live = reports
        texts = ["\n".join(item.text for item in report.evidence) + "\n".join(report.notes) for report in reports]
        assert "not read as times" not in texts[1] and "later than" not in texts[1], story["name"]
        assert (live.category, len(live.evidence)) == (still.category, len(still.evidence)), story["name"]
