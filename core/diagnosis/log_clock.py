"""A log's own timestamps against the end of the container instance that wrote it.

Kubernetes gives a container's end (`finishedAt`) in whole seconds while a log stamps milliseconds, so the end
is compared at the API's resolution: a line stamped within the container's last second (`11:32:12,411` against
`11:32:12Z`) is not later than it. A stamp without a zone is read as UTC; a service that logs in local time
then has every line hours "after" its end (less than the smallest zone offset after it is a clock that is off,
not local time). Stamps without a year are given theirs first (log_yearless.py).

The log of the instance that ended then (`--previous`, or the current one of a container that never restarted)
cannot hold a line written after that end: its lines are never dropped for their stamps. When some read later,
the stamps are on another clock (local time without a zone) or the container restarted between the read of
the pod and the read of its log; the lines are read and the report says why. Only a log not known to be that
instance's (the current one, read against the workload's failure time) loses the lines stamped after the end,
unless every stamped line is, or one reads later than the moment the log was read: then it is the clock, not the
lines, that is off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core.diagnosis.crash_loop import span
from core.plural import plural

# A stamp this much later than the moment the log was read is on another clock: more than a read's delay or
# two machines' drift, less than any zone's offset from UTC (the smallest are 30 min).
FUTURE_MARGIN = timedelta(minutes=15)
# The smallest offset of a zone from UTC: a zone-less stamp read later than this is likely local time.
ZONE_OFFSET = timedelta(minutes=30)


@dataclass(frozen=True, slots=True)
class Stamp:
    """One line's own timestamp; `zoneless` when the log gave no zone and it was read as UTC."""

    at: datetime
    zoneless: bool


@dataclass(frozen=True, slots=True)
class Clock:
    """How a log's stamps compared with its container's end, when some read later than it."""

    end: datetime  # the container's end as the API gave it
    late: int  # lines whose stamp (own or inherited) reads after the end's last second
    stamped: int  # lines with a stamp of their own
    late_stamped: int  # of those, the ones that read later
    zoneless: bool  # a late stamp carried no zone
    ahead: timedelta  # how far the latest stamp reads past the end
    kept: bool  # the late lines were read anyway
    own: bool  # the end is that of the instance the log is from (else the workload's failure)
    future: bool = False  # a stamp reads later than the moment the log was read: it cannot be on this clock

    @property
    def all_late(self) -> bool:
        return self.stamped > 0 and self.late_stamped == self.stamped

    def text(self) -> str:
        """Why the late lines were read (or left out), for the log's evidence or a note."""
        lines = "every stamped line" if self.all_late else plural(self.late, "line")
        end = "the container's end" if self.own else "the failure"
        verb = "reads" if self.all_late or self.late == 1 else "read"
        reads = f"{lines} {verb} later than {end} ({self.end.isoformat()})"
        reads += f", the last by {span(self.ahead)}"
        if not self.kept:
            return f"{reads}: left out, as written after it"
        if self.zoneless and self.ahead >= ZONE_OFFSET:
            why = "the stamps carry no zone (read as UTC), so it likely logs in local time"
        else:
            why = "its clock is off, or the container restarted between the read of the pod and that of its log"
        if self.own:
            anyway = "no line of the instance that ended can come after its end"
        elif self.future:
            anyway = "no line can be written after the log was read"
        else:
            anyway = "it holds no older one"
        return f"{reads}: {why}; read anyway, as {anyway}"


def end_of_second(before: datetime) -> datetime:
    """The first instant after `before`'s second: the end compared at the resolution the API gives it."""
    if before.tzinfo is None:
        before = before.replace(tzinfo=UTC)
    return before.replace(microsecond=0) + timedelta(seconds=1)


def judge(
    stamps: Sequence[Stamp | None], before: datetime | None, *, own: bool, read_at: datetime | None = None
) -> tuple[list[bool], Clock | None]:
    """Which lines to leave out (True) for reading later than `before`, and what was seen (None when no line
    reads later). A line without a stamp of its own carries the last one before it. `own`: the log is of the
    instance that ended at `before`; `read_at`: when the log was read (no stamp on this clock can be later)."""
    drop = [False] * len(stamps)
    if before is None:
        return drop, None
    before = before if before.tzinfo is not None else before.replace(tzinfo=UTC)
    end = end_of_second(before)
    current: Stamp | None = None
    late = stamped = late_stamped = 0
    zoneless = False
    latest: datetime | None = None
    for index, stamp in enumerate(stamps):
        if stamp is not None:
            current = stamp
            stamped += 1
        if current is None or current.at < end:
            continue
        drop[index] = True
        late += 1
        if stamp is not None:
            late_stamped += 1
            zoneless = zoneless or stamp.zoneless
            latest = stamp.at if latest is None or stamp.at > latest else latest
    if not late or latest is None:
        return [False] * len(stamps), None
    if read_at is not None and read_at.tzinfo is None:
        read_at = read_at.replace(tzinfo=UTC)
    future = read_at is not None and latest > read_at + FUTURE_MARGIN
    kept = own or future or late_stamped == stamped
    clock = Clock(before, late, stamped, late_stamped, zoneless, latest - before, kept, own, future)
    return ([False] * len(stamps) if kept else drop), clock
