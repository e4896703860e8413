"""What a newcomer met in the app (issue 34), driven the way a user drives it, against the real demo tenant over
HTTP: a crash loop's banner, the Evidence tab without the banner's reason again, the whole verdict (`v`) saying
a route-out's next step once, the help without keys that no longer act or a stray badge and with no notice over
it, `p` never silent, and a followed workload's recovery said."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from textual.widgets import Static

from core.sim.bundle import CaseBundle
from core.sim.live.clock import SteppedClock
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.tenant import Tenant, open_bundle_tenant
from tests.ui.conftest import loaded_picker, make_app, settle
from tests.ui.test_diagnosis import CASES, make, options_for, screen_text, verdict
from tests.ui.test_follow import line, opened
from tui.commands.start import StartOptions
from tui.screens.detail import DetailScreen
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.help import HelpScreen
from tui.widgets.evidence_pane import EvidencePane
from tui.widgets.readonly_badge import ReadOnlyBadge
from tui.widgets.verdict_banner import VerdictBanner

SIZE = (120, 40)
RECOVERS = next(a for a in actors(1) if a.kind == "recovers")


async def test_a_crash_loop_banner_says_its_restarts_not_one_off(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["crash-running-crashloop"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        banner = screen.query_one(VerdictBanner).plain
        assert "1 in 24h · crash loop: 7 restarts in 40 min" in banner and "one-off" not in banner, banner


async def test_the_evidence_tab_opens_on_the_failing_log_line_and_does_not_repeat_the_reason(
    demo_tenant: Tenant,
) -> None:
    app = make(demo_tenant, options_for(CASES["crash-traceback"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        pane = screen.query_one(EvidencePane)
        view = pane.view()
        assert view is not None and view.shown[0].decisive and view.shown[0].text.startswith("Log line 7")
        body = screen_text(app)
        tab = body.split("Evidence, decisive first", 1)[1]
        assert "▸ Log line 7" in tab
        assert "Reason:" not in tab and "Recommendation" in tab  # the banner says the reason; `v` whole


async def test_the_whole_verdict_says_a_route_outs_next_step_once(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["preempt-priority"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        assert screen.report is not None and screen.report.next_action in screen.report.recommendations
        await pilot.press("v")
        await settle(pilot, lambda: isinstance(app.screen, DetailScreen))
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        body = detail.body.plain
        assert body.count(screen.report.next_action[:60]) == 1, body


async def test_the_help_lists_only_keys_that_act_and_no_notice_covers_it(demo_tenant: Tenant) -> None:
    app = make_app(demo_tenant)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await loaded_picker(pilot)
        await pilot.press("question_mark")
        await settle(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        keys = " ".join(str(w.render()) for w in help_screen.query(Static))
        assert "still opening" not in keys, "enter is the picker's diagnose key once the tenant is open"
        assert not list(help_screen.query(ReadOnlyBadge)), "the top bar says READ-ONLY; the help does not again"
        app.notify("a notice raised while the help is open", timeout=30)
        await pilot.pause(0.3)
        assert "a notice raised" not in screen_text(app), "a notice is not drawn over the help"
        await pilot.press("escape")
        await settle(pilot, lambda: "a notice raised" in screen_text(app))  # it shows once the help is closed


async def test_p_without_a_log_says_so(demo_tenant: Tenant) -> None:
    """A workload routed out before any log was read (preempted): `p` shows the Log tab and says why it is
    empty, never silently."""
    app = make(demo_tenant, options_for(CASES["preempt-priority"]))
    async with app.run_test(size=SIZE) as pilot:
        await verdict(pilot)
        await pilot.press("p")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert any(m.startswith("No container log was read") for m in said), said


@pytest.fixture
async def recovering(demo_bundle: CaseBundle) -> AsyncIterator[tuple[Tenant, SteppedClock]]:
    clock = SteppedClock(demo_bundle.captured_at)
    clock.advance(RECOVERS.start + RECOVERS.stages[2] + 1)  # crashed once: CrashLoopBackOff
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant, live", live=LiveSettings(seed=1), live_clock=clock)
    try:
        yield tenant, clock
    finally:
        await tenant.aclose()


async def test_following_a_workload_that_recovers_says_it_is_running_again(
    recovering: tuple[Tenant, SteppedClock],
) -> None:
    tenant, clock = recovering
    app = make_app(tenant, clock=clock, options=StartOptions(mode="demo", refresh_s=1.0))
    async with app.run_test(size=SIZE) as pilot:
        screen: DiagnosisScreen = await opened(pilot, tenant, RECOVERS.name)
        assert screen.report is not None and screen.report.category == "CRASH_APP_ERROR"
        await pilot.press("f")
        await settle(pilot, lambda: screen.follow_reads >= 2)
        clock.advance(RECOVERS.stages[3] - RECOVERS.stages[2])  # it comes back up
        await settle(pilot, lambda: "verdict now" in line(screen), timeout=15)
        said = line(screen)
        assert "container main running again since" in said and "(was CRASH_APP_ERROR)" in said, said
        assert screen.report.outcome == "running"
