"""Step 3: read the history back to the lookback cutoff and find the occurrence being diagnosed.

Pages are followed by `next`. Newest-first pages stop at the cutoff; any other order is read to the end (the
API does not promise one). The failure being diagnosed is read even when it lies before the cutoff: its own
records are evidence whatever the lookback, though recurrence counts only what lies inside it. The analysis
itself (occurrences, timeline) is core/diagnosis/history_analysis.py.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis.findings import Collect, Findings
from core.diagnosis.history_analysis import (
    ENDING_PHASES,
    FAILING_KINDS,
    SOURCE,
    HistoryAnalysis,
    Occurrence,
    analyse_stamped,
)
from core.diagnosis.marks import Mark
from core.diagnosis.observations import Observation
from core.diagnosis.progress import HistoryFound
from core.diagnosis.reader import Reader, ReadFailure, Tier1
from core.diagnosis.signals import SignalKind
from core.diagnosis.steps.history_pages import PagesAhead, pages_to_floor
from core.diagnosis.steps.resolve import PAGE_LIMIT
from core.models.history_compact import CompactRecord
from core.models.pages import Page
from core.models.runai import Workload
from core.plural import plural

HISTORY = SOURCE
MAX_HISTORY_PAGES = 200  # 100,000 records: far beyond any real lookback, and a bound on a broken `next`
# Records a history read takes, counted as the server sent them (a page may hold far more than the PAGE_LIMIT
# asked for; what is past the limit is not kept, but it was received and decoded). A count, never a time: where
# an endless history stops is the same on a fast machine and a busy one, so the report is too.
MAX_HISTORY_RECORDS = MAX_HISTORY_PAGES * PAGE_LIMIT
# How far before its phase change the diagnosed failure's own records are read when it lies before the
# lookback cutoff and the workload's creation time is unknown.
FAILURE_LOOKBEHIND = timedelta(days=7)
# History records that become evidence of the current failure (beyond counting it).
NODE_KINDS = frozenset(
    {
        SignalKind.EVICTED,
        SignalKind.NODE_LOST,
        SignalKind.NODE_NOT_READY,
        SignalKind.NODE_DRAIN,
        SignalKind.DISRUPTION_TARGET,
        SignalKind.NODE_PRESSURE,
        SignalKind.SANDBOX_FAILED,
    }
)


@dataclass(frozen=True, slots=True)
class HistoryRead:
    analysis: HistoryAnalysis | None  # None when no record could be read
    current: Occurrence | None  # the occurrence being diagnosed, when history shows it
    observations: tuple[Observation, ...]  # the current occurrence's signals
    findings: Findings
    # Every record back to the lookback was read: a recurrence count from less is a lower bound only.
    whole: bool
    marks: tuple[Mark, ...] = ()  # the current occurrence's signs of progress (a move to Running, a pull, a start)


def _in_zone_of(moment: datetime, stamps: Sequence[datetime | None]) -> datetime:
    """``moment`` (the same instant) in the zone object of the first dated record (``stamps``: the records')."""
    for at in stamps:
        if at is not None and at.tzinfo is not None:
            return moment.astimezone(at.tzinfo)
    return moment


def evidence_floor(w: Workload, cutoff: datetime) -> datetime:
    """The oldest instant whose history is read: the cutoff, or earlier for a failure that happened before it."""
    # Only an ending phase dates the failure; a Running or Pending workload's failure is happening now.
    if (w.phase or "") not in ENDING_PHASES:
        return cutoff
    if w.phase_updated_at is None or w.phase_updated_at >= cutoff:
        return cutoff
    start = w.created_at if w.created_at is not None else w.phase_updated_at - FAILURE_LOOKBEHIND
    return min(cutoff, start - timedelta(minutes=1))


def current_occurrence(analysis: HistoryAnalysis | None, w: Workload) -> Occurrence | None:
    if analysis is None or not analysis.occurrences:
        return None
    last = analysis.occurrences[-1]
    if (w.phase or "") in ENDING_PHASES:
        # The ending that matches the workload's current phase change; history may lag a little.
        if last.end is not None and w.phase_updated_at is not None:
            return last if abs((last.end - w.phase_updated_at).total_seconds()) <= 300 else None
        return last
    return last if last.open else None


async def read_history(reader: Reader, t1: Tier1, w: Workload, cutoff: datetime) -> HistoryRead:
    """The seed's `get_workload_history`, every page back to the cutoff, analysed into occurrences.

    Pages are taken one after another, as the seed says; a long newest-first history has the pages it still
    needs asked for ahead (`history_pages`), which changes when they arrive, never what is read from them.
    """
    wid = w.id or ""
    found = Collect()
    records: list[CompactRecord] = []
    record_stamps: list[datetime | None] = []  # each record's `timestamp` (a computed property), read once
    offset = pages = problems = 0
    order: str | None = None
    failure: ReadFailure | None = None
    floor = evidence_floor(w, cutoff)
    # No record is older than the workload: a read-ahead guess need not reach further back than its creation.
    horizon = max(floor, w.created_at) if w.created_at is not None else floor
    newest: datetime | None = None
    oldest: datetime | None = None
    whole = True
    received = 0  # records the server sent, kept or not
    oversized = 0  # the largest page the server sent past the limit asked for (0: none)

    def fetch(off: int, number: int) -> Awaitable[Page[CompactRecord] | ReadFailure]:
        return reader.tier1(
            3, HISTORY, f"history page {number}", lambda: t1.get_history(wid, offset=off, limit=PAGE_LIMIT)
        )

    ahead = PagesAhead(fetch)
    try:
        while pages < MAX_HISTORY_PAGES:
            page = await ahead.page(offset, pages + 1)
            if isinstance(page, ReadFailure):
                failure = page
                break
            pages += 1
            records += page.items
            received += len(page.items) + page.cut
            if page.cut:
                oversized = max(oversized, len(page.items) + page.cut)
            problems += len(page.problems) - (1 if page.cut else 0)  # a cut page is said once, below
            page_stamps = [r.timestamp for r in page.items]
            record_stamps += page_stamps
            stamps = [at for at in page_stamps if at is not None]
            if order is None and len(stamps) >= 2:
                order = "desc" if stamps[0] >= stamps[-1] else "asc"
            # Newest-first pages can stop at the cutoff; any other order must be read to the end.
            if order == "desc" and stamps and min(stamps) < floor:
                break
            if page.next is None:
                break
            if page.next <= offset:
                whole = False
                found.missing(
                    "the rest of the history", f"the history endpoint's next={page.next} did not advance", HISTORY
                )
                break
            if received >= MAX_HISTORY_RECORDS:
                whole = False
                found.missing(
                    "older history",
                    f"stopped after {plural(received, 'record')} in {plural(pages, 'page')}: a history read takes at "
                    f"most {MAX_HISTORY_RECORDS:,} records, and the server's `next` still went on",
                    HISTORY,
                )
                break
            if order == "desc" and stamps:
                newest = max(stamps) if newest is None else max(newest, *stamps)
                oldest = min(stamps) if oldest is None else min(oldest, *stamps)
                wanted = pages_to_floor(newest, oldest, len(records), horizon, page.next - offset)
                # Never ask ahead for pages past the record cap, at the rate this page was sent.
                left = -(-(MAX_HISTORY_RECORDS - received) // max(1, len(page.items) + page.cut))
                ahead.ask(page.next, page.next - offset, pages + 1, wanted, min(MAX_HISTORY_PAGES, pages + left))
            offset = page.next
        else:
            whole = False
            found.missing("older history", f"stopped after {MAX_HISTORY_PAGES} pages of {PAGE_LIMIT}", HISTORY)
    finally:
        ahead.cancel()
    if failure is not None:
        found.missing(
            "history" if not records else f"history after {len(records)} records",
            failure.missing.why + "; recurrence counts only what could be read",
            HISTORY,
        )
        if not records:
            return HistoryRead(None, None, (), found.done(), whole=False)
    whole = whole and failure is None and not problems and not oversized
    if problems:
        found.missing("some history records", f"{plural(problems, 'record')} could not be read", HISTORY)
    if oversized:
        found.missing(
            "some history records",
            f"the server sent pages of up to {oversized:,} records where {PAGE_LIMIT} were asked for; only the "
            f"first {PAGE_LIMIT} of each were read",
            HISTORY,
        )
    # Compared in the records' own zone object: across two zone objects (pydantic's UTC, the clock's) each
    # comparison costs ten times one within, and a long history makes tens of thousands.
    since = _in_zone_of(floor, record_stamps)
    in_lookback = [(at, r) for at, r in zip(record_stamps, records, strict=True) if at is None or at >= since]
    analysis = analyse_stamped(in_lookback, cutoff=cutoff, current_phase=w.phase)
    whole = whole and not analysis.problems  # an undated record left out may be a failure
    for problem in analysis.problems:
        found.missing("some history records", problem, HISTORY)
    found.show(HistoryFound(tuple(analysis.timeline), analysis.records, pages))
    current = current_occurrence(analysis, w)
    observations = tuple(current.observations) if current is not None else ()
    found.observed(
        o for o in observations if o.kind in FAILING_KINDS or o.kind in NODE_KINDS or o.kind is SignalKind.PREEMPTED
    )
    marks = tuple(current.marks) if current is not None else ()
    return HistoryRead(analysis, current, observations, found.done(), whole=whole, marks=marks)
