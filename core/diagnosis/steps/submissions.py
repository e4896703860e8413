"""A name's submissions in one project and cluster, live and deleted (`list_workloads`), and how many of the
others failed inside the lookback.

Run:ai requires a workload to be deleted before its name can be used again, so the earlier runs of a name are
usually deleted while a new submission is live: `deleted=true` answers only the deleted ones, so both lists are
read, side by side, every page (bounded). Recurrence counts the diagnosed workload's own failures, as the seed
says; the other submissions are counted apart (`recurrence.otherSubmissions`) so a name failing again and
again under new submissions is not read as a one-off.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from core.diagnosis.findings import Collect, Findings
from core.diagnosis.history_analysis import ENDING_PHASES
from core.diagnosis.observations import quote
from core.diagnosis.reader import DiagnosisFailed, Reader, ReadFailure, Tier1
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.steps.cluster import same_cluster
from core.models.report import OtherSubmissions
from core.models.runai import Workload
from core.sources.runai import filter_item

LIST = "list_workloads"
PAGE_LIMIT = 500  # the largest page the API allows
MAX_LIST_PAGES = 40
# Counting the other submissions of a workload named by id is a side read: a few pages, inside the lookback.
MAX_COUNT_PAGES = 4
FAILED_PHASES = frozenset({"Failed", "Crashed"})


class ListFailed(Exception):
    """A list read failed: the gap, in the report's words."""

    def __init__(self, failure: ReadFailure) -> None:
        super().__init__(failure.missing.why)
        self.failure = failure


@dataclass(frozen=True, slots=True)
class Submissions:
    live: tuple[Workload, ...]
    deleted: tuple[Workload, ...]
    complete: bool  # every page was read

    @property
    def all(self) -> list[Workload]:
        return [*self.live, *self.deleted]


async def _list(
    reader: Reader,
    t1: Tier1,
    req: DiagnosisRequest,
    *,
    deleted: bool | None,
    since: datetime | None,
    pages: int,
    essential: bool,
    step: int,
) -> tuple[list[Workload], bool]:
    """One list (live or deleted), every page up to `pages`; re-checked exactly on the client side."""
    name, project = req.name or "", req.project or ""
    try:
        filters = [
            filter_item("name", "==", name),
            filter_item("projectName", "==", project),
            filter_item("clusterId", "==", req.cluster_id),
        ]
        if since is not None:
            filters.append(filter_item("phaseUpdatedAt", ">=", since))
    except ValueError as exc:
        raise DiagnosisFailed(f"cannot search for that name: {exc}") from exc
    found: list[Workload] = []
    offset = 0
    for _ in range(pages):
        page = await reader.tier1(
            step,
            LIST,
            "workload list" + (" (deleted)" if deleted else ""),
            lambda off=offset: t1.list_workloads(  # type: ignore[misc]
                filters=filters,
                sort_by="phaseUpdatedAt",
                sort_order="desc",
                offset=off,
                limit=PAGE_LIMIT,
                deleted=deleted,
            ),
            essential=essential,
        )
        if isinstance(page, ReadFailure):
            raise ListFailed(page)
        # The filter's exact semantics are not guaranteed: re-check name, project and cluster exactly.
        found += [
            w
            for w in page.items
            if w.name == name and w.project_name == project and same_cluster(w.cluster_id, req.cluster_id)
        ]
        if page.next is None or page.next <= offset:
            return found, True
        offset = page.next
    return found, False


async def list_submissions(
    reader: Reader,
    t1: Tier1,
    req: DiagnosisRequest,
    *,
    since: datetime | None = None,
    essential: bool = True,
    step: int = 1,
) -> Submissions:
    """Live and deleted submissions of the request's name, read side by side, newest first.

    With `essential`, a failed list read ends the diagnosis (a lookup by name has nothing else to go on);
    otherwise it raises ListFailed with the gap."""
    pages = MAX_LIST_PAGES if essential else MAX_COUNT_PAGES
    live_read = _list(reader, t1, req, deleted=None, since=since, pages=pages, essential=essential, step=step)
    gone_read = _list(reader, t1, req, deleted=True, since=since, pages=pages, essential=essential, step=step)
    try:
        (live, live_done), (gone, gone_done) = await asyncio.gather(live_read, gone_read)
    except ListFailed as exc:
        if essential:
            raise DiagnosisFailed(f"listing workloads failed: {exc.failure.missing.why}") from exc.failure.error
        raise
    epoch = datetime.min.replace(tzinfo=req.moment().tzinfo)
    ids = {w.id for w in live}
    gone = [w for w in gone if w.id not in ids]  # a workload being deleted may show in both

    def newest(items: Sequence[Workload]) -> tuple[Workload, ...]:
        return tuple(sorted(items, key=lambda w: w.phase_updated_at or epoch, reverse=True))

    return Submissions(newest(live), newest(gone), live_done and gone_done)


async def count_others(
    reader: Reader, t1: Tier1, req: DiagnosisRequest, w: Workload, cutoff: datetime, listed: Submissions | None
) -> OtherSubmissions | None:
    """The name's other submissions inside the lookback: from the list a lookup by name made (`listed`), else,
    for a workload named by id, from a bounded side read; None when the request skips that read (a batch)."""
    now, lookback = req.moment(), req.lookback
    if listed is not None:
        return other_submissions(listed, w.id, cutoff, now, lookback, None)
    if not req.count_others:
        return None  # a batch's choice, not a failed read: said as a note (gap_of), never as missing evidence
    if not (w.name and w.project_name):
        return other_submissions(None, w.id, cutoff, now, lookback, "the workload has no name or project to list")
    by_name = dataclasses.replace(req, workload_id=None, name=w.name, project=w.project_name, active=False)
    try:
        listed = await list_submissions(reader, t1, by_name, since=cutoff, essential=False, step=3)
    except ListFailed as exc:
        return other_submissions(None, w.id, cutoff, now, lookback, exc.failure.missing.why)
    except DiagnosisFailed as exc:  # a name the list filter cannot carry
        return other_submissions(None, w.id, cutoff, now, lookback, quote(exc, 300))
    return other_submissions(listed, w.id, cutoff, now, lookback, None)


def other_submissions(
    found: Submissions | None, this_id: str | None, cutoff: datetime, now: datetime, lookback: str, why: str | None
) -> OtherSubmissions:
    """How many other submissions of the name failed (or stopped) inside the lookback; unknown is said so."""
    if found is None:
        return OtherSubmissions(lookback=lookback, why=why or "the name's submissions could not be listed")
    others = [
        w
        for w in found.all
        if w.id != this_id and w.phase_updated_at is not None and cutoff <= w.phase_updated_at <= now
    ]
    ended = [w for w in others if (w.phase or "") in ENDING_PHASES]
    failed = [w for w in ended if (w.phase or "") in FAILED_PHASES]
    newest = max(failed, key=lambda w: w.phase_updated_at or cutoff, default=None)
    note = None if found.complete else "counted from the first pages of the list only"
    return OtherSubmissions(
        failed=len(failed),
        stopped=len(ended) - len(failed),
        total=len(others),
        lookback=lookback,
        newest_failed_id=quote(newest.id, 80) if newest is not None and newest.id else None,
        why=note,
    )


SKIPPED_NOTE = (
    "other submissions of this name were not counted: a batch of diagnoses (the app's verdict column, a scan) "
    "skips that read; diagnose this workload on its own (r in the app, or runai-triage diagnose) to count them"
)


def gap_of(others: OtherSubmissions | None, req: DiagnosisRequest) -> Findings:
    """A stated gap when the name's other submissions could not be counted (and why); a note when a batch
    chose not to count them (nothing failed, so nothing is missing); else nothing."""
    found = Collect()
    if others is None and not req.count_others:
        found.note(SKIPPED_NOTE)
    elif others is not None and others.failed is None and others.why:
        found.missing("other submissions of this name", others.why, LIST)
    return found.done()
