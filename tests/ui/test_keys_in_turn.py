"""Keys typed faster than the screen answers (issue 38): a burst of keys reaches the app in one read from the
terminal, before the first key's handler has run. Each key must act where the keys before it left the focus:
`p`, Down, Enter picks a project (not a diagnosis of the row under the cursor), letters typed into an open list
search it, a name typed straight after `/` goes into the name field, text typed straight after `:` into the
command list, and a key typed after a pick is a command again. An open list keeps the option the user is on
when its options are read again, and a page that lands while it is open leaves it open.

`burst` posts the keys to the app together, as the terminal driver does when they arrive in one read; Pilot's
own `press` waits for the app to be idle after each key, which hides exactly this."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.command import CommandPalette
from textual.widgets import Input, OptionList, Select

from core.sim.bundle import CaseBundle, parse_bundle
from core.tenant import Tenant
from tests.ui.conftest import CAPTURED_AT, CLUSTER, loaded_picker, make_app, picker_of, settle, workload
from tui.messages import ProjectsLoaded
from tui.screens.picker.screen import PickerScreen
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


async def until(pilot: Any, done: Callable[[], bool], timeout: float = 10.0) -> None:
    """Pause until `done()`, without waiting for the app's workers (a hanging read is one)."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"not reached within {timeout} s"
        await pilot.pause(0.05)


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


async def test_a_key_typed_after_the_pick_is_a_command_again(demo_tenant: Tenant, demo_bundle: CaseBundle) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_with_projects(pilot)
        first = projects_of(demo_bundle, str(screen.picker_query.cluster_id))[0]
        burst(app, "p", "down", "enter", "a")  # `a`: needs attention, once the list has closed
        await settle(pilot, lambda: screen.picker_query.attention and not screen.loading)
        assert screen.picker_query.project == first
        assert not screen.query_one("#project-select", Select).expanded


async def test_a_name_typed_straight_after_slash_goes_into_the_field(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        # Every letter of "crash" is also a picker key (c opens the cluster list, s sorts, a and r...).
        burst(app, "slash", *"crash", "enter", "a")
        await settle(pilot, lambda: screen.picker_query.attention and not screen.loading)
        assert screen.query_one("#name-filter", Input).value == "crash"
        assert screen.picker_query.name == "crash"
        assert not screen.query_one("#cluster-select", Select).expanded
        assert not isinstance(app.focused, Input)


async def test_text_typed_straight_after_colon_goes_into_the_command_list(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        burst(app, "colon", *"sort")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        palette = app.screen
        await until(pilot, lambda: len(palette.query_one(Input).value) >= len("sort"))
        assert palette.query_one(Input).value == "sort"
        assert screen.sort.describe() == type(screen.sort)().describe()


async def test_the_open_list_keeps_the_users_option_when_its_options_are_read_again(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    """The earlier failure mode: the project list redrawn under the user (an answer for it landing while it is
    open) put the highlight back on "all projects", so enter picked that."""
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_with_projects(pilot)
        cluster = str(screen.picker_query.cluster_id)
        names = projects_of(demo_bundle, cluster)
        projects = screen.query_one("#project-select", Select)
        overlay = projects.query_one("SelectOverlay", OptionList)
        await pilot.press("p", "down")
        await until(pilot, lambda: projects.expanded and overlay.highlighted == 1)
        assert projects._options[1][1] == names[0]
        screen.post_message(ProjectsLoaded(cluster, ["a-new-project", *names]))
        await settle(pilot, lambda: len(projects._options) == len(names) + 2)
        assert projects.expanded
        await pilot.press("enter")
        await settle(pilot, lambda: screen.picker_query.project is not None and not screen.loading)
        assert screen.picker_query.project == names[0]


async def test_a_page_that_lands_while_the_list_is_open_leaves_it_open(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await picker_with_projects(pilot)
        first = projects_of(demo_bundle, str(screen.picker_query.cluster_id))[0]
        offset = screen.offset
        projects = screen.query_one("#project-select", Select)
        overlay = projects.query_one("SelectOverlay", OptionList)
        burst(app, "right_square_bracket", "p", "down")  # the next page is still on its way when the list opens
        await settle(pilot, lambda: screen.offset != offset and not screen.loading and overlay.highlighted == 1)
        assert projects.expanded and app.focused is overlay
        await pilot.press("enter")
        await settle(pilot, lambda: screen.picker_query.project is not None and not screen.loading)
        assert screen.picker_query.project == first and isinstance(app.focused, WorkloadTable)


async def test_a_new_cluster_offers_none_of_the_last_clusters_projects(bundle_tenant: Any) -> None:
    """While a new cluster's projects are read, `p` must not offer the last cluster's (a pick among them filtered
    the new cluster by a project it does not have)."""
    other = "1f2e3d4c-0000-4000-8000-000000000002"
    data: dict[str, Any] = {
        "format": "runai-triage/case@1",
        "capturedAt": CAPTURED_AT,
        "clusters": [{"uuid": CLUSTER, "name": "east", "version": "2.24.0"},
                     {"uuid": other, "name": "west", "version": "2.24.0"}],
        "projects": [{"name": "team", "id": "1", "clusterId": CLUSTER, "status": {"namespace": "runai-team"}},
                     {"name": "crew", "id": "2", "clusterId": other, "status": {"namespace": "runai-crew"}}],
        "workloads": [workload("a", 5), workload("b", 6, clusterId=other, projectName="crew")],
        # Every projects read hangs: the first cluster's list is posted below, the second's never comes.
        "faults": [{"match": "GET /api/v1/org-unit/projects", "status": 0, "delayMs": 20_000, "times": 5}],
    }
    tenant = bundle_tenant(parse_bundle(data, "two-clusters"))
    app = make_app(tenant)
    async with app.run_test(size=SIZE) as pilot:
        # Not `settle`: it waits for every worker, the hanging reads among them.
        await until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.first_answer)
        screen = picker_of(app)
        await until(pilot, lambda: not screen.loading)
        projects = screen.query_one("#project-select", Select)
        screen.post_message(ProjectsLoaded(CLUSTER, ["team"]))
        await until(pilot, lambda: [v for _, v in projects._options][1:] == ["team"])
        await pilot.press("c", "down", "enter")
        await until(pilot, lambda: screen.picker_query.cluster_id == other and not screen.loading)
        await pilot.press("p")
        await until(pilot, lambda: projects.expanded)
        assert [v for _, v in projects._options][1:] == [], "the last cluster's projects are offered"
