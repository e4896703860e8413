"""Where the picker's page keys lead: every press counts, and presses made while a page is on its way are
coalesced into one request for where they add up to.

Two kinds of list: a plain one, paged by the server with `offset`/`limit`, where the total (once counted) says
where the last page starts; and the needs-attention view, whose pages are filled on the client and can only be
walked in order (`starts` remembers where the earlier pages began, so going back reads the same rows).

`PageNav` only decides; the screen sends the request it names and reports back with `landed`. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Edge = Literal["first", "last"]


@dataclass(frozen=True, slots=True)
class Go:
    """Request the page starting at `offset`."""

    offset: int


@dataclass(frozen=True, slots=True)
class Stay:
    """Nothing to request: at an edge (say so once), queued behind the page in flight, or not possible."""

    edge: Edge | None = None
    note: str | None = None


Move = Go | Stay


@dataclass
class PageNav:
    limit: int = 20
    walked: bool = False  # True for the needs-attention view: pages only in order
    total: int | None = None
    offset: int = 0  # where the page on screen (or on its way) starts
    next_start: int | None = None  # the server's `next` after the page on screen
    busy: bool = False
    queued: int = 0  # page steps pressed while the total, or the next start, was not known yet
    starts: list[int] = field(default_factory=list)

    def reset(self, *, walked: bool, limit: int) -> None:
        """A new list (filters or order changed): back to its first page."""
        self.walked, self.limit = walked, limit
        self.total, self.offset, self.next_start = None, 0, None
        self.queued, self.starts = 0, []

    def last_start(self) -> int | None:
        if self.total is None:
            return None
        return max(0, (self.total - 1) // self.limit * self.limit) if self.total else 0

    # -- presses ----------------------------------------------------------------------------------------
    def step(self, delta: int) -> Move:
        """`delta` pages forward (positive) or back (negative)."""
        if self.walked:
            return self._walk(delta)
        last = self.last_start()
        if last is not None:
            target = min(max(0, self.offset + delta * self.limit), last)
            return self._go(target, "last" if delta > 0 else "first")
        if delta < 0:
            return self._go(max(0, self.offset + delta * self.limit), "first")
        if self.busy:
            self.queued += delta  # how far "next" goes is only known when this page's `next` arrives
            return Stay()
        if self.next_start is None:
            return Stay("last")
        self.queued += delta - 1
        return self._go(self.next_start, "last")

    def first(self) -> Move:
        self.queued = 0
        if self.walked:
            self.starts = []
        return self._go(0, "first")

    def last(self) -> Move:
        self.queued = 0
        if self.walked:
            return Stay(note="The needs-attention view is checked page by page, so its last page is not known; "
                        "press ] to go on.")
        last = self.last_start()
        if last is None:
            return Stay(note="The total is not counted yet, so the last page is not known; try again in a moment.")
        return self._go(last, "last")

    def _walk(self, delta: int) -> Move:
        if self.busy:
            self.queued += delta
            return Stay()
        if delta < 0:
            if not self.starts:
                return Stay("first")
            steps = min(-delta, len(self.starts))
            target = self.starts[-steps]
            del self.starts[-steps:]
            return self._go(target, "first")
        if self.next_start is None:
            return Stay("last")
        self.starts.append(self.offset)
        self.queued += delta - 1
        return self._go(self.next_start, "last", force=True)

    def _go(self, target: int, edge: Edge, *, force: bool = False) -> Move:
        if target == self.offset and not force:
            return Stay(edge)
        self.offset = target
        if self.busy:
            return Stay()  # coalesced: when the page in flight lands, `landed` asks for this one instead
        self.busy = True
        return Go(target)

    def to(self, offset: int) -> Move:
        """The page starting at `offset` (a plain list only: the needs-attention view is walked in order)."""
        self.queued = 0
        return Stay() if self.walked else self._go(max(0, offset), "first")

    def reload(self) -> Go:
        """Fetch the page on screen again (a reload, a new page size, a new list)."""
        self.busy = True
        return Go(self.offset)

    # -- answers ----------------------------------------------------------------------------------------
    def landed(self, offset: int, next_start: int | None) -> Move:
        """A page arrived. Returns the request the presses made meanwhile still ask for (Stay when none)."""
        self.busy = False
        if offset != self.offset:
            # A newer target was chosen while this page was on its way: fetch that one instead of showing this.
            self.busy = True
            return Go(self.offset)
        self.next_start = next_start
        if self.queued:
            delta, self.queued = self.queued, 0
            move = self.step(delta)
            return move if isinstance(move, Go) else Stay()
        return Stay()

    def failed(self) -> None:
        self.busy = False
        self.queued = 0
