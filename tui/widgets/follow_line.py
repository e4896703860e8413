"""The line above the verdict banner while a diagnosis is followed (`f`): what changed at the last re-diagnosis
("restart 74 at 12:41:07; verdict unchanged"), how often it is read, and when it was read last. Plain `Text`:
it can quote a phase or an event reason from the cluster, cleaned where they were read."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Static


class FollowLine(Static):
    DEFAULT_CSS: ClassVar[str] = """
    FollowLine {
        height: 1;
        padding: 0 1;
        background: $boost;
        border-left: thick $accent;
        color: $foreground;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.plain = ""

    def show(self, head: str, news: str | None = None) -> None:
        """The news first (what changed, and the verdict), so a narrow terminal still shows it; then the state."""
        text = Text("↻ ", style="bold")
        if news:
            text.append(news, style="bold")
            text.append(" · ")
        text.append(head)
        self.plain = text.plain
        self.update(Text.assemble(text, no_wrap=True, overflow="ellipsis"))
