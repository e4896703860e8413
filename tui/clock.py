"""The app's notion of "now", injectable so relative times are testable and snapshots are stable.

A demo or case tenant describes a fixed moment (its `capturedAt`), so its clock is frozen there; a real tenant
uses the wall clock.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def frozen_clock(at: datetime) -> Clock:
    """A clock that always answers `at` (made timezone-aware as UTC when it is naive)."""
    instant = at if at.tzinfo is not None else at.replace(tzinfo=UTC)

    def now() -> datetime:
        return instant

    return now


def relative_time(then: datetime | None, now: datetime) -> str:
    """`then` as a short age such as "45s ago", "5m ago", "3d ago"; a date once older than 30 days.

    A time ahead of `now` by more than a minute (clock skew) is said as "in 5m" rather than hidden, and a
    missing time is "unknown": the table never guesses one.
    """
    if then is None:
        return "unknown"
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    seconds = (now - then).total_seconds()
    if seconds < -60:
        return f"in {_span(-seconds)}"
    seconds = max(seconds, 0.0)
    if seconds >= 30 * 86400:
        return then.astimezone(UTC).strftime("%Y-%m-%d")
    return f"{_span(seconds)} ago"


def _span(seconds: float) -> str:
    if seconds < 60:
        return f"{int(seconds)}s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    return f"{int(seconds // 86400)}d"
