"""What the live picker says moved (core.triage.changes), a base of PickerRefresh: ● before the age of a row whose
phase changed, ✱ for one that newly needs attention (counted under the table until the cursor rests on it; `n`
goes to the next), ↺ for one that needed attention and does not now (a recovery, counted as such and diagnosed
again, so its verdict says what the diagnosis says now)."""

from __future__ import annotations

from textual import on
from textual.binding import Binding
from textual.widgets import DataTable

from core.models.runai import Workload
from core.triage.attention import judging_loads_the_engine
from core.triage.changes import ChangeTracker
from core.triage.verdicts import needs_events, wants_verdict
from tui.clock import Clock
from tui.screens.picker_views import PickerViews
from tui.widgets.page_indicator import PageIndicator
from tui.widgets.workload_table import WorkloadTable

CHANGED = "●"
NEW = "✱"
RECOVERED = "↺"  # needed attention on an earlier read, and does not now
# The picker's key for this (PickerScreen lists it among its own, so `?` shows it beside `r`).
NEXT_NEW_FAILURE = Binding(
    "n", "next_new_failure", "next new failure", show=False, id="picker.next-new-failure",
    tooltip="Move to the next workload that newly needs attention (✱) since the list was first read",
)


class PickerNews(PickerViews):
    _clock: Clock
    _generation: int
    _tracker: ChangeTracker | None
    _tracker_generation: int
    _cursor_after_read: str | None

    def _news(self, rows: list[Workload]) -> dict[str, str]:
        """Compare this read with the last of the same list; the marks to show before the ages."""
        if self._tracker is None or self._tracker_generation != self._generation:
            self._tracker = ChangeTracker(since=self._clock())
            self._tracker_generation = self._generation
        attention = self._query.attention

        def judged(w: Workload) -> bool | None:
            # Not before the engine is loaded: the first page is never held up for a judgement (picker_verdicts).
            if not attention and judging_loads_the_engine(w):
                return None
            if not attention and needs_events(w, self._attention_cache.judged):
                return None  # its events are not read yet: judged on a later read
            return wants_verdict(w, attention_view=attention, judged=self._attention_cache.judged)

        changes = self._tracker.update(rows, judged)
        # A row that recovered: the verdict kept for it no longer holds; it is diagnosed again (queued by
        # _refresh_verdicts), and its line never quotes the crash it came back from.
        for w in rows:
            if w.id in changes.recovered:
                self.verdicts.forget(w)
        return self._marks()

    def _marks(self) -> dict[str, str]:
        if self._tracker is None:
            return {}
        marks = {i: CHANGED for i in self._tracker.marked()}
        marks.update({i: RECOVERED for i in self._tracker.recovered})
        marks.update({i: NEW for i in self._tracker.flagged})
        return marks

    # -- what the user sees ---------------------------------------------------------------------------------
    @on(DataTable.RowHighlighted)
    def _news_seen(self) -> None:
        # The user moved the cursor onto it: seen. Read when handled, not from the event (a redraw moves the
        # cursor through other rows on its way), and not for the row a read left the cursor on: a workload that
        # fails under a cursor nobody moved is still news.
        workload = self.query_one(WorkloadTable).highlighted
        if workload is not None and workload.id != self._cursor_after_read:
            self._cursor_after_read = None
            self._mark_seen(workload.id)

    def _mark_seen(self, workload_id: str | None) -> None:
        if self._tracker is not None and workload_id and workload_id in self._tracker.flagged:
            self._tracker.seen([workload_id])
            self.query_one(WorkloadTable).set_marks(self._marks())
            self._update_indicator()

    def _cursor_left_by_read(self) -> None:
        workload = self.query_one(WorkloadTable).highlighted
        self._cursor_after_read = workload.id if workload is not None else None

    def new_failures(self) -> list[str]:
        """The workloads flagged as newly needing attention and not looked at yet, oldest news first."""
        return list(self._tracker.flagged) if self._tracker is not None else []

    def action_next_new_failure(self) -> None:
        flagged = self.new_failures()
        table = self.query_one(WorkloadTable)
        ids = [w.id for w in table.workloads]
        here = [i for i in flagged if i in ids]
        if here and table.display:
            table.move_cursor(row=ids.index(here[0]))
            table.focus()
            self._mark_seen(here[0])
            return
        if flagged:
            self.notify(f"{len(flagged)} new failure{'s are' if len(flagged) != 1 else ' is'} not on this page: "
                        "g goes to the first page.", timeout=3, markup=False)
        else:
            self.notify("No workload newly needs attention since the list was first read.", timeout=3, markup=False)

    def _update_indicator(self) -> None:
        super()._update_indicator()
        count = len(self._tracker.flagged) if self._tracker is not None else 0
        back = len(self._tracker.recovered) if self._tracker is not None else 0
        said = [f"{NEW} {count} new failure{'s' if count != 1 else ''} (n)"] if count else []
        said += [f"{RECOVERED} {back} recovered"] if back else []
        if said:
            indicator = self.query_one(PageIndicator)
            indicator.show(indicator.plain, " · ".join(said))
