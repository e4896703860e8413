"""What the picker's background verdicts cost paging: `]` timed while the page being left is still diagnosing its
rows, against `]` between pages whose verdicts are all in (no background work at all), in the same app.

Run: `.venv/bin/python -m tests.benchmarks.bench_picker_verdicts [--rounds N] [--latency-ms L]`

Headless (`App.run_test`) on the demo tenant, every simulated answer delayed L ms (default 20, a real tenant's
order of magnitude); keys are sent and rows polled as in bench_tui. Each round visits pages 1 and 2 until both
have every verdict (the quiet baseline pages back and forth between them), then goes on to a page with rows
still to diagnose and presses `]` as soon as its diagnoses are seen under way (just after START_DELAY_S).
Prints best and median of both and their ratio; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

from textual.pilot import Pilot

from core.sim.demo import load_demo_bundle
from core.tenant import open_bundle_tenant
from tests.benchmarks.bench_tui import key, until
from tui.app import TriageApp
from tui.screens.picker.screen import PickerScreen
from tui.screens.picker.verdicts import GROUP
from tui.widgets.workload_table import WorkloadTable

SIZE = (120, 40)


def _picker(pilot: Pilot[Any]) -> PickerScreen:
    screen = pilot.app.screen
    assert isinstance(screen, PickerScreen)
    return screen


def _rows(pilot: Pilot[Any]) -> list[str]:
    screen = pilot.app.screen
    if not isinstance(screen, PickerScreen) or not screen.first_answer or screen.loading:
        return []
    return [w.id or "" for w in screen.query_one(WorkloadTable).workloads]


async def _switch(pilot: Pilot[Any], name: str) -> float:
    before = _rows(pilot)
    began = time.perf_counter()
    key(pilot.app, name, "]" if name == "right_square_bracket" else "[")
    await until(lambda: bool(_rows(pilot)) and _rows(pilot) != before, "the page switch")
    return time.perf_counter() - began


async def _settled(pilot: Pilot[Any]) -> None:
    await until(lambda: bool(_rows(pilot)) and _picker(pilot).verdicts_settled, "every verdict")


def _diagnosing(app: TriageApp) -> bool:
    return any(w.group == GROUP and w.is_running for w in app.workers)


async def one_round(latency_ms: float) -> tuple[float, float]:
    async with open_bundle_tenant(load_demo_bundle(), label="demo", latency_ms=latency_ms) as tenant:
        await asyncio.to_thread(tenant.warm_kube)
        app = TriageApp(tenant=tenant, cursor_blink=False)
        app.animation_level = "none"
        async with app.run_test(size=SIZE) as pilot:
            await _settled(pilot)
            await _switch(pilot, "right_square_bracket")
            await _settled(pilot)
            quiet = min([await _switch(pilot, "left_square_bracket"), await _switch(pilot, "right_square_bracket")])
            # On to a page with rows still to diagnose, and `]` as soon as its diagnoses are seen under way
            # (they start START_DELAY_S after the page is shown). A page whose few diagnoses all end between
            # two polls is passed over for the next one, rather than timing a switch from a quiet page.
            while True:
                await _switch(pilot, "right_square_bracket")
                await until(lambda: _diagnosing(app) or _picker(pilot).verdicts_settled, "the page's diagnoses")
                if _diagnosing(app):
                    break
            busy = await _switch(pilot, "right_square_bracket")
    return quiet, busy


async def main(rounds: int, latency_ms: float) -> None:
    quiet, busy = [], []
    for _ in range(rounds):
        q, b = await one_round(latency_ms)
        quiet.append(q)
        busy.append(b)
    print(f"picker page switch, demo tenant, answers delayed {latency_ms:g} ms, {rounds} rounds")
    print(f"{'':<44}{'best':>9}{'median':>9}")
    cases = (("] between pages with every verdict in", quiet), ("] while the page left is diagnosing", busy))
    for label, times in cases:
        print(f"{label:<44}{min(times) * 1e3:>7.1f}ms{statistics.median(times) * 1e3:>7.1f}ms")
    best, median = min(busy) / min(quiet), statistics.median(busy) / statistics.median(quiet)
    print(f"{'ratio (diagnosing / all in)':<44}{best:>8.2f}x{median:>8.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.latency_ms))
