"""The needs-attention switch of the filter bar: says its state in words and a mark, not only in colour, so
"on" and "off" never look alike (a checkbox's tick can be the same glyph in both states in some themes)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

ON_LABEL = "● needs attention"
OFF_LABEL = "○ all phases"


class AttentionToggle(Static, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle", "toggle needs attention", show=False),
    ]

    value: reactive[bool] = reactive(False)

    class Changed(Message):
        def __init__(self, toggle: AttentionToggle, value: bool) -> None:
            super().__init__()
            self.toggle = toggle
            self.value = value

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(OFF_LABEL, id=id, markup=False)

    def render(self) -> Text:
        return Text(ON_LABEL if self.value else OFF_LABEL, style="bold" if self.value else "")

    def watch_value(self, value: bool) -> None:
        self.set_class(value, "-on")
        self.refresh(layout=True)  # the two labels differ in width

    def action_toggle(self) -> None:
        self.value = not self.value
        self.post_message(self.Changed(self, self.value))

    def on_click(self, event: Click) -> None:
        event.stop()
        self.action_toggle()
