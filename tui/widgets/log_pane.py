"""Tier 2: the excerpt of the container log the diagnosis read (the previous instance when the kubelet kept
one), with the line that explains the failure marked ▶ and the cursor placed on it.

A DataTable keeps the up to 500 lines virtualised and focusable (`l` jumps here); every line is a Text, so
markup-looking log output stays literal.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from core.diagnosis.progress import LogFound
from tui.widgets.pane_state import Tier2Pane

MARK = "▶"


class LogPane(Tier2Pane, Vertical):
    noun = "Log"

    excerpt: LogFound | None

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._head = Text("Log not read yet.", style="italic")

    def _clear(self) -> None:
        self.excerpt = None

    def compose(self) -> ComposeResult:
        yield Static(self._head, classes="log--head", markup=False)
        yield DataTable(classes="log--lines", cursor_type="row", show_header=False, zebra_stripes=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("mark", key="mark")
        table.add_column("no", key="no")
        table.add_column("line", key="line")
        self._draw()

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one(DataTable)

    def show(self, log: LogFound) -> None:
        self.excerpt = log
        self.state = "found"
        self._draw()

    @property
    def explaining(self) -> str | None:
        log = self.excerpt
        if log is None or log.explaining_line is None or not 0 <= log.explaining_line < len(log.lines):
            return None
        return log.lines[log.explaining_line]

    @property
    def plain(self) -> str:
        return self._head.plain

    def _header(self) -> Text:
        log = self.excerpt
        if self.state != "found" or log is None:
            return self.gap_text() if self.state != "found" else Text("Log not read yet.", style="italic")
        which = "previous instance" if log.previous else f"current instance ({log.note or 'no previous one'})"
        where = f" in pod {log.pod}" if log.pod else ""
        head = Text(f"Log of container {log.container}{where}", style="bold")
        head.append(f" · {which} · {len(log.lines)} line{'s' if len(log.lines) != 1 else ''}")
        if log.truncated:
            head.append(" · cut to the last lines")
        if not log.lines:
            head.append("\nThe log is empty.", style="italic")
        elif log.explaining_line is not None:
            head.append(f"\n{MARK} marks line {log.explaining_line + 1}, the one that explains the failure")
        else:
            head.append("\nNo line in it explains the failure.", style="italic")
        return head

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        self._head = self._header()
        self.query_one(".log--head", Static).update(self._head)
        table = self.table
        table.clear()
        log = self.excerpt
        table.display = self.state == "found" and log is not None and bool(log.lines)
        if not table.display or log is None:
            return
        width = len(str(len(log.lines)))
        rows = []
        for index, line in enumerate(log.lines):
            marked = index == log.explaining_line
            style = "bold reverse" if marked else ""
            rows.append(
                [
                    Text(MARK if marked else " ", style="bold"),
                    Text(str(index + 1).rjust(width), style="dim"),
                    Text(line, style=style),
                ]
            )
        table.add_rows(rows)
        if log.explaining_line is not None and 0 <= log.explaining_line < len(log.lines):
            table.move_cursor(row=log.explaining_line, animate=False)
