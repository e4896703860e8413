"""An endless history (`next` advancing for ever, 20,000 records a page) against a history read whole, and the same
endless read on a machine made busy: the read stops at its record cap, so what it reads is the same however fast
the machine is; only the time differs.

Run: `.venv/bin/python -m tests.benchmarks.bench_endless_history [--reps N]`

Three diagnoses, each over the real Run:ai client and loopback HTTP to a simulator in this process (Tier 1):
- baseline: the OOM example with 20,000 history records over 7 days (tests/benchmarks/big_history.py), read whole;
- endless: the same workload, its history endless (tests/benchmarks/endless_history.py);
- endless, busy: the same while two other processes keep both cores busy.
Prints the medians of N repetitions (alternating), the ratios, and the pages each read and what its report says
about the history: the pages must be the same in the quiet and the busy run. Prints only; asserts nothing about
time.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import time
from collections.abc import Callable

from core.diagnosis.engine import run_to_report
from core.diagnosis.steps.history import MAX_HISTORY_RECORDS
from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.loopback import LoopbackServer
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient
from tests.benchmarks import big_history
from tests.benchmarks.endless_history import PER_PAGE, endless_tenant
from tests.benchmarks.harness import alternate, median, ms, ratio, spread

Outcome = tuple[float, int, str]  # seconds, history pages served, what the report says of the history


async def _baseline() -> Outcome:
    data, captured = big_history.big_case()
    plane = ControlPlane(parse_bundle(data, "big-history"), audited=False)
    with LoopbackServer(plane) as server:
        client = RunaiClient(server.url, BearerToken(plane.issue_token()))
        try:
            started = time.perf_counter()
            report = await run_to_report(big_history.request(captured), client, None, tier2_unavailable="bench")
            took = time.perf_counter() - started
        finally:
            await client.aclose()
    pages = sum(1 for r in plane.requests if r.path.endswith("/history"))
    return took, pages, f"{report.recurrence.count} failures counted, complete={report.recurrence.complete}"


async def _endless() -> Outcome:
    async with endless_tenant() as (client, plane, request):
        started = time.perf_counter()
        report = await run_to_report(request, client, None, tier2_unavailable="bench")
        took = time.perf_counter() - started
    said = next((m.why for m in report.missing if m.what == "older history"), "no cap reached")
    return took, plane.pages_served, said


def _burn(stop: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _busy(run: Callable[[], Outcome]) -> Callable[[], Outcome]:
    """`run` while two processes of this benchmark keep the machine's cores busy (ended right after)."""

    def busy() -> Outcome:
        stop = multiprocessing.Event()
        burners = [multiprocessing.Process(target=_burn, args=(stop,), daemon=True) for _ in range(2)]
        for burner in burners:
            burner.start()
        try:
            return run()
        finally:
            stop.set()
            for burner in burners:
                burner.join(timeout=5)
                if burner.is_alive():
                    burner.terminate()

    return busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each side (median kept; default 3)")
    args = parser.parse_args()
    outcomes: dict[str, list[Outcome]] = {"baseline": [], "endless": [], "endless, busy": []}

    def timed(name: str, make: Callable[[], Outcome]) -> Callable[[], float]:
        def run() -> float:
            outcome = make()
            outcomes[name].append(outcome)
            return outcome[0]

        return run

    sides = {
        "baseline": timed("baseline", lambda: asyncio.run(_baseline())),
        "endless": timed("endless", lambda: asyncio.run(_endless())),
        "endless, busy": timed("endless, busy", _busy(lambda: asyncio.run(_endless()))),
    }
    samples = alternate(sides, args.reps)
    base = median(samples["baseline"])
    print(f"\nendless history ({PER_PAGE:,} records a page, cap {MAX_HISTORY_RECORDS:,} records) vs a history of "
          f"{big_history.RECORDS:,} records read whole; {args.reps} repetitions, medians")
    for name, values in samples.items():
        pages = sorted({o[1] for o in outcomes[name]})
        print(f"  {name:<14} {ms(median(values))} {spread(values)}  ratio {ratio(median(values), base):5.2f}x  "
              f"history pages {pages}")
        print(f"  {'':<14} history: {outcomes[name][-1][2]}")
    quiet = {o[1] for o in outcomes["endless"]}
    busy = {o[1] for o in outcomes["endless, busy"]}
    print(
        f"  pages read, quiet vs busy: {sorted(quiet)} vs {sorted(busy)}: "
        + ("the same" if quiet == busy else "DIFFER")
    )
    print(f"  busy / quiet time: {ratio(median(samples['endless, busy']), median(samples['endless'])):.2f}x")


if __name__ == "__main__":
    main()
