"""What one part of a diagnosis found, as an immutable record, and the journal that gathers them in order.

A step function builds its `Findings` with a `Collect` and returns it inside its own typed record; it never
writes into another step's state. The orchestrator hands each record to the `Journal`, which keeps the cited
evidence (each text and source once), the stated gaps (each what and why once) and the notes, and announces
every new item as a progress event so a screen fills in as the answers arrive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from core.diagnosis.observations import Observation
from core.diagnosis.progress import EvidenceFound, MissingFound, ProgressEvent
from core.models.advice import Said
from core.models.report import EvidenceItem, MissingItem


@dataclass(frozen=True, slots=True)
class Findings:
    evidence: tuple[EvidenceItem, ...] = ()
    missing: tuple[MissingItem, ...] = ()
    notes: tuple[str | Said, ...] = ()  # a note that offers an action holds it as data
    shown: tuple[ProgressEvent, ...] = ()  # pane updates (containers, events, log, node, history, memory)


NOTHING = Findings()


@dataclass(slots=True)
class Collect:
    """A step's private builder for its Findings."""

    _evidence: list[EvidenceItem] = field(default_factory=list)
    _missing: list[MissingItem] = field(default_factory=list)
    _notes: list[str | Said] = field(default_factory=list)
    _shown: list[ProgressEvent] = field(default_factory=list)

    def evidence(self, text: str, source: str | None, signal: str | None = None) -> None:
        self._evidence.append(EvidenceItem(text=text, source=source, signal=signal))  # type: ignore[arg-type]

    def observed(self, observations: Iterable[Observation], signal: str | None = None) -> None:
        """Cite each observation; `signal` overrides the observation's own kind (e.g. "preempted")."""
        for obs in observations:
            self.evidence(obs.text, obs.source, signal or obs.kind.value)

    def missing(self, what: str, why: str, source: str | None = None) -> None:
        self._missing.append(MissingItem(what=what, why=why, source=source))

    def gap(self, item: MissingItem) -> None:
        self._missing.append(item)

    def note(self, text: str | Said) -> None:
        self._notes.append(text)

    def show(self, event: ProgressEvent) -> None:
        self._shown.append(event)

    def done(self) -> Findings:
        return Findings(tuple(self._evidence), tuple(self._missing), tuple(self._notes), tuple(self._shown))


class Journal:
    """Everything found so far, in the order found; new items are announced through `emit`."""

    def __init__(self, emit: Callable[[ProgressEvent], None]) -> None:
        self._emit = emit
        self.evidence: list[EvidenceItem] = []
        self.missing: list[MissingItem] = []
        self.notes: list[str | Said] = []
        self._cited: set[tuple[str, str | None]] = set()
        self._gaps: set[tuple[str, str]] = set()

    def take(self, found: Findings) -> None:
        for event in found.shown:
            self._emit(event)
        for item in found.evidence:
            key = (item.text, item.source)
            if key not in self._cited:
                self._cited.add(key)
                self.evidence.append(item)
                self._emit(EvidenceFound(item))
        for gap in found.missing:
            if (gap.what, gap.why) not in self._gaps:
                self._gaps.add((gap.what, gap.why))
                self.missing.append(gap)
                self._emit(MissingFound(gap))
        self.notes.extend(found.notes)
