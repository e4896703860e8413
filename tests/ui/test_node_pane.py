"""The Node tab: a node problem detector's failing health condition is marked as failing, as the diagnosis reads
it, and every column of the conditions table stays readable at 80 columns."""

from __future__ import annotations

import re

import pytest

from core.tenant import Tenant
from tests.ui.test_diagnosis import CASES, make, options_for, screen_text, verdict, verdict_on_tab
from tui.widgets.node_pane import NodePane


def _row(text: str, condition: str) -> str:
    rows = [line for line in text.splitlines() if f" {condition} " in line]
    assert rows, f"no row for {condition} in:\n{text}"
    return rows[0]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_a_failing_gpu_health_condition_is_marked_failing_and_its_message_is_readable(
    demo_tenant: Tenant, size: tuple[int, int]
) -> None:
    # xid79-16pod: the node's AcceleratedHardwareReady is False (Xid 79), the finding the verdict's ⚑ line names.
    app = make(demo_tenant, options_for(CASES["xid79-16pod"]))
    async with app.run_test(size=size) as pilot:
        screen = await verdict(pilot)
        await pilot.press("8")
        await pilot.pause()
        pane = screen.query_one(NodePane)
        assert pane.state == "found"
        text = screen_text(app)
        # A ...Ready condition that is False is the problem; the kubelet's pressure conditions False are healthy.
        assert _row(text, "AcceleratedHardwareReady").lstrip().startswith("✗")
        assert _row(text, "MemoryPressure").lstrip().startswith("✓")
        assert _row(text, "Ready").lstrip().startswith("✓")
        # The message is drawn in words, not one letter a line: its first words are on screen.
        assert re.search(r"NVRM: Xid", text), text


async def test_a_notready_tainted_node_is_never_called_schedulable(demo_tenant: Tenant) -> None:
    # node-notready: the node went NotReady and the node controller tainted it unreachable.
    app = make(demo_tenant, options_for(CASES["node-notready"]))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = (await verdict_on_tab(pilot, "8")).query_one(NodePane)
        assert pane.state == "found" and pane.node is not None
        head = next(line for line in screen_text(app).splitlines() if line.lstrip().startswith("Node "))
        assert "NotReady" in head and "tainted" in head and not head.rstrip().endswith("· schedulable"), head
        assert any(t.endswith((":NoSchedule", ":NoExecute")) for t in pane.node.taints)
