"""Small behaviours a new user met (issue 27, point 12), each driven the way a user does it: back from a direct
open onto the workload, j and k going on past the page, a Created column when the list is sorted by creation,
enter while the tenant opens, two tab keys in one burst, and reports kept out of the working directory.
Against the real demo tenant over HTTP."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual import events

from core.sim.bundle import CaseBundle
from core.tenant import Tenant, open_bundle_tenant
from tests.ui.conftest import loaded_picker, make_app, settle
from tests.ui.test_diagnosis import CASES, make, options_for, verdict
from tui.app import TriageApp
from tui.commands.start import OpenedTenant, StartOptions
from tui.export import EXPORT_DIR_ENV, export_dir
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.picker.screen import PickerScreen
from tui.widgets.workload_table import WorkloadTable

SIZE = (80, 24)


@pytest.mark.parametrize("key", ["crash-traceback", "oom-recurring"])  # on the first page, and far from it
async def test_back_from_a_direct_open_lands_on_that_workload(demo_tenant: Tenant, key: str) -> None:
    case = CASES[key]
    app = make(demo_tenant, options_for(case))
    async with app.run_test(size=SIZE) as pilot:
        await verdict(pilot)
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))
        screen = app.screen
        assert isinstance(screen, PickerScreen)
        table = screen.query_one(WorkloadTable)
        await settle(pilot, lambda: table.highlighted is not None and table.highlighted.id == case["workloadId"])
        assert not screen.loading


async def test_j_and_k_go_on_past_the_page(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        rows = table.row_count
        first_page = [w.id for w in table.workloads]
        for _ in range(rows - 1):
            await pilot.press("j")
        assert table.cursor_row == rows - 1 and screen.offset == 0
        await pilot.press("j")
        await settle(pilot, lambda: screen.offset == rows and not screen.loading)
        assert table.cursor_row == 0 and [w.id for w in table.workloads] != first_page
        await pilot.press("k")
        await settle(pilot, lambda: screen.offset == 0 and not screen.loading)
        assert table.cursor_row == rows - 1 and [w.id for w in table.workloads] == first_page


async def test_sorted_by_creation_the_creation_time_is_shown(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        for _ in range(4):  # s: name, project, phase, then creation
            await pilot.press("s")
            await settle(pilot, lambda: not screen.loading)
        assert screen.sort.field == "createdAt"
        assert "created" in table.column_keys and "updated" not in table.column_keys
        label = str(table.ordered_columns[table.get_column_index("created")].label)
        assert label == "Created ▼"


async def test_enter_while_the_tenant_opens_says_so(demo_bundle: CaseBundle) -> None:
    release = threading.Event()

    def slow_opener() -> OpenedTenant:
        release.wait(10)
        return OpenedTenant(open_bundle_tenant(demo_bundle, label="demo tenant"))

    app = TriageApp(StartOptions(mode="demo"), opener=slow_opener, cursor_blink=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("enter")
            await pilot.pause()
            said = [str(n.message) for n in app._notifications]
            assert any(m.startswith("Still opening the demo tenant") for m in said), said
            release.set()
            await settle(pilot, lambda: isinstance(app.screen, PickerScreen))
    finally:
        release.set()
        if app.tenant is not None:
            await app.tenant.aclose()


@pytest.mark.parametrize(("first", "second", "pane"), [("7", "5", "tab-pod"), ("3", "8", "tab-node")])
async def test_two_tab_keys_in_one_burst_end_on_the_second(
    demo_tenant: Tenant, first: str, second: str, pane: str
) -> None:
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        # As a terminal delivers them: both keys queued before either is handled.
        app.post_message(events.Key(first, first))
        app.post_message(events.Key(second, second))
        await pilot.pause()
        await pilot.pause(0.2)
        assert isinstance(screen, DiagnosisScreen)
        assert screen.query_one("#diagnosis-tabs").active == pane  # type: ignore[attr-defined]
        assert app.focused is None or any(n.id == pane for n in app.focused.ancestors_with_self)


def test_reports_go_to_the_platforms_data_directory_not_the_working_one(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    chosen = export_dir(env)
    assert chosen == tmp_path / "data" / "runai-triage" / "reports" and chosen.is_dir()
    assert export_dir({**env, EXPORT_DIR_ENV: str(tmp_path / "mine")}) == tmp_path / "mine"
    assert list(tmp_path.iterdir()) == [tmp_path / "data"]  # nothing in the working directory
