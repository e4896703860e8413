"""Tier 2: the pod's containers as `kubectl describe pod` shows them: state, last state, exit code with its
meaning, restarts. Says "unavailable: why" when the pod could not be read, "not read: why" when it was not
needed, so an empty pane is never mistaken for a healthy pod."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from core.diagnosis.progress import ContainersFound
from tui.widgets.pane_state import Tier2Pane


def _opt(value: object | None, missing: str = "—") -> str:
    return missing if value is None else str(value)


class ContainersPane(Tier2Pane, VerticalScroll):
    noun = "Pod"

    found: list[ContainersFound]

    def _clear(self) -> None:
        self.found = []

    def show(self, found: ContainersFound) -> None:
        # One entry per pod: a later read of the same pod replaces the earlier one.
        self.found = [f for f in self.found if f.pod != found.pod] + [found]
        self.state = "found"
        self._draw()

    @property
    def plain(self) -> str:
        if self.state != "found":
            return self.gap_plain()
        lines = []
        for f in self.found:
            lines.append(f"pod {f.pod} {f.status} node {f.node or '?'}")
            lines += [
                f"{r.name} {r.state} last={r.last_state} exit={r.exit_code} {r.exit_meaning} "
                f"restarts={r.restarts}"
                for r in f.rows
            ]
        return "\n".join(lines)

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        body = self.query_one(".pane--body", Static)
        if self.state != "found":
            body.update(self.gap_text())
            return
        parts: list[Text | Table] = []
        for f in self.found:
            head = Text(f"Pod {f.pod}", style="bold")
            head.append(f" · STATUS {f.status}")
            head.append(f" · node {f.node}" if f.node else " · node not assigned")
            parts.append(head)
            table = Table(expand=True, box=None, padding=(0, 1), show_edge=False, header_style="bold")
            table.add_column("container", no_wrap=True)
            table.add_column("state", ratio=2, overflow="fold")
            table.add_column("last state", ratio=2, overflow="fold")
            table.add_column("exit", no_wrap=True, justify="right")
            table.add_column("meaning", ratio=3, overflow="fold")
            table.add_column("restarts", no_wrap=True, justify="right")
            for r in f.rows:
                table.add_row(
                    Text(f"{r.name} (init)" if r.init else r.name),
                    Text(r.state),
                    Text(_opt(r.last_state)),
                    Text(_opt(r.exit_code)),
                    Text(_opt(r.exit_meaning)),
                    Text(_opt(r.restarts, "unknown")),
                )
            if not f.rows:
                parts.append(Text("The pod reports no container statuses.", style="italic"))
            else:
                parts.append(table)
        body.update(Group(*parts))
