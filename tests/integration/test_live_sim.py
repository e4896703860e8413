"""The live demo tenant (core.sim.live) through the real clients over loopback, on a stepped clock: workloads
appear, crash, restart and fail on a seeded schedule through the same routes; the same seed gives the same
tenant; a storm answers 429 with Retry-After; the demo's own stories and recorded cases stay still; and the app's
simulator process serves the same clock the app reads."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.runai import Workload
from core.sim.bundle import CaseBundle
from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.sim.live.clock import SteppedClock, live_clock
from core.sim.live.plane import LiveControlPlane, Storm
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.sim.live.world import LiveWorld
from core.sim.process import SimProcess
from core.sources.errors import ApiError
from core.sources.runai import filter_item
from core.tenant import Tenant, open_bundle_tenant, open_served_tenant
from tui.commands.start import StartOptions, UsageError, options_from_args

EAST = DEMO_CLUSTERS[0]["uuid"]


@pytest.fixture(scope="module")
def demo_bundle() -> CaseBundle:
    return load_demo_bundle()


@pytest.fixture
async def live(demo_bundle: CaseBundle) -> AsyncIterator[tuple[Tenant, SteppedClock]]:
    clock = SteppedClock(demo_bundle.captured_at)
    tenant = open_bundle_tenant(demo_bundle, label="live", live=LiveSettings(seed=1), live_clock=clock)
    try:
        yield tenant, clock
    finally:
        await tenant.aclose()


async def newest(tenant: Tenant, limit: int = 10) -> list[Workload]:
    page = await tenant.runai.list_workloads(
        filters=[filter_item("clusterId", "==", EAST)], sort_by="phaseUpdatedAt", sort_order="desc", limit=limit
    )
    return page.items


def moving(tenant: Tenant) -> LiveControlPlane:
    plane = tenant.control_plane
    assert isinstance(plane, LiveControlPlane)
    return plane


async def diagnosed(tenant: Tenant, w: Workload, now: datetime) -> tuple[str, str | None]:
    request = DiagnosisRequest(cluster_id=w.cluster_id or "", workload_id=w.id, now=now)
    report = await run_to_report(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable)
    return report.outcome, report.category


async def test_workloads_start_crash_and_fail_through_the_same_routes(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    before = await newest(tenant)
    first = next(actors(1))
    assert first.kind == "oom" and first.start > 0
    assert all(w.name != first.name for w in before)  # nothing moved yet at the capture instant
    clock.advance(first.start + 10)  # submitted and running
    top = (await newest(tenant))[0]
    assert (top.name, top.phase) == (first.name, "Running")
    clock.advance(30)  # OOM-killed by now
    rows = {w.name: w for w in await newest(tenant)}
    failed = rows[first.name]
    # The phase changed at the moment its last stage began (whole seconds, as the demo writes times).
    killed = moving(tenant).world.base.captured_at - timedelta(seconds=round(first.ago(first.stages[-1]) * 60))
    assert failed.phase == "Failed" and failed.phase_updated_at == killed
    assert await diagnosed(tenant, failed, clock()) == ("diagnosed", "OOM_KILLED")


async def test_a_crash_loop_restarts_in_kubernetes_then_fails(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    loop = next(a for a in actors(1) if a.kind == "crash-loop")
    restarts = []
    for stage_at in loop.stages[2:]:
        clock.advance(loop.start + stage_at - elapsed(tenant, clock) + 0.5)
        rows = {w.name: w for w in await newest(tenant, 20)}
        w = rows[loop.name]
        assert tenant.kube is not None
        pod = await tenant.kube.pod(w.namespace or "", f"{loop.name}-0-0")
        status = pod.status.container_statuses[0]  # type: ignore[union-attr]
        restarts.append((w.phase, status.restart_count))
        if w.phase == "Running":
            assert await diagnosed(tenant, w, clock()) == ("diagnosed", "CRASH_APP_ERROR")
    assert restarts[:3] == [("Running", 1), ("Running", 2), ("Running", 3)]
    assert restarts[-1][0] == "Failed"
    final = {w.name: w for w in await newest(tenant, 20)}[loop.name]
    assert await diagnosed(tenant, final, clock()) == ("diagnosed", "CRASH_APP_ERROR")


def elapsed(tenant: Tenant, clock: SteppedClock) -> float:
    return (clock() - moving(tenant).world.base.captured_at).total_seconds()


async def test_a_bad_image_waits_in_image_pull_backoff(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    pull = next(a for a in actors(1) if a.kind == "image-pull")
    clock.advance(pull.start + pull.stages[2] + 1)
    w = {w.name: w for w in await newest(tenant, 30)}[pull.name]
    assert w.phase == "Pending"
    assert await diagnosed(tenant, w, clock()) == ("diagnosed", "IMAGE_PULL_FAILED")


def snapshot(world: LiveWorld, at: datetime) -> str:
    bundle = world.at(at)
    live_entries = bundle.workloads[len(world.base.workloads) :]
    return json.dumps([live_entries, bundle.kubernetes], sort_keys=True)


def test_the_same_seed_gives_the_same_tenant_and_another_seed_another(demo_bundle: CaseBundle) -> None:
    at = demo_bundle.captured_at + timedelta(minutes=5)
    one, again, other = LiveWorld(demo_bundle, 1), LiveWorld(demo_bundle, 1), LiveWorld(demo_bundle, 2)
    # Reached in different steps, the same moment looks the same.
    for step in range(0, 300, 7):
        again.at(demo_bundle.captured_at + timedelta(seconds=step))
    assert snapshot(one, at) == snapshot(again, at)
    names = [a.name for a, _ in zip(actors(1), range(10), strict=False)]
    assert names != [a.name for a, _ in zip(actors(2), range(10), strict=False)]
    assert snapshot(one, at) != snapshot(other, at)


def test_the_demo_stories_stay_still_beside_the_moving_workloads(demo_bundle: CaseBundle) -> None:
    world = LiveWorld(demo_bundle, 1)
    later = world.at(demo_bundle.captured_at + timedelta(hours=1))
    count = len(demo_bundle.workloads)
    assert later.workloads[:count] == demo_bundle.workloads  # every recorded entry as it was, in its place
    assert len(later.workloads) > count + 100  # about one new workload every 15 s
    assert later is world.at(demo_bundle.captured_at + timedelta(hours=1))  # nothing moved: the same bundle
    assert world.changes > 0 and demo_bundle.workloads is not later.workloads


def test_a_recorded_case_cannot_be_made_live() -> None:
    import argparse

    from tui.commands.app_args import add_tui_arguments

    parser = argparse.ArgumentParser()
    add_tui_arguments(parser)
    with pytest.raises(UsageError, match="only the demo tenant moves"):
        options_from_args(parser.parse_args(["--case", "incident.json", "--live"]))
    with pytest.raises(UsageError, match="--seed"):
        options_from_args(parser.parse_args(["--demo", "--seed", "3"]))
    options = options_from_args(parser.parse_args(["--demo", "--live", "--seed", "3"]))
    assert options.live == LiveSettings(seed=3) and options == StartOptions(mode="demo", live=LiveSettings(seed=3))


async def test_a_storm_answers_429_with_retry_after_and_then_passes(demo_bundle: CaseBundle) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    tenant = open_bundle_tenant(demo_bundle, label="storm", live=LiveSettings(), live_clock=clock)
    plane = moving(tenant)
    plane.storms = (Storm(10, 40, retry_after_s=3),)
    try:
        from core.triage.pacing import polite

        clock.advance(15)
        with polite(), pytest.raises(ApiError) as caught:
            await newest(tenant)
        assert caught.value.status == 429 and caught.value.retry_after == 3.0
        clock.advance(30)
        assert await newest(tenant)  # past the storm
        assert plane.stormed == 1
    finally:
        await tenant.aclose()


def test_the_live_clock_is_shared_by_start_and_epoch() -> None:
    start = datetime.fromisoformat("2026-11-30T12:00:00+00:00")
    epoch = time.time() - 90
    one, two = live_clock(start, epoch), live_clock(start, epoch, wall=time.time)
    assert abs((one() - start).total_seconds() - 90) < 5
    assert abs((one() - two()).total_seconds()) < 1
    fast = live_clock(start, epoch, speed=10)
    assert abs((fast() - start).total_seconds() - 900) < 50


async def test_the_apps_simulator_process_serves_the_clock_the_app_reads() -> None:
    # Started 25 s in the past at 10x: the first actors have moved, and the tenant's clock reads the same moment.
    settings = LiveSettings(seed=1, speed=10, epoch=time.time() - 25)
    process = SimProcess.start(live=settings)
    tenant = open_served_tenant(process, label="live")
    try:
        assert tenant.live_clock is not None
        seconds = (tenant.live_clock() - tenant.captured_at).total_seconds()  # type: ignore[operator]
        assert 240 < seconds < 400
        names = {w.name for w in await newest(tenant, 30)}
        due = [a.name for a, _ in zip(actors(1), range(50), strict=False) if a.start < seconds - 60]
        assert due and set(due[:5]) <= names
    finally:
        await tenant.aclose()
        await asyncio.sleep(0)


def test_serve_demo_live_serves_a_moving_tenant() -> None:
    import subprocess
    import sys
    from pathlib import Path

    import httpx

    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen([sys.executable, "-m", "tui.cli", "serve", "--demo", "--live", "--seed", "1"],
                               cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(4)]
        start = datetime.fromisoformat(lines[1].split("Live: on your clock from ", 1)[1].split(" ", 1)[0])
        assert abs(time.time() - start.timestamp()) < 30  # the wall clock, not the demo's capture instant
        url = lines[0].rsplit(" at ", 1)[1].strip()
        token = lines[3].split("RUNAI_BEARER_TOKEN=")[1].strip()
        first = next(actors(1))
        time.sleep(first.start + 1.5)
        query = {"sortBy": "phaseUpdatedAt", "sortOrder": "desc", "limit": "3"}
        answer = httpx.get(f"{url}/api/v1/workloads", params=query, headers={"Authorization": f"Bearer {token}"})
        assert first.name in [w["name"] for w in answer.json()["workloads"]]
    finally:
        process.terminate()
        process.wait(timeout=10)
