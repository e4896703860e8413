"""The diagnosis screen's keys for moving between panes and reading what a pane had to cut: tabs by number and
with `[` / `]`, `l` and `p` for the log, `v` / `enter` for the whole verdict, history line or log line, `x`
for every evidence line (a mixin of the diagnosis screen: it reads the screen's panes, report and failure)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.screen import Screen
from textual.widgets import DataTable, TabbedContent, TabPane

from core.models.report import Report
from tui.screens.detail import DetailScreen
from tui.screens.diagnosis.commands import TABS
from tui.screens.diagnosis.text import verdict_detail
from tui.widgets.evidence_pane import EvidencePane
from tui.widgets.history_timeline import HistoryTimeline, history_detail
from tui.widgets.log_pane import LogPane


class PaneActions(Screen[None]):
    report: Report | None
    failure: Any

    def show_tab(self, pane_id: str) -> None:
        self.query_one(TabbedContent).active = pane_id

    _wanted_tab: str | None = None

    def action_show_tab(self, pane_id: str) -> None:
        # Shown now; focused once the screen has caught up, and only if no later tab key came meanwhile: a
        # focus moved into an earlier key's pane would switch back to it (TabbedContent follows the focus), so
        # a burst of keys ("46") ends on the last one.
        self._wanted_tab = pane_id
        self.show_tab(pane_id)
        self.call_after_refresh(self._settle_tab, pane_id)

    def _settle_tab(self, pane_id: str) -> None:
        if self._wanted_tab != pane_id:
            return
        self.show_tab(pane_id)
        self._focus_pane(pane_id)

    def _focus_pane(self, pane_id: str) -> None:
        # The keys go into the pane shown: j/k and the arrows move through a table's rows (enter or v then
        # opens one whole), or scroll a page of text.
        pane = self.query_one(f"#{pane_id}", TabPane)
        tables = [t for t in pane.query(DataTable) if t.display]
        target = tables[0] if tables else next((w for w in pane.query("*") if w.focusable), None)
        # A pane with nothing to focus (the memory chart) takes the focus from the pane left, or the tabs would
        # follow the focus back to the hidden table that kept it.
        self.set_focus(target)

    def _step_tab(self, delta: int) -> None:
        panes = [pane for pane, _ in TABS]
        active = self.query_one(TabbedContent).active
        index = panes.index(active) if active in panes else 0
        self.action_show_tab(panes[(index + delta) % len(panes)])

    def action_row(self, delta: int) -> None:
        """j / k: a row down or up in the focused table, or a line in the focused text."""
        focused = self.focused
        if isinstance(focused, DataTable):
            focused.move_cursor(row=focused.cursor_row + delta)
        elif focused is not None and hasattr(focused, "scroll_relative"):
            focused.scroll_relative(y=delta, animate=False)

    def action_next_tab(self) -> None:
        self._step_tab(+1)

    def action_previous_tab(self) -> None:
        self._step_tab(-1)

    def action_show_log(self) -> None:
        self.show_tab("tab-log")
        log = self.query_one(LogPane)
        table = log.query_one(DataTable)
        (table if table.display else log).focus()

    def action_show_previous_log(self) -> None:
        """p: the previous instance's log; when there is none, what is shown instead is said, never silently."""
        self.action_show_log()
        excerpt = self.query_one(LogPane).excerpt
        if excerpt is None:
            when = "yet: the diagnosis is still running" if getattr(self, "running", False) else (
                "for this workload (the Missing tab says why)"
            )
            self.notify(f"No container log was read {when}.", markup=False)
        elif not excerpt.previous:
            why = excerpt.note or "the kubelet kept no previous instance"
            self.notify(f"No previous container log: {why}. The current one is shown.", markup=False)

    def action_every_line(self) -> None:
        """x: the Evidence tab with every line, or back to its short list."""
        pane = self.query_one(EvidencePane)
        if not pane.toggle_every():
            self.notify("Every line is shown once the verdict is in.", markup=False)
            return
        self.show_tab("tab-evidence")

    def action_view(self) -> None:
        focused = self.focused
        history = self.query_one(HistoryTimeline)
        log = self.query_one(LogPane)
        if isinstance(focused, DataTable) and focused in history.query(DataTable):
            shown = self._view_history_row(focused.cursor_row)
        elif isinstance(focused, DataTable) and focused is log.table:
            shown = self._view_log_row(focused.cursor_row)
        else:
            shown = False
        if shown:
            return
        # No line under the cursor (a table not filled yet, or empty): the verdict, or why there is none yet.
        if self.report is not None:
            self.app.push_screen(DetailScreen("The verdict", verdict_detail(self.report)))
        elif self.failure is not None:
            body = Text(f"{self.failure.detail}\n\nWhat to do: {self.failure.hint}")
            self.app.push_screen(DetailScreen(f"Diagnosis failed: {self.failure.title}", body))
        else:
            self.notify("Nothing to show yet: the diagnosis is still running.", markup=False)

    def _view_history_row(self, row: int) -> bool:
        entries = self.query_one(HistoryTimeline).entries
        if not 0 <= row < len(entries):
            return False
        self.app.push_screen(DetailScreen("History line", history_detail(entries[row])))
        return True

    def _view_log_row(self, row: int) -> bool:
        log = self.query_one(LogPane)
        if log.excerpt is None or not 0 <= row < len(log.excerpt.lines):
            return False
        body = Text(log.excerpt.lines[row])
        self.app.push_screen(DetailScreen(f"Log line {row + 1} of container {log.excerpt.container}", body))
        return True

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        # enter on a history or log row opens it whole, like v.
        event.stop()
        if event.data_table is self.query_one(LogPane).table:
            self._view_log_row(event.cursor_row)
        elif event.data_table in self.query_one(HistoryTimeline).query(DataTable):
            self._view_history_row(event.cursor_row)
