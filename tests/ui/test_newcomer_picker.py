"""The picker as a newcomer met it (issue 34, points 2 to 4), on the demo tenant (still, and live with a stepped
clock): failing Pending rows get a verdict without `a`; back from a diagnosis whose workload left the page, the
list is not narrowed to it and what failed meanwhile stays marked; the total follows the tenant; a workload that
recovers is said to, in the picker as the diagnosis says it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.pilot import Pilot

from core.sim.bundle import CaseBundle
from core.sim.live.clock import SteppedClock
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.tenant import Tenant, open_bundle_tenant
from tests.ui.conftest import loaded_picker, make_app, settle
from tests.ui.test_picker_refresh import row_of, settled
from tui.commands.start import StartOptions
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.picker.news import NEW, RECOVERED
from tui.screens.picker.screen import PickerScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.row_detail import RowDetail
from tui.widgets.verdict_line import VerdictLine
from tui.widgets.workload_table import WorkloadTable

OOM = next(a for a in actors(1) if a.kind == "oom")
RECOVERS = next(a for a in actors(1) if a.kind == "recovers")
# The demo's Pending rows that fail in ways only their events show.
FAILING_PENDING = {"asr-stream": "IMAGE_PULL_FAILED", "bert-serve": "IMAGE_PULL_FAILED",
                   "sam-finetune": "IMAGE_PULL_FAILED", "clip-eval": "INIT_FAILED",
                   "wav2vec-pt": "DATASOURCE_MOUNT_FAILED"}


async def test_failing_pending_rows_get_their_verdict_without_a(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded_picker(pilot)
        await settle(pilot, lambda: screen.verdicts_settled, timeout=20)
        table = screen.query_one(WorkloadTable)
        verdicts = {w.name: table.verdict_text(w.id or "") for w in table.workloads if w.phase == "Pending"}
        for name, category in FAILING_PENDING.items():
            assert verdicts.get(name) == category, (name, verdicts)
        assert not screen.picker_query.attention  # the plain list, not `a`
        # A healthy Pending row (waiting for GPUs) stays plain: one events read told it apart.
        assert verdicts.get("conformer-ctc") in ("", None), verdicts
        assert "PULL" in screen.query_one(VerdictLine).plain


def live_app(tenant: Tenant, clock: SteppedClock, size: tuple[int, int]) -> Any:
    return make_app(tenant, clock=clock, options=StartOptions(mode="demo", refresh_s=1.0))


@pytest.fixture
async def live(demo_bundle: CaseBundle) -> AsyncIterator[tuple[Tenant, SteppedClock]]:
    clock = SteppedClock(demo_bundle.captured_at)
    clock.advance(OOM.start + OOM.stages[1] + 1)  # the OOM workload is running; the test kills it
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant, live", live=LiveSettings(seed=1), live_clock=clock)
    try:
        yield tenant, clock
    finally:
        await tenant.aclose()


async def open_row(pilot: Pilot[Any], screen: PickerScreen, index: int) -> DiagnosisScreen:
    table = screen.query_one(WorkloadTable)
    table.move_cursor(row=index)
    await pilot.press("enter")
    await settle(pilot, lambda: isinstance(pilot.app.screen, DiagnosisScreen) and pilot.app.screen.report is not None,
                 timeout=20)
    return pilot.app.screen  # type: ignore[return-value]


async def test_back_from_a_diagnosis_the_list_is_not_narrowed_and_news_stays_marked(
    live: tuple[Tenant, SteppedClock],
) -> None:
    tenant, clock = live
    app = live_app(tenant, clock, (80, 24))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await settled(pilot)
        table = screen.query_one(WorkloadTable)
        last = table.row_count - 1
        chosen = table.workloads[last]
        await open_row(pilot, screen, last)
        # While the diagnosis is open: the OOM workload is killed, and newer workloads push the chosen one off
        # the first page.
        clock.advance(OOM.stages[2] - OOM.stages[1] + 120)
        await pilot.pause(1.5)
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen) and not screen.loading)
        await settle(pilot, lambda: table.highlighted is not None and table.highlighted.id == chosen.id, timeout=15)
        assert screen.query_one(FilterBar).picker_query.name in ("", None), "the list is not narrowed to it"
        assert screen.offset > 0, "its row left the first page: its page is shown"
        oom_id = next(w.id for w in (await tenant.runai.list_workloads(sort_by="phaseUpdatedAt", sort_order="desc",
                                                                        limit=100)).items if w.name == OOM.name)
        await settle(pilot, lambda: oom_id in screen.new_failures(), timeout=15)
        assert f"{NEW} " in screen.query_one(PageIndicator).plain and "new failure" in screen.query_one(
            PageIndicator).plain


async def test_the_total_follows_the_tenant(live: tuple[Tenant, SteppedClock]) -> None:
    tenant, clock = live
    app = live_app(tenant, clock, (120, 40))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        first = screen.nav.total
        assert first is not None
        clock.advance(600)  # ten minutes of the live tenant: workloads submitted
        counted = await tenant.runai.count_workloads(screen.picker_query.filters())
        assert counted > first
        await settle(pilot, lambda: screen.nav.total == counted, timeout=15)
        assert f"of {counted:,}" in screen.query_one(PageIndicator).plain


@pytest.fixture
async def recovering(demo_bundle: CaseBundle) -> AsyncIterator[tuple[Tenant, SteppedClock]]:
    clock = SteppedClock(demo_bundle.captured_at)
    clock.advance(RECOVERS.start + RECOVERS.stages[1] + 1)  # up and running, before its crash
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant, live", live=LiveSettings(seed=1), live_clock=clock)
    try:
        yield tenant, clock
    finally:
        await tenant.aclose()


async def test_a_recovered_workload_is_said_recovered_as_the_diagnosis_says(
    recovering: tuple[Tenant, SteppedClock],
) -> None:
    tenant, clock = recovering
    app = live_app(tenant, clock, (120, 40))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        table = screen.query_one(WorkloadTable)
        clock.advance(RECOVERS.stages[2] - RECOVERS.stages[1])  # it crashes: news
        await settle(pilot, lambda: any(table.workloads[row_of(table, RECOVERS.name)].id == i
                                        for i in screen.new_failures()), timeout=15)
        row_id = table.workloads[row_of(table, RECOVERS.name)].id or ""
        await settle(pilot, lambda: table.verdict_text(row_id) == "CRASH_APP_ERROR", timeout=15)
        clock.advance(RECOVERS.stages[3] - RECOVERS.stages[2])  # it comes back up
        await settle(pilot, lambda: table.verdict_text(row_id) == "running", timeout=15)
        assert row_id not in screen.new_failures(), "a recovery is not a new failure"
        assert str(table.get_cell(str(row_of(table, RECOVERS.name)), "updated")).startswith(RECOVERED)
        assert f"{RECOVERED} 1 recovered" in screen.query_one(PageIndicator).plain
        table.move_cursor(row=row_of(table, RECOVERS.name))
        await pilot.pause()
        said = screen.query_one(RowDetail).plain
        assert "again since" in said and "nothing is failing now" in said and "Engine loop" not in said, said
