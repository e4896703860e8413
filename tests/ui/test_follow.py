"""`f` on a diagnosis follows the workload (tui/screens/diagnosis/follow.py), on a live demo tenant driven by a
stepped clock: a crash-looping workload is diagnosed again when it restarts and when it fails, the line above
the banner says what changed and whether the verdict did, nothing is diagnosed again while nothing changes, and
a workload in a final phase is not followed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.pilot import Pilot

from core.sim.bundle import CaseBundle
from core.sim.live.clock import SteppedClock
from core.sim.live.plane import LiveControlPlane
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.tenant import Tenant, open_bundle_tenant
from tests.ui.conftest import loaded_picker, make_app, settle
from tui.commands.start import StartOptions
from tui.messages import DiagnosisTarget
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.widgets.follow_line import FollowLine

SIZE = (120, 40)
LOOP = next(a for a in actors(1) if a.kind == "crash-loop")
OOM = next(a for a in actors(1) if a.kind == "oom")


@pytest.fixture
async def live(demo_bundle: CaseBundle) -> AsyncIterator[tuple[Tenant, SteppedClock]]:
    clock = SteppedClock(demo_bundle.captured_at)
    clock.advance(LOOP.start + LOOP.stages[2] + 1)  # its first crash: Running in CrashLoopBackOff
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant, live", live=LiveSettings(seed=1), live_clock=clock)
    try:
        yield tenant, clock
    finally:
        await tenant.aclose()


def status_reads(tenant: Tenant, workload_id: str) -> int:
    assert isinstance(tenant.control_plane, LiveControlPlane)
    return sum(1 for r in tenant.control_plane.requests if r.path == f"/api/v1/workloads/{workload_id}")


async def opened(pilot: Pilot[Any], tenant: Tenant, name: str) -> DiagnosisScreen:
    screen = await loaded_picker(pilot)
    row = next(w for w in (await tenant.runai.list_workloads(sort_by="phaseUpdatedAt", sort_order="desc")).items
               if w.name == name)
    pilot.app.open_diagnosis(DiagnosisTarget(row.cluster_id, row.id, row.name, row.project_name))
    await settle(pilot, lambda: isinstance(pilot.app.screen, DiagnosisScreen) and pilot.app.screen.report is not None)
    del screen
    return pilot.app.screen  # type: ignore[return-value]


def line(screen: DiagnosisScreen) -> str:
    lines = list(screen.query(FollowLine))
    return lines[0].plain if lines else ""


async def test_f_follows_a_crash_loop_through_its_restarts_to_its_end(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    app = make_app(tenant, clock=clock, options=StartOptions(mode="demo", refresh_s=1.0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, tenant, LOOP.name)
        assert screen.report is not None and screen.report.category == "CRASH_APP_ERROR"
        workload_id = screen.report.workload.id or ""
        await pilot.press("f")
        await settle(pilot, lambda: screen.follow_reads >= 2)
        assert screen.following and line(screen).startswith("↻ following every 1 s, read ")
        runs = status_reads(tenant, workload_id)
        await settle(pilot, lambda: screen.follow_reads >= 4)
        # Nothing moved: followed, never diagnosed again (the follower's own workload reads only).
        assert status_reads(tenant, workload_id) - runs == screen.follow_reads - 2
        clock.advance(LOOP.stages[3] - LOOP.stages[2])  # the next restart
        restart = (clock().replace(microsecond=0)).strftime("%H:%M")
        await settle(pilot, lambda: "verdict unchanged" in line(screen), timeout=15)
        assert line(screen).startswith(f"↻ restart 2 at {restart}")
        clock.advance(LOOP.stages[-1] - LOOP.stages[3])  # the back-off limit is reached: Failed
        await settle(pilot, lambda: "the workload ended (Failed): no longer followed" in line(screen), timeout=15)
        assert "phase Failed at " in line(screen) and "verdict unchanged" in line(screen)
        assert not screen.following and screen.report is not None and screen.report.workload.phase == "Failed"


async def test_a_final_phase_is_not_followed_and_f_says_why(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    clock.advance(OOM.start + OOM.stages[-1] + 5 - (LOOP.start + LOOP.stages[2] + 1))
    app = make_app(tenant, clock=clock, options=StartOptions(mode="demo", refresh_s=1.0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, tenant, OOM.name)
        assert screen.report is not None and screen.report.workload.phase == "Failed"
        await pilot.press("f")
        await pilot.pause()
        assert not screen.following and not list(screen.query(FollowLine))
        said = [n.message for n in app._notifications]
        assert any("Failed is a final phase" in m and "nothing to follow" in m for m in said)


async def test_leaving_the_screen_ends_following(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    app = make_app(tenant, clock=clock, options=StartOptions(mode="demo", refresh_s=1.0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot, tenant, LOOP.name)
        await pilot.press("f")
        await settle(pilot, lambda: screen.follow_reads >= 1)
        await pilot.press("escape")
        await pilot.pause()
        reads = screen.follow_reads
        await pilot.pause(2.5)
        assert screen.follow_reads == reads  # covered by the picker: no reads
        again = await opened(pilot, tenant, OOM.name)
        assert again is screen and not screen.following and not list(screen.query(FollowLine))
