"""One line under the table with the highlighted workload's phase message, the first clue to a failure (and, in
the needs-attention view, why the row is listed; once the row is diagnosed, the line that says why, as `scan`
and the report lead with it). A message longer than the line ends in `… v`: `v` shows the whole row, message
included."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from core.models.runai import Workload
from core.safety.untrusted import clean

MORE = " … v"


class RowDetail(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.plain = ""
        self._full = Text("")

    def show_workload(self, workload: Workload | None, why: str | None = None, verdict: str | None = None) -> None:
        """`why` the row needs attention; `verdict` the line that says why it failed, once it is diagnosed."""
        if workload is None:
            text = Text("")
        else:
            text = Text()
            if verdict:
                text.append("why: ", style="bold")
                text.append(clean(verdict, one_line=True, max_len=2000) + " · ")
            if why:
                text.append("attention: ", style="bold")
                text.append(clean(why, one_line=True, max_len=200) + " · ")
            if workload.phase_message:
                # The message is cluster text: sanitised, one line, and never parsed as markup.
                text.append("message: ", style="bold")
                text.append(clean(workload.phase_message, one_line=True, max_len=2000))
            else:
                text.append("message: (none)", style="dim")
        self._full = text
        self._paint()

    @property
    def whole(self) -> str:
        """The line before it is cut to the width (what `v` shows in full)."""
        return self._full.plain

    def on_resize(self) -> None:
        self._paint()

    def _paint(self) -> None:
        width = self.content_region.width
        text = self._full
        if width and len(text.plain) > width:
            text = text[: max(width - len(MORE), 1)]
            text.append(MORE, style="bold")
        self.plain = text.plain
        self.update(text)
