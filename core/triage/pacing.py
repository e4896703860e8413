"""How often a live view (the picker's refresh, a followed diagnosis, `watch`) reads the tenant again, and how it
backs off. One pacer per view, shared by nothing else.

- One read per interval (5 s by default), each a single attempt (`polite()`, core.sources.retry): a view that
  reads again in a few seconds does not retry within a read, so a failing tenant sees one request per interval
  at most, never a burst of retries on top.
- The next read is timed from the end of the last one (a re-armed timer, never a fixed tick), so reads never
  overlap however slow the answers are.
- After a failed read (a 429, a 5xx, a timeout, anything) the wait doubles, up to MAX_BACKOFF_S, and is never
  shorter than the `Retry-After` the server asked for (up to MAX_RETRY_AFTER_S). The first good read brings
  the interval back.

No clock here: the caller measures time; this only says how long to wait. No Textual either.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from core.sources.retry import single_attempt

DEFAULT_INTERVAL_S = 5.0
MAX_BACKOFF_S = 300.0
# A server may ask for a long pause; it gets it, up to this (a longer one is more likely a mistake than a plan).
MAX_RETRY_AFTER_S = 900.0


@contextmanager
def polite() -> Iterator[None]:
    """The reads of one refresh: each sent once (the pacer, not the client, waits before the next)."""
    with single_attempt():
        yield


def retry_after_of(error: BaseException) -> float | None:
    """The seconds a failed read's `Retry-After` asked for (core.sources.errors.ApiError), if any."""
    value = getattr(error, "retry_after", None)
    return float(value) if isinstance(value, int | float) and value >= 0 else None


def status_of(error: BaseException) -> int | None:
    value = getattr(error, "status", None)
    return value if isinstance(value, int) else None


@dataclass
class Pacer:
    """The wait before the next read of one view. `interval_s` 0 means the view does not read by itself."""

    interval_s: float = DEFAULT_INTERVAL_S
    failures: int = 0
    last_wait_s: float = 0.0

    @property
    def on(self) -> bool:
        return self.interval_s > 0

    def succeeded(self) -> float:
        """A read went well: the next one after the interval."""
        self.failures = 0
        self.last_wait_s = self.interval_s
        return self.interval_s

    def failed(self, error: BaseException) -> float:
        """A read failed: the next one after twice the last wait (up to MAX_BACKOFF_S), and never before the
        server's `Retry-After`."""
        self.failures += 1
        # The exponent stops growing once the wait is at its ceiling: a tenant down for days (thousands of
        # failures) must not overflow a float.
        wait = min(MAX_BACKOFF_S, max(self.interval_s, 1.0) * 2 ** min(self.failures, 32))
        asked = retry_after_of(error)
        if asked is not None:
            wait = max(wait, min(asked, MAX_RETRY_AFTER_S))
        self.last_wait_s = wait
        return wait

    @property
    def backing_off(self) -> bool:
        return self.failures > 0

