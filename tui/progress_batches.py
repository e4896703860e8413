"""Engine progress handed to the screen in small batches, so a burst of events costs one repaint, not one each.

A diagnosis announces dozens of events, often several within a few milliseconds (a read finishing, the
evidence and gaps it gives, a step ending). Posted one message each, every one of them could set off a layout
and repaint of the whole diagnosis screen in between. Here the events wait at most `FLUSH_S` and go together;
the verdict goes at once (with whatever waited before it), so nothing waits for the timer at the end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from core.diagnosis.progress import ProgressEvent, VerdictReady

FLUSH_S = 0.05  # twenty batches a second at most: still a live view of the reads as they finish


class ProgressBatches:
    def __init__(self, post: Callable[[Sequence[ProgressEvent]], None]) -> None:
        self._post = post
        self._pending: list[ProgressEvent] = []
        self._timer: asyncio.TimerHandle | None = None

    def add(self, event: ProgressEvent) -> None:
        self._pending.append(event)
        if isinstance(event, VerdictReady):
            self.flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_S, self.flush)

    def flush(self) -> None:
        self.close()
        if self._pending:
            events, self._pending = tuple(self._pending), []
            self._post(events)

    def close(self) -> None:
        """Stop the timer; events still waiting are dropped unless `flush` is called."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
