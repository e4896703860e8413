"""How often the picker reads its page again, and what the header says of it, as a plain object the screen calls.

One read per interval (core.triage.pacing): the screen re-arms its timer when the last read ended, so two never
overlap; a failed read (429, 5xx, anything) doubles the wait and honours `Retry-After`. The interval is
`--refresh`, else the saved setting (`:` "refresh every ..."), else 5 s for a tenant that can change; a recorded
case or the still demo describes one moment, so it is read again only when asked (r).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from core.triage.pacing import DEFAULT_INTERVAL_S, Pacer, status_of
from tui.screens.problem import describe_error

if TYPE_CHECKING:
    from core.tenant import Tenant

# The intervals `:` offers.
CHOICES_S = (2.0, 5.0, 10.0, 30.0, 60.0)


def refresh_interval(flag: float | None, saved: float | None, tenant: Tenant) -> float:
    """Seconds between reads of the picker's page: `--refresh`, else the saved setting, else 5 s; 0 (off) for a
    tenant that cannot change (a recorded case, the still demo) unless `--refresh` says otherwise."""
    if flag is not None:
        return flag
    if tenant.captured_at is not None and tenant.live_clock is None:
        return 0.0
    return saved if saved is not None else DEFAULT_INTERVAL_S


def short_reason(error: BaseException) -> str:
    """A failed read in a few words for the header: its HTTP status, else what kind of failure it was."""
    status = status_of(error)
    return f"HTTP {status}" if status is not None else describe_error(error).title.lower()


def every(seconds: float) -> str:
    return "never (r reads it)" if seconds <= 0 else f"every {seconds:g} s"


class RefreshPace:
    """The interval, the last read and the last failure of the page's refresh."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.pacer = Pacer(seconds)
        self.read_at: datetime | None = None
        self.problem: str | None = None  # the last refresh failed: what and when the next try is
        self.paused: str | None = None  # why the refresh waits (the user types, a list is open, ...)

    @property
    def on(self) -> bool:
        return self.pacer.on

    @property
    def interval_s(self) -> float:
        return self.pacer.interval_s

    def read(self, now: datetime) -> None:
        """A read was shown: the interval starts again, and the header says when."""
        self.pacer.succeeded()
        self.problem = None
        self.read_at = now

    def failed(self, error: BaseException, *, said: bool = True) -> float:
        """A read failed: the seconds to wait before the next (`said`: the header says so)."""
        wait = self.pacer.failed(error)
        if said:
            self.problem = f"refresh failed ({short_reason(error)}), retry in {wait:.0f} s"
        return wait

    def stale(self, now: datetime) -> bool:
        """More than an interval since the page was read (or never read)."""
        return self.read_at is None or (now - self.read_at).total_seconds() >= self.pacer.interval_s

    def state(self) -> str:
        """The header's account of the list: when it was read, how often, and a refresh that failed."""
        if not self.pacer.on:
            return ""
        read = f"read {self.read_at.strftime('%H:%M:%S')} UTC" if self.read_at else "not read yet"
        if self.problem:  # first, so a narrow header still says it; the rows are those read before
            return f"{self.problem} · rows {read}"
        return " · ".join([read, self.paused or every(self.pacer.interval_s)])
