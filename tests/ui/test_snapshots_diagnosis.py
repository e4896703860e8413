"""SVG snapshots of the diagnosis screen on demo stories: each category, each route-out outcome, the
no-samples memory chart and the hostile story, at 80x24 and 160x50.

Deterministic by construction: the demo's clock is frozen at its capture time, read timings come from a frozen
engine clock (every step shows 0 ms), animation is off, no cursor blinks, and `run_before` waits for the
verdict before the picture is taken. Plain `def` tests: snap_compare runs its own event loop.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Tabs
from textual.widgets._tabs import Underline

from core.sim.bundle import CaseBundle
from core.sim.demo import demo_expectations, load_offspec_bundle, offspec_expectations
from core.tenant import open_bundle_tenant
from tui.app import TriageApp
from tui.commands.start import OpenedTenant, StartOptions
from tui.messages import DiagnosisTarget
from tui.screens.diagnosis.open import request_for
from tui.screens.diagnosis.screen import DiagnosisScreen

CASES = {case["key"]: case for case in demo_expectations()}
# Stories of the off-spec tenant (a `Suspended` phase, ...) are served from their own bundle.
OFF_SPEC = {case["key"]: case for case in offspec_expectations()}
CASES.update(OFF_SPEC)
SMALL, LARGE = (80, 24), (160, 50)


class SnapshotApp(TriageApp):
    """The app with the diagnosis screen wired in and its read timings frozen."""

    def open_diagnosis(self, target: DiagnosisTarget) -> None:
        if self.tenant is not None:
            request = request_for(target, self.clock())
            self.push_screen(
                DiagnosisScreen(request, self.tenant, clock=self.clock, engine_clock=lambda: 0.0)
            )


def app_for(bundle: CaseBundle, key: str) -> SnapshotApp:
    case = CASES[key]
    if case["lookup"] == "id":
        options = StartOptions(mode="demo", cluster_id=case["clusterId"], workload_id=case["workloadId"])
    else:
        options = StartOptions(
            mode="demo", cluster_id=case["clusterId"], name=case["name"], project=case["project"]
        )
    # The app opens (and on exit closes) its own tenant, inside the loop snap_compare runs.
    app = SnapshotApp(
        options,
        opener=lambda: OpenedTenant(open_bundle_tenant(bundle, label="demo tenant")),
        cursor_blink=False,
    )
    app.animation_level = "none"
    return app


def waiting_for_verdict(tab: str | None = None) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        deadline = time.monotonic() + 15
        while True:
            screen = pilot.app.screen
            if (
                isinstance(screen, DiagnosisScreen)
                and (screen.report or screen.failure)
                and not screen.running
            ):
                break
            assert time.monotonic() < deadline, "no verdict within 15 s"
            await pilot.pause(0.02)
        if tab is not None:
            screen.show_tab(tab)
        await pilot.pause()
        await pilot.pause()
        await underlines_in_place(pilot)

    return run_before


def _underlines_placed(screen: Any) -> bool:
    """Every tab bar's underline spans its active tab: a label that grew ("Evidence" to "Evidence 1") moves the
    underline one refresh after the label, which a loaded machine can leave for the picture."""
    for tabs in screen.query(Tabs):
        active = tabs.query("#tabs-list > Tab.-active")
        if not active:
            continue
        tab = active.first()
        start, end = tab.virtual_region.shrink(tab.styles.gutter).column_span
        underline = tabs.query_one(Underline)
        if (underline.highlight_start, underline.highlight_end) != (start, end):
            return False
    return True


async def underlines_in_place(pilot: Pilot[Any]) -> None:
    deadline = time.monotonic() + 5
    while not _underlines_placed(pilot.app.screen):
        assert time.monotonic() < deadline, "a tab's underline did not reach its tab within 5 s"
        await pilot.pause(0.02)


SNAPSHOTS = [
    # (story, size, tab to show)
    ("oom-rising", SMALL, None),
    ("oom-rising", LARGE, "tab-memory"),
    ("oom-empty-metrics", SMALL, "tab-memory"),
    ("pull-not-found", LARGE, "tab-events"),
    ("init-exit", LARGE, "tab-pod"),
    ("mount-pvc-missing", SMALL, None),
    ("crash-traceback", LARGE, "tab-log"),
    ("node-notready", LARGE, "tab-node"),
    ("policy-idle", SMALL, "tab-history"),
    ("unknown-no-signals", SMALL, "tab-missing"),
    ("preempt-priority", SMALL, None),
    ("pending-unschedulable", LARGE, None),
    ("succeeded", SMALL, None),
    ("suspended", SMALL, None),
    ("running-healthy", LARGE, None),
    ("initializing", SMALL, None),
    ("cluster-mismatch", LARGE, None),
    ("not-found", SMALL, None),
    ("ambiguous-chat-agent", LARGE, "tab-missing"),
    ("hostile", LARGE, "tab-events"),
    ("hostile", SMALL, "tab-log"),
    ("oom-rising", SMALL, "tab-memory"),
    ("oom-recurring", LARGE, "tab-memory"),
    ("policy-idle", LARGE, None),
    ("succeeded", LARGE, None),
    ("pull-rate-limit", SMALL, None),
    # Infrastructure findings: their own banner line, with the owner, apart from the category.
    ("xid79-16pod", SMALL, None),
    ("xid79-16pod", LARGE, None),
    ("webhook-denied", SMALL, None),
    ("disconnected-cluster", LARGE, None),
    # Routed out at Step 4 (the pod's DisruptionTarget condition): the steps end where it was decided.
    ("preempt-disruption", SMALL, None),
    ("preempt-disruption", LARGE, None),
]


@pytest.mark.parametrize(
    ("key", "size", "tab"),
    SNAPSHOTS,
    ids=[f"{key}-{size[0]}x{size[1]}" + (f"-{tab[4:]}" if tab else "") for key, size, tab in SNAPSHOTS],
)
def test_diagnosis_snapshot(
    snap_compare: Any, demo_bundle: CaseBundle, key: str, size: tuple[int, int], tab: str | None
) -> None:
    bundle = load_offspec_bundle() if key in OFF_SPEC else demo_bundle
    assert snap_compare(app_for(bundle, key), terminal_size=size, run_before=waiting_for_verdict(tab))


def verdict_then(*keys: str) -> Any:
    """Wait for the verdict, then press `keys` (e.g. `v` for the whole verdict)."""
    waiting = waiting_for_verdict()

    async def run_before(pilot: Pilot[Any]) -> None:
        await waiting(pilot)
        await pilot.press(*keys)
        await pilot.pause()
        await pilot.pause()
        await underlines_in_place(pilot)

    return run_before


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
def test_verdict_full_text(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(app_for(demo_bundle, "pull-rate-limit"), terminal_size=size, run_before=verdict_then("v"))


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
def test_diagnosis_help(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    app = app_for(demo_bundle, "crash-traceback")
    assert snap_compare(app, terminal_size=size, run_before=verdict_then("question_mark"))


# The Evidence tab (issue 24): the short view it opens on, decisive first, one line per signal, many pods on one
# line per kind; and every line, one key away (`x`).
EVIDENCE_TAB = ["oom-rising", "pull-not-found", "xid79-16pod"]


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
@pytest.mark.parametrize("key", EVIDENCE_TAB)
def test_evidence_tab(snap_compare: Any, demo_bundle: CaseBundle, key: str, size: tuple[int, int]) -> None:
    assert snap_compare(app_for(demo_bundle, key), terminal_size=size, run_before=waiting_for_verdict("tab-evidence"))


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
def test_evidence_tab_every_line(snap_compare: Any, demo_bundle: CaseBundle, size: tuple[int, int]) -> None:
    assert snap_compare(app_for(demo_bundle, "xid79-16pod"), terminal_size=size, run_before=verdict_then("x"))
