"""The one-line bar at the top of every screen: the app name, what it is connected to, the READ-ONLY badge."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from core.safety.untrusted import clean
from tui.widgets.readonly_badge import ReadOnlyBadge


class TopBar(Horizontal):
    def __init__(self, context: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._context_label = context

    def compose(self) -> ComposeResult:
        yield Static("runai-triage", classes="top-bar--title", markup=False)
        yield Static(self._label_text(), classes="top-bar--context")
        yield ReadOnlyBadge()

    def _label_text(self) -> Text:
        # The tenant label can be a user-supplied URL; it is shown as plain text, never parsed as markup.
        return Text(clean(self._context_label, one_line=True, max_len=120))

    def set_context(self, context: str) -> None:
        self._context_label = context
        if self.is_mounted:
            self.query_one(".top-bar--context", Static).update(self._label_text())
