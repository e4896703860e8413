"""A panel in place of the table that says what is happening: loading, nothing matched, or a read failed."""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual.widgets import Static

NoticeKind = Literal["loading", "empty", "error"]


class Notice(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.kind: NoticeKind | None = None
        self.plain = ""

    def show(self, kind: NoticeKind, title: str, *lines: str) -> None:
        """Title on its own line, then the detail lines; all plain text (it may quote the cluster)."""
        self.kind = kind
        for name in ("loading", "empty", "error"):
            self.set_class(name == kind, f"-{name}")
        text = Text(title, style="bold")
        body = [line for line in lines if line]
        if body:
            text.append("\n\n" + "\n".join(body), style="not bold")
        self.plain = text.plain
        self.update(text)
