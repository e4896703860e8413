"""The cited evidence. Once the verdict is in: the infrastructure findings, then the report's short view (the
signal the category rests on first, then what corroborates it, then context; each signal on one line with its
sources; many pods alike on one line), the full list one key away (`x`), then the reason and recommendations in
full: the text report's order. While the diagnosis runs,
and when it ends without a report: each line as it was read, grouped by the read it came from.

Lines are plain text (`Text`), never markup.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from core.models.report import SOURCES, EvidenceItem, Report
from core.report.evidence_view import EvidenceLine, EvidenceView, full_lines, short_view
from core.report.parts import more_line, short_order_lines

# The key that shows every line (and back); the screen binds it.
EVERY_LINE_KEY = "x"
DECISIVE_MARK = "▸"


def _source_rank(source: str) -> int:
    return SOURCES.index(source) if source in SOURCES else len(SOURCES)


class EvidencePane(VerticalScroll):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[EvidenceItem] = []
        self._note = "Waiting for the first reads…"
        self.preface: Text | None = None
        self.findings: Text | None = None
        self.report: Report | None = None
        self.every = False  # the full list rather than the short view

    def compose(self) -> ComposeResult:
        yield Static(Text(self._note), classes="evidence--body", markup=False)

    def reset(self, note: str = "Waiting for the first reads…") -> None:
        self.items = []
        self._note = note
        self.preface = None
        self.findings = None
        self.report = None
        self.every = False
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
        """Replace the lines with ones that are not a report's (a run that ended without one)."""
        self.items = list(items)
        self._note = note
        self.preface = preface
        self.report = None
        self._render_items()

    def set_report(self, report: Report, findings: Text | None = None, preface: Text | None = None) -> None:
        """Show the report's evidence: `findings` above it, its short view (`x` for every line), `preface`
        below it."""
        self.items = list(report.evidence)
        self.report = report
        self.findings = findings
        self.preface = preface
        self.every = False
        self._render_items()

    def toggle_every(self) -> bool:
        """Between the short view and every line; False when there is no report to show either of."""
        if self.report is None:
            return False
        self.every = not self.every
        self._render_items()
        self.scroll_home(animate=False)
        return True

    def view(self) -> EvidenceView | None:
        """What the pane shows of the report's evidence, or None before a report."""
        if self.report is None:
            return None
        return EvidenceView(tuple(full_lines(self.report)), ()) if self.every else short_view(self.report)

    def groups(self) -> list[tuple[str, list[EvidenceItem]]]:
        by_source: dict[str, list[EvidenceItem]] = {}
        for item in self.items:
            by_source.setdefault(item.source, []).append(item)
        return sorted(by_source.items(), key=lambda pair: _source_rank(pair[0]))

    @property
    def plain(self) -> str:
        view = self.view()
        if view is not None:
            return "\n".join(f"{line.text} {line.cite()}" for line in view.shown)
        return "\n".join(f"{source}: {item.text}" for source, items in self.groups() for item in items)

    def _report_parts(self, report: Report, view: EvidenceView) -> list[Table | Text]:
        if not view.shown:
            return [Text("No evidence could be read.", style="italic")]
        first = ", decisive first" if view.shown[0].decisive else ""
        if self.every:
            head = f"Every evidence line{first} ({EVERY_LINE_KEY}: the short list)"
        else:
            head = f"Evidence{first} ({EVERY_LINE_KEY}: every line)"
        parts: list[Table | Text] = [Text(head, style="bold")]
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(no_wrap=True, width=1)
        table.add_column(ratio=1, overflow="fold")
        for line in view.shown:
            table.add_row(Text(DECISIVE_MARK if line.decisive else "", style="bold"), _cited(line))
        parts.append(table)
        if not self.every:
            more = more_line(report, view, short_order_lines(report)[1], f"press {EVERY_LINE_KEY}")
            if more:
                parts.append(Text(more, style="italic"))
        return parts

    def _render_items(self) -> None:
        if not self.is_mounted:
            return
        body = self.query_one(".evidence--body", Static)
        view = self.view()
        if self.report is not None and view is not None:
            parts = [self.findings, Text()] if self.findings is not None else []
            parts += self._report_parts(self.report, view)
            if self.preface is not None:
                parts += [Text(), self.preface]
            body.update(Group(*parts))
            return
        parts = [self.preface, Text()] if self.preface is not None else []
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


def _cited(line: EvidenceLine) -> Text:
    text = Text(line.text)
    text.append(f" {line.cite()}", style="dim")
    return text
