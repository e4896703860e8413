"""Keys typed faster than the screen answers (issue 38): a burst of keys reaches the app in one read from the
terminal, before the first key's handler has run. Each key must act where the keys before it left the focus:
`p`, Down, Enter picks a project (not a diagnosis of the row under the cursor), letters typed into an open list
search it, a name typed straight after `/` goes into the name field, text typed straight after `:` into the
command list, and a key typed after a pick is a command again. An open list keeps the option the user is on
when its options are read again, and a page that lands while it is open leaves it open.

`burst` posts the keys to the app together, as the terminal driver does when they arrive in one read; Pilot's
own `press` waits for the app to be idle after each key, which hides exactly this."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.command import CommandPalette
from textual.widgets import Input, Select

from core.sim.bundle import CaseBundle
from core.tenant import Tenant
from tests.ui.conftest import loaded_picker, make_app, settle
from tui.screens.picker import PickerScreen
from tui.widgets.workload_table import WorkloadTable

SIZE = (80, 24)
CHARACTERS = {"enter": "\r", "escape": "\x1b", "slash": "/", "colon": ":", "right_square_bracket": "]"}


def burst(app: Any, *keys: str) -> None:
    """Post `keys` to the app at once, the way the driver delivers keys read from the terminal together."""
    for key in keys:
        character = CHARACTERS.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, character))


def projects_of(bundle: CaseBundle, cluster: str) -> list[str]:
    return sorted((str(p["name"]) for p in bundle.projects if p["clusterId"] == cluster), key=str.casefold)


async def picker_with_projects(pilot: Any) -> PickerScreen:
    screen = await loaded_picker(pilot)
    projects = screen.query_one("#project-select", Select)
    await settle(pilot, lambda: len(projects._options) > 2)
    return screen


async def test_p_down_enter_typed_at_once_picks_the_first_project(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_with_projects(pilot)
        first = projects_of(demo_bundle, str(screen.picker_query.cluster_id))[0]
        burst(app, "p", "down", "enter")
        await settle(pilot, lambda: app.screen is not screen or (screen.picker_query.project and not screen.loading))
        assert app.screen is screen and app.diagnosis_requests == [], "the enter reached the table"
        assert screen.picker_query.project == first
        assert isinstance(app.focused, WorkloadTable)
        assert {w.project_name for w in screen.query_one(WorkloadTable).workloads} == {first}


async def test_c_down_enter_typed_at_once_picks_the_next_cluster(demo_tenant: Tenant, demo_bundle: CaseBundle) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_with_projects(pilot)
        clusters = [str(c["uuid"]) for c in demo_bundle.clusters]
        assert screen.picker_query.cluster_id == clusters[0]
        burst(app, "c", "down", "enter")
        await settle(pilot, lambda: app.screen is not screen or screen.picker_query.cluster_id != clusters[0])
        await settle(pilot, lambda: not screen.loading)
        assert app.screen is screen and app.diagnosis_requests == []
        assert screen.picker_query.cluster_id == clusters[1]
        assert isinstance(app.focused, WorkloadTable)


async def test_letters_typed_into_the_open_list_search_it(demo_tenant: Tenant, demo_bundle: CaseBundle) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_with_projects(pilot)
        wanted = projects_of(demo_bundle, str(screen.picker_query.cluster_id))[-1]  # not the first: typed to
        burst(app, "p", *wanted[:2], "enter")
        await settle(pilot, lambda: screen.picker_query.project is not None and not screen.loading)
        assert screen.picker_query.project == wanted
        assert screen.sort.describe() == type(screen.sort)().describe(), "a letter for the list sorted the rows"


async def test_text_typed_straight_after_colon_goes_into_the_command_list(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        burst(app, "colon", *"sort")
        await settle(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.pause()
        assert app.screen.query_one(Input).value == "sort"
        assert screen.sort.describe() == type(screen.sort)().describe()


async def test_a_page_that_lands_while_the_list_is_open_leaves_it_open(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_with_projects(pilot)
        first = projects_of(demo_bundle, str(screen.picker_query.cluster_id))[0]
        offset = screen.offset
        burst(app, "right_square_bracket", "p", "down")  # the next page is still on its way when the list opens
        await settle(pilot, lambda: screen.offset != offset and not screen.loading)
        projects = screen.query_one("#project-select", Select)
        assert projects.expanded and app.focused is projects.query_one("SelectOverlay")
        await pilot.press("enter")
        await settle(pilot, lambda: screen.picker_query.project is not None and not screen.loading)
        assert screen.picker_query.project == first and isinstance(app.focused, WorkloadTable)
