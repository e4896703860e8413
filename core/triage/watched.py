"""A watched failure as the deliveries take it (core.notify.deliveries `Failure`): its key, when it happened,
what a cool-down and a storm's list know it by, and its texts, each made only when a destination needs it: the
entry as stdout prints it, its own chat post, and the cause it may share with others (core.triage.storm_cause)
with what a storm's posts say of that cause.

core.notify never imports the engine, so the deliveries see a failure only through this: keyed opaquely.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from core.models.runai import Workload
from core.safety.untrusted import clean
from core.triage.chat_storm import storm_facts
from core.triage.entry_render import chat_text, render, top_line
from core.triage.scan import ScanEntry
from core.triage.storm_cause import Cause, cause_of
from core.triage.watch import failure_key
from core.usage import Namer


@dataclass(frozen=True, slots=True)
class Wording:
    """How one watch says its failures: the format stdout gets (core.triage.entry_render `render`), the command
    a post names to print the whole report, what a storm's first post says to run (None: that command), and how
    a report names the options it mentions (`name`: the command line's flags; None, plain words)."""

    fmt: str
    command: Callable[[ScanEntry], str]
    storm_command: Callable[[Cause, ScanEntry], str] | None = None
    name: Namer | None = None

    def of(self, entry: ScanEntry, key: str) -> Watched:
        return Watched(entry, key, self)


@dataclass(frozen=True, slots=True)
class Watched:
    entry: ScanEntry
    key: str
    wording: Wording

    @property
    def when(self) -> float:
        """Its phase change, epoch seconds (0 when the tenant did not say)."""
        at = self.entry.workload.phase_updated_at
        return at.timestamp() if at else 0.0

    @property
    def subject(self) -> str:
        """What a cool-down is kept per: the workload."""
        return self.entry.workload.id or self.key

    @property
    def name(self) -> str:
        w = self.entry.workload
        return clean(w.name or w.id or "a workload", one_line=True, max_len=80)

    @property
    def project(self) -> str:
        return clean(self.entry.workload.project_name or "no project", one_line=True, max_len=80)

    @property
    def label(self) -> str:
        return self.entry.label

    def printed(self) -> str:
        return render(self.entry, self.wording.fmt, self.wording.name)

    def post(self, dialect: str, repeats: int) -> str:
        return chat_text(self.entry, dialect, self.wording.command(self.entry), self.key, repeats)

    def shared(self) -> tuple[str, dict[str, str]] | None:
        """(the cause's key, what a storm's posts say of it), or None: the failure shares no cause."""
        entry, wording = self.entry, self.wording
        cause = cause_of(entry.verdict.report)
        if cause is None:
            return None
        why, sources = top_line(entry)
        report = entry.verdict.report
        do = report.recommendations[0] if report is not None and report.recommendations else None
        command = wording.storm_command(cause, entry) if wording.storm_command is not None else wording.command(entry)
        return cause.key, storm_facts(cause, why, sources, do, command)


def v1_key(cluster_id: str, workload_id: str, when: datetime | None) -> str:
    """The key of a failure a version 1 state file recorded as (workload id, phase change)."""
    return failure_key(cluster_id, Workload.model_validate({"id": workload_id, "phaseUpdatedAt": when}))
