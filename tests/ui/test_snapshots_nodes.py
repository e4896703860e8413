"""SVG snapshots of the Nodes view on the demo tenant, at 80x24 and 120x40: the bad node first and marked, its
cause on the line under the table; and the workloads that ran on it, with their verdicts.

Deterministic the way the picker's are: the demo tenant's clock is frozen at its capture time, cursors do not
blink, animations are off, the view is shown once its read (and every diagnosis in it) is done. Regenerate with
`pytest tests/ui/test_snapshots_nodes.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from core.sim.bundle import CaseBundle
from core.tenant import open_bundle_tenant
from tests.ui.conftest import loaded_picker, settle
from tui.app import TriageApp
from tui.commands.start import OpenedTenant
from tui.screens.node_workloads import NodeWorkloadsScreen
from tui.screens.nodes import NodesScreen

SIZES = [(80, 24), (120, 40)]


def nodes_app(bundle: CaseBundle) -> TriageApp:
    def opener() -> OpenedTenant:
        return OpenedTenant(open_bundle_tenant(bundle, label="demo tenant"))

    app = TriageApp(opener=opener, cursor_blink=False, debounce_s=0.05)
    app.animation_level = "none"
    return app


async def on_nodes(pilot: Pilot[Any]) -> NodesScreen:
    await loaded_picker(pilot)
    await pilot.press("N")
    await settle(pilot, lambda: isinstance(pilot.app.screen, NodesScreen) and pilot.app.screen.settled, 30)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, NodesScreen)
    return screen


async def on_node_workloads(pilot: Pilot[Any]) -> None:
    await on_nodes(pilot)
    await pilot.press("enter")
    await settle(pilot, lambda: isinstance(pilot.app.screen, NodeWorkloadsScreen) and pilot.app.screen.loaded)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_nodes_view(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(nodes_app(demo_bundle), terminal_size=size, run_before=on_nodes)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_node_workloads(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(nodes_app(demo_bundle), terminal_size=size, run_before=on_node_workloads)
