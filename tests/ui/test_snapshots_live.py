"""SVG snapshots of the live views on the moving demo tenant, at 80x24 and 120x40: the picker after a workload
failed while it was open (the row marked, its verdict in, the count of new failures, the time it was read, the
cursor on the workload it was on), and a followed crash loop after a restart.

Deterministic: the tenant's clock is a stepped one the test moves, the intervals are long enough that no timer
reads on its own during a snapshot (the test asks for each read), animations are off and nothing blinks.
Regenerate with `pytest tests/ui/test_snapshots_live.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from core.sim.bundle import CaseBundle
from core.sim.live.clock import SteppedClock
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.tenant import open_bundle_tenant
from tests.ui.conftest import loaded_picker, settle
from tui.app import TriageApp
from tui.commands.start import OpenedTenant, StartOptions
from tui.messages import DiagnosisTarget
from tui.screens.diagnosis.open import request_for
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.picker.screen import PickerScreen

SIZES = [(80, 24), (120, 40)]
IDS = ["80x24", "120x40"]
OOM = next(a for a in actors(1) if a.kind == "oom")
LOOP = next(a for a in actors(1) if a.kind == "crash-loop")
INTERVAL = 60.0  # long: the test makes every read itself


class _App(TriageApp):
    """The app with its diagnosis's read timings frozen (every step shows 0 ms)."""

    def open_diagnosis(self, target: DiagnosisTarget, replay: tuple[Any, ...] = ()) -> None:
        if self.tenant is not None:
            request = request_for(target, self.clock())
            self.push_screen(DiagnosisScreen(request, self.tenant, clock=self.clock, engine_clock=lambda: 0.0))


def _app(bundle: CaseBundle, clock: SteppedClock) -> TriageApp:
    def opener() -> OpenedTenant:
        return OpenedTenant(open_bundle_tenant(bundle, label="demo tenant, live", live=LiveSettings(seed=1),
                                               live_clock=clock))

    app = _App(StartOptions(mode="demo", refresh_s=INTERVAL), opener=opener, clock=clock, cursor_blink=False,
                    debounce_s=0.05)
    app.animation_level = "none"
    return app


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_picker_after_a_failure(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    clock.advance(OOM.start + OOM.stages[1] + 1)

    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await loaded_picker(pilot)
        await settle(pilot, lambda: screen.verdicts_settled)
        assert isinstance(screen, PickerScreen)
        clock.advance(OOM.stages[2] - OOM.stages[1])  # killed while the picker is open
        assert screen.refresh_now()
        # Everything the picture shows has landed: the refresh, its verdicts, the news, the cluster line (which
        # resizes the table when it changes) and no page read under way.
        await settle(pilot, lambda: screen.refreshes == 1 and screen.verdicts_settled and bool(screen.new_failures())
                     and screen.clusters_checked and not screen.loading)
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(_app(demo_bundle, clock), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_followed_crash_loop(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    clock.advance(LOOP.start + LOOP.stages[2] + 1)

    async def run_before(pilot: Pilot[Any]) -> None:
        await loaded_picker(pilot)
        app: Any = pilot.app
        rows = (await app.tenant.runai.list_workloads(sort_by="phaseUpdatedAt", sort_order="desc", limit=10)).items
        row = next(w for w in rows if w.name == LOOP.name)
        app.open_diagnosis(DiagnosisTarget(row.cluster_id, row.id, row.name, row.project_name))
        await settle(pilot, lambda: isinstance(app.screen, DiagnosisScreen) and app.screen.report is not None)
        screen = app.screen
        await pilot.press("f")
        await settle(pilot, lambda: screen.follow_reads == 1)
        clock.advance(LOOP.stages[3] - LOOP.stages[2])  # the next restart
        screen.follow_now()
        await settle(pilot, lambda: screen.follow_reads == 2 and not screen.running and screen.report is not None
                     and "verdict" in screen.query_one("#follow-line").plain)
        await pilot.pause()

    assert snap_compare(_app(demo_bundle, clock), terminal_size=size, run_before=run_before)
