"""The states a Tier 2 pane goes through, and the base the containers, events, log and node panes share.

waiting -> found, or -> unavailable (the read failed: why) or -> not-read (the seed did not call for it: why).
A pane that has data never goes back to a gap, and a gap never hides data that arrives later.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Static


class PaneState:
    """Mixin: `noun` names the pane's content in its messages ("Log", "Node", ...); subclasses draw in `_draw`."""

    noun = "Evidence"
    state: str = "waiting"
    why: str | None = None

    def _draw(self) -> None:  # overridden by each pane
        return

    def set_unavailable(self, why: str) -> None:
        if self.state != "found":
            self.state, self.why = "unavailable", why
            self._draw()

    def set_not_read(self, why: str) -> None:
        if self.state == "waiting":
            self.state, self.why = "not-read", why
            self._draw()

    def gap_text(self) -> Text:
        """What a pane without data says: not read yet, unavailable (why) or not read (why)."""
        if self.state == "waiting":
            return Text(f"{self.noun} not read yet.", style="italic")
        label = f"{self.noun} unavailable: " if self.state == "unavailable" else f"{self.noun} not read: "
        text = Text(label, style="bold")
        text.append(self.why or "", style="not bold")
        return text

    def gap_plain(self) -> str:
        return f"{self.state}: {self.why or ''}"


class Tier2Pane(PaneState):
    """Mixin, before a container widget (`class LogPane(Tier2Pane, Vertical)`): what the four Tier 2 panes share.
    It starts waiting with no data, shows one body line, draws when mounted, and `reset` forgets everything for
    the next diagnosis. A pane names its data in `_clear` and draws it in `_draw`."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)  # type: ignore[call-arg]  # the widget's, next in the pane's MRO
        self.state, self.why = "waiting", None
        self._clear()

    def _clear(self) -> None:  # overridden by each pane: its data, empty
        return

    def compose(self) -> ComposeResult:
        yield Static("", classes="pane--body", markup=False)

    def on_mount(self) -> None:
        self._draw()

    def reset(self) -> None:
        self.state, self.why = "waiting", None
        self._clear()
        self._draw()
