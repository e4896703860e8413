"""Words where they are needed, at 80 columns and at 200 (issue 27, point 8): event messages readable, the Pod
tab's heads kept over a long list, verdicts whole and shown by `v`, the verdict tally whole, `Next:` on screen
beside a ⚑ line, a long reason keeping its cause, and a wide picker giving its room to the message.
Against the real demo tenant over HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from core.models.report import CATEGORIES
from core.tenant import Tenant
from tests.ui.conftest import loaded_picker, make_app, settle
from tests.ui.test_diagnosis import CASES, make, options_for, screen_text, until, verdict, verdict_on_tab
from tests.ui.test_picker_verdicts import verdicts_done
from tui.screens.detail import DetailScreen
from tui.widgets.kube_events_pane import KubeEventsPane
from tui.widgets.pods_pane import PodsPane
from tui.widgets.verdict_banner import VerdictBanner
from tui.widgets.verdict_line import VerdictLine
from tui.widgets.workload_table import WorkloadTable

NARROW, WIDE = (80, 24), (200, 50)


async def attention_page(pilot: Pilot[Any]) -> tuple[Any, WorkloadTable]:
    screen = await loaded_picker(pilot)
    await pilot.press("a")
    await settle(pilot, lambda: screen.picker_query.attention and not screen.loading)
    await settle(pilot, lambda: verdicts_done(screen), timeout=30)
    return screen, screen.query_one(WorkloadTable)


# -- the diagnosis screen ------------------------------------------------------------------------------------
async def test_event_messages_are_whole_and_readable_at_80_columns(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["pull-dns"]))
    async with app.run_test(size=NARROW) as pilot:
        pane = (await verdict_on_tab(pilot, "6")).query_one(KubeEventsPane)
        pane.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        pane.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        shown = screen_text(app).splitlines()
        # Each message sits under its event, indented, on lines nearly the pane's width (not a 13-column strip).
        message_lines = [line for line in shown if line.startswith("     ") and line.strip()]
        assert message_lines and max(len(line.rstrip()) for line in message_lines) >= 60
        assert any(line.lstrip().startswith("Failed to pull image") for line in message_lines)


async def test_event_messages_keep_the_table_where_there_is_room(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["pull-dns"]))
    async with app.run_test(size=(160, 50)) as pilot:
        await verdict_on_tab(pilot, "6")
        assert "last seen" in screen_text(app) and " message" in screen_text(app)


async def test_the_pod_tab_keeps_its_heads_over_a_long_list_of_pods(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["xid79-16pod"]))
    async with app.run_test(size=NARROW) as pilot:
        pods = (await verdict_on_tab(pilot, "5")).query_one(PodsPane)
        assert len(pods.entries) == 16 and pods.rows_area.max_scroll_y > 0
        assert app.focused is pods.rows_area  # the keys scroll the rows at once
        await pilot.press("end")
        await pilot.pause()
        shown = screen_text(app)
        assert "in the order they ended (16)" in shown
        heads = next(line for line in shown.splitlines() if " pod " in line and "how it ended" in line)
        last = pods.entries[-1].pod.rsplit("-", 2)[-2:]
        assert "-".join(last) in shown  # the last pod, scrolled to, under the heads
        # The heads and the rows line up: the node column starts at the same place.
        row = next(line for line in shown.splitlines() if "-".join(last) in line)
        assert heads.index("node") == row.index(pods.entries[-1].node or "—")


async def test_a_finding_line_leaves_next_on_the_banner_at_80x24(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["xid79-16pod"]))
    async with app.run_test(size=NARROW) as pilot:
        screen = await verdict(pilot)
        banner = screen_text(app).splitlines()[1:5]
        assert any("⚑" in line for line in banner)
        assert any(line.lstrip("█ ").startswith("Next:") for line in banner), banner
        assert screen.query_one(VerdictBanner).cut  # the reason left for the Evidence tab and v


async def test_a_long_reason_keeps_its_cause(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["pull-dns"]))
    async with app.run_test(size=NARROW) as pilot:
        screen = await verdict(pilot)
        assert screen.report is not None and "no such host" in (screen.report.reason or "")
        # ... and the whole verdict, one key from the banner's cut reason, shows it.
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert "no such host" in app.screen.body.plain  # type: ignore[attr-defined]


# -- the picker ---------------------------------------------------------------------------------------------
async def test_at_80_columns_verdicts_are_whole_v_shows_them_and_the_tally_fits(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=NARROW) as pilot:
        screen, table = await attention_page(pilot)
        column = table.get_column_index("verdict")
        shown = [table.get_cell_at((row, column)).plain for row in range(table.row_count)]
        assert "IMAGE_PULL_FAILED" in shown and "DATASOURCE_MOUNT_FAILED" in shown
        assert not [cell for cell in shown if cell.endswith("…") and len(cell) < 24]
        line = screen.query_one(VerdictLine).plain
        assert not line.endswith("…") and len(line) <= 78, line
        counted = sum(int(part.split()[0]) for part in line.removeprefix("verdicts: ").split(" · "))
        assert counted == len([cell for cell in shown if cell])
        # v on a row shows its verdict.
        row = shown.index("IMAGE_PULL_FAILED")
        table.move_cursor(row=row)
        await pilot.press("v")
        await settle(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert "Verdict: IMAGE_PULL_FAILED" in app.screen.body.plain  # type: ignore[attr-defined]


@pytest.mark.parametrize("size", [(120, 40), WIDE], ids=["120x40", "200x50"])
async def test_the_verdict_tally_is_whole(demo_tenant: Tenant, size: tuple[int, int]) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=size) as pilot:
        screen, table = await attention_page(pilot)
        line = screen.query_one(VerdictLine).plain
        assert not line.endswith("…") and len(line) <= size[0] - 2, line
        if size == WIDE:
            assert all(label in line for label in CATEGORIES if label in {
                table.verdict_text(w.id or "") for w in table.workloads})


async def test_a_wide_picker_gives_its_room_to_the_message_not_the_name(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=WIDE) as pilot:
        _, table = await attention_page(pilot)
        widths = {str(c.key.value): c.width for c in table.ordered_columns}
        longest = max(len(w.name or "") for w in table.workloads)
        assert widths["name"] == max(longest, len("Name"))  # every name whole, no wider
        assert widths["message"] >= 60
        assert table.virtual_size.width <= table.scrollable_content_region.width
