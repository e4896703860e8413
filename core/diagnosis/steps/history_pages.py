"""Step 3's pages, read ahead: a long history is fetched a few pages at a time instead of one after another.

Offsets are predictable: page k+1 starts where page k's `next` points, and an honest server steps by the
same amount every page. Once the first page shows a newest-first history that goes on, the pages the lookback
still needs are estimated from how much time one page covered, and up to `READ_AHEAD` of them are requested
at once. Their answers are taken strictly in offset order, each checked exactly as a page read on its own
would be (its own `next`, the cutoff, failures), so the records, their order and every gap stated are those of
reading the pages one by one; a page whose offset turns out not to be where the previous `next` points is
dropped and read again from the right offset. Pages asked for past the point where the reading stops (the
cutoff reached, the last page, a failure) are cancelled; they cost a read each, never a record.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable
from datetime import datetime

from core.diagnosis.reader import ReadFailure
from core.models.pages import Page
from core.models.runai import HistoryRecord

READ_AHEAD = 12  # history pages in flight at most: a 20,000-record history (40 pages) in four round trips

Fetch = Callable[[int, int], Awaitable[Page[HistoryRecord] | ReadFailure]]  # (offset, page number) -> answer


class PagesAhead:
    """The pages requested ahead of the one being read: (offset, read) in offset order."""

    def __init__(self, fetch: Fetch) -> None:
        self._fetch = fetch
        self._ahead: deque[tuple[int, asyncio.Task[Page[HistoryRecord] | ReadFailure]]] = deque()

    async def page(self, offset: int, number: int) -> Page[HistoryRecord] | ReadFailure:
        """The page at `offset`: the one already asked for, or (when none was, or the guess was wrong) now."""
        if self._ahead and self._ahead[0][0] == offset:
            return await self._ahead.popleft()[1]
        self.cancel()
        return await self._fetch(offset, number)

    def ask(self, offset: int, stride: int, number: int, wanted: int, last_number: int) -> None:
        """Have the `wanted` pages from `offset` (page `number`) on in flight, `stride` apart, none past page
        `last_number`."""
        if self._ahead and self._ahead[0][0] != offset:
            self.cancel()  # asked for at offsets that turned out wrong
        start = self._ahead[-1][0] + stride if self._ahead else offset
        n = number + len(self._ahead)
        while len(self._ahead) < wanted and n <= last_number:
            task = asyncio.ensure_future(self._fetch(start, n))
            self._ahead.append((start, task))
            start, n = start + stride, n + 1

    def cancel(self) -> None:
        for _, task in self._ahead:
            task.cancel()
        self._ahead.clear()


def pages_to_floor(newest: datetime, oldest: datetime, records: int, floor: datetime, per_page: int) -> int:
    """How many more newest-first pages reach `floor`, at the pace the pages so far went back in time.

    At least one (the page after the last one read is needed until the floor is passed), at most `READ_AHEAD`.
    """
    covered = (newest - oldest).total_seconds()
    left = (oldest - floor).total_seconds()
    if covered <= 0 or left <= 0 or records <= 0 or per_page <= 0:
        return 1
    return max(1, min(READ_AHEAD, math.ceil(left * records / covered / per_page)))
