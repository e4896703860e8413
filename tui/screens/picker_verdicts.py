"""The picker's verdict column: background diagnoses of the failed and needs-attention rows on screen.

When a page lands, its eligible rows (core.triage.verdicts) that have a cached verdict show it at once. A Pending /
Running row is judged with the engine's Step 1 signals: until something has loaded them, that judgement waits for
the worker below, so the first page is painted before the engine loads. The rest are diagnosed once the page has
been on screen for START_DELAY_S, in one worker (group `picker-verdicts`, exclusive) through `core.triage.batch`
within the background politeness budget (two diagnoses, four reads in flight), each verdict posted as it arrives.
Any new page request stops the timer and cancels that worker first, so background reads never hold up paging and
never continue for a page that is gone. Verdicts are cached by workload id and phaseUpdatedAt; a late one is still
cached, but only drawn if its page is the one on screen. Opening a row with a cached report replays its events: no
read. While another screen covers the picker (the user's own diagnosis above all), the background diagnoses pause:
they would compete with it for the event loop and the server; the rows still waiting are taken up again when the
picker shows again.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.timer import Timer

from core.models.runai import Workload
from core.triage.attention import AttentionCache, judge_by_events, judging_loads_the_engine
from core.triage.verdicts import VerdictCache, needs_events, page_lines, verdict_key, wants_verdict
from tui.clock import Clock
from tui.loading import load
from tui.messages import VerdictArrived
from tui.screens.picker_return import PickerReturn
from tui.widgets.verdict_line import WAITING, VerdictLine, verdict_cell
from tui.widgets.workload_table import WorkloadTable

if TYPE_CHECKING:
    from core.diagnosis.progress import ProgressEvent

GROUP = "picker-verdicts"
# A page is painted, and can be left, before any background diagnosis starts: paging through pages faster than
# this starts none at all, so they never compete with the page reads and repaints the user is waiting for.
START_DELAY_S = 0.3


class PickerVerdicts(PickerReturn):
    _attention_cache: AttentionCache
    _clock: Clock
    verdicts: VerdictCache
    _verdict_seq: int
    _verdict_rows: list[Workload]
    _verdict_later: list[Workload]
    _verdict_timer: Timer | None
    _verdict_cluster: str | None

    def _stop_verdicts(self) -> None:
        if self._verdict_timer is not None:
            self._verdict_timer.stop()
            self._verdict_timer = None
        self.workers.cancel_group(self, GROUP)

    def _verdicts_for_page(self, seq: int, shown: list[Workload], cluster: str | None, attention: bool) -> dict[
            str, Text]:
        """The Verdict cells of a page about to be shown; starts diagnosing the rows that have none yet.

        Rows whose judgement would load the engine first (a Pending / Running row, before anything used it)
        are judged by the worker, after the page is painted: the first page never waits for the engine."""
        self._stop_verdicts()
        self._verdict_seq = seq
        candidates = [w for w in shown if w.id and (w.cluster_id or cluster)]
        judged = self._attention_cache.judged
        later = [] if attention else [w for w in candidates if self._judged_by_worker(w)]
        later_ids = {w.id for w in later}
        eligible = [w for w in candidates
                    if w.id not in later_ids and wants_verdict(w, attention_view=attention, judged=judged)]
        cells: dict[str, Text] = {}
        pending: list[Workload] = []
        for w in eligible:
            known = self.verdicts.get(w)
            cells[w.id or ""] = verdict_cell(known) if known is not None else WAITING
            if known is None:
                pending.append(w)
        self._verdict_rows = eligible
        self._verdict_later = later
        self._verdict_cluster = cluster
        if pending or later:
            self._schedule_rows(seq, pending, cluster)
        self._show_verdict_line()
        return cells

    def _judged_by_worker(self, w: Workload) -> bool:
        """A row judged in the worker, after the page is painted: one whose judgement would load the engine
        first, or a Pending row whose events must be read to tell whether a pod fails (an image pull, a mount, an
        init container: nothing in the list entry shows them)."""
        return judging_loads_the_engine(w) or needs_events(w, self._attention_cache.judged)

    async def _judge_later(self, seq: int) -> list[Workload]:
        """Judge the rows left for after the engine loaded (reading the events of a Pending row the list entry
        cannot judge, within the background budget); returns those that want a diagnosis, now waiting."""
        if seq != self._verdict_seq:
            return []
        later, self._verdict_later = self._verdict_later, []
        cache = self._attention_cache
        unread = [w for w in later if needs_events(w, cache.judged)]
        if unread:
            from core.triage.batch import BACKGROUND

            gate = asyncio.Semaphore(BACKGROUND.requests)
            found = await asyncio.gather(*(judge_by_events(self.tenant.runai, w, gate) for w in unread))
            for w, judgement in zip(unread, found, strict=True):
                cache.judged[cache.key(w)] = judgement
        if seq != self._verdict_seq:
            return []
        more = [w for w in later if wants_verdict(w, attention_view=False, judged=cache.judged)]
        table = self.query_one(WorkloadTable)
        for w in more:
            known = self.verdicts.get(w)
            table.set_verdict(w.id or "", verdict_cell(known) if known is not None else WAITING)
        self._verdict_rows = [*self._verdict_rows, *more]
        self._show_verdict_line()
        return [w for w in more if self.verdicts.get(w) is None]

    def _schedule_rows(self, seq: int, rows: list[Workload], cluster: str | None) -> None:
        self._verdict_timer = self.set_timer(START_DELAY_S, lambda: self._start_rows(seq, rows, cluster))

    def on_screen_suspend(self) -> None:
        # Another screen is on top (a diagnosis the user asked for): it has the machine to itself.
        self._stop_verdicts()

    def on_screen_resume(self) -> None:
        # Back on the picker: the rows of the page on screen that still have no verdict are diagnosed again.
        pending = [w for w in self._verdict_rows if self.verdicts.get(w) is None]
        if (pending or self._verdict_later) and self._verdict_timer is None:
            self._schedule_rows(self._verdict_seq, pending, self._verdict_cluster)

    def _start_rows(self, seq: int, rows: list[Workload], cluster: str | None) -> None:
        self._verdict_timer = None
        # `is_current` would not do: Textual counts the screen just below the top one as current too.
        if seq == self._verdict_seq and self.is_attached and self.app.screen is self:
            self._diagnose_rows(seq, rows, cluster)

    @property
    def verdicts_settled(self) -> bool:
        """True when every eligible row on screen has its verdict (tests and screenshots wait for this)."""
        return not self._verdict_later and all(self.verdicts.get(w) is not None for w in self._verdict_rows)

    def replay_for(self, workload: Workload) -> tuple[ProgressEvent, ...]:
        """The events of this row's background diagnosis, when it produced a report (else nothing)."""
        known = self.verdicts.get(workload)
        return known.events if known is not None and known.report is not None else ()

    def _verdicts_unread(self, seq: int) -> None:
        """The page could not be read: no rows to diagnose, and a line that says why rather than "no failures"."""
        self._verdicts_for_page(seq, [], None, False)
        self.query_one(VerdictLine).show("verdicts: none, the page could not be read")

    def _show_verdict_line(self) -> None:
        labels = [v.label for w in self._verdict_rows if (v := self.verdicts.get(w)) is not None]
        waiting = len(self._verdict_rows) - len(labels)
        line = page_lines(labels, waiting, len(self._verdict_rows), len(self._verdict_later))
        self.query_one(VerdictLine).show(line)

    @work(group=GROUP, exclusive=True, exit_on_error=False)
    async def _diagnose_rows(self, seq: int, rows: list[Workload], cluster: str | None) -> None:
        # The engine loads here, after the page has been on screen for START_DELAY_S (never before a first page),
        # in a thread: the UI loop keeps painting while its modules import.
        await asyncio.to_thread(load, "core.triage.batch")
        rows = [*rows, *await self._judge_later(seq)]
        if not rows:
            return
        from core.diagnosis.request import DEFAULT_LOOKBACK, DiagnosisRequest
        from core.triage.batch import BACKGROUND, diagnose_many

        kube_off = getattr(self.app, "kube_off", None)
        # Tier 2 opens in its own thread (never on the UI loop) once a diagnosis gets past Step 1.
        open_tier2 = self.tenant.open_tier2 if kube_off is None else None
        now = self._clock()
        requests = [
            DiagnosisRequest(cluster_id=w.cluster_id or cluster or "", workload_id=w.id, lookback=DEFAULT_LOOKBACK,
                             now=now, count_others=False)
            for w in rows
        ]
        try:
            async for index, verdict in diagnose_many(
                requests, self.tenant.runai, tier2_unavailable=kube_off, open_tier2=open_tier2, politeness=BACKGROUND
            ):
                self.post_message(VerdictArrived(seq, rows[index], verdict))
        except asyncio.CancelledError:
            # Cancelled because the page changed: the normal end of this worker, not a failure (the diagnoses
            # and their reads were cancelled with it, by diagnose_many).
            return

    def on_verdict_arrived(self, message: VerdictArrived) -> None:
        self.verdicts.put(message.workload, message.verdict)
        if message.seq != self._verdict_seq:
            return  # a page no longer on screen: kept for when it is shown again
        table = self.query_one(WorkloadTable)
        key = verdict_key(message.workload)
        if any(verdict_key(w) == key for w in table.workloads):  # not a row whose phase moved on meanwhile
            table.set_verdict(message.workload.id or "", verdict_cell(message.verdict))
        self._show_verdict_line()
