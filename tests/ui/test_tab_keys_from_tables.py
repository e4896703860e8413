"""Tab keys work from every pane, including a pane whose table has the focus (the Pod tab of a workload of
several pods focuses its pods table) to a pane with nothing to focus (the memory chart): the tabs once followed
the focus back to the hidden table."""

from __future__ import annotations

from core.tenant import Tenant
from tests.ui.test_diagnosis import CASES, make, options_for, verdict
from tests.ui.test_diagnosis_keys import SIZE, active_tab
from tui.screens.diagnosis.screen import TABS


async def test_every_tab_reaches_the_memory_tab_and_back(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["dist-oom-cascade"]))
    memory = next(n for n, (pane, _) in enumerate(TABS, start=1) if pane == "tab-memory")
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        for n, (pane, _) in enumerate(TABS, start=1):
            await pilot.press(str(n))
            assert active_tab(screen) == pane
            await pilot.press(str(memory))
            assert active_tab(screen) == "tab-memory", f"{n} then {memory} (focus: {app.focused!r})"
            await pilot.press(str(n))
            assert active_tab(screen) == pane
