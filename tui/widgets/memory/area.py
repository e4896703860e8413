"""The memory chart's drawing area: the canvas (tui.widgets.memory.canvas) at the widget's own size, coloured by
what each cell shows. Redrawn on resize; `lines` is what is on screen, for tests and the plain text."""

from __future__ import annotations

from collections.abc import Mapping

from rich.style import Style
from rich.text import Text
from textual.events import Resize
from textual.widget import Widget

from tui.widgets.memory.canvas import Canvas, draw
from tui.widgets.memory.plot import PlotSpec


class MemoryArea(Widget):
    DEFAULT_CSS = "MemoryArea { height: 1fr; }"

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.spec: PlotSpec | None = None
        self.colours: Mapping[str, tuple[int, int, int]] = {}
        self.canvas: Canvas | None = None

    def show(self, spec: PlotSpec | None, colours: Mapping[str, tuple[int, int, int]]) -> None:
        self.spec, self.colours = spec, dict(colours)
        self.display = spec is not None
        self._redraw()

    @property
    def lines(self) -> list[str]:
        return self.canvas.lines() if self.canvas is not None else []

    def on_resize(self, _event: Resize) -> None:
        self._redraw()

    def _redraw(self) -> None:
        width, height = self.content_size.width, self.content_size.height
        self.canvas = draw(self.spec, width, height) if self.spec is not None and width and height else None
        self.refresh()

    def render(self) -> Text:
        canvas = self.canvas
        if canvas is None:
            return Text("The chart needs more room: widen or heighten the terminal.", style="italic")
        styles = {role: Style(color="#{:02x}{:02x}{:02x}".format(*rgb)) for role, rgb in self.colours.items()}
        dim = Style(dim=True)
        shade = self.colours.get("shade")
        shade_style = Style(bgcolor="#{:02x}{:02x}{:02x}".format(*shade)) if shade else None
        out = Text()
        for r, row in enumerate(canvas.cells):
            if r:
                out.append("\n")
            for c, (ch, role) in enumerate(row):
                style = styles.get(role) or (dim if role in ("axis", "label") else Style())
                inside = c - canvas.plot_left
                if shade_style and r < canvas.plot_rows and any(a <= inside < b for a, b in canvas.shaded):
                    style = style + shade_style
                out.append(ch, style)
        return out
