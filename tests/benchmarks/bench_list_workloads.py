"""List the whole demo tenant 500 at a time through RunaiClient, against a raw-httpx baseline in this process.

Run: `.venv/bin/python -m tests.benchmarks.bench_list_workloads [--rounds N]`

Prints, for the client and for the baseline (plain httpx GETs that only decode JSON): requests made, items listed,
items/s, and the ratio client/baseline; then peak Python memory of one client listing (tracemalloc), and a paging
check: asking for k pages must make exactly k list requests.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import tracemalloc

import httpx

from core.sim.control_plane import ControlPlane
from core.sim.demo import load_demo_bundle
from core.sim.loopback import LoopbackServer
from core.sources.credentials import BearerToken
from core.sources.paging import iter_pages
from core.sources.runai import RunaiClient

PAGE = 500
LIST_PATH = "/api/v1/workloads"


def _list_requests(cp: ControlPlane) -> int:
    return sum(1 for r in cp.requests if r.method == "GET" and r.path == LIST_PATH)


async def _client_listing(url: str, token: str, max_pages: int | None = None) -> int:
    items = 0
    async with RunaiClient(url, BearerToken(token)) as client:

        def fetch(offset: int):
            return client.list_workloads(sort_by="phaseUpdatedAt", sort_order="desc", offset=offset, limit=PAGE)

        async for page in iter_pages(fetch, max_pages=max_pages, what=LIST_PATH):
            items += len(page.items)
    return items


async def _baseline_listing(url: str, token: str) -> int:
    items = 0
    offset: int | None = 0
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=url, headers=headers) as http:
        while offset is not None:
            params = {"sortBy": "phaseUpdatedAt", "sortOrder": "desc", "offset": offset, "limit": PAGE}
            body = (await http.get(LIST_PATH, params=params)).json()
            items += len(body["workloads"])
            offset = body.get("next")
    return items


def _timed(cp: ControlPlane, run) -> tuple[float, int, int]:
    before = _list_requests(cp)
    start = time.perf_counter()
    items = asyncio.run(run())
    return time.perf_counter() - start, items, _list_requests(cp) - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    cp = ControlPlane(load_demo_bundle())
    with LoopbackServer(cp) as server:
        url, token = server.url, cp.issue_token()
        best: dict[str, tuple[float, int, int]] = {}
        for _ in range(args.rounds):
            for name, run in (
                ("baseline", lambda: _baseline_listing(url, token)),
                ("client", lambda: _client_listing(url, token)),
            ):
                result = _timed(cp, run)
                if name not in best or result[0] < best[name][0]:
                    best[name] = result
        for name, (seconds, items, requests) in best.items():
            print(f"{name:9s} requests={requests:3d} items={items:5d} items/s={items / seconds:9.0f} ({seconds:.3f} s)")
        ratio = best["client"][0] / best["baseline"][0]
        print(f"client/baseline time ratio: {ratio:.2f} (best of {args.rounds})")

        tracemalloc.start()
        asyncio.run(_client_listing(url, token))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"client peak Python memory for one full listing: {peak / 2**20:.1f} MiB")

        for pages in (1, 2, 3):
            before = _list_requests(cp)
            asyncio.run(_client_listing(url, token, max_pages=pages))
            made = _list_requests(cp) - before
            verdict = "ok" if made == pages else "WRONG"
            print(f"asked for {pages} page(s): {made} list request(s) made [{verdict}]")


if __name__ == "__main__":
    main()
