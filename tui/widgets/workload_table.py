"""The picker's table: one page of workloads, phase in colour and words, ages from a clock.

Rows are keyed by position in the page (a hostile or buggy server can repeat an id, and a duplicate key would
break the table), and `workloads` holds the page in the same order. Every cell is a `Text` built from
sanitised strings, so cluster data can never be read as markup.

Columns follow the width and the page (tui.widgets.table_layout): each gets what its longest cell needs, names
stay whole, and on a wide terminal the type and submitter get columns and the rest goes to the phase message.
The Verdict column shows each failed or needs-attention row's category (or outcome) as the picker's background
diagnoses arrive, whole wherever the terminal has room; `set_verdict` fills one without redrawing the table.
With all clusters listed, a Cluster column says where each row runs. Sorted by creation, the time column is
Created instead of Updated. The header of the column the list is sorted by carries ▲ or ▼.

The cursor row takes the theme's cursor colours for every cell (phase colours included): a phase coloured like
the cursor would vanish under it, and the symbol and word still say the phase.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from core.models.runai import Workload
from core.safety.untrusted import clean
from tui.clock import Clock, relative_time
from tui.picker_query import COLUMN_SORT, Sort
from tui.widgets.phase_text import phase_text
from tui.widgets.table_layout import layout

LABELS = {
    "phase": "Phase",
    "name": "Name",
    "verdict": "Verdict",
    "project": "Project",
    "cluster": "Cluster",
    "type": "Type",
    "updated": "Updated",
    "created": "Created",
    "submitted": "Submitted by",
    "message": "Message",
}


def _plain(value: object) -> str:
    return clean(value, one_line=True, max_len=400) if value not in (None, "") else "—"


def _cell(value: object, width: int) -> Text:
    if value is None or value == "":
        return Text("—", style="dim")
    text = clean(value, one_line=True, max_len=400)
    # A short ellipsis here: the column is narrow, and `v` shows the whole row.
    return Text(text if len(text) <= width else text[: max(width - 1, 1)] + "…")


def _fit(cell: Text | None, width: int) -> Text:
    if cell is None:
        return Text("")  # not a row the background diagnoses (a dimmed dash would vanish under the cursor)
    return cell if len(cell.plain) <= width else cell[: max(width - 1, 1)] + Text("…")


class WorkloadTable(DataTable[Text]):
    # Page keys act on server pages, not on rows inside this one (a page always fits the table).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.diagnose", "diagnose"),
        # Past the page's edge, j / k and the arrows go on to the next or previous page (the screen's action).
        Binding("j,down", "screen.row(1)", "row down", show=False),
        Binding("k,up", "screen.row(-1)", "row up", show=False),
        Binding("pagedown", "screen.next_page", "next page", show=False),
        Binding("pageup", "screen.previous_page", "previous page", show=False),
        Binding("home", "screen.first_page", "first page", show=False),
        Binding("end", "screen.last_page", "last page", show=False),
    ]

    def __init__(self, clock: Clock, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, cursor_foreground_priority="css")
        self._clock = clock
        self._workloads: list[Workload] = []
        self._rendered_width: int | None = None
        self._clusters: Mapping[str, str] = {}
        self._show_cluster = False
        self._sort = Sort()
        self._verdicts: dict[str, Text] = {}
        self._height: int | None = None
        self._marks: dict[str, str] = {}  # workload id -> a mark before its age (a refresh's news)
        self._aged_at: datetime | None = None  # the "now" the ages on screen were drawn at

    @property
    def workloads(self) -> list[Workload]:
        """The workloads shown, in row order."""
        return list(self._workloads)

    @property
    def highlighted(self) -> Workload | None:
        if not self._workloads or not 0 <= self.cursor_row < len(self._workloads):
            return None
        return self._workloads[self.cursor_row]

    @property
    def column_keys(self) -> list[str]:
        return [str(column.key.value) for column in self.ordered_columns]

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._render_rows(keep_cursor=True))

    def _width(self) -> int:
        # Column widths derive from the table width. While the table is hidden behind a notice its own width
        # is 0, so the area it fills (always laid out) decides; rows are then right the moment they are shown.
        if self.size.width or self.parent is None:
            return self.size.width
        return self.parent.content_region.width  # type: ignore[attr-defined]

    class HeightChanged(Message):
        """The table's height changed (a line above or below it came or went): the page may need resizing."""

    def on_resize(self) -> None:
        if self._rendered_width != self._width():
            self._render_rows(keep_cursor=True)
        if self._height is not None and self._height != self.size.height:
            self.post_message(self.HeightChanged())
        self._height = self.size.height

    def show_workloads(
        self,
        workloads: Sequence[Workload],
        *,
        keep_cursor: bool = False,
        clusters: Mapping[str, str] | None = None,
        show_cluster: bool = False,
        sort: Sort | None = None,
        verdicts: Mapping[str, Text] | None = None,
    ) -> None:
        """Replace the rows; `keep_cursor` keeps the cursor on the same workload when it is still shown.
        `clusters` maps cluster ids to names for the Cluster column, shown when `show_cluster`; `verdicts`
        maps workload ids to their Verdict cell (rows without one show a dash)."""
        # Which workload the cursor is on, asked before the rows change (the same row may hold another one after).
        chosen = self.highlighted.id if keep_cursor and self.highlighted is not None else None
        self._workloads = list(workloads)
        self._verdicts = dict(verdicts or {})
        self._clusters = clusters or {}
        self._show_cluster = show_cluster
        self._sort = sort or self._sort
        self._render_rows(keep_cursor=keep_cursor, chosen=chosen)

    def set_verdict(self, workload_id: str, cell: Text) -> None:
        """Fill the Verdict cell of the rows of this workload (the rest of the table is left as it is)."""
        self._verdicts[workload_id] = cell
        if "verdict" not in self.column_keys:
            return
        width = next((c.width for c in self.ordered_columns if c.key.value == "verdict"), 0)
        for index, workload in enumerate(self._workloads):
            if workload.id == workload_id:
                self.update_cell(str(index), "verdict", _fit(cell, width))

    def verdict_text(self, workload_id: str) -> str | None:
        cell = self._verdicts.get(workload_id)
        return cell.plain if cell is not None else None

    def refresh_ages(self) -> None:
        """Re-render the age column (a wall clock moves on; a frozen one does not need this)."""
        if not self._workloads:
            return
        now = self._clock()
        self._aged_at = now
        key = self._age_key()
        for index, workload in enumerate(self._workloads):
            self.update_cell(str(index), key, self._age(workload, now))

    def _age_key(self) -> str:
        """The time column on screen: Created when the list is sorted by creation, else Updated."""
        return "created" if "created" in self.column_keys else "updated"

    def _age(self, workload: Workload, now: datetime, key: str = "updated") -> Text:
        at = workload.created_at if key == "created" else workload.phase_updated_at
        age = Text(relative_time(at, now))
        mark = self._marks.get(workload.id or "")
        return Text.assemble((mark + " ", "bold"), age) if mark else age

    def update_rows(
        self, workloads: Sequence[Workload], verdicts: Mapping[str, Text], marks: Mapping[str, str]
    ) -> bool:
        """A fresh read of the page on screen, in place: when it holds the same workloads in the same order and
        the columns keep their widths, only the cells that changed are redrawn and the cursor does not move
        (True); otherwise nothing is done and the caller re-renders the page (False). `marks` replace the marks
        before the ages."""
        if [w.id for w in workloads] != [w.id for w in self._workloads] or self._rendered_width != self._width():
            return False
        now = self._clock()
        wanted = self._columns(self._rendered_width, workloads)
        columns = self.ordered_columns
        widths = {str(c.key.value): c.width for c in columns}
        if {key: w for key, _, w in wanted} != widths:
            return False  # a longer name or a new cluster on the page: the columns are laid out again
        theme = self.app.get_css_variables()
        key = self._age_key()
        old_marks, self._marks = self._marks, dict(marks)
        self._verdicts = dict(verdicts)
        previous, self._workloads = self._workloads, list(workloads)
        for index, (before, after) in enumerate(zip(previous, self._workloads, strict=True)):
            row = str(index)
            if before != after:
                for column, cell in self._cells(after, widths, theme, now).items():
                    if column in widths:
                        self.update_cell(row, column, cell)
                continue
            if old_marks.get(after.id or "") != self._marks.get(after.id or "") or self._ages_move(before, now, key):
                self.update_cell(row, key, self._age(after, now, key))
            verdict = _fit(self._verdicts.get(after.id or ""), widths.get("verdict", 0))
            if "verdict" in widths and self.get_cell(row, "verdict") != verdict:
                self.update_cell(row, "verdict", verdict)
        self._aged_at = now
        return True

    def _ages_move(self, workload: Workload, now: datetime, key: str) -> bool:
        """Whether the age shown for this row reads differently now than at the last redraw."""
        then = self._aged_at
        at = workload.created_at if key == "created" else workload.phase_updated_at
        return then is None or relative_time(at, then) != relative_time(at, now)

    def _columns(self, width: int, workloads: Sequence[Workload]) -> list[tuple[str, str, int]]:
        """The columns for `width`, each sized to its longest cell of `workloads` (tui.widgets.table_layout)."""
        natural = {key: len(self._label(key, label).plain) for key, label in LABELS.items()}
        for w in workloads:
            cells = {
                "phase": phase_text(w.phase, {}).plain,
                "name": _plain(w.name),
                "project": _plain(w.project_name),
                "cluster": _plain(self._clusters.get(w.cluster_id or "", w.cluster_id)),
                "type": _plain(w.type),
                "submitted": _plain(w.submitted_by),
            }
            for key, text in cells.items():
                natural[key] = max(natural[key], len(text))
        when = "created" if self._sort.field == "createdAt" else "updated"
        return layout(width, natural, LABELS, cluster=self._show_cluster, when=when)

    def _label(self, key: str, label: str) -> Text:
        if COLUMN_SORT.get(key) != self._sort.field:
            return Text(label)
        return Text(f"{label} {'▼' if self._sort.descending else '▲'}")

    def _cells(
        self, w: Workload, widths: Mapping[str, int], theme: Mapping[str, str], now: datetime
    ) -> dict[str, Text]:
        cluster = self._clusters.get(w.cluster_id or "", w.cluster_id)
        return {
            "phase": phase_text(w.phase, theme),
            "verdict": _fit(self._verdicts.get(w.id or ""), widths.get("verdict", 0)),
            "name": _cell(w.name, widths.get("name", 0)),
            "project": _cell(w.project_name, widths.get("project", 0)),
            "cluster": _cell(cluster, widths.get("cluster", 0)),
            "type": _cell(w.type, widths.get("type", 0)),
            "updated": self._age(w, now),
            "created": self._age(w, now, "created"),
            "submitted": _cell(w.submitted_by, widths.get("submitted", 0)),
            "message": _cell(w.phase_message, widths.get("message", 0)),
        }

    def set_marks(self, marks: Mapping[str, str]) -> None:
        """Marks before the ages of these workloads (the rest lose theirs); only the ages are redrawn."""
        self._marks = dict(marks)
        self.refresh_ages()

    def _render_rows(self, *, keep_cursor: bool, chosen: str | None = None) -> None:
        if chosen is None:
            chosen = self.highlighted.id if keep_cursor and self.highlighted is not None else None
        chosen_row = self.cursor_row
        width = self._width()
        self._rendered_width = width
        theme = self.app.get_css_variables()
        now = self._clock()
        columns = self._columns(width, self._workloads)
        self._aged_at = now
        self.clear(columns=True)
        for key, label, w in columns:
            self.add_column(self._label(key, label), key=key, width=w)
        widths = {key: w for key, _, w in columns}
        for index, w in enumerate(self._workloads):
            cells = self._cells(w, widths, theme, now)
            self.add_row(*(cells[key] for key, _, _ in columns), key=str(index))
        if chosen is not None:
            ids = [w.id for w in self._workloads]
            row = ids.index(chosen) if chosen in ids else min(chosen_row, len(ids) - 1)
            if row >= 0:
                self.move_cursor(row=row, animate=False)
