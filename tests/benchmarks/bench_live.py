"""What following the tenant costs: the picker's refresh per interval, and a long-running watch's memory.

Run: `.venv/bin/python -m tests.benchmarks.bench_live [--reps N] [--polls N] [--skip-watch] [--skip-refresh]`

1. The refresh of a 50-row page (the app headless at 140x60, the demo tenant served by `runai-triage serve` in a
   process of its own, so its CPU is not counted). Per refresh: the requests it sent (from the server's request
   log) and the app's CPU time from the read being asked for to the page being painted, against a plain
   re-render of the same table (`show_workloads` of the same rows, painted). Twice: when nothing moved (the rows
   are updated in place) and when the rows came back in another order (the table is drawn again, the cursor kept
   on its workload). Target: at most 2x the plain re-render.
2. A watch over N simulated polls (default 10,000) of the live demo tenant, its clock moved 5 s a poll: the
   watch's traced memory (tracemalloc; what the simulator, served from the same process, allocates is left out)
   after a tenth of the polls, half, and all of them, and the growth. Flat means the growth is small and does
   not follow the polls.

Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
import tracemalloc
from typing import Any

from textual.pilot import Pilot

from core.sim.demo import load_demo_bundle
from core.sim.live.clock import SteppedClock
from core.sim.live.settings import LiveSettings
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient
from core.tenant import Tenant, open_bundle_tenant
from core.triage.watch import Watcher, WatchRequest
from core.triage.watch_state import WatchState
from tests.benchmarks.harness import ServedCase, print_ratio
from tui.app import TriageApp
from tui.screens.picker import PickerScreen
from tui.start import StartOptions
from tui.widgets.workload_table import WorkloadTable

SIZE = (140, 60)


def _lists(served: ServedCase) -> int:
    return sum(1 for r in served.requests() if r["path"] == "/api/v1/workloads")


async def _idle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def _refresh(pilot: Pilot[Any], screen: PickerScreen) -> float:
    before = screen.refreshes
    cpu = time.process_time()
    assert screen.refresh_now()
    while screen.refreshes == before:
        await asyncio.sleep(0)
    await _idle(pilot)
    return time.process_time() - cpu


async def _rerender(pilot: Pilot[Any], table: WorkloadTable, rows: list[Any]) -> float:
    cpu = time.process_time()
    table.show_workloads(rows, keep_cursor=True, verdicts={w.id: t for w in rows if (t := table._verdicts.get(w.id))})
    await _idle(pilot)
    return time.process_time() - cpu


async def bench_refresh(reps: int) -> None:
    print("Picker refresh of a 50-row page (the app's CPU per refresh, the tenant served apart):")
    with ServedCase() as served:
        tenant = Tenant("served demo", RunaiClient(served.url, BearerToken(served.token)))
        app = TriageApp(StartOptions(mode="env", refresh_s=0), tenant=tenant, cursor_blink=False)
        app.animation_level = "none"
        async with app.run_test(size=SIZE) as pilot:
            while not (isinstance(app.screen, PickerScreen) and app.screen.first_answer and not app.screen.loading):
                await asyncio.sleep(0.01)
            screen = app.screen
            assert isinstance(screen, PickerScreen)
            while not screen.verdicts_settled:
                await asyncio.sleep(0.05)
            await _idle(pilot)
            table = screen.query_one(WorkloadTable)
            rows = table.workloads
            print(f"  page: {len(rows)} rows")
            gc.collect()
            still, moved, plain = [], [], []
            lists_before = _lists(served)
            for _ in range(reps + 1):
                plain.append(await _rerender(pilot, table, rows))
                still.append(await _refresh(pilot, screen))
                # The same rows in another order on screen: the next read finds them moved, and redraws.
                await _rerender(pilot, table, rows[1:] + rows[:1])
                moved.append(await _refresh(pilot, screen))
            lists = _lists(served) - lists_before
            refreshes = 2 * (reps + 1)
        await tenant.aclose()
    print(f"  requests per refresh: {lists / refreshes:.2f} list request (nothing else: no verdict was missing)")
    baseline = "plain re-render of the same table"
    print_ratio("refresh, nothing moved (cells in place)", still[1:], baseline, plain[1:], 2.0)
    print_ratio("refresh, rows moved (table redrawn)", moved[1:], baseline, plain[1:], 2.0)


async def bench_watch(polls: int) -> None:
    print(f"\nA watch over {polls:,} simulated polls of the live demo tenant (5 s of its time a poll):")
    bundle = load_demo_bundle()
    clock = SteppedClock(bundle.captured_at)
    tenant = open_bundle_tenant(bundle, label="demo tenant, live", live=LiveSettings(seed=1), live_clock=clock)
    watcher = Watcher(WatchRequest("demo-east", interval_s=5), tenant.runai, WatchState("bench"), clock,
                      {"open_tier2": tenant.open_tier2})
    # The simulator serves from this process: what it keeps (thousands of new workloads, its request log) is
    # left out, so the figures are the watch's own (with its clients'). Tracing starts once the watch has run a
    # tenth of the polls: what it still holds at the end, allocated since, is its growth.
    simulator = [tracemalloc.Filter(False, pattern) for pattern in
                 ("*/core/sim/*", "*/urllib/parse.py", "*/http/server.py", "*/socketserver.py")]
    start, middle = polls // 10, polls // 2 + polls // 20
    marks: dict[int, int] = {}
    started = time.monotonic()
    try:
        for poll in range(1, polls + 1):
            try:
                async for entry in watcher.sweep():
                    watcher.delivered(entry)
            except Exception as exc:  # a failed sweep is a poll too
                print(f"  poll {poll}: {type(exc).__name__}: {exc}")
            clock.advance(5)
            if poll == start:
                gc.collect()
                tracemalloc.start()
            elif poll in (middle, polls):
                gc.collect()
                snapshot = tracemalloc.take_snapshot().filter_traces(simulator)
                marks[poll] = sum(stat.size for stat in snapshot.statistics("filename"))
    finally:
        tracemalloc.stop()
        await tenant.aclose()
    elapsed = time.monotonic() - started
    counts = watcher.counts
    print(f"  {counts.sweeps:,} sweeps in {elapsed:.0f} s, {polls * 5 / 3600:.1f} h of the tenant's time; "
          f"{counts.diagnosed:,} diagnoses, {counts.delivered:,} delivered; the state holds "
          f"{len(watcher.state.done):,} keys")
    for poll, size in marks.items():
        print(f"  kept from what was allocated after poll {start:,}, at poll {poll:>6,}: {size / 1024:8.0f} KiB")
    per = marks[polls] / max(1, polls - start)
    print(f"  growth over the last {polls - start:,} polls: {marks[polls] / 1024:+.0f} KiB ({per:+.1f} bytes a poll); "
          f"from poll {middle:,} to {polls:,}: {(marks[polls] - marks[middle]) / 1024:+.0f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--polls", type=int, default=10_000)
    parser.add_argument("--skip-refresh", action="store_true")
    parser.add_argument("--skip-watch", action="store_true")
    args = parser.parse_args()
    if not args.skip_refresh:
        asyncio.run(bench_refresh(args.reps))
    if not args.skip_watch:
        asyncio.run(bench_watch(args.polls))


if __name__ == "__main__":
    main()
