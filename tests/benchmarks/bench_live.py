"""What following the tenant costs: the picker's refresh per interval, and a long-running watch's memory.

Run: `.venv/bin/python -m tests.benchmarks.bench_live [--reps N] [--polls N] [--skip-watch] [--skip-refresh]`

1. The refresh of a 50-row page (the app headless at 140x60, the demo tenant served by `runai-triage serve` in a
   process of its own, so its CPU is not counted). Per refresh: the requests it sent (from the server's request
   log) and the app's CPU time from the read being asked for to the page being painted, against a plain
   re-render of the same table (`show_workloads` of the same rows, painted). Twice: when nothing moved (the rows
   are updated in place) and when the rows came back in another order (the table is drawn again, the cursor kept
   on its workload). Target: at most 2x the plain re-render.
2. A watch over N simulated polls (default 10,000) of the live demo tenant, served from a process of its own at
   1000x speed (about 5 s of the tenant's time per poll): the watch's traced memory (tracemalloc, this process
   only) after the first tenth of the polls and at the end, and the growth. Flat means the growth is small and
   does not follow the polls (the simulator's own growth, thousands of new workloads, is in the other process).

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

from core.sim.live.settings import LiveSettings
from core.sim.process import SimProcess
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient
from core.tenant import Tenant, open_served_tenant
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
    print(f"\nA watch over {polls:,} simulated polls of the live demo tenant (served apart, at 1000x):")
    settings = LiveSettings(seed=1, speed=1000.0, epoch=time.time())
    tenant = open_served_tenant(SimProcess.start(live=settings), label="demo tenant, live")
    assert tenant.live_clock is not None
    watcher = Watcher(WatchRequest("demo-east", interval_s=5), tenant.runai, WatchState("bench"), tenant.live_clock,
                      {"open_tier2": tenant.open_tier2})
    marks: dict[int, int] = {}
    tracemalloc.start()
    started = time.monotonic()
    try:
        for poll in range(1, polls + 1):
            try:
                async for entry in watcher.sweep():
                    watcher.delivered(entry)
            except Exception as exc:  # a failed sweep is a poll too; said once it ends
                print(f"  poll {poll}: {type(exc).__name__}: {exc}")
            if poll in (polls // 10, polls // 2, polls):
                gc.collect()
                marks[poll] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        await tenant.aclose()
    elapsed = time.monotonic() - started
    counts = watcher.counts
    simulated = (tenant.live_clock() - tenant.captured_at).total_seconds() if tenant.captured_at else 0.0
    print(f"  {counts.sweeps:,} sweeps in {elapsed:.0f} s, {simulated / 3600:.1f} h of the tenant's time; "
          f"{counts.diagnosed:,} diagnoses, {counts.delivered:,} delivered; state holds {len(watcher.state.done):,}")
    for poll, size in marks.items():
        print(f"  traced memory after {poll:>6,} polls: {size / 1024:8.0f} KiB")
    first, last = marks[polls // 10], marks[polls]
    per = (last - first) / max(1, polls - polls // 10)
    growth = (last - first) / 1024
    print(f"  growth from poll {polls // 10:,} to {polls:,}: {growth:+.0f} KiB ({per:+.1f} bytes a poll)")


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
