"""One line under the table with the highlighted workload's phase message, the first clue to a failure."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from core.models.runai import Workload
from core.safety.untrusted import clean


class RowDetail(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.plain = ""

    def show_workload(self, workload: Workload | None) -> None:
        if workload is None:
            text = Text("")
        elif workload.phase_message:
            # The message is cluster text: sanitised, one line, and never parsed as markup.
            text = Text.assemble(
                ("message: ", "bold"), clean(workload.phase_message, one_line=True, max_len=400)
            )
        else:
            text = Text("message: (none)", style="dim")
        self.plain = text.plain
        self.update(text)
