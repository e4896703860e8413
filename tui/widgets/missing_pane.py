"""What the diagnosis could not see, and why: the pane that explains an UNKNOWN.

Each gap names the evidence, why it is missing and the read that failed. When the verdict is UNKNOWN the pane
leads with the reason the engine gave, so "unknown" is never left unexplained.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from core.models.report import MissingItem


class MissingPane(VerticalScroll):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[MissingItem] = []
        self.explanation: str | None = None
        self.notes: list[str] = []
        self._finished = False

    def compose(self) -> ComposeResult:
        yield Static("", classes="missing--body", markup=False)

    def reset(self) -> None:
        self.items, self.explanation, self.notes, self._finished = [], None, [], False
        self._render_items()

    def add(self, item: MissingItem) -> None:
        if any(m.what == item.what and m.why == item.why for m in self.items):
            return
        self.items.append(item)
        self._render_items()

    def finish(self, items: Iterable[MissingItem], explanation: str | None, notes: Iterable[str]) -> None:
        """The report's final list, with the UNKNOWN explanation (or None) and the engine's notes."""
        self.items = list(items)
        self.explanation = explanation
        self.notes = list(notes)
        self._finished = True
        self._render_items()

    def for_source(self, source: str) -> list[MissingItem]:
        return [m for m in self.items if m.source == source]

    @property
    def plain(self) -> str:
        lines = [f"UNKNOWN because: {self.explanation}"] if self.explanation else []
        lines += [f"{m.what}: {m.why}" + (f" ({m.source})" if m.source else "") for m in self.items]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _render_items(self) -> None:
        if not self.is_mounted:
            return
        parts: list[Text | Table] = []
        if self.explanation:
            head = Text("Why the verdict is UNKNOWN: ", style="bold")
            head.append(self.explanation, style="not bold")
            parts.append(head)
        if self.items:
            table = Table.grid(padding=(0, 1), expand=True)
            table.add_column(no_wrap=True)
            table.add_column(ratio=1, overflow="fold")
            for m in self.items:
                line = Text(m.what, style="bold")
                line.append(": ", style="bold")
                line.append(m.why)
                if m.source:
                    line.append(f"  [{m.source}]", style="dim")
                table.add_row(Text("✗"), line)
            parts.append(table)
        elif self._finished:
            parts.append(
                Text("Nothing is missing: every read the diagnosis needed answered.", style="italic")
            )
        else:
            parts.append(Text("Nothing is missing so far.", style="italic"))
        if self.notes:
            parts.append(Text("Notes", style="bold underline"))
            for note in self.notes:
                parts.append(Text(f"• {note}"))
        self.query_one(".missing--body", Static).update(Group(*parts))

    def on_mount(self) -> None:
        self._render_items()
