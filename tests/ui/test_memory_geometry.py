"""The memory chart's geometry, read back from what is drawn, at the sizes people use: the limit line on the row
of the label that reads the limit's value, the ◆ on the curve's highest point, the y labels on a linear scale,
and every mark the legend names drawn with the glyph the legend shows (issue 27, point 4).

An OOM story (one pod) and a multi-pod story (the failed pod's own series) at 80x24, 120x40 and 200x50, in the
real app against the demo tenant; then the drawing itself at many sizes, for usage at, under and over the limit.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from core.models.quantity import format_bytes
from core.tenant import Tenant
from tests.ui.test_diagnosis import CASES, make, options_for, screen_text, verdict
from tui.widgets.memory.canvas import FAILURE, LIMIT, PEAK, REQUEST, Canvas, draw
from tui.widgets.memory.chart import MemoryChart
from tui.widgets.memory.plot import plot_spec

SIZES = [(80, 24), (120, 40), (200, 50)]
GLYPHS = {"peak": PEAK, "limit": LIMIT, "request": REQUEST, "failure": FAILURE}
_UNITS = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4}


def _braille(ch: str) -> bool:
    return 0x2800 <= ord(ch) <= 0x28FF


def _label_value(label: str) -> float:
    if label.strip() == "0":
        return 0.0
    number, unit = label.split()
    return float(number) * _UNITS[unit]


def labels(canvas: Canvas) -> dict[int, str]:
    """The y labels as drawn: row -> text left of the axis."""
    out = {}
    for r in range(canvas.plot_rows):
        text = "".join(ch for ch, _ in canvas.cells[r][: canvas.plot_left - 1]).strip()
        if text and text[0].isdigit():
            out[r] = text
    return out


def rows_with(canvas: Canvas, *roles: str) -> list[int]:
    return [r for r in range(canvas.plot_rows) if any(role in roles for _, role in canvas.cells[r])]


def check_geometry(canvas: Canvas, limit: int | None, peak: int | None, legend: str) -> None:
    shown = labels(canvas)
    assert shown, "no y labels drawn"
    # The labels sit on a linear scale: the value each reads grows row by row upwards, evenly to within a row.
    points = sorted((r, _label_value(text)) for r, text in shown.items())
    (r_top, v_top), (r_zero, v_zero) = points[0], points[-1]
    assert v_zero == 0.0 and r_zero == canvas.plot_rows - 1, points
    per_row = (v_top - v_zero) / (r_zero - r_top)
    for r, v in points:
        assert abs((r_zero - r) - v / per_row) <= 1.0, (r, v, points)
    if limit is not None:
        limit_rows = rows_with(canvas, "limit")
        assert len(limit_rows) == 1, limit_rows
        [row] = [r for r, text in shown.items() if text == format_bytes(limit)]
        assert limit_rows == [row], f"limit drawn on row {limit_rows}, its label {format_bytes(limit)} on row {row}"
        # And that label is where the limit's value falls on the scale the other labels set.
        assert abs((r_zero - row) - limit / per_row) <= 1.0
    if peak is not None:
        [peak_row] = rows_with(canvas, "peak")
        assert min(rows_with(canvas, "usage", "peak")) == peak_row, "the curve rises above the ◆"
        [col] = [c for c, (_, role) in enumerate(canvas.cells[peak_row]) if role == "peak"]
        beside = [canvas.cells[r][c][1] for r in (peak_row, peak_row + 1) for c in (col - 1, col, col + 1)
                  if 0 <= r < canvas.plot_rows and 0 <= c < canvas.width]
        assert "usage" in beside, "the ◆ is not on the curve"
    # Every mark drawn is drawn with the glyph the legend shows for it, and the legend shows every mark drawn.
    drawn = {role: {ch for row in canvas.cells[: canvas.plot_rows] for ch, rl in row if rl == role}
             for role in ("usage", *GLYPHS)}
    assert drawn["usage"] and all(_braille(ch) for ch in drawn["usage"])
    assert _braille(legend.split(" usage, measured")[0][-1])
    for role, glyph in GLYPHS.items():
        if drawn[role]:
            assert drawn[role] == {glyph}, (role, drawn[role])
            assert re.search(rf"{re.escape(glyph)} \S", legend), f"the legend lacks {glyph} for the {role}"


def legend_roles(legend: str) -> dict[str, str]:
    """glyph -> role, as the legend names them ("◆ peak 47.9 GiB", "╌ limit 48 GiB, configured", ...)."""
    found = re.findall(r"(\S) (usage|peak|limit|request|failure)\b", legend)
    return {glyph: role for glyph, role in found}


def canvas_from_screen(lines: list[str], legend: str) -> Canvas:
    """The chart as the user sees it: rows down to the x axis (the line with └), roles read from the glyphs
    by the legend (a braille glyph is the usage when the legend shows the usage in braille)."""
    roles = legend_roles(legend)
    usage_braille = any(role == "usage" and _braille(g) for g, role in roles.items())
    axis = next(i for i, line in enumerate(lines) if "└" in line)
    left = lines[axis].index("└") + 1
    width = max(len(line) for line in lines)
    cells = []
    for r, line in enumerate(lines):
        row = []
        for c, ch in enumerate(line.ljust(width)):
            if c < left or r >= axis:
                role = "label" if ch.strip() else ""
            elif ch in roles:
                role = roles[ch]
            elif usage_braille and _braille(ch):
                role = "usage"
            else:
                role = ""
            row.append((ch, role))
        cells.append(row)
    return Canvas(width, len(lines), cells, left, axis)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("key", ["oom-rising", "dist-oom-cascade"])
async def test_the_chart_in_the_app_puts_limit_and_peak_where_their_values_are(
    demo_tenant: Tenant, key: str, size: tuple[int, int]
) -> None:
    app = make(demo_tenant, options_for(CASES[key]))
    async with app.run_test(size=size) as pilot:
        screen = await verdict(pilot)
        await pilot.press("4")
        await pilot.pause()
        chart = screen.query_one(MemoryChart)
        report = screen.report
        assert report is not None and report.memory is not None and chart.spec is not None
        # What is on the screen where the plot is, read back by the legend's own glyphs.
        region = chart.query_one(".memory--plot").region
        assert region.height >= 6, region
        shown = screen_text(app).splitlines()[region.y : region.bottom]
        canvas = canvas_from_screen([line[region.x : region.right] for line in shown], chart.plain)
        check_geometry(canvas, report.memory.limit_bytes, report.memory.peak_bytes, chart.plain)


def _samples(peak_ratio: float, n: int = 300) -> list[tuple[datetime, int]]:
    start = datetime(2026, 11, 30, 10, tzinfo=UTC)
    limit = 48 * 1024**3
    return [(start + timedelta(seconds=10 * i), int(limit * peak_ratio * (0.3 + 0.7 * i / (n - 1)))) for i in range(n)]


@pytest.mark.parametrize("ratio", [0.5, 0.93, 0.995, 1.0, 1.2])
@pytest.mark.parametrize("width", [40, 63, 80, 117, 200])
@pytest.mark.parametrize("height", [6, 7, 9, 13, 17, 26, 33])
def test_the_drawing_holds_at_every_size_and_level(ratio: float, width: int, height: int) -> None:
    limit = 48 * 1024**3
    samples = _samples(ratio)
    spec = plot_spec(samples, limit, 32 * 1024**3, [samples[-1][0]])
    assert spec is not None
    canvas = draw(spec, width, height)
    assert canvas is not None
    legend = f"⠉ usage, measured  {PEAK} peak  {LIMIT} limit  {REQUEST} request  {FAILURE} failure"
    check_geometry(canvas, limit, max(v for _, v in samples), legend)
