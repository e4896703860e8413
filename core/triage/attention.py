"""The picker's "needs attention" view: Failed, Crashed and Stopped workloads, and Pending / Running / Degraded
ones whose status or events show a failing pod, newest first (or in the chosen order).

What the server can do, it does: the phases that never need a diagnosis are excluded with `phase!=` filter
items, so the server pages and counts the candidates. What it cannot: a list entry does not say whether a
Pending pod fails to pull its image or a Running one is in a crash loop. For those rows the judgement is the
engine's own scope check (the signals that keep a Pending or Running workload in scope at Step 1), read from
the list entry's phaseMessage and conditions first, then from the workload's recent events, one read per row.
A page is filled by reading candidates in server order until it holds enough rows, so the page boundaries of
this view are this module's, kept as server offsets.

A row whose events could not be read is kept and marked unconfirmed: a failed read is never taken for "nothing
wrong". No Textual here: the picker, `runai-triage scan` and the MCP server's `list_workloads` share it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from core.models.runai import Workload, WorkloadEvent
from core.sources.runai import MAX_LIMIT, filter_item

if TYPE_CHECKING:
    from core.diagnosis.observations import Observation
    from core.diagnosis.reader import Tier1
    from core.diagnosis.signals import SignalKind

# Every phase of the API's enum that can never need a failure diagnosis. The view sends one `phase!=` per
# phase (filterBy items are ANDed and there is no OR), so the server drops them and still pages and counts
# exactly; a phase outside the enum is kept and judged on the client.
QUIET_PHASES: tuple[str, ...] = (
    "Completed",
    "Succeeded",
    "Creating",
    "Initializing",
    "Resuming",
    "Updating",
    "Stopping",
    "Deleting",
    "Terminating",
    "Unknown",
)
ALWAYS = frozenset({"Failed", "Crashed", "Stopped"})


# The phases judged by the engine's Step 1 signals (`checked()`); every other phase is judged by its name alone.
SIGNAL_PHASES = ("Pending", "Running", "Degraded")


# The engine's Step 1 signals come from the engine, loaded when this view is first used rather than before the
# picker's first page (which never needs the engine).
@functools.cache
def checked() -> dict[str, frozenset[SignalKind]]:
    """The signals that keep a Pending, Running or Degraded workload in scope at Step 1, by phase."""
    from core.diagnosis.signals import SignalKind
    from core.diagnosis.steps.resolve import CRASH_KINDS, START_FAILURE_KINDS

    # A Pending workload whose pods the API server refuses to create waits forever too: it needs attention.
    pending = START_FAILURE_KINDS | {SignalKind.ADMISSION_DENIED}
    return {"Pending": pending, "Running": CRASH_KINDS, "Degraded": CRASH_KINDS}


def judging_loads_the_engine(workload: Workload) -> bool:
    """True when `judge_listed(workload)` would first load the engine's signals (tens of milliseconds of
    imports, once per process): a Pending / Running / Degraded row before anything has used them."""
    return (workload.phase or "") in SIGNAL_PHASES and checked.cache_info().currsize == 0


SOURCE = "get_workload_status"
# Recent events are enough to see a pod failing now; the engine reads more when it diagnoses.
EVENTS_PER_ROW = 50
PARALLEL_EVENT_READS = 8
# One page of this view reads at most this many list pages; the rest waits for the next `]`.
MAX_LIST_READS = 6


@dataclass(frozen=True, slots=True)
class Judgement:
    """Whether a row needs attention and why, in words for the row detail line."""

    keep: bool
    why: str
    confirmed: bool = True


@dataclass
class AttentionPage:
    start: int
    rows: list[Workload]
    why: dict[str, str]
    next_start: int | None
    scanned: int = 0
    event_reads: int = 0
    unconfirmed: int = 0
    unreadable: int = 0
    budget_hit: bool = False


@dataclass
class AttentionCache:
    """Judgements made from rows' events, keyed by id and phase change, so paging back reads nothing again (a
    row judged from its list entry alone is judged afresh each time: that costs no read)."""

    judged: dict[tuple[str, str], Judgement] = field(default_factory=dict)

    @staticmethod
    def key(workload: Workload) -> tuple[str, str]:
        return (workload.id or "", str(workload.phase_updated_at))


def attention_filters() -> list[str]:
    """The filterBy items that leave the server only the phases this view may keep."""
    return [filter_item("phase", "!=", phase) for phase in QUIET_PHASES]


def _wanted(observations: Sequence[Observation], wanted: frozenset[SignalKind]) -> Observation | None:
    return next((o for o in observations if o.kind in wanted), None)


def judge_listed(workload: Workload) -> Judgement | None:
    """A judgement from the list entry alone, or None when the row's events must be read to decide."""
    phase = workload.phase or ""
    if phase in ALWAYS:
        return Judgement(True, f"phase {phase}")
    if phase not in SIGNAL_PHASES:  # judged by its name: the engine's signals are not loaded for it
        return Judgement(False, f"phase {phase or '(none)'} does not need a failure diagnosis")
    wanted = checked()[phase]
    from core.diagnosis.observations import from_conditions, from_phase_message

    obs = from_phase_message(phase, workload.phase_message, SOURCE, workload.phase_updated_at)
    obs += from_conditions(workload.conditions, SOURCE)
    hit = _wanted(obs, wanted)
    if hit is not None:
        return _unless_recovered(workload, obs, Judgement(True, f"{phase}: its status shows {_words(hit.kind)}"))
    return None


def _unless_recovered(workload: Workload, obs: Sequence[Observation], judged: Judgement) -> Judgement:
    """A Running workload whose status says it runs again after its last crash does not need attention: the
    diagnosis routes it out the same way (core/diagnosis/recovery.py)."""
    phase = workload.phase or ""
    if phase == "Pending":
        return judged
    from core.diagnosis.recovery import recovered

    back = recovered(workload.conditions, obs, checked()[phase])
    if back is None:
        return judged
    return Judgement(False, f"{phase}: recovered, running again since {back.up_since.strftime('%H:%M:%S')} UTC "
                            f"after a crash at {back.crashed_at.strftime('%H:%M:%S')} UTC")


def judge_events(workload: Workload, events: Sequence[WorkloadEvent]) -> Judgement:
    phase = workload.phase or ""
    wanted = checked().get(phase, frozenset())
    from core.diagnosis.observations import from_event

    obs: list[Observation] = []
    for event in events:
        obs += from_event(event, SOURCE)
    hit = _wanted(obs, wanted)
    if hit is not None:
        return _unless_recovered(workload, obs, Judgement(True, f"{phase}: its events show {_words(hit.kind)}"))
    return Judgement(False, f"{phase}: no failing pod in its status or recent events")


def _words(kind: SignalKind) -> str:
    return kind.value.lower().replace("_", " ")


async def judge_by_events(client: Tier1, workload: Workload, gate: asyncio.Semaphore) -> Judgement:
    """The judgement of a Pending / Running / Degraded row from its recent events (one read, within `gate`)."""
    async with gate:
        try:
            page = await client.get_events(workload.id or "", limit=EVENTS_PER_ROW)
        except Exception as exc:  # a failed read keeps the row, marked unconfirmed, with the reason
            name = type(exc).__name__
            return Judgement(True, f"{workload.phase}: unconfirmed, its events could not be read ({name})", False)
    return judge_events(workload, page.items)


async def judge_rows(client: Tier1, rows: Sequence[Workload], requests: int) -> list[Judgement]:
    """Every row judged, in order: from its list entry, else from its recent events (`requests` reads at once)."""
    gate = asyncio.Semaphore(requests)
    listed = [judge_listed(w) for w in rows]
    reads = [judge_by_events(client, w, gate) for w, j in zip(rows, listed, strict=True) if j is None]
    read = iter(await asyncio.gather(*reads))
    return [j if j is not None else next(read) for j in listed]


async def read_attention_page(
    client: Tier1,
    filters: list[str],
    sort_by: str,
    sort_order: str,
    start: int,
    want: int,
    cache: AttentionCache,
    *,
    max_list_reads: int = MAX_LIST_READS,
) -> AttentionPage:
    """Up to `want` rows that need attention, reading candidates in server order from offset `start`, in at most
    `max_list_reads` list reads (a refresh of the page on screen makes one)."""
    page = AttentionPage(start, [], {}, None)
    gate = asyncio.Semaphore(PARALLEL_EVENT_READS)
    offset: int | None = start
    batch = min(MAX_LIMIT, max(2 * want, 50))
    from_entry: dict[tuple[str, str], Judgement] = {}
    for _ in range(max_list_reads):
        if offset is None:
            break
        listed = await client.list_workloads(
            filters=filters, sort_by=sort_by, sort_order=sort_order, offset=offset, limit=batch
        )
        page.unreadable += len({p.index for p in listed.problems})
        candidates = [w for w in listed.items if w.id]
        # Judged in windows of one page's worth, so no events are read for rows past the page's end.
        for begin in range(0, len(candidates), want):
            window = candidates[begin : begin + want]
            needs_events: list[Workload] = []
            for w in window:
                # A list entry is judged afresh every time (its status may have changed under the same phase
                # change time, as when a Running pod starts crash-looping); only an events read is kept.
                listed_judgement = judge_listed(w)
                if listed_judgement is not None:
                    from_entry[cache.key(w)] = listed_judgement
                elif cache.key(w) not in cache.judged:
                    needs_events.append(w)
            read = await asyncio.gather(*(judge_by_events(client, w, gate) for w in needs_events))
            page.event_reads += len(needs_events)
            for w, judgement in zip(needs_events, read, strict=True):
                cache.judged[cache.key(w)] = judgement
            for index, w in enumerate(window):
                page.scanned += 1
                judgement = from_entry.get(cache.key(w)) or cache.judged[cache.key(w)]
                if judgement.keep:
                    page.rows.append(w)
                    page.why[w.id or ""] = judgement.why
                    page.unconfirmed += 0 if judgement.confirmed else 1
                if len(page.rows) >= want:
                    consumed = begin + index + 1
                    last_on_page = consumed >= len(candidates)
                    page.next_start = listed.next if last_on_page else offset + _position(listed.items, w) + 1
                    return page
        offset = listed.next
    page.next_start = offset
    page.budget_hit = offset is not None
    return page


def _position(items: Sequence[Workload], workload: Workload) -> int:
    # The server offset of a row is its index in the list page (rows without an id still take a place).
    return next(i for i, item in enumerate(items) if item is workload)
