"""Pilot tests of what a k9s user expects of the picker: page keys that never drop a press, first and last
page, j/k, sorting, the filter's enter and esc, the selectors opened from the keyboard, all clusters with a
Cluster column, the message column at wide sizes, a readable cursor row in every theme, the full row with
`v`, an 80-column footer and a long cluster name. Against the real demo tenant and small bundles, over HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from rich.color import Color as RichColor
from rich.segment import Segment
from textual.widgets import Input, Select
from textual.widgets.data_table import ColumnKey

from core.models.report import CATEGORIES, OUTCOMES
from core.sim.bundle import CaseBundle
from core.tenant import Tenant
from tests.ui.conftest import CLUSTER, loaded_picker, make_app, settle, small_bundle, workload
from tui.picker_query import Sort
from tui.screens.detail import DetailScreen
from tui.screens.picker.screen import PickerScreen
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.row_detail import RowDetail
from tui.widgets.verdict_line import HELD_BY
from tui.widgets.workload_table import WorkloadTable

SIZE = (120, 40)


def list_requests(tenant: Tenant) -> list[dict[str, str]]:
    assert tenant.control_plane is not None
    return [dict(r.query) for r in tenant.control_plane.requests if r.path == "/api/v1/workloads"]


def indicator(screen: PickerScreen) -> str:
    return screen.query_one(PageIndicator).plain


def screen_lines(app: Any) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def counted(pilot: Any, screen: PickerScreen) -> int:
    await settle(pilot, lambda: screen.nav.total is not None and not screen.loading)
    assert screen.nav.total is not None
    return screen.nav.total


# -- paging ------------------------------------------------------------------------------------------------
async def test_ten_quick_presses_move_ten_pages_in_few_requests(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        await counted(pilot, screen)
        n = screen.page_size
        before = len(list_requests(demo_tenant))
        assert demo_tenant.control_plane is not None
        demo_tenant.control_plane.latency_ms = 300  # every press lands while a page is still on its way
        for _ in range(10):
            await pilot.press("right_square_bracket")
        await settle(pilot, lambda: not screen.loading and screen.offset == 10 * n)
        assert indicator(screen).startswith(f"rows {10 * n + 1}-{11 * n} of")
        # Coalesced: the pages in between were not all fetched one by one.
        assert len(list_requests(demo_tenant)) - before < 10


async def test_first_and_last_page_keys(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        total = await counted(pilot, screen)
        n = screen.page_size
        last = (total - 1) // n * n
        for key in ("G", "end"):
            await pilot.press("g")
            await settle(pilot, lambda: not screen.loading and screen.offset == 0)
            await pilot.press(key)
            await settle(pilot, lambda: not screen.loading and screen.offset == last)
            assert "last page" in indicator(screen)
            assert indicator(screen).endswith("last page") or "last page ·" in indicator(screen)
        await pilot.press("home")
        await settle(pilot, lambda: not screen.loading and screen.offset == 0)


async def test_one_notice_however_often_the_last_page_is_pushed(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        total = await counted(pilot, screen)
        await pilot.press("G")
        last = (total - 1) // screen.page_size * screen.page_size
        await settle(pilot, lambda: not screen.loading and screen.offset == last)
        for _ in range(6):
            await pilot.press("right_square_bracket")
        await pilot.pause()
        said = [n for n in app._notifications if "last page" in str(n.message)]
        assert len(said) == 1


async def test_the_footer_offers_the_next_page_only_where_there_is_one(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        total = await counted(pilot, screen)
        assert "] next page" in screen_lines(app)[-1]
        await pilot.press("left_square_bracket")  # not in the footer; on the first page it says why it stays
        await pilot.pause()
        assert [str(n.message) for n in app._notifications] == ["This is the first page."]
        await pilot.press("G")
        last = (total - 1) // screen.page_size * screen.page_size
        # The footer is painted after the page is shown: wait for both, so a busy machine is not caught between.
        await settle(pilot, lambda: not screen.loading and screen.offset == last
                     and "next page" not in screen_lines(app)[-1])
        assert "last page" in indicator(screen)
        await pilot.press("right_square_bracket")  # still a key: it says there is no next page
        await pilot.pause()
        assert str(list(app._notifications)[-1].message) == "This is the last page."
        assert screen.offset == last
        await pilot.press("left_square_bracket")
        await settle(pilot, lambda: not screen.loading and screen.offset == last - screen.page_size
                     and "] next page" in screen_lines(app)[-1])


async def test_a_list_of_one_page_offers_no_next_page(bundle_tenant: Any) -> None:
    app = make_app(bundle_tenant(small_bundle([workload("job-a", 5), workload("job-b", 6)])))
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        assert "last page" in indicator(screen)
        footer = screen_lines(app)[-1]
        assert "⏎ diagnose" in footer and "next page" not in footer


async def test_j_and_k_move_the_cursor(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        await pilot.press("j", "j", "j")
        assert table.cursor_row == 3
        await pilot.press("k")
        assert table.cursor_row == 2


# -- sorting -----------------------------------------------------------------------------------------------
async def test_s_cycles_the_server_side_sort_and_a_header_click_sorts_by_its_column(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        assert str(table.ordered_columns[table.get_column_index("updated")].label) == "Updated ▼"
        await pilot.press("s")
        await settle(pilot, lambda: list_requests(demo_tenant)[-1].get("sortBy") == "name" and not screen.loading)
        assert list_requests(demo_tenant)[-1]["sortOrder"] == "asc"
        names = [w.name or "" for w in table.workloads]
        assert names == sorted(names) and "by name A→Z" in indicator(screen)
        assert str(table.ordered_columns[table.get_column_index("name")].label) == "Name ▲"
        await pilot.click(WorkloadTable, offset=(table.ordered_columns[0].get_render_width(table) + 3, 0))
        await settle(pilot, lambda: list_requests(demo_tenant)[-1].get("sortOrder") == "desc" and not screen.loading)
        assert screen.sort == Sort("name", True)
        names = [w.name or "" for w in table.workloads]
        assert names == sorted(names, reverse=True)


# -- the name filter ---------------------------------------------------------------------------------------
async def test_enter_with_no_match_gives_the_keys_back(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        await pilot.press("slash", *"zzz-none", "enter")
        await settle(pilot, lambda: not screen.loading and screen.picker_query.name == "zzz-none")
        assert not isinstance(app.focused, Input)
        await pilot.press("a")  # a command now, not more filter text
        await settle(pilot, lambda: screen.picker_query.attention)
        assert screen.query_one("#name-filter", Input).value == "zzz-none"
        await pilot.press("escape")  # esc clears the filter; rows come back and take the keys
        await settle(pilot, lambda: not screen.loading and bool(screen.query_one(WorkloadTable).workloads))
        assert screen.picker_query.name == "" and isinstance(app.focused, WorkloadTable)


async def test_name_filter_ignores_case_and_esc_in_the_field_clears_it(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        await pilot.press("slash", *"LLAMA", "enter")
        await settle(pilot, lambda: not screen.loading and screen.picker_query.name == "LLAMA")
        assert "name=@llama" in list_requests(demo_tenant)[-1]["filterBy"]
        shown = screen.query_one(WorkloadTable).workloads
        assert shown and all("llama" in (w.name or "") for w in shown)
        assert "name matched ignoring case" in indicator(screen)
        await pilot.press("slash", "escape")
        await settle(pilot, lambda: not screen.loading and screen.picker_query.name == "")
        assert screen.query_one("#name-filter", Input).value == "" and isinstance(app.focused, WorkloadTable)


async def test_a_comma_in_the_name_is_explained_in_the_users_words(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        await pilot.press("slash", *"a,b", "enter")
        await settle(pilot, lambda: screen.picker_query.name == "a,b")
        text = "\n".join(screen_lines(app))
        assert "cannot contain a comma" in text and "esc clears the name filter" in text
        assert "UNVERIFIED" not in text and "client side" not in text


# -- selectors and clusters --------------------------------------------------------------------------------
async def test_c_and_p_open_their_lists_and_a_pick_hands_the_keys_back(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        projects = screen.query_one("#project-select", Select)
        await settle(pilot, lambda: len(projects._options) > 2)
        await pilot.press("p")
        await pilot.pause()
        assert projects.expanded
        await pilot.press("down", "enter")  # the first project under "all projects"
        await settle(pilot, lambda: screen.picker_query.project is not None and not screen.loading)
        assert isinstance(app.focused, WorkloadTable)
        assert all(w.project_name == screen.picker_query.project for w in screen.query_one(WorkloadTable).workloads)
        clusters = screen.query_one("#cluster-select", Select)
        await pilot.press("c")
        await pilot.pause()
        assert clusters.expanded
        await pilot.press("escape")
        await settle(pilot, lambda: not clusters.expanded)
        assert isinstance(app.focused, WorkloadTable)


async def test_all_clusters_says_so_and_shows_a_cluster_column(demo_tenant: Tenant, demo_bundle: CaseBundle) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        assert "cluster" not in table.column_keys
        clusters = screen.query_one("#cluster-select", Select)
        clusters.clear()  # the blank choice: every cluster
        # Every cluster listed, the disconnected one too: its line above the table, the page sized below it.
        await settle(pilot, lambda: screen.picker_query.cluster_id is None and screen.clusters_checked
                     and not screen.loading)
        await settle(pilot, lambda: table.row_count <= table.size.height - 1 and not screen.loading)
        assert "all clusters" in screen_lines(app)[2]
        assert "cluster" in table.column_keys
        assert "clusterId" not in list_requests(demo_tenant)[-1].get("filterBy", "")
        names = {str(c["name"]) for c in demo_bundle.clusters}
        column = table.get_column_index("cluster")
        shown = {table.get_cell_at((row, column)).plain for row in range(table.row_count)}
        assert shown <= names and len(shown) == 2  # the newest rows come from both demo clusters
        # At 80 columns every column still fits: no horizontal scrollbar hides the Updated column or a row.
        assert table.virtual_size.width <= table.scrollable_content_region.width
        assert screen_lines(app)[4].lstrip().startswith("⚑ demo-edge")  # the disconnected cluster's line
        assert "Updated" in screen_lines(app)[5]
        assert table.columns[ColumnKey("name")].width >= 11


async def test_wide_terminal_gives_the_message_a_column(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        assert "message" in table.column_keys
        widths = {str(c.key.value): c.width for c in table.ordered_columns}
        # The Verdict column takes its share; the message still gets a column of its own.
        assert widths["name"] <= 48 and widths["message"] >= 20



@pytest.mark.parametrize("width", [80, 90, 100, 120, 136, 137, 160, 200])
async def test_the_type_column_comes_before_names_are_cut(demo_tenant: Tenant, width: int) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=(width, 30)) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        widths = {str(c.key.value): c.width for c in table.ordered_columns}
        longest = max(len(w.name or "") for w in table.workloads)
        # A column is added only where every name stays whole beside it (or at least 24 wide); the Type column
        # (Training, Distributed, ...) comes first, the submitter (with the message) once both fit.
        if "type" in widths:
            assert widths["name"] >= min(longest, 24)
        if "submitted" in widths:
            assert "type" in widths and "message" in widths and widths["name"] >= longest
        assert ("type" in widths) == (width >= 100)
        assert ("submitted" in widths) == (width >= 160)
        assert table.virtual_size.width <= table.scrollable_content_region.width
        if "type" in widths:
            column = table.get_column_index("type")
            assert {table.get_cell_at((row, column)).plain for row in range(table.row_count)} - {""}


LABELS = (*CATEGORIES, *OUTCOMES, "no report", *HELD_BY.values())


@pytest.mark.parametrize("all_clusters", [False, True], ids=["one cluster", "all clusters"])
@pytest.mark.parametrize("size", [(120, 40), (200, 50)], ids=["120x40", "200x50"])
async def test_where_there_is_room_every_verdict_is_whole(
    demo_tenant: Tenant, size: tuple[int, int], all_clusters: bool
) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=size) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        if all_clusters:
            screen.query_one("#cluster-select", Select).clear()
            await settle(pilot, lambda: "cluster" in table.column_keys and screen.clusters_checked
                         and not screen.loading)
            await settle(pilot, lambda: table.row_count <= table.size.height - 1 and not screen.loading)
        await settle(pilot, lambda: screen.verdicts_settled)
        assert table.columns[ColumnKey("verdict")].width >= max(len(label) for label in LABELS)
        assert table.virtual_size.width <= table.scrollable_content_region.width  # and nothing scrolls away
        column = table.get_column_index("verdict")
        shown = {table.get_cell_at((row, column)).plain for row in range(table.row_count)} - {""}
        assert shown and shown <= set(LABELS)
        lines = "\n".join(screen_lines(app))
        assert all(label in lines for label in shown)


async def test_a_long_cluster_name_keeps_the_cluster_box_whole(bundle_tenant: Any) -> None:
    long_name = "gpu-cluster-" + "very-long-name-" * 6
    bundle = small_bundle([workload("job-a", 5)])
    bundle.clusters[0]["name"] = long_name
    tenant = bundle_tenant(bundle)
    app = make_app(tenant)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded_picker(pilot)
        lines = screen_lines(app)
        # The box is three rows with its edges where they belong, and the name is cut with an ellipsis.
        assert lines[1].startswith("▊▔") and lines[3].startswith("▊▁")
        assert lines[2][21] == "▎" and "…" in lines[2][:21]
        assert long_name[:10] in lines[2]
        # The whole name is one key away.
        await pilot.press("v")
        await settle(pilot, lambda: isinstance(app.screen, DetailScreen))
        assert long_name in app.screen.body.plain  # type: ignore[attr-defined]


# -- the full row ------------------------------------------------------------------------------------------
async def test_v_shows_the_whole_row_and_the_message_line_says_so(bundle_tenant: Any) -> None:
    message = "Back-off pulling image: 429 Too Many Requests - rate limit " + "x" * 200 + " THE-END"
    tenant = bundle_tenant(small_bundle([workload("job-a", 5, phase="Pending", phaseMessage=message)]))
    app = make_app(tenant)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded_picker(pilot)
        detail = screen.query_one(RowDetail).plain
        assert detail.endswith("… v") and "THE-END" not in detail
        await pilot.press("v")
        await settle(pilot, lambda: isinstance(app.screen, DetailScreen))
        body = app.screen.body.plain  # type: ignore[attr-defined]
        assert message in body and "Workload id:" in body and "Cluster: test-cluster" in body
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))


# -- 80 columns --------------------------------------------------------------------------------------------
async def test_the_picker_footer_fits_80_columns(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded_picker(pilot)
        footer = screen_lines(app)[-1]
        for words in ("⏎ diagnose", "/ filter", "a attention", "? help", ": commands", "q quit"):
            assert words in footer, (words, footer)


# -- the cursor row ----------------------------------------------------------------------------------------
PHASES = ["Failed", "Stopped", "Pending", "Creating", "Running", "Completed", "Initializing", "Resuming", "Odd"]


def _contrast(fg: RichColor, bg: RichColor) -> float:
    def luminance(colour: RichColor) -> float:
        channels = []
        for value in colour.get_truecolor():
            c = value / 255
            channels.append(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
        r, g, b = channels
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _cursor_cells(app: Any, table: WorkloadTable) -> list[Segment]:
    y = table.region.y + 1 + table.cursor_row  # one line of header
    strip = app.screen._compositor.render_strips()[y]
    return [seg for seg in strip if seg.text.strip() and seg.style is not None]


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "NO_COLOR"])
async def test_every_cell_of_the_cursor_row_is_readable_in_every_theme(
    bundle_tenant: Any, monkeypatch: pytest.MonkeyPatch, no_color: bool
) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    entries = [workload(f"job-{phase.lower()}", minutes, phase=phase) for minutes, phase in enumerate(PHASES)]
    tenant = bundle_tenant(small_bundle(entries))
    app = make_app(tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        assert [w.phase for w in table.workloads] == PHASES
        worst: tuple[float, str, str, str] = (99.0, "", "", "")
        for theme in sorted(app.available_themes):
            app.theme = theme
            await pilot.pause()
            for row, phase in enumerate(PHASES):
                table.move_cursor(row=row, animate=False)
                await pilot.pause()
                cells = _cursor_cells(app, table)
                assert any(phase in seg.text for seg in cells), (theme, phase)
                for seg in cells:
                    style = seg.style
                    assert style is not None
                    if style.color is None or style.bgcolor is None or style.color.is_default:
                        # No colours at all (an ANSI theme without colour): the terminal's own pair, which
                        # the cursor must reverse to stand out.
                        assert no_color and style.reverse, (theme, phase, seg.text, style)
                        continue
                    ratio = _contrast(style.color, style.bgcolor)
                    if ratio < worst[0]:
                        worst = (ratio, theme, phase, seg.text)
        assert worst[0] >= 3.0, f"contrast {worst[0]:.2f} in theme {worst[1]} on {worst[2]}: {worst[3]!r}"


async def test_the_cluster_prompt_and_test_cluster_constant(bundle_tenant: Any) -> None:
    tenant = bundle_tenant(small_bundle([workload("job-a", 5)]))
    app = make_app(tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        assert screen.picker_query.cluster_id == CLUSTER
        assert "test-cluster" in screen_lines(app)[2]


async def test_a_row_whose_events_cannot_be_read_is_kept_and_marked_unconfirmed(bundle_tenant: Any) -> None:
    pending = workload("job-pending", 5, phase="Pending")
    done = workload("job-done", 6, phase="Completed")
    failed = workload("job-failed", 7, phase="Failed")
    wid = pending["workload"]["id"]
    fault = {"match": f"GET /api/v1/workloads/{wid}/events", "status": 403, "times": 5}
    tenant = bundle_tenant(small_bundle([pending, done, failed], [fault]))
    app = make_app(tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        await pilot.press("a")
        await settle(pilot, lambda: "NEEDS ATTENTION" in indicator(screen) and not screen.loading)
        shown = [w.name for w in screen.query_one(WorkloadTable).workloads]
        # A failed read is not "nothing wrong": the Pending row stays, marked; the completed one is dropped.
        assert shown == ["job-pending", "job-failed"]
        assert "1 unconfirmed" in indicator(screen)
        detail = screen.query_one(RowDetail).plain
        assert "unconfirmed, its events could not be read (ForbiddenError)" in detail
