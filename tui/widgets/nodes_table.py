"""The Nodes view's table: one row per node, the columns of `runai-triage nodes` (the mark of a shared cause,
node, state, pool, GPUs, workloads, failed, rate, verdicts), ranked as the command ranks them.

Columns follow the width: each gets what its longest cell needs; on a narrow terminal the verdicts are counted
in short words (`7 CRASH · 1 OOM`) and, if still too wide, the pool and then the GPUs go (`v` and the line
under the table still say them). Cells are `Text` built from cleaned strings: nothing from the cluster is read
as markup. Rows are keyed by position; `show_rows` keeps the cursor on the same node across a read.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from core.safety.untrusted import clean
from core.triage.nodes_render import MARK, gpus_text, rate_text, verdicts_text
from core.triage.nodes_rows import NodeRow

LABELS = {
    "mark": "",
    "node": "Node",
    "state": "State",
    "pool": "Pool",
    "gpus": "GPUs",
    "workloads": "Workloads",
    "failed": "Failed",
    "rate": "Rate",
    "verdicts": "Verdicts",
}
# What goes first when the terminal is too narrow for every column.
DROPPED_FIRST = ("pool", "gpus")
NUMERIC = frozenset({"gpus", "workloads", "failed", "rate"})
PAD = 2  # a DataTable cell's padding, both sides together
SCROLLBAR = 2


def _one(value: object, max_len: int = 80) -> str:
    return clean(value, one_line=True, max_len=max_len)


def cells(row: NodeRow, *, short: bool) -> dict[str, str]:
    return {
        "mark": MARK if row.cause is not None else "",
        "node": _one(row.name, 120),
        "state": row.state.words(),
        "pool": _one(row.state.pool or "—", 40),
        "gpus": gpus_text(row),
        "workloads": str(row.workloads),
        "failed": str(row.failed),
        "rate": rate_text(row),
        "verdicts": verdicts_text(row, short=short),
    }


def layout(width: int, rows: Sequence[NodeRow]) -> tuple[list[tuple[str, int]], bool]:
    """The columns for `width` (key, width), and whether the verdicts are counted in short words: every column
    with full words; else short words; else without the pool; else without the GPUs too (the verdicts then get
    what is left, and a cell past it is cut)."""
    for short in (False, True):
        for drop in range(len(DROPPED_FIRST) + 1 if short else 1):
            keys = [k for k in LABELS if k not in DROPPED_FIRST[:drop]]
            said = [cells(r, short=short) for r in rows]
            natural = {k: max([len(LABELS[k])] + [len(c[k]) for c in said]) for k in keys}
            needed = sum(natural.values()) + PAD * len(keys)
            if needed <= width or (short and drop == len(DROPPED_FIRST)):
                left = width - (needed - natural["verdicts"])
                natural["verdicts"] = max(len(LABELS["verdicts"]), min(natural["verdicts"], left))
                return [(k, natural[k]) for k in keys], short
    raise AssertionError("unreachable: the narrowest layout is always returned")


class NodesTable(DataTable[Text]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.workloads", "workloads"),
        Binding("j", "cursor_down", "row down", show=False),
        Binding("k", "cursor_up", "row up", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, cursor_foreground_priority="css")
        self._rows: list[NodeRow] = []
        self._rendered_width: int | None = None

    @property
    def rows_shown(self) -> list[NodeRow]:
        return list(self._rows)

    @property
    def highlighted(self) -> NodeRow | None:
        if not self._rows or not 0 <= self.cursor_row < len(self._rows):
            return None
        return self._rows[self.cursor_row]

    def on_resize(self) -> None:
        if self._rendered_width != self.size.width and self._rows:
            self._render_rows()

    def show_rows(self, rows: Sequence[NodeRow], end: datetime | None = None) -> None:
        """Replace the rows; the cursor stays on the node it was on when that node is still listed."""
        chosen = self.highlighted.name if self.highlighted is not None else None
        self._rows = list(rows)
        self._render_rows(chosen)

    def _render_rows(self, chosen: str | None = None) -> None:
        if chosen is None and self.highlighted is not None:
            chosen = self.highlighted.name
        width = self.size.width or (self.parent.content_region.width if self.parent is not None else 80)  # type: ignore[attr-defined]
        self._rendered_width = self.size.width
        # The vertical scrollbar takes two columns when the rows do not fit; room is kept for it either way.
        columns, short = layout(width - SCROLLBAR, self._rows)
        self.clear(columns=True)
        for key, w in columns:
            label = Text(LABELS[key], justify="right" if key in NUMERIC else "left")
            self.add_column(label, key=key, width=w)
        for index, row in enumerate(self._rows):
            said = cells(row, short=short)
            texts = []
            for key, _ in columns:
                style = "bold" if key in ("mark", "failed") and row.cause is not None else ""
                texts.append(Text(said[key], style=style, justify="right" if key in NUMERIC else "left"))
            self.add_row(*texts, key=str(index))
        names = [r.name for r in self._rows]
        if chosen in names:
            self.move_cursor(row=names.index(chosen), animate=False)
