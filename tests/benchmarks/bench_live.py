"""What following the tenant costs: the picker's refresh per interval, and a long-running watch's memory.

Run: `.venv/bin/python -m tests.benchmarks.bench_live [--reps N] [--days N] [--poll-s S] [--skip-watch]
[--skip-refresh]`

1. The refresh of a 50-row page (the app headless at 140x60, the demo tenant served by `runai-triage serve` in a
   process of its own, so its CPU is not counted). Per refresh: the requests it sent (from the server's request
   log) and the app's CPU time from the read being asked for to the page being painted, against a plain
   re-render of the same table (`show_workloads` of the same rows, painted). Twice: when nothing moved (the rows
   are updated in place) and when the rows came back in another order (the table is drawn again, the cursor kept
   on its workload). Target: at most 2x the plain re-render.
2. A watch (the whole `watch` command in-process, tui.commands.watch_run) over a simulated week of the live demo tenant,
   a poll every 30 s of its time (20,160 polls): the tenant runs in a process of its own
   (tests/benchmarks/live_child.py) on a clock the benchmark moves through a shared 8-byte file, so nothing it
   allocates (a week of moving workloads) is in this process, and tracemalloc traces this process whole: its
   total traced memory after each simulated day, with how full the product's bounded caches are, and the growth
   from the day every cache is full (past which at least 10,000 polls run) to the end. Flat means that growth
   is small and does not follow the polls.

Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from core.sim.process import SimProcess
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient
from core.tenant import Tenant, open_served_tenant
from core.triage.watch import WatchRequest
from tests.benchmarks.harness import ServedCase, print_ratio
from tests.benchmarks.live_child import MappedClock, make_clock_file
from tui.app import TriageApp
from tui.commands.start import StartOptions
from tui.commands.watch_run import WatchRun
from tui.screens.picker.screen import PickerScreen
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


class _Week:
    """The watch's sleep in the benchmark: moves the shared clock on, samples memory at the end of each
    simulated day, and stops the watch after its last poll."""

    def __init__(self, clock: MappedClock, polls: int, poll_s: float, sample_s: float = 86400.0) -> None:
        self.clock, self.polls, self.poll_s, self.sample_s = clock, polls, poll_s, sample_s
        self.seconds = 0.0
        self.done = 0
        self.samples: list[tuple[int, float, int, int, int]] = []  # (poll, day, traced bytes, cache entries, bound)
        self.started = time.monotonic()

    def monotonic(self) -> float:
        return self.seconds

    async def __call__(self, wait: float) -> None:
        self.done += 1
        sample_before = int(self.seconds // self.sample_s)
        self.seconds += self.poll_s  # one poll every poll_s of the tenant's time, whatever the pacer asked
        self.clock.set(self.seconds)
        if int(self.seconds // self.sample_s) != sample_before or self.done == self.polls:
            gc.collect()
            entries, bound = _cache_fill()
            traced = tracemalloc.get_traced_memory()[0]
            self.samples.append((self.done, self.seconds / 86400, traced, entries, bound))
            print(f"  day {self.seconds / 86400:4.1f}  poll {self.done:>7,}  traced {traced / 1024:8.0f} KiB  caches "
                  f"{entries:>6,} of {bound:,}  ({time.monotonic() - self.started:.0f} s)", flush=True)
        if self.done >= self.polls:
            raise asyncio.CancelledError  # what Ctrl-C does to a watch


def _cache_fill() -> tuple[int, int]:
    """Entries held by every bounded cache of the product's modules (functools.lru_cache), and their bounds."""
    entries = bound = 0
    for name, module in list(sys.modules.items()):
        if not (name.startswith("core.") or name.startswith("tui.")):
            continue
        for value in vars(module).values():
            info = getattr(value, "cache_info", None)
            if callable(info) and getattr(value, "__module__", None) == name:
                stats = info()
                if stats.maxsize:
                    entries, bound = entries + stats.currsize, bound + stats.maxsize
    return entries, bound


async def bench_watch(days: float, poll_s: float, sample_h: float) -> None:
    polls = int(days * 86400 / poll_s)
    print(f"\nA watch over {days:g} simulated days of the live demo tenant, a poll every {poll_s:g} s of its time "
          f"({polls:,} polls); the tenant in a process of its own, the watch's whole process traced:")
    with tempfile.TemporaryDirectory() as tmp:
        clock_file = Path(tmp) / "clock"
        make_clock_file(clock_file)
        process = SimProcess.start(command=[sys.executable, "-P", "-m", "tests.benchmarks.live_child", "--clock",
                                            str(clock_file)])
        tenant = open_served_tenant(process, label="demo tenant, live")
        assert tenant.captured_at is not None
        clock = MappedClock(clock_file, tenant.captured_at)
        week = _Week(clock, polls, poll_s, sample_h * 3600)
        with open(os.devnull, "w", encoding="utf-8") as sink:
            run = WatchRun(WatchRequest("demo-east", interval_s=poll_s), StartOptions(mode="demo"), "jsonl", (),
                           Path(tmp) / "state.json", out=sink, err=sink, clock=clock, sleep=week,
                           opener=lambda: tenant, post_clock=week.monotonic)
            gc.collect()
            tracemalloc.start()
            try:
                await run.run()
            finally:
                tracemalloc.stop()
    counts = run.watcher.counts if run.watcher is not None else None
    if counts is not None:
        print(f"  {counts.sweeps:,} sweeps ({counts.failed_sweeps} failed), {counts.diagnosed:,} diagnoses, "
              f"{counts.delivered:,} delivered, in {time.monotonic() - week.started:.0f} s")
    end = week.samples[-1]
    # The caches are full when they stop growing: each is at its bound, or holds every distinct key there is.
    settled = next((s for s in week.samples if s[3] == end[3]), end)
    if settled is end or len(week.samples) < 2:
        print("  the caches grew until the end: run more days to see past the point where they are full")
        settled = week.samples[len(week.samples) // 2]
    past = end[0] - settled[0]
    growth = end[2] - settled[2]
    print(f"  from day {settled[1]:.1f} (caches {settled[3]:,} entries, as at the end) to day {end[1]:.1f}: "
          f"{past:,} polls, traced memory {settled[2] / 1024:.0f} -> {end[2] / 1024:.0f} KiB "
          f"({growth / 1024:+.0f} KiB, {growth / max(1, past):+.1f} bytes a poll)")
    print(f"  after {end[1]:.1f} simulated days: {end[2] / 1024:.0f} KiB traced; peak RSS of this process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--days", type=float, default=7.0, help="simulated days of the watch (default 7)")
    parser.add_argument("--poll-s", type=float, default=30.0, help="the tenant's seconds between polls (default 30)")
    parser.add_argument("--sample-h", type=float, default=12.0, help="simulated hours between samples (default 12)")
    parser.add_argument("--skip-refresh", action="store_true")
    parser.add_argument("--skip-watch", action="store_true")
    args = parser.parse_args()
    if not args.skip_refresh:
        asyncio.run(bench_refresh(args.reps))
    if not args.skip_watch:
        asyncio.run(bench_watch(args.days, args.poll_s, args.sample_h))


if __name__ == "__main__":
    main()
