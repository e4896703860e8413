"""The picker's verdict column as a plain object: which rows on screen get a background diagnosis, which wait,
and when the one worker that diagnoses them starts. The screen calls it and gives it two things it cannot make
itself: a timer and a worker (`start_timer`, `run`), plus a way to tell whether the picker is the screen on top.

When a page lands, its eligible rows (core.triage.verdicts) that have a cached verdict show it at once. A Pending /
Running row is judged with the engine's Step 1 signals: until something has loaded them, that judgement waits for
the worker, so the first page is painted before the engine loads. The rest are diagnosed once the page has been on
screen for START_DELAY_S, in one worker (group `picker-verdicts`, exclusive) through `core.triage.batch` within the
background politeness budget (two diagnoses, four reads in flight), each verdict posted as it arrives. Any new page
request stops the timer and cancels that worker first, so background reads never hold up paging and never continue
for a page that is gone. Verdicts are cached by workload id and phaseUpdatedAt; a late one is still cached, but
only drawn if its page is the one on screen. Opening a row with a cached report replays its events: no read.
While another screen covers the picker (the user's own diagnosis above all), the background diagnoses pause: they
would compete with it for the event loop and the server; the rows still waiting are taken up again when the picker
shows again. A page read again by the refresh queues only rows without a verdict for their current phase change,
behind a worker already running rather than cancelling it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING

from rich.text import Text
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from core.models.runai import Workload
from core.triage.attention import Judgement, judging_loads_the_engine
from core.triage.verdicts import VerdictCache, needs_events, page_lines, to_diagnose, verdict_key, wants_verdict
from tui.widgets.verdict_line import WAITING, verdict_cell

if TYPE_CHECKING:  # both load the engine, which the first page never waits for
    from core.diagnosis.progress import ProgressEvent
    from core.triage.batch import Verdict

GROUP = "picker-verdicts"
# A page is painted, and can be left, before any background diagnosis starts: paging through pages faster than
# this starts none at all, so they never compete with the page reads and repaints the user is waiting for.
START_DELAY_S = 0.3

Judged = Mapping[tuple[str, str], Judgement]
Rows = list[Workload]


def judged_by_worker(w: Workload, judged: Judged) -> bool:
    """A row judged in the worker, after the page is painted: one whose judgement would load the engine first,
    or a Pending row whose events must be read to tell whether a pod fails (an image pull, a mount, an init
    container: nothing in the list entry shows them)."""
    return judging_loads_the_engine(w) or needs_events(w, judged)


class VerdictQueue:
    def __init__(
        self,
        cache: VerdictCache,
        *,
        start_timer: Callable[[float, Callable[[], None]], Timer],
        run: Callable[[int, Rows, str | None], Worker[None]],
        on_top: Callable[[], bool],
    ) -> None:
        self.verdicts = cache
        self._start_timer = start_timer
        self._run = run
        self._on_top = on_top
        self.seq = -1  # the page request whose rows these are
        self.rows: Rows = []  # the rows on screen that get a verdict
        self.later: Rows = []  # rows the worker judges first (the engine's signals, or their events)
        self.cluster: str | None = None
        self.queue: Rows = []  # rows a refresh found without a verdict, waiting for the worker running
        self.timer: Timer | None = None
        self._worker: Worker[None] | None = None

    # -- what the column shows ------------------------------------------------------------------------------
    def cell(self, w: Workload) -> Text:
        known = self.verdicts.get(w)
        return verdict_cell(known) if known is not None else WAITING

    def line(self) -> list[str]:
        """The line under the table, longest first (core.triage.verdicts.page_lines)."""
        labels = [v.label for w in self.rows if (v := self.verdicts.get(w)) is not None]
        return page_lines(labels, len(self.rows) - len(labels), len(self.rows), len(self.later))

    @property
    def settled(self) -> bool:
        """True when every eligible row on screen has its verdict (tests and screenshots wait for this)."""
        return not self.later and all(self.verdicts.get(w) is not None for w in self.rows)

    def replay_for(self, workload: Workload) -> tuple[ProgressEvent, ...]:
        """The events of this row's background diagnosis, when it produced a report (else nothing)."""
        known = self.verdicts.get(workload)
        return known.events if known is not None and known.report is not None else ()

    # -- a page, a refresh, a verdict -----------------------------------------------------------------------
    def page(self, seq: int, shown: Rows, cluster: str | None, attention: bool, judged: Judged) -> dict[str, Text]:
        """The Verdict cells of a page about to be shown; the rows that have none yet are diagnosed once it has
        been on screen for START_DELAY_S. Rows whose judgement would load the engine first are judged by the
        worker, after the page is painted: the first page never waits for the engine."""
        self.stop()
        self.seq = seq
        candidates = [w for w in shown if w.id and (w.cluster_id or cluster)]
        later = [] if attention else [w for w in candidates if judged_by_worker(w, judged)]
        later_ids = {w.id for w in later}
        self.rows = [w for w in candidates
                     if w.id not in later_ids and wants_verdict(w, attention_view=attention, judged=judged)]
        self.later = later
        self.cluster = cluster
        pending = [w for w in self.rows if self.verdicts.get(w) is None]
        if pending or later:
            self._schedule(seq, pending)
        return {w.id or "": self.cell(w) for w in self.rows}

    def refreshed(
        self, shown: Rows, cluster: str | None, attention: bool, judged: Judged, recovered: Collection[str]
    ) -> dict[str, Text]:
        """The Verdict cells of a page read again; rows without a verdict for their current phase change are
        queued for one (never twice, never cancelling the background diagnoses already running)."""
        running = {verdict_key(w) for w in self.rows if self.verdicts.get(w) is None} if self.busy else set()
        running |= {verdict_key(w) for w in self.queue}
        candidates = [w for w in shown if w.id and (w.cluster_id or cluster)]
        eligible, todo = to_diagnose(candidates, self.verdicts, attention_view=attention, under_way=running,
                                     recovered=recovered, judged=judged)
        self.queue += todo
        self.rows = eligible
        # Every row was judged just now, but a Pending row whose phase changed: its events say.
        self.later = [] if attention else [
            w for w in candidates if not judging_loads_the_engine(w) and needs_events(w, judged)
        ]
        self.cluster = cluster
        return {w.id or "": self.cell(w) for w in eligible}

    def take_later(self, seq: int) -> Rows:
        """The rows left for the worker to judge (none when the page moved on)."""
        if seq != self.seq:
            return []
        later, self.later = self.later, []
        return later

    def judged_later(self, seq: int, later: Rows, judged: Judged) -> Rows:
        """Of the rows the worker judged, those that want a verdict: now rows of the column (none when the page
        moved on meanwhile)."""
        if seq != self.seq:
            return []
        more = [w for w in later if wants_verdict(w, attention_view=False, judged=judged)]
        self.rows = [*self.rows, *more]
        return more

    def arrived(self, seq: int, workload: Workload, verdict: Verdict) -> bool:
        """Keep a verdict; True when it belongs to the page on screen (and is to be drawn)."""
        self.verdicts.put(workload, verdict)
        return seq == self.seq

    # -- the worker -----------------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """A worker is due to start or running."""
        running = (WorkerState.PENDING, WorkerState.RUNNING)
        return self.timer is not None or (self._worker is not None and self._worker.state in running)

    def stop(self) -> None:
        """The page is going (or covered): no timer, no worker, nothing queued."""
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None
        self.queue = []

    def resume(self) -> None:
        """Back on top: the rows of the page on screen that still have no verdict are diagnosed again."""
        self.queue = []
        pending = [w for w in self.rows if self.verdicts.get(w) is None]
        if (pending or self.later) and self.timer is None:
            self._schedule(self.seq, pending)

    def flush(self) -> None:
        """After a worker ended: the rows a refresh queued meanwhile, in a worker of their own."""
        if not (self.queue or self.later) or self.busy or not self._on_top():
            return
        wanted = {verdict_key(w) for w in self.rows}
        rows = [w for w in self.queue if verdict_key(w) in wanted and self.verdicts.get(w) is None]
        self.queue = []
        if rows or self.later:
            self._worker = self._run(self.seq, rows, self.cluster)

    def _schedule(self, seq: int, rows: Rows) -> None:
        self.timer = self._start_timer(START_DELAY_S, lambda: self._start(seq, rows))

    def _start(self, seq: int, rows: Rows) -> None:
        self.timer = None
        if seq == self.seq and self._on_top():
            self._worker = self._run(seq, rows, self.cluster)
