"""Step 3: the lookback's history as a timeline, cut into failure occurrences for the recurrence count.

An occurrence is one failure of the workload: one transition into an ending phase (Failed, Crashed, Stopped),
or one continuous failing episode of a workload that is still trying (a pod that cannot start). Every record
describing it (the phase update, the events before it, back-off events repeated a hundred times, a late event
a minute after) belongs to that one occurrence, so it counts once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from operator import itemgetter

from core.diagnosis.marks import Mark, event_mark, running_mark
from core.diagnosis.observations import Observation, classified_event, from_phase_message, quote
from core.diagnosis.signals import SignalKind
from core.models.gc_pause import gc_paused
from core.models.history_compact import CompactRecord, CompactSpec
from core.models.report import HistoryEntry
from core.models.runai import HistoryRecord, HistorySpec
from core.plural import plural

SOURCE = "get_workload_history"
# The client reads a workload's history compact; a record as the API models parse it is analysed alike.
AnyRecord = HistoryRecord | CompactRecord
ENDING_PHASES = frozenset({"Failed", "Crashed", "Stopped"})
# Events reported shortly after the phase change still describe the failure that caused it.
LATE_EVENT_GRACE = timedelta(minutes=2)
# Kinds that show a failure on their own; a lone SIGTERM or crash-loop back-off needs more to be counted.
FAILING_KINDS = frozenset(
    {
        SignalKind.OOM_KILLED,
        SignalKind.NODE_OOM_KILLING,
        SignalKind.IMAGE_PULL,
        SignalKind.INIT_FAILED,
        SignalKind.MOUNT_FAILED,
        SignalKind.CREATE_CONTAINER_CONFIG_ERROR,
        SignalKind.START_ERROR,
        SignalKind.APP_EXIT,
        SignalKind.GPU_OOM,
        SignalKind.CRASH_LOOP,
        SignalKind.LIVENESS_KILL,
        SignalKind.EVICTED,
        SignalKind.NODE_LOST,
        SignalKind.NODE_NOT_READY,
        SignalKind.SANDBOX_FAILED,
        SignalKind.SIGKILLED,
    }
)


@dataclass
class Occurrence:
    index: int
    start: datetime | None
    end: datetime | None  # the ending phase update; None while the episode is still open
    phase: str | None
    run_start: datetime | None = None  # last transition into Running inside the episode
    observations: list[Observation] = field(default_factory=list)
    # What shows a step of the start done (a move to Running, an image pulled, a container started): a signal
    # a later mark took back is history (core/diagnosis/supersede.py).
    marks: list[Mark] = field(default_factory=list)
    category: str | None = None
    routed: str | None = None  # "preempted" when this one was a preemption, not a failure

    @property
    def open(self) -> bool:
        return self.end is None

    @property
    def at(self) -> datetime | None:
        """When it happened: the ending phase change, or the newest record of an open episode."""
        if self.end is not None:
            return self.end
        times = [obs.at for obs in self.observations if obs.at is not None]
        return max(times) if times else self.start


@dataclass
class HistoryAnalysis:
    records: int
    timeline: list[TimelineEntry]
    occurrences: list[Occurrence]  # oldest first; the last may be open
    problems: list[str]
    earliest: datetime | None
    covers_cutoff: bool  # True when the records reach back to the cutoff (or the workload's start)


@dataclass(slots=True)
class TimelineEntry:
    """One line of the timeline; a plain object because a lookback can hold tens of thousands of them.
    The report converts the part it keeps to `HistoryEntry` (same fields)."""

    at: datetime | None
    kind: str  # "phase" | "event"
    text: str
    failure: bool = False
    occurrence: int | None = None

    def to_report(self) -> HistoryEntry:
        return HistoryEntry(
            at=self.at, kind=self.kind, text=self.text, failure=self.failure, occurrence=self.occurrence
        )  # type: ignore[arg-type]


@functools.lru_cache(maxsize=8192)
def _phase_line(phase: str | None, message: str | None) -> str:
    text = f"Phase -> {quote(phase, 40) if phase else '(unknown)'}"
    return text + f": {quote(message, 200)}" if message else text


def _stamped(
    stamped: Sequence[tuple[datetime | None, AnyRecord]],
) -> tuple[list[tuple[datetime, HistorySpec | CompactSpec | None]], list[str]]:
    """The dated records, each once (a record read twice across pages counts once), oldest first, as their
    time and spec (all the timeline reads of a record), and the problem of any left out for having no time."""
    problems: list[str] = []
    seen: set[tuple[object, ...]] = set()
    kept: list[tuple[datetime, HistorySpec | CompactSpec | None]] = []
    undated = 0
    for at, record in stamped:
        if at is None:
            undated += 1
            continue
        meta, spec = record.meta, record.spec
        event = update = None
        if spec is not None:
            event, update = spec.event, spec.phase_update
        key = (
            meta.type if meta is not None else None,
            at,
            event.id if event is not None else None,
            event.reason if event is not None else None,
            event.message if event is not None else None,
            update.phase if update is not None else None,
            update.phase_message if update is not None else None,
        )
        if key in seen:
            continue
        seen.add(key)
        kept.append((at, spec))
    if undated:
        problems.append(f"{plural(undated, 'history record')} without a usable timestamp left out of the timeline")
    kept.sort(key=itemgetter(0))  # stable: records of one instant keep their order
    return kept, problems


def analyse_history(
    records: Sequence[AnyRecord], *, cutoff: datetime, current_phase: str | None
) -> HistoryAnalysis:
    return analyse_stamped(
        [(record.timestamp, record) for record in records], cutoff=cutoff, current_phase=current_phase
    )


def analyse_stamped(
    stamped: Sequence[tuple[datetime | None, AnyRecord]], *, cutoff: datetime, current_phase: str | None
) -> HistoryAnalysis:
    """``analyse_history`` of records paired with their ``timestamp`` (a computed property: a caller that has
    read it already passes it on rather than have a long history read it again)."""
    # Building the timeline of a long history allocates as many small objects again as its records, none of
    # them in a reference cycle: the collector would only walk every record, again and again.
    with gc_paused():
        return _analyse(stamped, cutoff=cutoff, current_phase=current_phase)


def _analyse(
    stamped: Sequence[tuple[datetime | None, AnyRecord]], *, cutoff: datetime, current_phase: str | None
) -> HistoryAnalysis:
    ordered, problems = _stamped(stamped)
    timeline: list[TimelineEntry] = []
    occurrences: list[Occurrence] = []
    episode = Occurrence(index=0, start=ordered[0][0] if ordered else None, end=None, phase=None)
    last_closed: Occurrence | None = None
    phase_since_close = False
    # The same citation always carries the same signals: whether they fail, and its timeline line, once each.
    by_text: dict[str, tuple[bool, str]] = {}

    for at, spec in ordered:
        if spec is not None and spec.phase_update is not None:
            phase = spec.phase_update.phase
            message = spec.phase_update.phase_message
            obs = from_phase_message(phase, message, SOURCE, at, label="Phase update")
            text = _phase_line(phase if isinstance(phase, str) else None, message if isinstance(message, str) else None)
            if phase in ENDING_PHASES:
                if last_closed is not None and not phase_since_close:
                    # Stopping -> Stopped, or Failed reported twice: the same ending.
                    last_closed.observations.extend(obs)
                    timeline.append(
                        TimelineEntry(at=at, kind="phase", text=text, failure=True, occurrence=last_closed.index)
                    )
                    continue
                episode.end, episode.phase = at, phase
                episode.observations.extend(obs)
                occurrences.append(episode)
                timeline.append(TimelineEntry(at=at, kind="phase", text=text, failure=True, occurrence=episode.index))
                last_closed, phase_since_close = episode, False
                episode = Occurrence(index=len(occurrences), start=at, end=None, phase=None)
                continue
            phase_since_close = True
            if phase == "Running":
                episode.run_start = at
                episode.marks.append(running_mark(at, SOURCE))
            episode.observations.extend(obs)
            timeline.append(TimelineEntry(at=at, kind="phase", text=text))
            continue
        event = spec.event if spec is not None else None
        if event is None:
            continue
        signals, text, pod, node = classified_event(event, "History event")
        known = by_text.get(text)
        if known is None:
            failing = any(signal.kind in FAILING_KINDS for signal in signals)
            known = by_text[text] = (failing, text.replace("History event", "Event", 1))
        failing, line = known
        late = (
            last_closed is not None
            and not phase_since_close
            and last_closed.end is not None
            and at - last_closed.end <= LATE_EVENT_GRACE
        )
        target = last_closed if late and last_closed is not None else episode
        if signals:
            event_at = event.created_at
            target.observations.extend([Observation(sig, SOURCE, event_at, text, pod, node) for sig in signals])
        else:
            obj = event.involved_object
            mark = event_mark(event.reason, event.message, event.created_at, SOURCE, obj.kind if obj else None,
                              obj.name if obj else None)
            if mark is not None:
                target.marks.append(mark)
        timeline.append(TimelineEntry(at, "event", line, failing, target.index if (failing or late) else None))

    # A still-running workload that keeps failing to start or keeps crashing is one open occurrence.
    if current_phase not in ENDING_PHASES and any(o.kind in FAILING_KINDS for o in episode.observations):
        occurrences.append(episode)

    earliest = ordered[0][0] if ordered else None
    return HistoryAnalysis(
        records=len(ordered),
        timeline=timeline,
        occurrences=occurrences,
        problems=problems,
        earliest=earliest,
        covers_cutoff=earliest is not None and earliest <= cutoff,
    )


def in_window(occurrence: Occurrence, cutoff: datetime) -> bool:
    at = occurrence.at
    return at is not None and at >= cutoff
