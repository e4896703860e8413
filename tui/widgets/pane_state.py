"""The states a Tier 2 pane goes through, shared by the containers, events, log and node panes.

waiting -> found, or -> unavailable (the read failed: why) or -> not-read (the seed did not call for it: why).
A pane that has data never goes back to a gap, and a gap never hides data that arrives later.
"""

from __future__ import annotations

from rich.text import Text


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
