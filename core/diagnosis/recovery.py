"""A running workload that crashed and came back: its crash is history, not a failure to diagnose now.

A Running (or Degraded) workload is in scope when its status or events show a crash (Step 1). A server that
crashed once and restarted cleanly still has that crash among its recent events, yet its own status has moved
on: the workload's `Available` (or `Ready`) condition turned True after the last crash. Then nothing is failing
now; the diagnosis routes it out as running and says when it crashed and since when it runs again, and the
picker, `scan` and `watch` judge it the same way (core/triage/attention.py), so they never disagree about it.

A crash signal with no time, or one at or after the condition's turn, keeps the workload in scope: a crash loop
that is merely between two restarts is not a recovery.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from core.diagnosis.observations import Observation
from core.diagnosis.signals import SignalKind
from core.models.runai import Condition
from core.plural import duration

UP_CONDITIONS = frozenset({"available", "ready"})


@dataclass(frozen=True, slots=True)
class Recovery:
    crashed_at: datetime  # the last crash (or back-off) the evidence shows
    up_since: datetime  # when the status said it serves again


def recovered(
    conditions: Iterable[Condition] | None, observations: Sequence[Observation], crash_kinds: Collection[SignalKind]
) -> Recovery | None:
    """The recovery the status shows after every crash the observations hold, or None."""
    ups = [
        c.last_transition_time
        for c in conditions or ()
        if (c.type or "").lower() in UP_CONDITIONS and (c.status or "").lower() == "true" and c.last_transition_time
    ]
    crashes = [o for o in observations if o.kind in crash_kinds]
    if not ups or not crashes or any(o.at is None for o in crashes):
        return None
    up = max(t for t in ups if t is not None)
    last = max(o.at for o in crashes if o.at is not None)
    return Recovery(last, up) if last < up else None


def recovery_words(phase: str, found: Recovery) -> str:
    """`Running again since 2026-11-30 12:01:35 UTC, 18 s after its last crash: nothing is failing now (...)`."""
    after = duration((found.up_since - found.crashed_at).total_seconds())
    return (
        f"{phase} again since {found.up_since.strftime('%Y-%m-%d %H:%M:%S UTC')}, {after} after its last crash: "
        "nothing is failing now (its status condition Available turned True)"
    )
