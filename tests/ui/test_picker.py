"""Pilot tests of the app shell and the workload picker against the real demo tenant (real HTTP over loopback)
and small hand-written bundles for the error and hostile-text cases."""

from __future__ import annotations

import argparse
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.color import Color
from textual.widgets import Input, Select

from core.models.runai import Workload
from core.sim.bundle import CaseBundle
from core.sim.demo import DEMO_CLUSTERS
from core.sources.credentials import BearerToken
from core.sources.retry import RetryPolicy
from core.sources.runai import RunaiClient
from core.tenant import Tenant
from tests.ui.conftest import loaded_picker, make_app, picker_of, settle, small_bundle, workload
from tui.app import TriageApp
from tui.clock import relative_time
from tui.commands.app_args import add_tui_arguments
from tui.commands.start import StartOptions, UsageError, options_from_args
from tui.messages import DiagnosisTarget, PageLoaded
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.help import HelpScreen
from tui.screens.picker.screen import PickerScreen
from tui.screens.problem import ProblemScreen
from tui.widgets.attention_toggle import AttentionToggle
from tui.widgets.cluster_notice import ClusterNotice
from tui.widgets.notice import Notice
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.row_detail import RowDetail
from tui.widgets.verdict_line import VerdictLine
from tui.widgets.workload_table import WorkloadTable

SIZE = (120, 40)


# -- helpers -----------------------------------------------------------------------------------------------
def _stamp(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def listed(bundle: CaseBundle, cluster: str, **match: str) -> list[dict[str, Any]]:
    """What the list endpoint holds for a cluster (deleted ones excluded), newest phase update first."""
    items = [
        e["workload"]
        for e in bundle.workloads
        if e["workload"]["clusterId"] == cluster
        and not e["workload"].get("deletedAt")
        and all(e["workload"].get(k) == v for k, v in match.items())
    ]
    return sorted(items, key=lambda w: _stamp(w["phaseUpdatedAt"]), reverse=True)


def rows(screen: PickerScreen) -> list[Workload]:
    return screen.query_one(WorkloadTable).workloads


def indicator(screen: PickerScreen) -> str:
    return screen.query_one(PageIndicator).plain


def last_list_filter(tenant: Tenant) -> str | None:
    assert tenant.control_plane is not None
    lists = [r for r in tenant.control_plane.requests if r.path == "/api/v1/workloads"]
    assert lists, "no workload list was requested"
    return dict(lists[-1].query).get("filterBy")


async def type_name(pilot: Any, text: str) -> None:
    await pilot.press("slash")
    field = pilot.app.screen.query_one("#name-filter", Input)
    field.value = text
    await pilot.press("enter")


def first_cluster(bundle: CaseBundle) -> str:
    return str(bundle.clusters[0]["uuid"])


# -- loading, order, paging --------------------------------------------------------------------------------
async def test_first_page_is_newest_first_and_sized_to_the_table(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        expected = listed(demo_bundle, first_cluster(demo_bundle))
        shown = rows(screen)
        table = screen.query_one(WorkloadTable)
        # The page can land before the table it fills is laid out (it is asked for as soon as the clusters are
        # known); its size is read once it is.
        await settle(pilot, lambda: table.size.height > 0)
        # The page is exactly what the table can show: every row visible, none fetched for nothing.
        assert len(shown) == screen.page_size == table.size.height - 1
        assert [w.phase_updated_at for w in shown] == [
            _stamp(w["phaseUpdatedAt"]) for w in expected[: len(shown)]
        ]
        assert {w.id for w in shown} <= {w["id"] for w in expected}
        await settle(pilot, lambda: "…" not in indicator(screen))
        assert indicator(screen).startswith(f"rows 1-{len(shown)} of {len(expected):,}")
        assert demo_tenant.control_plane is not None
        lists = [dict(r.query) for r in demo_tenant.control_plane.requests if r.path == "/api/v1/workloads"]
        assert lists[-1]["sortBy"] == "phaseUpdatedAt" and lists[-1]["sortOrder"] == "desc"
        assert lists[-1]["limit"] == str(len(shown))
        assert any(r.path == "/api/v1/workloads/count" for r in demo_tenant.control_plane.requests)


async def test_next_and_previous_page_change_rows_and_indicator(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        expected = listed(demo_bundle, first_cluster(demo_bundle))
        first = rows(screen)
        n = len(first)
        await pilot.press("right_square_bracket")
        await settle(pilot, lambda: not screen.loading and screen.offset == n)
        second = rows(screen)
        assert {w.id for w in first}.isdisjoint({w.id for w in second})
        assert [w.phase_updated_at for w in second] == [
            _stamp(w["phaseUpdatedAt"]) for w in expected[n : 2 * n]
        ]
        assert indicator(screen).startswith(f"rows {n + 1}-{2 * n} of {len(expected):,}")
        await pilot.press("pagedown")
        await settle(pilot, lambda: not screen.loading and screen.offset == 2 * n)
        await pilot.press("left_square_bracket")
        await settle(pilot, lambda: not screen.loading and screen.offset == n)
        await pilot.press("pageup")
        await settle(pilot, lambda: not screen.loading and screen.offset == 0)
        assert [w.id for w in rows(screen)] == [w.id for w in first]
        assert indicator(screen).startswith(f"rows 1-{n} of")


async def test_page_size_follows_the_terminal_height(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded_picker(pilot)
        small = screen.page_size
        assert len(rows(screen)) == small
        await pilot.resize_terminal(80, 30)
        await settle(pilot, lambda: screen.page_size == small + 6 and not screen.loading)
        assert len(rows(screen)) == small + 6


# -- filters -----------------------------------------------------------------------------------------------
async def test_project_filter_reduces_rows_and_is_sent_server_side(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    cluster = first_cluster(demo_bundle)
    project = next(p["name"] for p in demo_bundle.projects if p["clusterId"] == cluster)
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        select = screen.query_one("#project-select", Select)
        await settle(pilot, lambda: any(value == project for _, value in select._options))
        select.value = project
        wanted = f"clusterId=={cluster},projectName=={project}"
        # The query changes before its request leaves: wait for the request itself, then for its answer.
        await settle(pilot, lambda: last_list_filter(demo_tenant) == wanted and not screen.loading)
        expected = listed(demo_bundle, cluster, projectName=project)
        assert rows(screen) and all(w.project_name == project for w in rows(screen))
        await settle(pilot, lambda: f"of {len(expected):,}" in indicator(screen))


async def test_name_filter_is_sent_as_contains(demo_tenant: Tenant, demo_bundle: CaseBundle) -> None:
    cluster = first_cluster(demo_bundle)
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        before = len(rows(screen))
        await type_name(pilot, "llama")
        wanted = f"clusterId=={cluster},name=@llama"
        await settle(pilot, lambda: last_list_filter(demo_tenant) == wanted and not screen.loading)
        expected = [w for w in listed(demo_bundle, cluster) if "llama" in w["name"]]
        assert 0 < len(rows(screen)) <= before
        assert [w.id for w in rows(screen)] == [w["id"] for w in expected[: len(rows(screen))]]
        # Submitting the name hands focus back to the table, so enter then diagnoses.
        assert isinstance(app.focused, WorkloadTable)


def needs_attention(entry: dict[str, Any]) -> bool:
    """The demo's own answer, from the bundle rather than the app: Failed and Stopped always; Pending and
    Running only when the workload's events hold a Warning that is not about scheduling."""
    phase = entry["workload"]["phase"]
    if phase in ("Failed", "Stopped"):
        return True
    if phase not in ("Pending", "Running", "Degraded"):
        return False
    return any(
        e.get("type") == "Warning" and e.get("reason") not in ("Unschedulable", "FailedScheduling")
        for e in entry.get("events") or ()
    )


async def test_needs_attention_view(demo_tenant: Tenant, demo_bundle: CaseBundle) -> None:
    cluster = first_cluster(demo_bundle)
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        toggle = screen.query_one(AttentionToggle)
        assert toggle.render().plain == "○ all phases" and not toggle.has_class("-on")
        await pilot.press("a")
        await settle(pilot, lambda: "NEEDS ATTENTION" in indicator(screen) and not screen.loading)
        # On, the switch says so in words and changes its block, not just a tick mark.
        assert toggle.render().plain == "● needs attention" and toggle.has_class("-on")
        # Server side: every phase that never needs a diagnosis is excluded, one `phase!=` item each.
        sent = last_list_filter(demo_tenant) or ""
        assert sent.startswith(f"clusterId=={cluster},") and all(
            f"phase!={phase}" in sent for phase in ("Completed", "Creating", "Initializing", "Resuming")
        )
        assert "phase!=Pending" not in sent and "phase!=Running" not in sent and "phase!=Stopped" not in sent
        by_id = {e["workload"]["id"]: e for e in demo_bundle.workloads}
        # The server breaks ties of equal times by id; so does this list.
        in_order = sorted(sorted(listed(demo_bundle, cluster), key=lambda w: w["id"]),
                          key=lambda w: _stamp(w["phaseUpdatedAt"]), reverse=True)
        expected = [w["id"] for w in in_order if needs_attention(by_id[w["id"]])]
        shown = rows(screen)
        assert [w.id for w in shown] == expected[: len(shown)] and len(shown) == screen.page_size
        assert {w.phase for w in shown} >= {"Failed", "Pending"}  # pull failures are listed beside failures
        # Each row says why it is listed.
        page = screen._page
        assert page is not None and page.attention is not None
        pending = next(w for w in shown if w.phase == "Pending")
        assert "events show image pull" in page.attention.why[pending.id or ""]
        # The view read events for the Pending / Running candidates only, never for a Failed or Stopped one (its
        # reads ask for 50 recent events; the verdict column's background diagnoses read theirs as the engine does).
        assert demo_tenant.control_plane is not None
        read = {r.path.split("/")[4] for r in demo_tenant.control_plane.requests
                if r.path.startswith("/api/v1/workloads/") and r.path.endswith("/events")
                and ("limit", "50") in r.query}
        assert read and all(by_id[i]["workload"]["phase"] in ("Pending", "Running") for i in read)
        await pilot.press("right_square_bracket")
        await settle(pilot, lambda: not screen.loading and rows(screen) and rows(screen)[0].id != shown[0].id)
        n = len(shown)
        assert [w.id for w in rows(screen)] == expected[n : n + len(rows(screen))]
        await pilot.press("a")
        await settle(pilot, lambda: last_list_filter(demo_tenant) == f"clusterId=={cluster}" and not screen.loading)
        assert any(w.phase in ("Running", "Completed") for w in rows(screen))
        assert "NEEDS ATTENTION" not in indicator(screen)


async def test_other_cluster_lists_its_own_workloads(demo_tenant: Tenant, demo_bundle: CaseBundle) -> None:
    other = str(demo_bundle.clusters[1]["uuid"])
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        screen.query_one("#cluster-select", Select).value = other
        await settle(pilot, lambda: last_list_filter(demo_tenant) == f"clusterId=={other}" and not screen.loading)
        assert rows(screen) and all(w.cluster_id == other for w in rows(screen))
        await settle(pilot, lambda: f"of {len(listed(demo_bundle, other)):,}" in indicator(screen))


async def test_empty_state_names_the_filters(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        await type_name(pilot, "no-such-workload")
        await settle(pilot, lambda: screen.query_one(Notice).kind == "empty" and not screen.loading)
        notice = screen.query_one(Notice)
        assert notice.display and not screen.query_one(WorkloadTable).display
        assert (
            "No workloads with name containing 'no-such-workload' in any project on cluster" in notice.plain
        )
        assert "press r to reload" in notice.plain


# -- stale answers -----------------------------------------------------------------------------------------
async def test_only_the_last_of_quick_filter_changes_is_shown(
    demo_tenant: Tenant, demo_bundle: CaseBundle
) -> None:
    cluster = first_cluster(demo_bundle)
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        assert demo_tenant.control_plane is not None
        demo_tenant.control_plane.latency_ms = 120
        await type_name(pilot, "bert")
        await type_name(pilot, "llama")
        await settle(pilot, lambda: not screen.loading and screen.picker_query.name == "llama")
        assert rows(screen) and all("llama" in (w.name or "") for w in rows(screen))
        expected = [w for w in listed(demo_bundle, cluster) if "llama" in w["name"]]
        await settle(pilot, lambda: f"of {len(expected):,}" in indicator(screen))


async def test_an_answer_for_an_old_request_is_dropped(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        before = [w.id for w in rows(screen)]
        stale = Workload.model_validate({"id": "stale", "name": "stale", "phase": "Failed"})
        screen.post_message(PageLoaded(0, 0, 10, [stale], None, 0))  # seq 0 was never the current request
        await pilot.pause()
        assert [w.id for w in rows(screen)] == before


# -- error states ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("status", "times", "retry_after", "title"),
    [
        (401, 1, None, "Credentials refused (401)"),
        (403, 1, None, "Access denied (403)"),
        # 503 is retried by the client (4 attempts); Retry-After 0 keeps the test from sleeping.
        (503, 4, 0, "The control plane answered with an error (503)"),
    ],
)
async def test_error_state_says_what_happened_and_r_retries(
    bundle_tenant: Any, status: int, times: int, retry_after: int | None, title: str
) -> None:
    fault: dict[str, Any] = {"match": "GET /api/v1/workloads", "status": status, "times": times}
    if retry_after is not None:
        fault["retryAfter"] = retry_after
    tenant = bundle_tenant(small_bundle([workload("job-a", 5), workload("job-b", 10)], [fault]))
    app = make_app(tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        notice = screen.query_one(Notice)
        assert notice.kind == "error" and notice.display
        assert notice.plain.startswith(title)
        assert "/api/v1/workloads" in notice.plain and "Press r to retry" in notice.plain
        # A page that was never read is not a page without failures: the verdict line says it was not read.
        line = screen.query_one(VerdictLine).plain
        assert "no failed" not in line and "could not be read" in line, line
        await pilot.press("r")
        await settle(pilot, lambda: not screen.loading and bool(rows(screen)))
        assert [w.name for w in rows(screen)] == ["job-a", "job-b"]
        assert not notice.display
        assert "could not be read" not in screen.query_one(VerdictLine).plain


async def test_unreachable_control_plane(bundle_tenant: Any) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = RunaiClient(f"http://127.0.0.1:{port}", BearerToken("t"), retry=RetryPolicy(max_attempts=1))
    tenant = Tenant(label=f"http://127.0.0.1:{port}", runai=client, kube=None, kube_unavailable="off")
    app = make_app(tenant)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = await loaded_picker(pilot)
            notice = screen.query_one(Notice)
            assert notice.kind == "error"
            assert notice.plain.startswith("Control plane unreachable while reading the clusters")
            assert "RUNAI_BASE_URL" in notice.plain and "Press r to retry" in notice.plain
    finally:
        await tenant.aclose()


# -- untrusted text ----------------------------------------------------------------------------------------
async def test_hostile_text_is_shown_literally(bundle_tenant: Any) -> None:
    hostile = "x\x1b[2J[@click=app.quit]boom[/]\u202eevil"
    entry = workload(
        hostile,
        3,
        projectName="team",
        submittedBy="[bold]mallory[/bold]",
        phaseMessage="[link=file:///etc/passwd]open[/link] \x1b]52;c;aGk=\x07 done",
    )
    tenant = bundle_tenant(small_bundle([entry]))
    app = make_app(tenant)
    async with app.run_test(size=(160, 40)) as pilot:  # wide enough for the whole escaped name
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        name_cell = table.get_cell_at((0, 1))
        assert "[@click=app.quit]boom[/]" in name_cell.plain
        assert "\x1b" not in name_cell.plain and "\\x1b" in name_cell.plain
        assert "\u202e" not in name_cell.plain and "\\u202e" in name_cell.plain
        assert not name_cell.spans  # no style or link was read out of the text
        detail = screen.query_one(RowDetail).plain
        assert "[link=file:///etc/passwd]open[/link]" in detail and "\x1b" not in detail
        await pilot.press("enter")
        await pilot.pause()
        assert app.is_running  # the [@click=app.quit] in the name did not act
        assert app.diagnosis_requests[-1].name == hostile


async def test_demo_hostile_workload_message_is_literal(demo_tenant: Tenant, demo_bundle: CaseBundle) -> None:
    hostile = next(
        e["workload"] for e in demo_bundle.workloads if "\x1b" in str(e["workload"].get("phaseMessage") or "")
    )
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        if hostile["clusterId"] != screen.picker_query.cluster_id:
            screen.query_one("#cluster-select", Select).value = hostile["clusterId"]
            await settle(pilot, lambda: screen.picker_query.cluster_id == hostile["clusterId"])
        await type_name(pilot, hostile["name"])
        await settle(pilot, lambda: not screen.loading and any(w.id == hostile["id"] for w in rows(screen)))
        table = screen.query_one(WorkloadTable)
        table.move_cursor(row=[w.id for w in rows(screen)].index(hostile["id"]))
        await pilot.pause()
        # The whole line: once the row is diagnosed, the line that says why comes first and may push the
        # message past the width.
        detail = screen.query_one(RowDetail).whole
        assert "\x1b" not in detail and "\x07" not in detail
        assert "\\x1b" in detail


# -- choosing, help, palette -------------------------------------------------------------------------------
async def test_enter_asks_the_app_to_diagnose_the_highlighted_workload(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        await pilot.press("down", "down")
        chosen = rows(screen)[2]
        await pilot.press("enter")
        await pilot.pause()
        assert app.diagnosis_requests == [
            DiagnosisTarget(chosen.cluster_id, chosen.id, chosen.name, chosen.project_name)
        ]


async def test_help_lists_the_keys_and_the_palette_runs_them(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        entries = {e.description: e.keys for e in help_screen.entries}
        assert entries["next page"] == ("]", "pgdn", "^f")
        assert entries["prev page"] == ("[", "pgup", "^b")
        assert entries["filter"] == ("/",) and entries["help"] == ("?",) and entries["commands"] == (":",)
        assert {"attention", "diagnose", "reload", "choose cluster", "choose project", "quit", "sort"} <= set(
            entries
        )
        assert entries["first page"] == ("g", "home") and entries["last page"] == ("G", "end")
        await pilot.press("escape")
        await settle(pilot, lambda: app.screen is screen)
        await pilot.press("colon")
        await settle(pilot, lambda: app.screen is not screen)
        await pilot.press(*"next page")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot, lambda: app.screen is screen and screen.offset > 0 and not screen.loading)


# -- start-up ----------------------------------------------------------------------------------------------
async def test_demo_option_opens_the_demo_tenant() -> None:
    app = TriageApp(StartOptions(mode="demo"), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        assert rows(screen)
        assert app.tenant is not None and app.tenant.label == "demo tenant"
        assert app.clock() == app.tenant.captured_at


async def test_workload_id_option_opens_straight_into_diagnosis(demo_bundle: CaseBundle) -> None:
    target = demo_bundle.workloads[0]["workload"]
    options = StartOptions(mode="demo", cluster_id=target["clusterId"], workload_id=target["id"])
    app = TriageApp(options, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: bool(app.diagnosis_requests))
        assert app.diagnosis_requests == [DiagnosisTarget(target["clusterId"], target["id"], None, None)]
        await settle(pilot, lambda: isinstance(app.screen, DiagnosisScreen))
        await pilot.press("escape")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))  # esc lands on the picker


async def test_missing_credentials_get_the_problem_screen(tmp_path: Path) -> None:
    env = {"RUNAI_CLI_CONFIG_PATH": str(tmp_path)}
    app = TriageApp(StartOptions(), env=env, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ProblemScreen))
        screen = app.screen
        assert isinstance(screen, ProblemScreen)
        assert screen.problem.title == "No Run:ai tenant configured"
        assert "RUNAI_BASE_URL: not set" in screen.problem.detail
        hints = " ".join(screen.problem.hints)
        for needed in (
            "RUNAI_BASE_URL",
            "RUNAI_CLIENT_ID",
            "RUNAI_CLIENT_SECRET",
            "RUNAI_BEARER_TOKEN",
            "runai login",
            "--demo",
        ):
            assert needed in hints
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 1


async def test_malformed_case_file_gets_the_problem_screen(tmp_path: Path) -> None:
    case = tmp_path / "broken.json"
    case.write_text('{"format": "runai-triage/case@1", "capturedAt": ', encoding="utf-8")
    app = TriageApp(StartOptions(mode="case", case_path=case), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, ProblemScreen))
        screen = app.screen
        assert isinstance(screen, ProblemScreen)
        assert screen.problem.title == "The case bundle cannot be used"
        assert str(case) in screen.problem.detail and "not valid JSON" in screen.problem.detail


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_tui_arguments(parser)
    return parser.parse_args(argv)


def test_start_options_from_arguments() -> None:
    options = options_from_args(_parse("--demo", "--cluster-id", "c1", "--name", "bert", "--project", "nlp"))
    assert (options.mode, options.cluster_id, options.name, options.project) == ("demo", "c1", "bert", "nlp")
    assert options.wants_diagnosis
    assert options_from_args(_parse("--case", "x.json")).case_path == Path("x.json")
    assert not options_from_args(_parse("--no-kube")).kube.enabled


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--name", "bert"), "--name and --project go together"),
        (("--workload-id", "w1"), "need --cluster-id"),
        (("--cluster-id", "c", "--workload-id", "w", "--name", "n", "--project", "p"), "not both"),
        (("--demo", "--base-url", "https://x.run.ai"), "--base-url cannot be used with --demo"),
        (("--cluster-id", "c", "--workload-id", "../../clusters"), "--workload-id: .* is not a valid id"),
        (("--cluster-id", "c", "--workload-id", "9c272e2c\x1b[2J"), "--workload-id: .* is not a valid id"),
        (("--cluster-id", "c", "--workload-id", "a" * 10_000), "--workload-id: .* is not a valid id"),
    ],
)
def test_start_options_that_clash_are_refused(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        options_from_args(_parse(*argv))


def test_relative_time() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert relative_time(datetime(2026, 11, 30, 11, 55, tzinfo=UTC), now) == "5m ago"
    assert relative_time(datetime(2026, 11, 27, 11, 0, tzinfo=UTC), now) == "3d ago"
    assert relative_time(datetime(2026, 11, 30, 11, 59, 30, tzinfo=UTC), now) == "30s ago"
    assert relative_time(datetime(2026, 11, 30, 9, 0, tzinfo=UTC), now) == "3h ago"
    assert relative_time(datetime(2026, 12, 1, 12, 0, tzinfo=UTC), now) == "in 1d"
    assert relative_time(datetime(2026, 9, 1, tzinfo=UTC), now) == "2026-09-01"
    assert relative_time(None, now) == "unknown"


async def test_theme_switch_recolours_phases(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        table = screen.query_one(WorkloadTable)
        row = next(i for i, w in enumerate(rows(screen)) if w.phase == "Failed")
        before = table.get_cell_at((row, 0)).style
        app.theme = "nord"
        await pilot.pause()
        after = table.get_cell_at((row, 0))
        assert after.plain == "✗ Failed"  # the word and symbol stay; only the colour follows the theme
        assert str(after.style) != str(before)
        assert Color.parse(app.get_css_variables()["error"]).hex6.lower() in str(after.style).lower()


async def test_projects_that_arrive_before_the_first_query_is_applied_are_kept(bundle_tenant: Any) -> None:
    """The start-up race: the project list can land before the first query is applied (that waits for a
    refresh). The list belongs to the cluster the bar shows, so it must be kept whatever the order."""
    from core.models.runai import Cluster
    from tui.messages import ClustersLoaded, ProjectsLoaded

    # The screen's own reads hang, so the only answers are the two below, delivered in the worst order:
    # the projects right behind the clusters, before any refresh.
    hang = [{"match": f"GET {path}", "status": 0, "delayMs": 20_000, "times": 5}
            for path in ("/api/v1/clusters", "/api/v1/org-unit/projects")]
    tenant = bundle_tenant(small_bundle([workload("a", 5)], faults=hang))
    app = make_app(tenant)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = picker_of(app)
        cluster = Cluster.model_validate({"uuid": "c-1", "name": "east"})
        screen.post_message(ClustersLoaded([cluster], []))
        screen.post_message(ProjectsLoaded("c-1", ["alpha", "beta"]))
        await pilot.pause()
        await pilot.pause()
        select = screen.query_one("#project-select", Select)
        assert [value for _, value in select._options][1:] == ["alpha", "beta"]


# -- a cluster the control plane cannot see (issue 27, point 2) ----------------------------------------------
@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
async def test_the_picker_says_when_its_cluster_may_be_stale(demo_tenant: Tenant, size: tuple[int, int]) -> None:
    app = make_app(demo_tenant, options=StartOptions(mode="demo", cluster_id="demo-edge"))
    async with app.run_test(size=size) as pilot:
        screen = await loaded_picker(pilot)
        notice = screen.query_one(ClusterNotice)
        await settle(pilot, lambda: notice.display)
        assert notice.plain.startswith("⚑ demo-edge Disconnected, last report 2 h 58 min ago")
        assert notice.plain.endswith("rows may be stale")
        assert len(notice.plain) <= 80  # whole at 80 columns
        # The page is sized to the table left below the line: every row it read is on screen.
        await settle(pilot, lambda: not screen.loading)
        table = screen.query_one(WorkloadTable)
        assert table.row_count <= table.size.height - 1
        # A connected cluster: no line.
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("up", "up", "enter")  # back to the first cluster (demo-east)
        await settle(pilot, lambda: screen.picker_query.cluster_id == DEMO_CLUSTERS[0]["uuid"] and not screen.loading)
        await settle(pilot, lambda: not notice.display)
