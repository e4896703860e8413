"""CPU memory of the failed run over time: usage on a time axis (UTC), the configured limit and request as
horizontal lines, the measured peak marked ◆, each failure or restart the history records inside that time
as a vertical line, and the failed run's time shaded when the samples reach past it. tui.widgets.memory.plot
works out what to draw, tui.widgets.memory.canvas draws it into cells with one value-to-row mapping for every
mark (the limit on its label's row, the peak on the curve's top), tui.widgets.memory.area shows the cells.

Measured and configured values are kept apart in words: the legend calls the usage and the peak measured and
the limit and request configured, and when the metrics answered with no samples nothing is drawn at all, only
the configured values and the words "no samples", so a line can never be taken for a measurement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from core.diagnosis.progress import MemoryTrend
from core.models.quantity import format_bytes
from core.models.report import Memory
from tui.widgets.memory.area import MemoryArea
from tui.widgets.memory.canvas import FAILURE, LIMIT, PEAK, REQUEST, USAGE_SAMPLE
from tui.widgets.memory.plot import PlotSpec, plot_spec
from tui.widgets.phase_text import theme_colour

HIGH_RATIO = 0.9  # at or above this share of the limit the usage is drawn in the error colour


def fmt(n: int | None, missing: str = "not set or unreadable") -> str:
    return format_bytes(n) if n is not None else missing


def _rgb(theme: Mapping[str, str], name: str, fallback: tuple[int, int, int]) -> tuple[int, int, int]:
    colour = theme_colour(theme, name)
    return colour.rgb if colour is not None else fallback


def _whose(trend: MemoryTrend) -> str:
    # A workload of several pods: the failing pod's own series, against that pod's limit.
    return f"pod {trend.pod} (its own series, not the workload's sum)" if trend.pod else "the failed run"


class MemoryChart(Vertical):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = "waiting"
        self.trend: MemoryTrend | None = None
        self.failures: list[datetime] = []
        self.windows: list[tuple[datetime, datetime, str]] = []
        self.spec: PlotSpec | None = None
        self._plain = ""
        self._why = ""

    def compose(self) -> ComposeResult:
        yield Static("", classes="memory--head", markup=False)
        yield MemoryArea(classes="memory--plot")
        yield Static("", classes="memory--legend", markup=False)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._draw())
        self._draw()

    @property
    def plain(self) -> str:
        return self._plain

    # -- states ------------------------------------------------------------------------------------------
    def reset(self) -> None:
        self.state, self.trend, self.failures, self.windows = "waiting", None, [], []
        self._draw()

    def show_trend(self, trend: MemoryTrend) -> None:
        self.trend = trend
        self.state = "samples" if trend.samples else "no-samples"
        self._draw()

    def show_configured(
        self,
        memory: Memory,
        failures: Sequence[datetime] = (),
        windows: Sequence[tuple[datetime, datetime, str]] = (),
    ) -> None:
        """The report's memory (the trend, when none arrived), with the failures and runs to mark on it."""
        if self.trend is None:
            self.trend = MemoryTrend((), memory.request_bytes, memory.limit_bytes, memory.peak_bytes, memory.pod)
            self.state = "no-samples" if memory.samples == 0 or memory.peak_bytes is None else "samples"
        self.failures, self.windows = list(failures), list(windows)
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
    def _texts(self) -> tuple[Text, Text]:
        """Head and legend for the current state (the plot shows only with samples)."""
        t = self.trend
        if self.state == "waiting" or (t is None and self.state in ("samples", "no-samples")):
            note = "Memory: waiting for the diagnosis to decide whether metrics are needed."
            return Text(note, style="italic"), Text()
        if self.state in ("not-read", "unavailable") or t is None:
            head = Text(f"Memory {'not read' if self.state == 'not-read' else 'unavailable'}: ", style="bold")
            head.append(self._why, style="not bold")
            return head, Text()
        config = f"request {fmt(t.request_bytes)} · limit {fmt(t.limit_bytes)} (configured, not measured)"
        if t.peak_bytes is None:
            head = Text(f"CPU memory of {_whose(t)}: no samples recorded", style="bold")
            head.append(
                "\nThe metrics answered with no usage samples for this run, so nothing is drawn: the peak is "
                f"unknown, not zero.\n{config}",
                style="not bold",
            )
            return head, Text()
        ratio = t.peak_bytes / t.limit_bytes if t.limit_bytes else None
        head = Text(f"CPU memory of {_whose(t)}", style="bold")
        head.append(f" · peak {format_bytes(t.peak_bytes)}, measured", style="not bold")
        if ratio is not None:
            head.append(f" = {ratio:.1%} of the limit" + (" (at or over it)" if ratio >= 1 else ""), "not bold")
        if self.spec is None:
            head.append(f"\nNo per-sample series reached this screen, so no chart is drawn.\n{config}", "not bold")
            return head, Text()
        return head, self._legend(t, ratio)

    def _legend(self, t: MemoryTrend, ratio: float | None) -> Text:
        spec = self.spec
        assert spec is not None and spec.first is not None and spec.last is not None
        colours = self._colours(ratio)
        legend = Text()
        legend.append(USAGE_SAMPLE, style=Style(color=_hex(colours["usage"])))
        legend.append(
            f" usage, measured: {len(t.samples)} samples {spec.first:%H:%M:%S}–{spec.last:%H:%M:%S} UTC  "
        )
        legend.append(PEAK, style=Style(color=_hex(colours["peak"])))
        legend.append(f" peak {fmt(t.peak_bytes)}  ")
        legend.append(LIMIT, style=Style(color=_hex(colours["limit"])))
        legend.append(f" limit {fmt(t.limit_bytes)}, configured  ")
        if spec.request is not None:
            legend.append(REQUEST, style=Style(color=_hex(colours["request"])))
            legend.append(f" request {fmt(t.request_bytes)}, configured  ")
        elif t.request_bytes is not None:
            legend.append("(request = limit)  ")
        if spec.failures:
            legend.append(FAILURE, style=Style(color=_hex(colours["failure"])))
            legend.append(f" failure or restart ({len(spec.failures)}, from the history)  ")
        if spec.shaded:
            legend.append("  ", style=Style(bgcolor=_hex(colours["shade"])))  # drawn as a background
            legend.append(" " + ", ".join(span.label for span in spec.shaded))
        return legend

    def _colours(self, ratio: float | None) -> dict[str, tuple[int, int, int]]:
        theme = self.app.get_css_variables()
        high = ratio is not None and ratio >= HIGH_RATIO
        return {
            "usage": _rgb(theme, "error" if high else "success", (80, 200, 120)),
            "peak": _rgb(theme, "error", (220, 60, 60)),
            "limit": _rgb(theme, "warning", (230, 180, 40)),
            "request": _rgb(theme, "primary", (100, 140, 230)),
            "failure": _rgb(theme, "error", (220, 60, 60)),
            "shade": _rgb(theme, "panel", (60, 60, 60)),
        }

    def _plot(self, ratio: float | None) -> None:
        self.query_one(MemoryArea).show(self.spec, self._colours(ratio) if self.spec is not None else {})

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        t = self.trend
        self.spec = (
            plot_spec(t.samples, t.limit_bytes, t.request_bytes, self.failures, self.windows)
            if t is not None and self.state == "samples"
            else None
        )
        ratio = t.peak_bytes / t.limit_bytes if t is not None and t.peak_bytes and t.limit_bytes else None
        head, legend = self._texts()
        self.query_one(".memory--head", Static).update(head)
        legend_widget = self.query_one(".memory--legend", Static)
        legend_widget.update(legend)
        legend_widget.display = bool(legend.plain)
        self._plot(ratio)
        self._plain = "\n".join(x for x in (head.plain, legend.plain) if x)


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)
