"""Step 2's pod lists read past their first page.

A workload's pods come 500 to a page (the API's largest). A job with more pods than that (a large distributed
training, a widely scaled inference) has its failing pod anywhere in the list, so the list is read on until the
server says it has no more, up to `MAX_POD_PAGES`. What is left past that bound, and a later page that could
not be read, are stated gaps: the pods read are kept, and the pods not read are never taken for none.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from core.diagnosis.reader import Reader, ReadFailure
from core.models.pages import Page
from core.models.report import MissingItem
from core.models.runai import RunaiPod

MAX_POD_PAGES = 4  # 2,000 pods a list: more than any job the docs describe, and a bounded number of reads


async def read_pod_pages(
    reader: Reader,
    source: str,
    what: str,
    limit: int,
    read: Callable[[int], Awaitable[Page[RunaiPod]]],
) -> tuple[Page[RunaiPod] | ReadFailure, MissingItem | None]:
    """The pages of one pod list joined (`read(offset)` reads one), and the gap past them when there is one.

    The joined page's `next` is the first offset not read (None when the list was read to its end)."""
    first = await reader.tier1(2, source, what, lambda: read(0))
    if isinstance(first, ReadFailure) or first.next is None:
        return first, None
    items = list(first.items)
    problems = list(first.problems)
    offset: int | None = first.next
    pages = 1
    while offset is not None and pages < MAX_POD_PAGES:
        at = offset

        def this_page(at: int = at) -> Awaitable[Page[RunaiPod]]:
            return read(at)

        page = await reader.tier1(2, source, f"{what} from {at}", this_page)
        if isinstance(page, ReadFailure):
            gap = page.missing.model_copy(update={"what": f"{what} past the first {len(items)}"})
            return replace(first, items=items, next=at, problems=problems), gap
        if page.next is not None and page.next <= at:  # a server that does not move on: read no further
            break
        items += page.items
        problems += page.problems
        offset = page.next
        pages += 1
    joined = replace(first, items=items, next=offset, problems=problems)
    if offset is None:
        return joined, None
    why = f"the list goes on past {pages} pages of {limit}; the pods after them were not read"
    return joined, MissingItem(what=f"{what} past the first {len(items)}", why=why, source=source)
