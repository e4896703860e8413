"""What a newcomer saw on the diagnosis screen's chart and steps (issue 34, point 7), in the real app against the
demo tenant and on the drawing itself: the y ticks evenly spaced at every height (at 80x24 they were 2, 3 and 3
rows apart), the usage curve ending where the container did rather than running on past the ◆ at the value a
range query carries after a kill, the step titles whole when the terminal is wide, and the Memory tab drawn at
the new size after the terminal is resized."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from core.diagnosis.progress import STEP_TITLES
from core.models.quantity import format_bytes
from core.tenant import Tenant
from tests.ui.test_diagnosis import CASES, make, options_for, screen_text, verdict
from tests.ui.test_memory_geometry import canvas_from_screen, labels
from tui.widgets.memory.area import MemoryArea
from tui.widgets.memory.canvas import Canvas, draw
from tui.widgets.memory.chart import MemoryChart
from tui.widgets.memory.plot import plot_spec

GI = 1024**3
START = datetime(2026, 11, 30, 10, tzinfo=UTC)


def scale_rows(canvas: Canvas, limit: int, over_limit: bool) -> list[int]:
    """The rows of the scale's ticks, bottom up: every y label but the limit's own when the peak is over it (the
    scale then runs to the peak, and the limit is labelled between its ticks)."""
    shown = sorted(labels(canvas).items(), key=lambda kv: -kv[0])
    return [r for r, text in shown if not (over_limit and text == format_bytes(limit))]


def even(rows: list[int]) -> bool:
    """Evenly spaced, but for a tick left out where the limit's own label is drawn (a gap twice as wide)."""
    gaps = [a - b for a, b in itertools.pairwise(rows)]
    return all(gap % min(gaps) == 0 for gap in gaps)


def usage_cols(canvas: Canvas) -> list[int]:
    return [c for row in canvas.cells[: canvas.plot_rows] for c, (_, role) in enumerate(row) if role == "usage"]


def peak_col(canvas: Canvas) -> int:
    [col] = [c for row in canvas.cells[: canvas.plot_rows] for c, (_, role) in enumerate(row) if role == "peak"]
    return col


@pytest.mark.parametrize("ratio", [0.5, 0.93, 1.0, 1.2])
@pytest.mark.parametrize("height", [6, 8, 9, 11, 13, 17, 23, 26, 33, 40])
def test_the_y_ticks_are_evenly_spaced_at_every_height(ratio: float, height: int) -> None:
    limit = 48 * GI
    samples = [(START + timedelta(seconds=10 * i), int(limit * ratio * (0.3 + 0.7 * i / 299))) for i in range(300)]
    spec = plot_spec(samples, limit, 32 * GI)
    assert spec is not None
    canvas = draw(spec, 80, height)
    assert canvas is not None
    rows = scale_rows(canvas, limit, ratio > 1)
    assert rows and (len(rows) == 1 or even(rows)), (height, ratio, labels(canvas))
    if ratio <= 1 or canvas.plot_rows > 7:
        # The scale uses the room it has: its top tick in the upper third of the plot (on a plot of 7 rows or
        # fewer, the limit's label drawn between the ticks can push the top one out).
        assert len(rows) >= 2 and rows[-1] <= canvas.plot_rows // 3, (rows, labels(canvas), canvas.plot_rows)


def _killed(held_s: int = 300) -> tuple[list[tuple[datetime, int]], datetime]:
    """A ramp to the limit, the kill 30 s after the last sample, and what a range query returns after it: the last
    value again for the staleness window."""
    ramp = [(START + timedelta(seconds=4 * i), 9 * GI + int(38 * GI * i / 899)) for i in range(900)]
    last_at, last = ramp[-1]
    carried = [(last_at + timedelta(seconds=4 * (i + 1)), last) for i in range(held_s // 4)]
    return ramp + carried, last_at + timedelta(seconds=30)


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_the_curve_ends_at_the_kill_not_on_at_the_value_the_query_carries(width: int) -> None:
    samples, killed = _killed()
    spec = plot_spec(samples, 48 * GI, None, [killed])
    assert spec is not None
    canvas = draw(spec, width, 12)
    assert canvas is not None
    assert max(usage_cols(canvas)) <= peak_col(canvas), canvas.lines()


def test_a_container_that_runs_again_after_the_failure_is_drawn() -> None:
    samples, killed = _killed(held_s=120)
    restarted = samples[-1][0]
    samples += [(restarted + timedelta(seconds=4 * (i + 1)), 2 * GI + 10_000_000 * i) for i in range(300)]
    spec = plot_spec(samples, 48 * GI, None, [killed])
    assert spec is not None
    canvas = draw(spec, 100, 12)
    assert canvas is not None
    failure_col = next(c for row in canvas.cells for c, (_, role) in enumerate(row) if role == "failure")
    assert max(usage_cols(canvas)) > failure_col + 10  # the new container's memory, drawn on


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_in_the_app_the_oom_curve_stops_at_its_peak_and_the_ticks_are_even(
    demo_tenant: Tenant, size: tuple[int, int]
) -> None:
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=size) as pilot:
        screen = await verdict(pilot)
        await pilot.press("4")
        await pilot.pause()
        chart = screen.query_one(MemoryChart)
        region = chart.query_one(".memory--plot").region
        shown = screen_text(app).splitlines()[region.y : region.bottom]
        canvas = canvas_from_screen([line[region.x : region.right] for line in shown], chart.plain)
        assert max(usage_cols(canvas)) <= peak_col(canvas), "\n".join(canvas.lines())
        rows = scale_rows(canvas, 48 * GI, False)
        assert even(rows), labels(canvas)


@pytest.mark.parametrize("size", [(160, 40), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_step_titles_are_whole_on_a_wide_terminal(demo_tenant: Tenant, size: tuple[int, int]) -> None:
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=size) as pilot:
        await verdict(pilot)
        text = screen_text(app)
        assert screen_text(app).count("reads") >= 5
        for title in STEP_TITLES.values():
            assert title in text, title


async def test_the_memory_tab_is_drawn_at_the_new_size_after_a_resize(demo_tenant: Tenant) -> None:
    # A guard (it did not fail on this branch: issue 27's canvas already redraws on resize).
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await verdict(pilot)
        await pilot.press("4")
        await pilot.pause()
        for size in [(60, 14), (200, 50), (80, 16), (120, 40), (80, 24)]:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            area = screen.query_one(MemoryArea)
            assert area.canvas is not None and area.canvas.width == area.content_size.width, size
            assert "needs more room" not in screen_text(app), size
