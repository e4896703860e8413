"""Following `next` through a Run:ai list, one page at a time and only as far as the caller reads."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from core.models.base import ApiModel
from core.models.pages import Page
from core.sources.errors import MalformedResponse

T = TypeVar("T", bound=ApiModel)


async def iter_pages(
    fetch: Callable[[int], Awaitable[Page[T]]],
    *,
    start: int = 0,
    max_pages: int | None = None,
    what: str = "list",
) -> AsyncIterator[Page[T]]:
    """Yield pages from `fetch(offset)` from `start` until `next` is None or `max_pages` were yielded.

    The next page is requested only when the caller asks for it. A `next` that does not move past the current
    offset would loop forever, so it raises `MalformedResponse` naming `what` instead.
    """
    if max_pages is not None and max_pages < 1:
        return
    offset = start
    yielded = 0
    while True:
        page = await fetch(offset)
        yield page
        yielded += 1
        if page.next is None or (max_pages is not None and yielded >= max_pages):
            return
        if page.next <= offset:
            raise MalformedResponse(
                "GET",
                what,
                f"page at offset {offset} gave next={page.next}, which does not advance; stopped paging",
            )
        offset = page.next
