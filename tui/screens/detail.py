"""A full-text view over any screen: the whole of a value a table cell or a one-line summary had to cut (a
workload's phase message, a history line, a log line, the verdict's reason). Opened with `v` or `enter`;
`esc`, `v` or `q` closes it. The body is a Text built by the caller from sanitised strings, never markup."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class DetailScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,v,q,enter", "dismiss", "close", show=False),
    ]

    def __init__(self, title: str, body: Text) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail-body"):
            yield Static(Text(self.title_text, style="bold"), id="detail-title")
            yield Static(self.body, id="detail-text")
            yield Static(Text("esc, v or q closes this view"), id="detail-close")

