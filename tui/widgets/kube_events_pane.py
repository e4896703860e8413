"""Tier 2: the Kubernetes events of the pod (and of its node when they explain the failure), laid out the way
`kubectl get events` reads, oldest first. States say "unavailable: why" or "not read: why" in words."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from core.diagnosis.progress import KubeEventRow
from tui.widgets.pane_state import PaneState

_EARLIEST = datetime.min.replace(tzinfo=UTC)


def _seen(at: datetime | None) -> str:
    if at is None:
        return "unknown"
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%m-%d %H:%M:%S")


def _order(row: KubeEventRow) -> tuple[datetime, str, str, str]:
    at = row.last_seen if row.last_seen is None or row.last_seen.tzinfo else row.last_seen.replace(tzinfo=UTC)
    return (at or _EARLIEST, row.involved, row.reason or "", row.message)


class KubeEventsPane(PaneState, VerticalScroll):
    noun = "Events"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = "waiting"
        self.rows: list[KubeEventRow] = []
        self.why: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="pane--body", markup=False)

    def on_mount(self) -> None:
        self._draw()

    def reset(self) -> None:
        self.state, self.rows, self.why = "waiting", [], None
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
        else:
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
            body.update(table)
