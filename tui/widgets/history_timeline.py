"""The lookback's timeline: phase changes and events, failures marked, each line tagged with the occurrence
(one distinct failure) it belongs to.

A DataTable renders only the rows in view, so a history of many thousands of records stays responsive; rows
are added in one batch, never one widget per record. Times are absolute UTC so the table reads the same
whenever it is opened.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from core.models.report import HistoryEntry
from tui.words import field_lines

COLUMNS = ("", "when (UTC)", "kind", "occurrence", "what")


def when(at: datetime | None) -> str:
    if at is None:
        return "unknown time"
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def occurrence_label(index: int | None) -> str:
    # The engine numbers occurrences from 0; people count from 1.
    return f"#{index + 1}" if index is not None else ""


def history_detail(entry: HistoryEntry) -> Text:
    """One timeline line whole, for the full-text view (the table's "what" column is cut at the screen edge)."""
    fields = [
        ("When (UTC)", when(entry.at)),
        ("Kind", "phase change" if entry.kind == "phase" else "event"),
        ("Failure", "yes (✗)" if entry.failure else "no"),
        ("Occurrence", occurrence_label(entry.occurrence) or "—"),
        ("What", entry.text),
    ]
    return field_lines(fields)


class HistoryTimeline(Vertical):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: tuple[HistoryEntry, ...] = ()
        self.records = 0
        self.pages = 0
        self._summary = Text("History not read yet.", style="italic")

    def compose(self) -> ComposeResult:
        yield Static(self._summary, classes="history--summary", markup=False)
        table: DataTable[Text] = DataTable(
            classes="history--table", cursor_type="row", zebra_stripes=False, show_cursor=True
        )
        yield table

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label in COLUMNS:
            table.add_column(label, key=label or "mark")
        if self.entries:
            table.add_rows(self._row(entry) for entry in self.entries)
        table.display = bool(self.entries)
        self.query_one(".history--summary", Static).update(self._summary)

    def reset(self, note: str = "History not read yet.") -> None:
        self.entries, self.records, self.pages = (), 0, 0
        self._set_summary(Text(note, style="italic"))
        if self.is_mounted:
            table = self.query_one(DataTable)
            table.clear()
            table.display = False  # the summary says why there are no lines; an empty header says nothing

    def set_unavailable(self, why: str) -> None:
        self.reset(f"History unavailable: {why}")

    def show(
        self, entries: Sequence[HistoryEntry], records: int, pages: int, lookback: str | None = None
    ) -> None:
        self.entries = tuple(entries)
        self.records, self.pages = records, pages
        occurrences = sorted({e.occurrence for e in self.entries if e.occurrence is not None})
        failures = sum(1 for e in self.entries if e.failure)
        summary = Text(
            f"{len(self.entries):,} lines from {records:,} record{'s' if records != 1 else ''} "
            f"in {pages} page{'s' if pages != 1 else ''}"
        )
        if lookback:
            summary.append(f" · lookback {lookback}")
        summary.append(f" · {failures} failure line{'s' if failures != 1 else ''} (✗)")
        if occurrences:
            summary.append(f" in {len(occurrences)} occurrence{'s' if len(occurrences) != 1 else ''}: ")
            summary.append(", ".join(self._occurrence_summary(i) for i in occurrences))
        if self.entries:
            summary.append("\nenter or v on a line shows it whole", style="dim")
        self._set_summary(summary)
        if not self.is_mounted:
            return
        table = self.query_one(DataTable)
        table.clear()
        rows = [self._row(entry) for entry in self.entries]
        table.add_rows(rows)
        table.display = bool(rows)
        if not self.entries:
            self._set_summary(Text("No history records inside the lookback.", style="italic"))

    def _occurrence_summary(self, index: int) -> str:
        mine = [e for e in self.entries if e.occurrence == index]
        ends = [e.at for e in mine if e.failure and e.at is not None]
        at = when(max(ends)) if ends else "time unknown"
        return f"{occurrence_label(index)} {at}"

    @staticmethod
    def _row(entry: HistoryEntry) -> list[Text]:
        style = "bold" if entry.failure else ""
        return [
            Text("✗" if entry.failure else " ", style=style),
            Text(when(entry.at)),
            Text(entry.kind),
            Text(occurrence_label(entry.occurrence)),
            Text(entry.text, style=style),
        ]

    def _set_summary(self, text: Text) -> None:
        self._summary = text
        if self.is_mounted:
            self.query_one(".history--summary", Static).update(text)

    @property
    def row_count(self) -> int:
        return self.query_one(DataTable).row_count if self.is_mounted else 0

    @property
    def plain(self) -> str:
        return self._summary.plain
