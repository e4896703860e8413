"""The terminal app on the hostile-credentials bundle, driven with Textual's pilot over real HTTP: no secret on
any page of the picker, in any row's detail, or on any pane of the diagnosis screen.

Each screen is read twice: as drawn (every strip of the compositor) and as held by its widgets (every row of
every table and every text widget, including rows scrolled out of view), so neither wrapping nor scrolling
can hide a leak from the check.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from core.sim.bundle import parse_bundle
from core.sim.demo.kit import uid
from core.tenant import Tenant, open_bundle_tenant
from tests.redaction.corpus import CREDENTIALS, Credential
from tests.redaction.leaks import readable, shown
from tests.redaction.planting import MARKERS, credentials_bundle
from tests.ui.conftest import settle
from tui.app import TriageApp
from tui.commands.start import StartOptions
from tui.messages import DiagnosisTarget
from tui.screens.diagnosis.screen import TABS, DiagnosisScreen
from tui.screens.picker.screen import PickerScreen
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.row_detail import RowDetail

SIZE = (180, 60)
# Single-credential workloads opened on the diagnosis screen (every field of the bundle carries the credential,
# three of them split by a colour code or a zero-width space): a prefixed token, a context-only secret and the
# two multi-line forms. All 84 go through every field and output in test_end_to_end; here the app's own
# rendering is what is checked.
SAMPLE_KINDS = ("github-pat", "aws-secret-csv", "pem-headless", "netrc-multiline")


@pytest.fixture
async def tenant() -> AsyncIterator[Tenant]:
    bundle, _ = credentials_bundle(CREDENTIALS, dense=True)
    opened = open_bundle_tenant(parse_bundle(bundle, "hostile-credentials"), label="hostile credentials")
    try:
        yield opened
    finally:
        await opened.aclose()


def _app(tenant: Tenant, cluster: str) -> TriageApp:
    app = TriageApp(StartOptions(mode="case", cluster_id=cluster), tenant=tenant, cursor_blink=False, debounce_s=0.05)
    app.animation_level = "none"
    return app


def _seen(app: TriageApp) -> str:
    """The screen as drawn, and everything its widgets hold (tables in full, text widgets unwrapped)."""
    parts = [strip.text for strip in app.screen._compositor.render_strips()]
    for widget in app.screen.query("*"):
        if isinstance(widget, DataTable):
            for row in range(widget.row_count):
                parts.extend(str(getattr(cell, "plain", cell)) for cell in widget.get_row_at(row))
        elif isinstance(widget, Static):
            parts.append(str(widget.render()))
        plain = getattr(widget, "plain", None)
        if isinstance(plain, str):
            parts.append(plain)
    return "\n".join(parts)


def _leaks(text: str, credentials: list[Credential]) -> list[str]:
    seen = readable(text, "screen")
    return [c.kind for c in credentials if shown(c.secret, seen)]


def _rows_shown(app: TriageApp) -> tuple[int, int]:
    """(last row shown, total) from the picker's `rows 51-100 of 2,041` line."""
    found = re.search(r"rows ([\d,]+)-([\d,]+) of ([\d,]+)", app.screen.query_one(PageIndicator).plain)
    assert found, app.screen.query_one(PageIndicator).plain
    return int(found[2].replace(",", "")), int(found[3].replace(",", ""))


async def test_picker_pages_and_row_details_show_no_credential(tenant: Tenant) -> None:
    _, stories = credentials_bundle(CREDENTIALS)
    app = _app(tenant, stories[0].cluster)
    async with app.run_test(size=SIZE) as pilot:

        def picker_ready() -> bool:
            return isinstance(app.screen, PickerScreen) and app.screen.first_answer and not app.screen.loading

        await settle(pilot, picker_ready)
        seen: list[str] = []
        rows = 0
        while True:
            table = app.screen.query_one(DataTable)
            table.focus()
            seen.append(_seen(app))
            detail = app.screen.query_one(RowDetail)
            seen.append(detail.plain)
            # Every row's detail line, as the cursor passes it (down past the last row would go on to the next
            # page: the page key below does that).
            for _ in range(table.row_count - 1):
                await pilot.press("down")
                seen.append(detail.plain)
            rows += table.row_count
            last, total = _rows_shown(app)
            if last >= total:
                break
            await pilot.press("right_square_bracket")
            await settle(pilot, lambda last=last: picker_ready() and _rows_shown(app)[0] > last)
        assert rows == total == len(CREDENTIALS) + 1  # every workload listed, the dense one too
        assert _leaks("\n".join(seen), CREDENTIALS) == []


async def _diagnosis_text(pilot: Pilot[Any], app: TriageApp, cluster: str, workload_id: str) -> str:
    app.open_diagnosis(DiagnosisTarget(cluster, workload_id))

    def done() -> bool:
        screen = app.screen
        return isinstance(screen, DiagnosisScreen) and (screen.report is not None or screen.failure is not None)

    await settle(pilot, done)
    screen = app.screen
    assert isinstance(screen, DiagnosisScreen) and screen.report is not None
    seen = []
    for pane, _label in TABS:
        screen.show_tab(pane)
        await pilot.pause()
        seen.append(_seen(app))
    await pilot.press("escape")
    await pilot.pause()
    return "\n".join(seen)


async def test_every_pane_of_the_diagnosis_screen_shows_no_credential(tenant: Tenant) -> None:
    _, stories = credentials_bundle(CREDENTIALS, dense=True)
    by_kind = {cred.kind: (story, cred) for story, cred in zip(stories, CREDENTIALS, strict=True)}
    cluster = stories[0].cluster
    app = _app(tenant, cluster)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))
        # The dense workload: every credential in its events, Kubernetes events, history and log.
        text = await _diagnosis_text(pilot, app, cluster, uid("workload", "cred-all"))
        assert _leaks(text, CREDENTIALS) == []
        assert text.count("Back-off restarting failed container") >= len(CREDENTIALS)
        for kind in SAMPLE_KINDS:
            story, cred = by_kind[kind]
            text = await _diagnosis_text(pilot, app, cluster, story.id)
            assert _leaks(text, [cred]) == [], kind
            for field in ("workload name", "Kubernetes pod event message", "log text", "node condition message"):
                assert MARKERS[field] in text, (kind, field)
