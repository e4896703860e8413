"""The courier of one webhook: posts its outbox (core.notify.ledger `Record.outbox`), in order, apart from
whatever else the watch does.

Printing never waits for it: the watch hands a post over (`add`) and goes on; the courier runs as a task of its
own. It posts the oldest waiting post (one attempt, inside the poster's deadline), and only when that one is
accepted moves to the next, so a receiver gets its posts in the order they were made. After a failure it waits
before trying again, twice as long each time (BACKOFF_S up to MAX_BACKOFF_S, and never less than a Retry-After,
up to MAX_RETRY_AFTER_S), for as long as the watch runs: nothing is dropped because a receiver was down for a
while. A post the receiver refuses for good (400, 413, 415, 422: the same body would be refused again) is said
and set aside, so it does not hold the others. What it says: the first failure, a change of problem, the
outbox reaching its bound, and the receiver answering again.

Time is the caller's (`clock`, seconds, monotonic), so a test can step it; the task waits on an event that the
watch sets after each of its own sleeps, and on a timer for when the next try is due.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from core.notify.ledger import MAX_OUTBOX, Pending, Record
from core.notify.webhook import WebhookPoster

BACKOFF_S = 5.0
MAX_BACKOFF_S = 300.0
MAX_RETRY_AFTER_S = 900.0
POLL_S = 0.005


class Courier:
    def __init__(
        self,
        record: Record,
        poster: WebhookPoster,
        *,
        clock: Callable[[], float],
        saved: Callable[[], None],
        say: Callable[[str], None],
    ) -> None:
        self.record = record
        self.poster = poster
        self.where = poster.where
        self._clock = clock
        self._saved = saved
        self._say = say
        self._wake = asyncio.Event()
        self._busy = False
        self.failures = 0
        self.next_at = 0.0
        self.posted = 0
        self.refused = 0  # set aside: the receiver refused them for good
        self.overflowed = 0  # not taken: the outbox was full
        self.problem: str | None = None
        self._said_full = False

    @property
    def waiting(self) -> int:
        return len(self.record.outbox)

    def add(self, item: Pending) -> bool:
        """Queue a post (kept in the ledger at once); False when the outbox is at its bound (said once)."""
        if self.record.enqueue(item):
            self.wake()
            return True
        self.overflowed += 1
        if not self._said_full:
            self._said_full = True
            self._say(f"the outbox for {self.where} holds {MAX_OUTBOX} posts, its bound: {item.name} and what "
                      "fails after it are printed but not posted until it drains (a later run diagnoses them "
                      "again while they are in its window)")
        return False

    def wake(self) -> None:
        self._wake.set()

    @property
    def answering(self) -> bool:
        """No post in flight and the last one did not fail: worth one more try before the watch exits."""
        return not self._busy and self.problem is None

    def quiet(self) -> bool:
        """Nothing in flight and nothing due now."""
        return not self._busy and (self.record.head() is None or self._clock() < self.next_at)

    async def settled(self) -> None:
        """Until every post due now has been tried (tests step their clock after this)."""
        self.wake()
        await asyncio.sleep(0)
        while not self.quiet():
            await asyncio.sleep(POLL_S)

    async def run(self) -> None:
        """Post for as long as the watch runs (cancelled when it stops)."""
        while True:
            item = self.record.head()
            now = self._clock()
            if item is None or now < self.next_at:
                self._wake.clear()
                timeout = None if item is None else self.next_at - now
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout)
                continue
            await self.attempt(item)

    async def drain_once(self) -> None:
        """One pass for a single sweep (`--once`): in order, until the outbox is empty or a post fails (a
        receiver that failed now is not tried again in this run: the next run does)."""
        while (item := self.record.head()) is not None:
            if not await self.attempt(item, last=True):
                return

    async def attempt(self, item: Pending, *, last: bool = False) -> bool:
        """Post `item` once; True when it left the outbox (accepted, or refused for good). `last`: this run
        will not try again (said so)."""
        self._busy = True
        try:
            item.attempts += 1
            result = await self.poster.post(item.text, item.key)
        finally:
            self._busy = False
        if result.ok:
            self.record.settle_head(delivered=True)
            self.posted += 1
            if self.problem is not None:
                self._say(f"{self.where} answers again: posted {item.name} after {self.failures} failed "
                          f"attempt{'s' if self.failures != 1 else ''}; {self.waiting} still waiting")
            self.failures, self.next_at, self.problem = 0, 0.0, None
            if not self.record.full:
                self._said_full = False
            self._saved()
            return True
        if not result.retry:
            self.record.settle_head(delivered=False)
            self.refused += 1
            self._say(f"{self.where} refused the post of {item.name} for good ({result.problem}): not sent "
                      "again (it is in the printed output); the next posts go on")
            self._saved()
            return True
        self.failures += 1
        delay = min(MAX_BACKOFF_S, BACKOFF_S * 2 ** (self.failures - 1))
        if result.retry_after is not None:
            delay = max(delay, min(result.retry_after, MAX_RETRY_AFTER_S))
        self.next_at = self._clock() + delay
        if last:
            self._say(f"could not post {item.name}: {result.problem}; {self.waiting} waiting in the outbox, kept in "
                      "the state file for the next run")
        elif result.problem != self.problem:
            self._say(f"could not post {item.name}: {result.problem}; {self.waiting} waiting in the outbox, in "
                      f"order, tried again in {delay:g} s (backing off up to {MAX_BACKOFF_S:g} s while it fails)")
        self.problem = result.problem
        return False
