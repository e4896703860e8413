"""The time budget of one diagnosis, visible to every read made on its behalf.

A diagnosis makes dozens of reads, some one after the other (history pages), each with its own deadline; the
budget bounds their sum. It lives in a context variable, so the engine sets it once (``with time_budget(s):``)
and every read below sees it without being handed it: asyncio tasks copy the context when they are created and
``asyncio.to_thread`` runs the Kubernetes reads in a copy too. Each read takes the smaller of its own deadline
and what is left of the budget; once the budget is spent a read fails at once with a timeout that says so,
and the diagnosis reports it as a missing read like any other.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# The default for one whole diagnosis. Every read also has its own deadline (a Run:ai read 30 s per attempt and
# 60 s with its retries, a Kubernetes read 20 s), so the budget only matters when many reads are slow.
DIAGNOSIS_BUDGET_S = 120.0

_deadline: ContextVar[tuple[float, float] | None] = ContextVar("runai_triage_budget", default=None)


@contextmanager
def time_budget(seconds: float = DIAGNOSIS_BUDGET_S) -> Iterator[None]:
    """Reads made inside this block (and in tasks and threads started from it) share ``seconds`` in all.

    A budget inside another never extends it: the earlier end wins.
    """
    if not seconds > 0:
        raise ValueError(f"a time budget must be positive, got {seconds!r}")
    end = time.monotonic() + seconds
    outer = _deadline.get()
    if outer is not None and outer[0] <= end:
        end, seconds = outer
    token = _deadline.set((end, seconds))
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float | None:
    """Seconds left of the current budget (possibly negative), or None outside any budget."""
    current = _deadline.get()
    return None if current is None else current[0] - time.monotonic()


def total() -> float | None:
    """The length of the current budget in seconds, or None outside any budget (for messages)."""
    current = _deadline.get()
    return None if current is None else current[1]
