"""A workload of several pods, in the order its pods ended: the first failure (the one the verdict rests on)
on top, marked ◆, then the pods torn down after it, each with its role, node, time and how it ended; and the
failing pod's own memory against its own limit when it was read.

It stays out of sight for a workload of one pod (nothing to order). Its title and column heads stay in place
while its rows scroll under them (a job of 16 pods does not fit 80x24); the columns get fixed widths, so heads
and rows line up. All cluster text is placed into `Text` objects, never into markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Static

from core.models.quantity import format_bytes
from core.models.report import Memory, PodTerminationEntry

FIRST = "◆"
AFTER = "·"
ENDED_W = len("11-30 11:58:30")
# The rows may take this share of the screen's height; the containers below keep the rest.
ROWS_SHARE = 0.6


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


def column_widths(entries: tuple[PodTerminationEntry, ...], prefix: str, width: int) -> list[int]:
    """Widths of mark, pod, role, node, ended and how, filling `width` with one space between columns."""
    role = min(10, max([len("role"), *(len(e.role or "—") for e in entries)]))
    node = min(20, max([len("node"), *(len(e.node or "—") for e in entries)]))
    pod_need = max([len("pod"), *(len(e.pod) - len(prefix) for e in entries)])
    rest = max(10, width - (1 + role + node + ENDED_W) - 5)
    pod = max(3, min(pod_need, rest * 2 // 5))
    return [1, pod, role, node, ENDED_W, max(5, rest - pod)]


def _table(widths: list[int], header: bool) -> Table:
    """The heads and the rows are two tables built alike, so their columns line up."""
    table = Table(box=None, padding=(0, 1, 0, 0), pad_edge=False, show_edge=False, show_header=header,
                  header_style="bold")
    names = ["", "pod", "role", "node", "ended (UTC)", "how it ended"]
    for name, w in zip(names, widths, strict=True):
        folds = name in ("pod", "node", "how it ended")
        table.add_column(name, width=w, no_wrap=not folds, overflow="fold" if folds else "ellipsis")
    return table


class PodsPane(Vertical):
    """The termination order of a workload's pods (report key `terminationOrder`), above the pod's containers."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: tuple[PodTerminationEntry, ...] = ()
        self.memory: Memory | None = None

    def compose(self) -> ComposeResult:
        yield Static("", classes="pods--head", markup=False)
        yield Static("", classes="pods--columns", markup=False)
        with VerticalScroll(classes="pods--rows"):
            yield Static("", classes="pane--body", markup=False)
        yield Static("", classes="pods--memory", markup=False)

    def on_mount(self) -> None:
        self._draw()

    def on_resize(self, _event: Resize) -> None:
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

    @property
    def rows_area(self) -> VerticalScroll:
        return self.query_one(".pods--rows", VerticalScroll)

    def _draw(self) -> None:
        # Only a workload whose pods ended one after another has an order to show.
        self.display = len(self.entries) > 1
        if not self.is_mounted or not self.display:
            return
        prefix = common_prefix([e.pod for e in self.entries])
        head = Text(f"Pods{f' {prefix}…' if prefix else ''}, in the order they ended ({len(self.entries)}): ", "bold")
        head.append(f"{FIRST} the first failure, which the verdict rests on; {_others(self.entries)}", "not bold")
        self.query_one(".pods--head", Static).update(head)
        width = max(self.content_region.width - 2, 30)  # the rows' scrollbar
        widths = column_widths(self.entries, prefix, width)
        columns = _table(widths, header=True)
        self.query_one(".pods--columns", Static).update(columns)
        rows = _table(widths, header=False)
        for entry in self.entries:
            style = "bold" if entry.first else ""
            rows.add_row(
                Text(FIRST if entry.first else AFTER, style=style),
                Text(entry.pod[len(prefix) :] if prefix else entry.pod, style=style),
                Text(entry.role or "—"),
                Text(entry.node or "—"),
                Text(_when(entry.at)),
                Text(entry.how, style=style),
            )
        self.query_one(".pane--body", Static).update(rows)
        mem = memory_line(self.memory)
        # The rows scroll under fixed heads: the pane takes at most its share of the tab (the containers below
        # keep the rest), less the title, the column heads, the memory line and the rule under them.
        tab = self.parent.content_region.height if isinstance(self.parent, Widget) else 0
        lines = -(-len(head.plain) // width) + 1 + (-(-len(mem.plain) // width) if mem is not None else 0) + 1
        self.rows_area.styles.max_height = max(3, int((tab or 24) * ROWS_SHARE) - lines)
        memory = self.query_one(".pods--memory", Static)
        memory.update(mem if mem is not None else Text())
        memory.display = mem is not None


def _others(entries: Sequence[PodTerminationEntry]) -> str:
    """What the rows after the first are: all ended after it, or some were recorded a few seconds before it (a
    consequence's own clock can run ahead of the cause's, e.g. a node lost before its pod is marked)."""
    first = next((e for e in entries if e.first), None)
    early = [
        e for e in entries if not e.first and first is not None and e.at and first.at and e.at < first.at
    ]
    if not early:
        return "the others ended after it"
    return f"the others are its consequences ({len(early)} recorded before it)"
