"""What the live picker says moved (core.triage.changes), as a plain object the screen calls: ● before the age of
a row whose phase changed, ✱ for one that newly needs attention (counted under the table until the cursor rests
on it; `n` goes to the next), ↺ for one that needed attention and does not now (a recovery, counted as such and
diagnosed again, so its verdict says what the diagnosis says now)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime

from textual.binding import Binding

from core.models.runai import Workload
from core.triage.attention import AttentionCache, judging_loads_the_engine
from core.triage.changes import ChangeTracker
from core.triage.verdicts import needs_events, wants_verdict

CHANGED = "●"
NEW = "✱"
RECOVERED = "↺"  # needed attention on an earlier read, and does not now
# The picker's key for this (PickerScreen lists it among its own, so `?` shows it beside `r`).
NEXT_NEW_FAILURE = Binding(
    "n", "next_new_failure", "next new failure", show=False, id="picker.next-new-failure",
    tooltip="Move to the next workload that newly needs attention (✱) since the list was first read",
)


class News:
    """The changes of one list (a filter generation) from read to read, and what the user has seen of them."""

    def __init__(self) -> None:
        self._tracker: ChangeTracker | None = None
        self._generation = -1
        self.cursor_after_read: str | None = None  # the workload a read left the cursor on (not moved onto)

    def update(
        self, rows: list[Workload], generation: int, since: Callable[[], datetime], attention: bool,
        cache: AttentionCache,
    ) -> tuple[dict[str, str], Collection[str]]:
        """Compare this read with the last of the same list: the marks to show before the ages, and the ids of
        the rows that recovered (their verdicts no longer hold)."""
        if self._tracker is None or self._generation != generation:
            self._tracker = ChangeTracker(since=since())
            self._generation = generation

        def judged(w: Workload) -> bool | None:
            # Not before the engine is loaded: the first page is never held up for a judgement (verdicts.py).
            if not attention and judging_loads_the_engine(w):
                return None
            if not attention and needs_events(w, cache.judged):
                return None  # its events are not read yet: judged on a later read
            return wants_verdict(w, attention_view=attention, judged=cache.judged)

        changes = self._tracker.update(rows, judged)
        return self.marks(), changes.recovered

    def marks(self) -> dict[str, str]:
        if self._tracker is None:
            return {}
        marks = {i: CHANGED for i in self._tracker.marked()}
        marks.update({i: RECOVERED for i in self._tracker.recovered})
        marks.update({i: NEW for i in self._tracker.flagged})
        return marks

    @property
    def recovered(self) -> Collection[str]:
        return self._tracker.recovered if self._tracker is not None else {}

    def new_failures(self) -> list[str]:
        """The workloads flagged as newly needing attention and not looked at yet, oldest news first."""
        return list(self._tracker.flagged) if self._tracker is not None else []

    def seen(self, workload_id: str | None) -> bool:
        """The user looked at this row; True when that took a ✱ away."""
        if self._tracker is None or not workload_id or workload_id not in self._tracker.flagged:
            return False
        self._tracker.seen([workload_id])
        return True

    def words(self) -> str | None:
        """What the line under the table adds: the new failures (with their key) and the recoveries."""
        count = len(self._tracker.flagged) if self._tracker is not None else 0
        back = len(self._tracker.recovered) if self._tracker is not None else 0
        said = [f"{NEW} {count} new failure{'s' if count != 1 else ''} (n)"] if count else []
        said += [f"{RECOVERED} {back} recovered"] if back else []
        return " · ".join(said) if said else None
