"""List the whole demo tenant 500 at a time through RunaiClient, against raw httpx, the simulator in its own process.

Run: `.venv/bin/python -m tests.benchmarks.bench_list_workloads [--reps N]`

The demo tenant is served by `runai-triage serve --demo` in a process of its own, so what is timed here is the
client alone: CPU time of this process (`process_time`) to list every workload, newest phase change first,
500 a page. The client (read-only guard, deadline and body cap, retries, tolerant parsing into models) against
the baseline: plain httpx GETs whose bodies are only decoded with `.json()`. They alternate, N repetitions
each, medians kept; target <= 1.5x. Then peak Python memory of one client listing (tracemalloc), and a paging
check: asking for k pages must make exactly k list requests. Prints only; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import tracemalloc
from collections.abc import Callable

import httpx

from core.sources.credentials import BearerToken
from core.sources.paging import iter_pages
from core.sources.runai import RunaiClient
from tests.benchmarks.harness import ServedCase, alternate, print_ratio

PAGE = 500
LIST_PATH = "/api/v1/workloads"
TARGET = 1.5


async def _client_listing(url: str, token: str, max_pages: int | None = None) -> int:
    items = 0
    async with RunaiClient(url, BearerToken(token)) as client:

        def fetch(offset: int):  # type: ignore[no-untyped-def]
            return client.list_workloads(sort_by="phaseUpdatedAt", sort_order="desc", offset=offset, limit=PAGE)

        async for page in iter_pages(fetch, max_pages=max_pages, what=LIST_PATH):
            items += len(page.items)
    return items


async def _baseline_listing(url: str, token: str) -> int:
    items = 0
    offset: int | None = 0
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}) as http:
        while offset is not None:
            params = {"sortBy": "phaseUpdatedAt", "sortOrder": "desc", "offset": offset, "limit": PAGE}
            body = (await http.get(LIST_PATH, params=params)).json()
            items += len(body["workloads"])
            offset = body.get("next")
    return items


def _cpu(run: Callable[[], int], counted: list[int]) -> float:
    start = time.process_time()
    counted.append(run())
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="repetitions of each side (median kept; default 7)")
    args = parser.parse_args()
    with ServedCase() as served:
        url, token = served.url, served.token
        items: dict[str, list[int]] = {"client": [], "baseline": []}
        samples = alternate(
            {
                "client": lambda: _cpu(lambda: asyncio.run(_client_listing(url, token)), items["client"]),
                "baseline": lambda: _cpu(lambda: asyncio.run(_baseline_listing(url, token)), items["baseline"]),
            },
            args.reps,
        )
        print(f"listing the demo tenant ({items['client'][-1]} workloads, {PAGE} a page), CPU of this process, "
              f"median of {args.reps}")
        assert items["client"][-1] == items["baseline"][-1]
        print_ratio("RunaiClient", samples["client"], "raw httpx + .json()", samples["baseline"], TARGET)

        tracemalloc.start()
        asyncio.run(_client_listing(url, token))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"client peak Python memory for one full listing: {peak / 2**20:.1f} MiB")

        for pages in (1, 2, 3):
            before = sum(1 for r in served.requests() if r["path"] == LIST_PATH)
            asyncio.run(_client_listing(url, token, max_pages=pages))
            made = sum(1 for r in served.requests() if r["path"] == LIST_PATH) - before
            print(f"asked for {pages} page(s): {made} list request(s) made [{'ok' if made == pages else 'WRONG'}]")


if __name__ == "__main__":
    main()
