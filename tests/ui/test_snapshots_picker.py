"""SVG snapshots of the picker: loaded, loading, empty and error, the needs-attention view, all clusters, the
cursor row on every kind of phase, the full view of a row and the help, at 80x24 and 160x50.

Deterministic by construction: the demo tenant's clock is frozen at its capture time, input cursors do not
blink, animations are off, and nothing on screen depends on the loopback port. Regenerate with
`pytest tests/ui/test_snapshots_picker.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Select

from core.sim.bundle import CaseBundle
from core.tenant import open_bundle_tenant
from tests.ui.conftest import settle, small_bundle, workload
from tui.app import TriageApp
from tui.commands.start import OpenedTenant
from tui.screens.detail import DetailScreen
from tui.screens.help import HelpScreen
from tui.screens.picker.screen import PickerScreen
from tui.widgets.workload_table import WorkloadTable

SIZES = [(80, 24), (160, 50)]


def _app(bundle: CaseBundle, **tenant_kwargs: Any) -> TriageApp:
    def opener() -> OpenedTenant:
        return OpenedTenant(open_bundle_tenant(bundle, label="demo tenant", **tenant_kwargs))

    app = TriageApp(opener=opener, cursor_blink=False, debounce_s=0.05)
    app.animation_level = "none"
    return app


def _answered(pilot: Pilot[Any]) -> bool:
    screen = pilot.app.screen
    # The Verdict column fills in the background: a snapshot waits for all of it.
    if not (isinstance(screen, PickerScreen) and screen.first_answer and not screen.loading
            and screen.verdicts_settled and screen.clusters_checked):
        return False
    # The cluster line (a stale cluster listed) takes a row: the page is sized again below it first.
    table = screen.query_one(WorkloadTable)
    return not table.display or table.row_count <= table.size.height - 1


async def _loaded(pilot: Pilot[Any]) -> None:
    await settle(pilot, lambda: _answered(pilot) and "…" not in _indicator(pilot))
    await pilot.pause()


def _indicator(pilot: Pilot[Any]) -> str:
    from tui.widgets.page_indicator import PageIndicator

    return pilot.app.screen.query_one(PageIndicator).plain


async def _empty(pilot: Pilot[Any]) -> None:
    await _loaded(pilot)
    await pilot.press("slash")
    pilot.app.screen.query_one("#name-filter", Input).value = "no-such-workload"
    await pilot.press("enter")
    await settle(pilot, lambda: _answered(pilot) and pilot.app.screen.picker_query.name == "no-such-workload")  # type: ignore[attr-defined]
    await pilot.pause()


async def _on_picker(pilot: Pilot[Any]) -> None:
    await settle(pilot, lambda: isinstance(pilot.app.screen, PickerScreen))
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_picker_loaded(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(_app(demo_bundle), terminal_size=size, run_before=_loaded)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_picker_loading(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    # Every answer takes 30 s, so the screenshot catches the first load in progress; closing the app stops
    # the server, which wakes the sleeping handler at once.
    assert snap_compare(_app(demo_bundle, latency_ms=30_000), terminal_size=size, run_before=_on_picker)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_picker_empty(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(_app(demo_bundle), terminal_size=size, run_before=_empty)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_picker_error(snap_compare: Any, size: tuple[int, int]) -> None:
    fault = {"match": "GET /api/v1/workloads", "status": 403, "times": 1000}
    bundle = small_bundle([workload("job-a", 5)], [fault])
    run_before: Callable[[Pilot[Any]], Awaitable[None]] = _loaded
    assert snap_compare(_app(bundle), terminal_size=size, run_before=run_before)


PHASES = ["Failed", "Stopped", "Pending", "Running", "Completed", "Initializing", "Odd"]


def _on_row(row: int) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await _loaded(pilot)
        pilot.app.screen.query_one(WorkloadTable).move_cursor(row=row, animate=False)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("phase", PHASES)
def test_picker_cursor_on_each_phase(snap_compare: Any, phase: str) -> None:
    # The cursor row stays readable whatever colour the phase has (a snapshot per kind of phase colour).
    entries = [workload(f"job-{p.lower()}", minutes, phase=p) for minutes, p in enumerate(PHASES)]
    app = _app(small_bundle(entries))
    assert snap_compare(app, terminal_size=(80, 24), run_before=_on_row(PHASES.index(phase)))


async def _attention(pilot: Pilot[Any]) -> None:
    await _loaded(pilot)
    await pilot.press("a")
    await settle(pilot, lambda: _answered(pilot) and "NEEDS ATTENTION" in _indicator(pilot))
    await settle(pilot, lambda: "…" not in _indicator(pilot))
    await pilot.press("down", "down")  # a Pending row: the detail line says why it is listed
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_picker_needs_attention(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(_app(demo_bundle), terminal_size=size, run_before=_attention)


async def _all_clusters(pilot: Pilot[Any]) -> None:
    await _loaded(pilot)
    pilot.app.screen.query_one("#cluster-select", Select).clear()
    await settle(pilot, lambda: _answered(pilot) and pilot.app.screen.picker_query.cluster_id is None)  # type: ignore[attr-defined]
    await settle(pilot, lambda: "…" not in _indicator(pilot))
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_picker_all_clusters(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(_app(demo_bundle), terminal_size=size, run_before=_all_clusters)


async def _row_view(pilot: Pilot[Any]) -> None:
    await _loaded(pilot)
    await pilot.press("down", "down", "down", "down", "down", "down", "v")
    await settle(pilot, lambda: isinstance(pilot.app.screen, DetailScreen))
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_picker_row_view(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(_app(demo_bundle), terminal_size=size, run_before=_row_view)


async def _help(pilot: Pilot[Any]) -> None:
    await _loaded(pilot)
    await pilot.press("question_mark")
    await settle(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "160x50"])
def test_picker_help(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(_app(demo_bundle), terminal_size=size, run_before=_help)
