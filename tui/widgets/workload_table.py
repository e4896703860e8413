"""The picker's table: one page of workloads, newest first, phase in colour and words, ages from a clock.

Rows are keyed by position in the page (a hostile or buggy server can repeat an id, and a duplicate key would
break the table), and `workloads` holds the page in the same order. Every cell is a `Text` built from
sanitised strings, so cluster data can never be read as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from core.models.runai import Workload
from core.safety.untrusted import clean
from tui.clock import Clock, relative_time
from tui.widgets.phase_text import phase_text

# Below this width the table drops the type and submitter columns so names keep their room.
WIDE_TABLE = 110
_NAME_MIN = 16


def _cell(value: object, width: int) -> Text:
    if value is None or value == "":
        return Text("—", style="dim")
    text = clean(value, one_line=True, max_len=400)
    # A short ellipsis here: the column is narrow, and the full value is one diagnosis away.
    return Text(text if len(text) <= width else text[: max(width - 1, 1)] + "…")


class WorkloadTable(DataTable[Text]):
    # Page keys act on server pages, not on rows inside this one (a page always fits the table);
    # enter is shown in the footer because it is the main way out of the picker.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "screen.diagnose", "diagnose"),
        Binding("pagedown", "screen.next_page", "next page", show=False),
        Binding("pageup", "screen.previous_page", "previous page", show=False),
    ]

    def __init__(self, clock: Clock, *, id: str | None = None) -> None:
        super().__init__(
            id=id, cursor_type="row", zebra_stripes=True, cursor_foreground_priority="renderable"
        )
        self._clock = clock
        self._workloads: list[Workload] = []
        self._rendered_width: int | None = None

    @property
    def workloads(self) -> list[Workload]:
        """The workloads shown, in row order."""
        return list(self._workloads)

    @property
    def highlighted(self) -> Workload | None:
        if not self._workloads or not 0 <= self.cursor_row < len(self._workloads):
            return None
        return self._workloads[self.cursor_row]

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._render_rows(keep_cursor=True))

    def _width(self) -> int:
        # Column widths derive from the table width. While the table is hidden behind a notice its own width
        # is 0, so the area it fills (always laid out) decides; rows are then right the moment they are shown.
        if self.size.width or self.parent is None:
            return self.size.width
        return self.parent.content_region.width  # type: ignore[attr-defined]

    def on_resize(self) -> None:
        if self._rendered_width != self._width():
            self._render_rows(keep_cursor=True)

    def show_workloads(self, workloads: Sequence[Workload], *, keep_cursor: bool = False) -> None:
        """Replace the rows; `keep_cursor` keeps the cursor on the same workload when it is still shown."""
        self._workloads = list(workloads)
        self._render_rows(keep_cursor=keep_cursor)

    def refresh_ages(self) -> None:
        """Re-render the age column (a wall clock moves on; a frozen one does not need this)."""
        if not self._workloads:
            return
        now = self._clock()
        for index, workload in enumerate(self._workloads):
            self.update_cell(str(index), "updated", Text(relative_time(workload.phase_updated_at, now)))

    def _columns(self, wide: bool) -> list[tuple[str, str, int | None]]:
        fixed = [("phase", "Phase", 14), ("updated", "Updated", 9), ("project", "Project", 12)]
        if wide:
            fixed += [("type", "Type", 11), ("submitted", "Submitted by", 22)]
        # Cell padding is one column on each side of every column.
        spare = self._width() - sum(width for _, _, width in fixed) - 2 * (len(fixed) + 1) - 1
        name = ("name", "Name", max(_NAME_MIN, spare))
        order = ["phase", "name", "project", "type", "updated", "submitted"]
        by_key = {key: (key, label, width) for key, label, width in [*fixed, name]}
        return [by_key[key] for key in order if key in by_key]

    def _render_rows(self, *, keep_cursor: bool) -> None:
        chosen = self.highlighted.id if keep_cursor and self.highlighted is not None else None
        width = self._width()
        wide = width >= WIDE_TABLE
        self._rendered_width = width
        columns = self._columns(wide)
        theme = self.app.get_css_variables()
        now = self._clock()
        self.clear(columns=True)
        for key, label, width in columns:
            self.add_column(label, key=key, width=width)
        widths = {key: width or 40 for key, _, width in columns}
        for index, w in enumerate(self._workloads):
            cells = {
                "phase": phase_text(w.phase, theme),
                "name": _cell(w.name, widths["name"]),
                "project": _cell(w.project_name, widths["project"]),
                "type": _cell(w.type, widths.get("type", 0)),
                "updated": Text(relative_time(w.phase_updated_at, now)),
                "submitted": _cell(w.submitted_by, widths.get("submitted", 0)),
            }
            self.add_row(*(cells[key] for key, _, _ in columns), key=str(index))
        if chosen is not None:
            for index, w in enumerate(self._workloads):
                if w.id == chosen:
                    self.move_cursor(row=index, animate=False)
                    break
