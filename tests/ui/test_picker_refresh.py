"""The picker follows a live demo tenant (tui/screens/picker_refresh.py), driven headless with a frozen clock
that the test moves: a workload that fails while the picker is open shows its new phase, its verdict and the
"new failures" count within two refresh intervals, with the cursor where it was; only the row that moved is
diagnosed again; one list request per interval; a failed refresh is said in the header and keeps the rows;
refreshing pauses while the user types in the filter and never takes the focus; the help lists the new key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from core.sim.bundle import CaseBundle
from core.sim.control_plane import RecordedRequest
from core.sim.live.clock import SteppedClock
from core.sim.live.plane import LiveControlPlane, Storm
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.tenant import Tenant, open_bundle_tenant
from tests.ui.conftest import loaded_picker, make_app, settle
from tui.commands.start import StartOptions
from tui.screens.help import HelpScreen
from tui.screens.picker.news import NEW
from tui.screens.picker.pace import refresh_interval
from tui.screens.picker.screen import PickerScreen
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.top_bar import TopBar
from tui.widgets.workload_table import WorkloadTable

SIZE = (120, 40)
INTERVAL = 1.0
OOM = next(a for a in actors(1) if a.kind == "oom")


@pytest.fixture
async def live(demo_bundle: CaseBundle) -> AsyncIterator[tuple[Tenant, SteppedClock]]:
    # The OOM workload is running when the picker opens; the test decides when it is killed.
    clock = SteppedClock(demo_bundle.captured_at)
    clock.advance(OOM.start + OOM.stages[1] + 1)
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant, live", live=LiveSettings(seed=1), live_clock=clock)
    try:
        yield tenant, clock
    finally:
        await tenant.aclose()


def plane(tenant: Tenant) -> LiveControlPlane:
    assert isinstance(tenant.control_plane, LiveControlPlane)
    return tenant.control_plane


def lists(tenant: Tenant) -> list[RecordedRequest]:
    return [r for r in plane(tenant).requests if r.path == "/api/v1/workloads"]


def status_reads(tenant: Tenant) -> list[str]:
    prefix = "/api/v1/workloads/"
    return [r.path.removeprefix(prefix) for r in plane(tenant).requests
            if r.path.startswith(prefix) and r.path.count("/") == 4 and not r.path.endswith("/count")]


def live_app(tenant: Tenant, clock: SteppedClock, refresh: float = INTERVAL) -> Any:
    return make_app(tenant, clock=clock, options=StartOptions(mode="demo", refresh_s=refresh))


def header(screen: PickerScreen) -> str:
    return str(screen.query_one(TopBar).query_one(".top-bar--context").render())


def row_of(table: WorkloadTable, name: str) -> int:
    return next(i for i, w in enumerate(table.workloads) if w.name == name)


async def settled(pilot: Pilot[Any]) -> PickerScreen:
    screen = await loaded_picker(pilot)
    await settle(pilot, lambda: screen.verdicts_settled and screen.refreshes >= 1)
    return screen


async def test_a_workload_that_fails_shows_its_phase_verdict_and_count_within_two_intervals(
    live: tuple[Tenant, SteppedClock],
) -> None:
    tenant, clock = live
    app = live_app(tenant, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settled(pilot)
        table = screen.query_one(WorkloadTable)
        assert table.workloads[row_of(table, OOM.name)].phase == "Running"
        await pilot.press("j", "j", "j")
        chosen = table.highlighted
        assert chosen is not None and chosen.name != OOM.name
        before, reads = screen.refreshes, len(status_reads(tenant))
        clock.advance(OOM.stages[2] - OOM.stages[1])  # the kubelet kills it now
        oom_id = table.workloads[row_of(table, OOM.name)].id
        await settle(pilot, lambda: screen.refreshes >= before + 2 and screen.verdicts_settled, timeout=15)
        index = row_of(table, OOM.name)
        assert table.workloads[index].phase == "Failed"
        assert table.verdict_text(oom_id or "") == "OOM_KILLED"
        # The crash loop submitted after it starts crashing in the same seconds: both are news.
        flagged = screen.new_failures()
        loop = next(a for a in actors(1) if a.kind == "crash-loop")
        assert set(flagged) == {oom_id, table.workloads[row_of(table, loop.name)].id}
        assert f"{NEW} 2 new failures (n)" in screen.query_one(PageIndicator).plain
        assert str(table.get_cell(str(index), "updated")).startswith(NEW)
        assert table.highlighted is not None and table.highlighted.id == chosen.id  # the cursor did not move
        # Only the rows that moved into needing a verdict were diagnosed, each once.
        assert sorted(status_reads(tenant)[reads:]) == sorted(flagged)
        # `n` goes to the first, and once looked at it is news no more.
        await pilot.press("n")
        await settle(pilot, lambda: "1 new failure (n)" in screen.query_one(PageIndicator).plain)
        assert table.highlighted is not None and table.highlighted.id == flagged[0]
        assert screen.new_failures() == flagged[1:]


async def test_one_list_request_per_interval_and_the_time_it_was_read(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    app = live_app(tenant, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settled(pilot)
        start, count = screen.refreshes, len(lists(tenant))
        await settle(pilot, lambda: screen.refreshes >= start + 3, timeout=15)
        assert len(lists(tenant)) - count == screen.refreshes - start  # one list read per refresh, nothing else
        assert f"read {clock().strftime('%H:%M:%S')} UTC · every 1 s" in header(screen)


async def test_a_failed_refresh_is_said_in_the_header_and_keeps_the_rows(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    app = live_app(tenant, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settled(pilot)
        table = screen.query_one(WorkloadTable)
        rows = [w.id for w in table.workloads]
        now = (clock() - plane(tenant).world.base.captured_at).total_seconds()
        # Retry-After is longer than the pacer's own doubling (2 s): the header must say the server's wait, and a
        # loaded machine cannot fit a second attempt in before the assertions (a 2 s wait could, in real time).
        plane(tenant).storms = (Storm(now, now + 3600, retry_after_s=40),)
        count = len(lists(tenant))

        await settle(pilot, lambda: "refresh failed" in header(screen), timeout=10)
        assert "refresh failed (HTTP 429), retry in 40 s · rows read" in header(screen)
        assert [w.id for w in table.workloads] == rows and table.display
        assert len(lists(tenant)) == count + 1  # one attempt, then the pacer waits as the server asked


async def test_refreshing_pauses_while_typing_and_never_takes_the_focus(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    app = live_app(tenant, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settled(pilot)
        await pilot.press("slash", "l")
        count = len(lists(tenant))
        clock.advance(60)  # much moves meanwhile
        await pilot.pause(3 * INTERVAL)
        assert isinstance(app.focused, Input)
        # The debounced filter read itself is the only list read made while typing.
        assert len(lists(tenant)) - count <= 1
        assert "paused while you type" in header(screen)
        await pilot.press("escape")
        await settle(pilot, lambda: "every 1 s" in header(screen), timeout=10)


async def test_the_help_lists_the_new_key(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    app = live_app(tenant, clock)
    async with app.run_test(size=SIZE) as pilot:
        await settled(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert any(e.keys == ("n",) and e.description == "next new failure" for e in app.screen.entries)


def test_the_default_interval_follows_the_tenant(demo_bundle: CaseBundle) -> None:
    still = open_bundle_tenant(demo_bundle, label="still")
    moving = open_bundle_tenant(demo_bundle, label="live", live=LiveSettings())
    try:
        assert refresh_interval(None, None, still) == 0  # a recorded moment never changes: read when asked
        assert refresh_interval(7, None, still) == 7  # unless --refresh says so
        assert refresh_interval(None, None, moving) == 5 and refresh_interval(None, 30, moving) == 30
    finally:
        import asyncio

        asyncio.run(still.aclose())
        asyncio.run(moving.aclose())


async def test_the_interval_set_with_a_command_is_kept_in_the_settings(live: tuple[Tenant, SteppedClock]) -> None:
    from tui.settings import load_settings

    tenant, clock = live
    app = live_app(tenant, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settled(pilot)
        read = header(screen).split(" · ")[1]
        assert read.startswith("read ")
        screen.set_refresh(10, save=True)
        await pilot.pause()
        assert "every 10 s" in header(screen) and screen.refresh_s == 10
        assert read in header(screen)  # a new interval: when the rows were read is still said
        saved, problem = load_settings(app.config_dir)
        assert problem is None and saved.refresh_s == 10
        app.theme = "nord"  # a theme chosen later keeps the interval beside it
        await pilot.pause()
        assert load_settings(app.config_dir)[0] == type(saved)(theme="nord", refresh_s=10)


async def test_the_program_opens_a_moving_demo_on_the_clock_its_simulator_serves() -> None:
    from tui.app import program_app
    from tui.cli import app_arguments, start_simulator

    args = app_arguments(["--demo", "--live", "--seed", "2"])
    assert args is not None
    app = program_app(args, start_simulator(args), freeze_after_open=False, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        assert app.tenant is not None and app.tenant.live_clock is not None and app.clock is app.tenant.live_clock
        assert app.tenant.label == "demo tenant, live" and screen.refresh_s == 5
        await settle(pilot, lambda: "every 5 s" in header(screen))
        assert abs((app.clock() - app.tenant.captured_at).total_seconds()) < 120  # type: ignore[operator]


async def test_refreshing_pauses_while_a_list_is_open(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    app = live_app(tenant, clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await settled(pilot)
        await pilot.press("c")  # the cluster list opens
        await settle(pilot, lambda: "paused while a list is open" in header(screen), timeout=10)
        count = len(lists(tenant))
        await pilot.pause(3 * INTERVAL)
        assert len(lists(tenant)) == count
        await pilot.press("escape")
        await settle(pilot, lambda: "every 1 s" in header(screen) and len(lists(tenant)) > count, timeout=10)
