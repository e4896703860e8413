"""The cited evidence, grouped by the read it came from, every line carrying its source name.

Groups follow the report vocabulary's order (Run:ai reads first, then the Kubernetes ones); inside a group the
lines keep the order they were given (the report puts the deciding signals first). Lines are plain text.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from core.models.report import SOURCES, EvidenceItem


def _source_rank(source: str) -> int:
    return SOURCES.index(source) if source in SOURCES else len(SOURCES)


class EvidencePane(VerticalScroll):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[EvidenceItem] = []
        self._note = "Waiting for the first reads…"
        self.preface: Text | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(self._note), classes="evidence--body", markup=False)

    def reset(self, note: str = "Waiting for the first reads…") -> None:
        self.items = []
        self._note = note
        self.preface = None
        self._render_items()

    def add(self, item: EvidenceItem) -> None:
        if any(e.text == item.text and e.source == item.source for e in self.items):
            return
        self.items.append(item)
        self._render_items()

    def set_items(
        self,
        items: Iterable[EvidenceItem],
        note: str = "No evidence could be read.",
        preface: Text | None = None,
    ) -> None:
        """Replace the lines (the report's final list); `preface` is shown above the groups."""
        self.items = list(items)
        self._note = note
        self.preface = preface
        self._render_items()

    def groups(self) -> list[tuple[str, list[EvidenceItem]]]:
        by_source: dict[str, list[EvidenceItem]] = {}
        for item in self.items:
            by_source.setdefault(item.source, []).append(item)
        return sorted(by_source.items(), key=lambda pair: _source_rank(pair[0]))

    @property
    def plain(self) -> str:
        return "\n".join(f"{source}: {item.text}" for source, items in self.groups() for item in items)

    def _render_items(self) -> None:
        if not self.is_mounted:
            return
        body = self.query_one(".evidence--body", Static)
        parts: list[Table | Text] = [self.preface, Text()] if self.preface is not None else []
        if not self.items:
            body.update(Group(*parts, Text(self._note, style="italic")))
            return
        for source, items in self.groups():
            parts.append(Text(f"{source} ({len(items)})", style="bold underline"))
            table = Table.grid(padding=(0, 1), expand=True)
            table.add_column(no_wrap=True, style="dim", max_width=24, overflow="ellipsis")
            table.add_column(ratio=1, overflow="fold")
            for item in items:
                table.add_row(Text(source), Text(item.text))
            parts.append(table)
        body.update(Group(*parts))

    def on_mount(self) -> None:
        self._render_items()
