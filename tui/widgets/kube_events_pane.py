"""Tier 2: the Kubernetes events of the pod (and of its node when they explain the failure), laid out the way
`kubectl get events` reads, oldest first. Where the message column would be too narrow to read (80 columns),
each event is its head line (when, type, reason, object, count) with its message whole on the lines below.
States say "unavailable: why" or "not read: why" in words."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.events import Resize
from textual.widgets import Static

from core.diagnosis.progress import KubeEventRow
from tui.widgets.pane_state import Tier2Pane

_EARLIEST = datetime.min.replace(tzinfo=UTC)
# Below this many columns for the message, the events are stacked: head line, then the message below it.
MESSAGE_MIN = 48
INDENT = 4


def _seen(at: datetime | None) -> str:
    if at is None:
        return "unknown"
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%m-%d %H:%M:%S")


def _order(row: KubeEventRow) -> tuple[datetime, str, str, str]:
    at = row.last_seen if row.last_seen is None or row.last_seen.tzinfo else row.last_seen.replace(tzinfo=UTC)
    return (at or _EARLIEST, row.involved, row.reason or "", row.message)


class KubeEventsPane(Tier2Pane, VerticalScroll):
    noun = "Events"

    rows: list[KubeEventRow]

    def _clear(self) -> None:
        self.rows = []

    def on_resize(self, _event: Resize) -> None:
        self._draw()

    def show(self, rows: tuple[KubeEventRow, ...]) -> None:
        # Each event message carries every event read so far, so it replaces what is shown.
        self.rows = sorted(rows, key=_order)
        self.state = "found"
        self._draw()

    @property
    def plain(self) -> str:
        if self.state != "found":
            return self.gap_plain()
        return "\n".join(f"{r.type} {r.reason} {r.involved} x{r.count}: {r.message}" for r in self.rows)

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        body = self.query_one(".pane--body", Static)
        if self.state != "found":
            body.update(self.gap_text())
        elif not self.rows:
            body.update(
                Text("No Kubernetes events were found for the pod around the failure.", style="italic")
            )
        elif self._message_width() < MESSAGE_MIN:
            body.update(self._stacked())
        else:
            body.update(self._table())

    def _message_width(self) -> int:
        """The message column's width in the table layout: what the other columns leave of the pane."""
        reason = min(24, max((len(r.reason or "?") for r in self.rows), default=6))
        involved = min(30, max((len(r.involved) for r in self.rows), default=6))
        return self.content_region.width - 2 - (14 + 7 + reason + involved + 5) - 6

    def _stacked(self) -> Group:
        parts: list[Text | Padding] = []
        for r in self.rows:
            warn = (r.type or "") == "Warning"
            head = Text(_seen(r.last_seen), style="dim")
            head.append("  ")
            head.append(r.type or "?", style="bold" if warn else "")
            head.append(f"  {r.reason or '?'}", style="bold")
            head.append(f"  {r.involved}")
            if r.count is not None:
                head.append(f"  ×{r.count}", style="dim")
            parts += [head, Padding(Text(r.message), (0, 0, 0, INDENT))]
        return Group(*parts)

    def _table(self) -> Table:
        table = Table(expand=True, box=None, padding=(0, 1), show_edge=False, header_style="bold")
        table.add_column("last seen", no_wrap=True)
        table.add_column("type", no_wrap=True)
        table.add_column("reason", no_wrap=True, max_width=24, overflow="ellipsis")
        table.add_column("object", max_width=30, overflow="fold")
        table.add_column("count", justify="right", no_wrap=True)
        table.add_column("message", ratio=1, overflow="fold")
        for r in self.rows:
            warn = (r.type or "") == "Warning"
            table.add_row(
                Text(_seen(r.last_seen)),
                Text(r.type or "?", style="bold" if warn else ""),
                Text(r.reason or "?"),
                Text(r.involved),
                Text("" if r.count is None else str(r.count)),
                Text(r.message),
            )
        return table
