"""CPU memory of the failed run: the measured peak against the limit (and request) as a bar drawn here, and
the usage trend as a Sparkline.

Sparkline scales to its own data, so it cannot show a fixed limit; the bar is scaled to the larger of the
limit, the request and the peak, with a marker where the limit (┃) and the request (┊) fall. When the metrics
answered with no samples the chart says so in words instead of drawing anything a reader could take for data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline, Static

from core.diagnosis.progress import MemoryTrend
from core.models.quantity import format_bytes
from core.models.report import Memory

LIMIT_MARK = "┃"
REQUEST_MARK = "┊"
HIGH_RATIO = 0.9  # at or above this share of the limit the peak is drawn as "close to the limit"


def _hhmm(at: datetime) -> str:
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%H:%M:%S")


def fmt(n: int | None, missing: str = "not set or unreadable") -> str:
    return format_bytes(n) if n is not None else missing


@dataclass(frozen=True)
class PeakBar:
    """A one-line bar of `peak` on a scale that holds the limit and request, as wide as it is given."""

    peak: int
    limit: int | None
    request: int | None
    fill: Style
    limit_style: Style
    request_style: Style
    track: Style

    def cells(self, width: int) -> Text:
        width = max(width, 10)
        top = max(v for v in (self.peak, self.limit or 0, self.request or 0, 1))

        def pos(value: int) -> int:
            return min(width - 1, round(value / top * (width - 1)))

        filled = pos(self.peak) + (1 if self.peak > 0 else 0)
        chars = ["█" if i < filled else "░" for i in range(width)]
        styles = [self.fill if i < filled else self.track for i in range(width)]
        if self.request is not None and self.request != self.limit:
            chars[pos(self.request)], styles[pos(self.request)] = REQUEST_MARK, self.request_style
        if self.limit is not None:
            chars[pos(self.limit)], styles[pos(self.limit)] = LIMIT_MARK, self.limit_style
        text = Text()
        for char, style in zip(chars, styles, strict=True):
            text.append(char, style=style)
        return text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.cells(options.max_width)


class MemoryChart(Vertical):
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "memory-chart--ok",
        "memory-chart--high",
        "memory-chart--limit",
        "memory-chart--request",
        "memory-chart--track",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = "waiting"
        self.trend: MemoryTrend | None = None
        self._plain = ""
        self._why = ""

    def compose(self) -> ComposeResult:
        yield Static("", classes="memory--head", markup=False)
        yield Static("", classes="memory--bar", markup=False)
        yield Static("", classes="memory--legend", markup=False)
        yield Static("", classes="memory--trend-label", markup=False)
        yield Sparkline([], classes="memory--trend", summary_function=max)

    def on_mount(self) -> None:
        self._draw()

    @property
    def plain(self) -> str:
        return self._plain

    # -- states ------------------------------------------------------------------------------------------
    def reset(self) -> None:
        self.state, self.trend = "waiting", None
        self._draw()

    def show_trend(self, trend: MemoryTrend) -> None:
        self.trend = trend
        self.state = "samples" if trend.samples else "no-samples"
        self._draw()

    def show_configured(self, memory: Memory) -> None:
        """The report's memory when no trend arrived (metrics not read, or read with no samples)."""
        if self.trend is None:
            self.trend = MemoryTrend((), memory.request_bytes, memory.limit_bytes, memory.peak_bytes)
            self.state = "no-samples" if memory.samples == 0 else "samples"
        self._draw()

    def set_not_read(self, why: str) -> None:
        if self.trend is None:
            self.state = "not-read"
            self._why = why
            self._draw()

    def set_unavailable(self, why: str) -> None:
        self.state = "unavailable"
        self._why = why
        self._draw()

    # -- drawing -----------------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"memory-chart--{name}", partial=True)

    def _lines(self) -> tuple[Text, Text | PeakBar, Text, Text]:
        """Head, bar, legend and trend label for the current state."""
        t = self.trend
        if self.state == "waiting" or (t is None and self.state in ("samples", "no-samples")):
            note = "Memory: waiting for the diagnosis to decide whether metrics are needed."
            return Text(note, style="italic"), Text(), Text(), Text()
        if self.state in ("not-read", "unavailable") or t is None:
            head = Text(f"Memory {'not read' if self.state == 'not-read' else 'unavailable'}: ", style="bold")
            head.append(self._why, style="not bold")
            return head, Text(), Text(), Text()
        head = Text("CPU memory of the failed run", style="bold")
        config = Text(f"request {fmt(t.request_bytes)} · limit {fmt(t.limit_bytes)}")
        if t.peak_bytes is None:
            bar = Text("no samples recorded", style="bold")
            bar.append(" — the metrics answered with no usage samples for this run", style="not bold")
            return head, bar, config, Text("No trend to draw: the peak is unknown, not zero.", style="italic")
        ratio = t.peak_bytes / t.limit_bytes if t.limit_bytes else None
        high = ratio is not None and ratio >= HIGH_RATIO
        peak_bar = PeakBar(
            t.peak_bytes,
            t.limit_bytes,
            t.request_bytes,
            self._style("high" if high else "ok"),
            self._style("limit"),
            self._style("request"),
            self._style("track"),
        )
        legend = Text(f"█ peak {format_bytes(t.peak_bytes)}")
        if ratio is not None:
            legend.append(f" = {ratio:.1%} of the limit" + (" (at or over it)" if ratio >= 1 else ""))
        legend.append(f"   {LIMIT_MARK} limit {fmt(t.limit_bytes)}")
        if t.request_bytes is not None and t.request_bytes != t.limit_bytes:
            legend.append(f"   {REQUEST_MARK} request {format_bytes(t.request_bytes)}")
        elif t.request_bytes is not None:
            legend.append(" (request = limit)")
        if t.samples:
            first, last = t.samples[0][0], t.samples[-1][0]
            label = Text(
                f"usage trend: {len(t.samples)} samples {_hhmm(first)}–{_hhmm(last)} UTC, "
                "scaled to its own range"
            )
        else:
            label = Text("No per-sample trend was returned.", style="italic")
        return head, peak_bar, legend, label

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        head, bar, legend, label = self._lines()
        for name, value in zip(
            ("head", "bar", "legend", "trend-label"), (head, bar, legend, label), strict=True
        ):
            widget = self.query_one(f".memory--{name}", Static)
            widget.update(value)
            widget.display = not (isinstance(value, Text) and not value.plain)
        spark = self.query_one(Sparkline)
        samples = self.trend.samples if self.trend is not None and self.state == "samples" else ()
        spark.data = [float(v) for _, v in samples]
        spark.display = bool(samples)
        bar_words = "peak bar against the limit" if isinstance(bar, PeakBar) else bar.plain
        self._plain = "\n".join(x for x in (head.plain, bar_words, legend.plain, label.plain) if x)
