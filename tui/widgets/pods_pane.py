"""A workload of several pods, in the order its pods ended: the first failure (the one the verdict rests on)
on top, marked ◆, then the pods torn down after it, each with its role, node, time and how it ended; and the
failing pod's own memory against its own limit when it was read.

It stays out of sight for a workload of one pod (nothing to order). All cluster text is placed into `Text`
objects, never into markup.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from core.models.quantity import format_bytes
from core.models.report import Memory, PodTerminationEntry

FIRST = "◆"
AFTER = "·"


def _when(at: datetime | None) -> str:
    if at is None:
        return "unknown"
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%m-%d %H:%M:%S")


def common_prefix(names: list[str]) -> str:
    """The part every pod name shares, up to a `-` (the workload's name, usually): shown once, not per row."""
    if len(names) < 2:
        return ""
    first, last = min(names), max(names)  # the shared start of the extremes is everyone's
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), min(len(first), len(last)))
    shared = first[:size]
    cut = shared.rfind("-")
    return shared[: cut + 1] if cut > 0 else ""


def memory_line(memory: Memory | None) -> Text | None:
    """`pod X: peak 63.9 GiB of its 64 GiB limit (99.8%), measured` or why there is no peak."""
    if memory is None or memory.pod is None:
        return None
    line = Text("Memory of ", style="bold")
    line.append(memory.pod, style="bold")
    limit = format_bytes(memory.limit_bytes) if memory.limit_bytes is not None else "no readable limit"
    if memory.peak_bytes is None:
        line.append(f": no peak measured in its own series; limit {limit}", style="not bold")
        return line
    line.append(f": peak {format_bytes(memory.peak_bytes)} of its {limit} limit", style="not bold")
    if memory.limit_bytes:
        line.append(f" ({memory.peak_bytes / memory.limit_bytes:.1%})", style="not bold")
    line.append(" · the Memory tab draws it", style="not bold")
    return line


class PodsPane(VerticalScroll):
    """The termination order of a workload's pods (report key `terminationOrder`), above the pod's containers."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: tuple[PodTerminationEntry, ...] = ()
        self.memory: Memory | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="pane--body", markup=False)

    def on_mount(self) -> None:
        self._draw()

    def reset(self) -> None:
        self.entries, self.memory = (), None
        self._draw()

    def show(
        self, entries: tuple[PodTerminationEntry, ...] | list[PodTerminationEntry], memory: Memory | None = None
    ) -> None:
        self.entries = tuple(entries)
        if memory is not None:
            self.memory = memory
        self._draw()

    @property
    def plain(self) -> str:
        lines = [
            f"{FIRST if e.first else AFTER} {e.pod} {e.role or '-'} {e.node or '-'} {_when(e.at)} {e.how}"
            for e in self.entries
        ]
        mem = memory_line(self.memory)
        return "\n".join(lines + ([mem.plain] if mem is not None else []))

    def _draw(self) -> None:
        # Only a workload whose pods ended one after another has an order to show.
        self.display = len(self.entries) > 1
        if not self.is_mounted or not self.display:
            return
        body = self.query_one(".pane--body", Static)
        prefix = common_prefix([e.pod for e in self.entries])
        head = Text(f"Pods{f' {prefix}…' if prefix else ''}, in the order they ended ({len(self.entries)}): ", "bold")
        head.append(f"{FIRST} the first failure, which the verdict rests on; the others ended after it", "not bold")
        table = Table(expand=True, box=None, padding=(0, 1), show_edge=False, header_style="bold")
        table.add_column("", no_wrap=True, width=1)
        table.add_column("pod", ratio=2, overflow="fold")
        table.add_column("role", no_wrap=True, max_width=10, overflow="ellipsis")
        table.add_column("node", max_width=20, overflow="fold")
        table.add_column("ended (UTC)", no_wrap=True)
        table.add_column("how it ended", ratio=3, overflow="fold")
        for entry in self.entries:
            style = "bold" if entry.first else ""
            table.add_row(
                Text(FIRST if entry.first else AFTER, style=style),
                Text(entry.pod[len(prefix) :] if prefix else entry.pod, style=style),
                Text(entry.role or "—"),
                Text(entry.node or "—"),
                Text(_when(entry.at)),
                Text(entry.how, style=style),
            )
        parts: list[Text | Table] = [head, table]
        mem = memory_line(self.memory)
        if mem is not None:
            parts.append(mem)
        body.update(Group(*parts))
