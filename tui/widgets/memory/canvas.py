"""The memory chart drawn into a grid of terminal cells, with one mapping from value to row for everything.

A value maps to one of four braille dot rows per text row (`dot_row`); the usage curve, the peak marker, the
limit and request lines and the y-axis labels all take their row from that one mapping, so the limit is
always drawn on the row of its own label and the ◆ on the curve's highest dot row. Each cell keeps the role
of what was drawn there (usage, peak, limit, ...), so the widget colours by role and a test can read the
geometry back from the cells. Pure: no Textual.

Priority where two marks meet: the peak over the usage, the usage over the limit and request lines, those over
a failure line; a measured value is never hidden by a configured one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from core.models.quantity import format_bytes
from tui.widgets.memory.plot import HEADROOM, PlotSpec

USAGE_SAMPLE = "⠉"  # the legend's sample of the braille the usage is drawn in
LIMIT = "╌"
REQUEST = "┄"
PEAK = "◆"
FAILURE = "╎"
AXIS_ROLES = ("axis", "label")
# A break in the samples longer than this many median steps is left as a gap, not drawn as a line across.
GAP_STEPS = 10

# Braille dots: (column 0..1, row 0..3 from the top) -> bit.
_DOTS = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (0, 3): 0x40, (1, 0): 0x08, (1, 1): 0x10, (1, 2): 0x20, (1, 3): 0x80}


@dataclass
class Canvas:
    """Rows of (character, role); role is "" for blank, else usage, peak, limit, request, failure, shade,
    axis or label. `plot_left`/`plot_rows` locate the plot area; `rows_of` maps a y tick label to its row."""

    width: int
    height: int
    cells: list[list[tuple[str, str]]]
    plot_left: int
    plot_rows: int
    shaded: list[tuple[int, int]] = field(default_factory=list)  # plot columns [start, end) in a failed run
    label_rows: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        return ["".join(ch for ch, _ in row) for row in self.cells]


def dot_row(value: float, top: float, rows: int) -> int:
    """The braille dot row (0 = bottom) of `value` on a plot `rows` text rows high whose top is `top`."""
    dots = rows * 4
    if top <= 0:
        return 0
    return max(0, min(dots - 1, round(value / top * (dots - 1))))


def text_row(value: float, top: float, rows: int) -> int:
    """The text row (0 = top of the plot) holding `value`."""
    return rows - 1 - dot_row(value, top, rows) // 4


def _dot_col(x: float, span: float, cols: int) -> int:
    dots = cols * 2
    return max(0, min(dots - 1, round(x / span * (dots - 1)))) if span > 0 else 0


def _segments(xs: list[float]) -> list[tuple[int, int]]:
    """Index ranges of the samples drawn as one line each: a long break in time starts a new one."""
    steps = sorted(b - a for a, b in itertools.pairwise(xs) if b > a)
    if not steps:
        return [(0, len(xs))]
    limit = steps[len(steps) // 2] * GAP_STEPS
    out, start = [], 0
    for i in range(1, len(xs)):
        if xs[i] - xs[i - 1] > limit:
            out.append((start, i))
            start = i
    out.append((start, len(xs)))
    return out


def _line(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The dots from a to b (Bresenham), both ends included."""
    (x0, y0), (x1, y1) = a, b
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
    err = dx + dy
    out = []
    while True:
        out.append((x0, y0))
        if (x0, y0) == (x1, y1):
            return out
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def _label(value: float, spec: PlotSpec) -> str:
    return format_bytes(round(value * spec.scale)) if value else "0"


def scale(spec: PlotSpec, rows: int) -> tuple[float, list[tuple[float, str]]]:
    """The value at the plot's top row and the y ticks (value, label): 0 to the highest value drawn in equal
    steps that are each a whole number of rows apart (so the ticks are evenly spaced at every height), as many
    steps as fit with room above, plus the limit's own tick."""
    high = spec.top / HEADROOM  # the highest value drawn: the peak, the limit or the request
    dots = rows * 4 - 1
    fits: dict[int, int] = {}  # steps -> rows per step
    for room in (dots / HEADROOM, dots):
        fits = {n: int(room // (4 * n)) for n in (3, 4, 2, 1)}
        fits = {n: k for n, k in fits.items() if k >= 2 or (n == 1 and k >= 1)}
        if fits:
            break
    most = max((n * k for n, k in fits.items()), default=0)
    tall = [(n, k) for n, k in fits.items() if n * k >= 0.85 * most] or [(1, max(1, dots // 4))]

    def clashes(n: int, k: int) -> int:
        # Scale ticks the limit's label would push out (it is drawn between them when the peak is over it).
        if spec.limit is None:
            return 0
        at = text_row(spec.limit, high * dots / (n * 4 * k), rows)
        return sum(0 < abs(at - (rows - 1 - i * k)) <= 1 for i in range(n + 1))

    steps, per = min(tall, key=lambda nk: clashes(*nk))  # the first of the fewest clashes
    top = high * dots / (steps * 4 * per)
    ticks = [(high * i / steps, _label(high * i / steps, spec)) for i in range(steps + 1)]
    if spec.limit is not None and all(abs(v - spec.limit) > 1e-9 * max(high, 1) for v, _ in ticks):
        ticks.append((spec.limit, _label(spec.limit, spec)))
    return top, ticks


def _ticks(spec: PlotSpec, top: float, ticks: list[tuple[float, str]], rows: int) -> list[tuple[int, str]]:
    """(row, label) of the y ticks, the limit's kept wherever two would share a row or touch."""
    if spec.limit is not None:
        ticks = sorted(ticks, key=lambda t: abs(t[0] - spec.limit) > 1e-9)  # type: ignore[operator]  # limit first
    kept: list[tuple[int, str]] = []
    for value, label in ticks:
        row = text_row(value, top, rows)
        if all(abs(row - other) > 1 for other, _ in kept):
            kept.append((row, label))
    return sorted(kept)


def draw(spec: PlotSpec, width: int, height: int) -> Canvas | None:
    """The chart in `width` x `height` cells, or None when that is too small to draw anything readable."""
    rows = height - 2  # the x axis and its labels below the plot
    top, scale_ticks = scale(spec, max(rows, 1))
    ticks = _ticks(spec, top, scale_ticks, max(rows, 1))
    label_w = max((len(label) for _, label in ticks), default=1)
    left = label_w + 1
    cols = width - left - 1
    if rows < 3 or cols < 10:
        return None
    cells: list[list[tuple[str, str]]] = [[(" ", "")] * width for _ in range(height)]

    def put(row: int, col: int, ch: str, role: str) -> None:
        if 0 <= row < height and 0 <= col < width:
            cells[row][col] = (ch, role)

    # The y axis and its labels, each on the row of its own value.
    label_rows: dict[str, int] = {}
    for r in range(rows):
        put(r, left - 1, "│", "axis")
    for r, label in ticks:
        label_rows[label] = r
        for i, ch in enumerate(label.rjust(label_w)):
            put(r, i, ch, "label")
        put(r, left - 1, "┤", "axis")
    # The x axis, its ticks and their labels (a label that would touch the one before is left out).
    put(rows, left - 1, "└", "axis")
    for c in range(cols):
        put(rows, left + c, "─", "axis")
    end_of_last = -2
    for x, label in zip(spec.x_ticks, spec.x_labels, strict=True):
        col = _dot_col(x, spec.xs[-1] - spec.xs[0] if spec.xs else 0, cols) // 2
        put(rows, left + col, "┬", "axis")
        start = max(0, min(left + col - len(label) // 2, width - len(label)))
        if start > end_of_last + 1:
            for i, ch in enumerate(label):
                put(rows + 1, start + i, ch, "label")
            end_of_last = start + len(label) - 1

    span = (spec.xs[-1] - spec.xs[0]) if spec.xs else 0.0
    base = spec.xs[0] if spec.xs else 0.0

    def col_of(x: float) -> int:
        return _dot_col(x - base, span, cols) // 2

    shaded = [(col_of(s.start + base), col_of(s.end + base) + 1) for s in spec.shaded]
    # Lowest first: failure lines, then the configured lines, then the usage, then the peak.
    for x in spec.failures:
        c = col_of(x + base)
        for r in range(rows):
            put(r, left + c, FAILURE, "failure")
    for value, glyph, role in ((spec.request, REQUEST, "request"), (spec.limit, LIMIT, "limit")):
        if value is not None and value <= top:
            r = text_row(value, top, rows)
            for c in range(cols):
                put(r, left + c, glyph, role)
    dots: dict[tuple[int, int], int] = {}
    # Samples that only carry a failed container's last value on (plot.held_runs) are not drawn.
    kept = [i for i in range(len(spec.xs)) if not any(a <= i < b for a, b in spec.held)]
    xs = [spec.xs[i] for i in kept]
    points = [(_dot_col(spec.xs[i] - base, span, cols), dot_row(spec.ys[i], top, rows)) for i in kept]
    for start, stop in _segments(xs):
        chunk = points[start:stop]
        for a, b in itertools.pairwise(chunk if len(chunk) > 1 else chunk * 2):
            for dx, dy in _line(a, b):
                cell = (rows - 1 - dy // 4, dx // 2)
                dots[cell] = dots.get(cell, 0) | _DOTS[(dx % 2, 3 - dy % 4)]
    for (r, c), bits in dots.items():
        put(r, left + c, chr(0x2800 + bits), "usage")
    if spec.peak is not None:
        px, py = spec.peak
        put(text_row(py, top, rows), left + col_of(px + base), PEAK, "peak")
    return Canvas(width, height, cells, left, rows, shaded, label_rows)
