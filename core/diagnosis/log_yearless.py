"""Log stamps with a month and a day but no year and no zone, and the year only what was measured can give them.

glog writes `E1205 12:34:56.789012   12345 file.cc:123] ` (C++ and Python absl: TensorFlow, JAX, XLA, PyTorch's
c10d, Kubernetes components), vLLM `INFO 12-05 12:34:56 [engine.py:123] `. The year comes from the run of the
container instance that wrote the log, as its pod status gives it: its `startedAt` to its `finishedAt` (to the
moment the log was read while it still runs). A stamp is read in the one year that puts it inside that run, give
or take SKEW. The stamps of one log are one clock's: when any of them falls outside the run whatever its year
(glog writes the container's local time, and not every container runs on UTC), or the run is too long to tell
one year from the next, or not known, none is read as a time and the log's evidence says why (`Unread`). Once a
year is found, they are what any stamp without a zone is here (log_clock.py): read as UTC, marked zone-less.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from core.diagnosis.crash_loop import span
from core.diagnosis.log_clock import FUTURE_MARGIN, Stamp

# How far outside its container's run a stamp may read: a read's delay or two machines' drift, less than any
# zone's offset from UTC (log_clock.py's margin for a stamp later than the read).
SKEW = FUTURE_MARGIN
# A run this long can hold the same month and day twice: the year cannot be told.
_YEAR = timedelta(days=365)


@dataclass(frozen=True, slots=True)
class Yearless:
    """A month, a day and a time of day, as the log wrote them."""

    month: int
    day: int
    clock: time

    def in_year(self, year: int) -> datetime | None:
        """This stamp in `year`, as UTC; None when that year has no such day (29 February)."""
        try:
            return datetime.combine(date(year, self.month, self.day), self.clock, tzinfo=UTC)
        except ValueError:
            return None


def yearless(month: str, day: str, clock: str, frac: str | None) -> Yearless | None:
    """The stamp of a matched prefix, or None when it names no moment (`E9999 99:99:99`): the month must have
    the day in some year, the time must exist (a leap second's :60 is not read)."""
    try:
        date(2000, int(month), int(day))  # a leap year: 29 February is a day
        hours, minutes, seconds = (int(part) for part in clock.split(":"))
        micro = int(frac[:6].ljust(6, "0")) if frac else 0
        return Yearless(int(month), int(day), time(hours, minutes, seconds, micro))
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Window:
    """When the container instance whose log was read ran: `start` its startedAt (else its pod's start), `end`
    its finishedAt, else the moment its log was read (`running`). None: not known."""

    start: datetime | None
    end: datetime | None
    running: bool = False

    def text(self) -> str:
        start = self.start.isoformat() if self.start is not None else "an unknown start"
        end = self.end.isoformat() if self.end is not None else "an unknown end"
        until = f"the read of its log at {end}" if self.running else end
        return f"{start} to {until}"


@dataclass(frozen=True, slots=True)
class Unread:
    """A log's stamps without a year that were not read as times, and why."""

    stamps: int  # the log's stamps without a year
    outside: int  # of those, the ones no year puts inside the run (0 when the run itself cannot date them)
    window: Window | None

    def text(self) -> str:
        """Why the stamps are not times, for the log's evidence."""
        one = self.stamps == 1
        what = f"its {'stamp' if one else f'{self.stamps} stamps'} without a year (month and day only)"
        unread = f"{what} {'was not read as a time' if one else 'were not read as times'}"
        window = self.window
        if window is None or window.start is None or window.end is None:
            return f"{unread}: the pod does not say when this container instance ran"
        start, end = as_utc(window.start), as_utc(window.end)
        if start > end:
            return (
                f"{unread}: the pod gives this container instance a start ({start.isoformat()}) later than its "
                f"end ({end.isoformat()}), so its run cannot date {'it' if one else 'them'}"
            )
        if self.outside == 0:
            return (
                f"{unread}: the container ran from {window.text()}, a year or more, so a month and day could be "
                "of either year"
            )
        which = "it falls" if one else "they fall" if self.outside == self.stamps else f"{self.outside} fall"
        return (
            f"{unread}: {which} outside the container's run ({window.text()}, give or take {span(SKEW)}) "
            "whatever the year, so the log likely keeps local time or another clock"
        )


def as_utc(moment: datetime) -> datetime:
    """A moment without a zone read as UTC, as every zone-less time here is."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _bounds(window: Window | None) -> tuple[datetime, datetime] | None:
    """The earliest and latest moment a stamp of this run may read; None when the run cannot date a stamp."""
    if window is None or window.start is None or window.end is None:
        return None
    start, end = as_utc(window.start), as_utc(window.end)
    if start > end or end - start >= _YEAR - 2 * SKEW:  # a run that ends before it starts dates nothing
        return None
    try:
        low = start - SKEW
    except OverflowError:  # a start at the calendar's first day: no stamp reads earlier
        low = start
    try:
        high = end + SKEW
    except OverflowError:
        high = end
    return low, high


def _placed(stamp: Yearless, low: datetime, high: datetime) -> datetime | None:
    """The stamp in the one year that puts it between `low` and `high` (less than a year apart), else None."""
    for year in range(high.year, low.year - 1, -1):
        at = stamp.in_year(year)
        if at is not None and low <= at <= high:
            return at
    return None


def place(stamps: Sequence[Stamp | Yearless | None], window: Window | None) -> tuple[list[Stamp | None], Unread | None]:
    """Every line's stamp, those without a year given theirs from `window` (zone-less, read as UTC), and why
    they were not when they could not be. All or none: a log's stamps are one clock's."""
    out = [stamp if isinstance(stamp, Stamp) else None for stamp in stamps]
    partial = [(index, stamp) for index, stamp in enumerate(stamps) if isinstance(stamp, Yearless)]
    if not partial:
        return out, None
    bounds = _bounds(window)
    if bounds is None:
        return out, Unread(len(partial), 0, window)
    found = [(index, _placed(stamp, *bounds)) for index, stamp in partial]
    outside = sum(1 for _, at in found if at is None)
    if outside:
        return out, Unread(len(partial), outside, window)
    for index, at in found:
        out[index] = Stamp(at, zoneless=True) if at is not None else None
    return out, None
