"""The live tenant's clock: the capture instant of the demo, moving on from there.

A live clock reads `start + (wall() - epoch) * speed`. Two processes given the same start and epoch read the
same moment, so the app and its simulator agree on "now" without talking. `SteppedClock` stands still until a
test moves it, so a test decides exactly when each workload crashes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]


def live_clock(start: datetime, epoch: float, speed: float = 1.0, wall: Callable[[], float] = time.time) -> Clock:
    """A clock that read `start` at wall time `epoch` and runs `speed` times as fast as the wall clock."""
    origin = start if start.tzinfo is not None else start.replace(tzinfo=UTC)

    def now() -> datetime:
        return origin + timedelta(seconds=(wall() - epoch) * speed)

    return now


class SteppedClock:
    """A clock that moves only when told (`advance`), for tests and benchmarks."""

    def __init__(self, start: datetime) -> None:
        self._now = start if start.tzinfo is not None else start.replace(tzinfo=UTC)

    def __call__(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> datetime:
        self._now += timedelta(seconds=seconds)
        return self._now
