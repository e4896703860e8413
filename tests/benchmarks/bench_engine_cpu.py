"""CPU time of a whole diagnosis in the client process, the simulator running in a process of its own.

Run: `.venv/bin/python -m tests.benchmarks.bench_engine_cpu [--reps N] [--profile]`

Two workloads of diagnoses, each served by `runai-triage serve` in its own process (so its CPU and its GIL are
not this process's), read with the real Run:ai client over loopback HTTP, Tier 1 only:
- one workload with 20,000 history records (lookback 7d): target <= 10x the baseline;
- every hand-shaped demo story, one diagnosis each (the demo's one injected 429 costs wall time, not CPU).
The baseline is `json.loads` of the very bodies the diagnoses read (fetched again with plain httpx from the
request log). CPU is `time.process_time` of this process, with the cyclic garbage collector left on as it is
in use; the time it spent, and how many collections of each generation, are printed beside (gc.callbacks).
Diagnosis and baseline alternate, N repetitions each, medians kept. `--profile` adds a cProfile split by
package. Prints only; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import pstats
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from core.diagnosis.engine import run_to_report
from core.diagnosis.history_analysis import analyse_history
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.rules import classify
from core.models.pages import parse_page
from core.models.runai import HistoryRecord
from core.sim.demo import demo_expectations, load_demo_bundle
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient
from tests.benchmarks import big_history
from tests.benchmarks.harness import ServedCase, alternate, median, print_ratio, spread

TARGET = 10.0


class GcClock:
    """Time spent in cyclic garbage collection, and collections per generation, while it is on."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = [0, 0, 0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started
            self.collections[info["generation"]] += 1

    def __enter__(self) -> GcClock:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


async def _diagnose_all(url: str, token: str, requests: list[DiagnosisRequest]) -> None:
    async with RunaiClient(url, BearerToken(token)) as client:
        for request in requests:
            await run_to_report(request, client, None, tier2_unavailable="benchmark: Tier 1 only")


def _bodies(served: ServedCase) -> list[bytes]:
    """The bodies the diagnoses read, fetched again with plain httpx, in the order they were asked for."""
    seen = [r for r in served.requests() if r["method"] == "GET" and r["status"] in (200, 207)]
    with httpx.Client(base_url=served.url, headers={"Authorization": f"Bearer {served.token}"}) as http:
        return [http.get(r["path"], params=[tuple(q) for q in r["query"]]).content for r in seen]


def _gc_timed(run: Callable[[], object], clocks: list[GcClock]) -> Callable[[], float]:
    """`run`'s CPU seconds, with the collector's time and collections of that run kept in `clocks`."""

    def timed() -> float:
        with GcClock() as clock:
            seconds = _cpu(run)
        clocks.append(clock)
        return seconds

    return timed


def _cpu(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


_BUCKETS = (
    ("engine (core/diagnosis)", ("core/diagnosis/",)),
    ("model parsing (core/models, pydantic)", ("core/models/", "pydantic")),
    ("Run:ai client (core/sources)", ("core/sources/",)),
    ("text safety (core/safety)", ("core/safety/",)),
    ("json", ("json/",)),
    ("httpx/httpcore", ("httpx", "httpcore")),
    ("asyncio", ("asyncio",)),
)


def _profile(run: Callable[[], object]) -> None:
    profile = cProfile.Profile()
    profile.enable()
    run()
    profile.disable()
    buckets: dict[str, float] = {name: 0.0 for name, _ in _BUCKETS} | {"other": 0.0}
    for (filename, _line, _func), row in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        name = next((b for b, keys in _BUCKETS if any(k in filename for k in keys)), "other")
        buckets[name] += row[2]
    total = sum(buckets.values())
    print(f"  split under cProfile (total {total * 1000:.0f} ms, profiling inflates it):")
    for name, seconds in sorted(buckets.items(), key=lambda kv: -kv[1]):
        print(f"    {name:40} {seconds * 1000:8.1f} ms  {seconds / total:6.1%}")


def _measure(
    label: str, case: Path | None, requests: list[DiagnosisRequest], reps: int, profile: bool, target: float | None
) -> None:
    with ServedCase(case) as served:
        url, token = served.url, served.token

        def diagnose() -> None:
            asyncio.run(_diagnose_all(url, token, requests))

        diagnose()  # warm: first-use costs (schemas, regexes) are not what this measures
        bodies = _bodies(served)
        def decode() -> None:
            for body in bodies:
                json.loads(body)

        gcs: list[GcClock] = []
        base_gcs: list[GcClock] = []
        timed_diagnosis, timed_baseline = _gc_timed(diagnose, gcs), _gc_timed(decode, base_gcs)
        samples = alternate({"diagnosis": timed_diagnosis, "baseline": timed_baseline}, reps)
        size = sum(len(b) for b in bodies)
        print(f"\n{label}: {len(requests)} diagnosis(es), {len(bodies)} responses, {size / 1e6:.1f} MB of JSON")
        print_ratio("CPU of the diagnoses (process_time)", samples["diagnosis"],
                    "baseline json.loads of the same bodies", samples["baseline"], target)
        gc_ms = [g.seconds for g in gcs[1:]]  # the first was the warm-up round
        per_gen = gcs[-1].collections
        print(f"  of which cyclic GC: {median(gc_ms) * 1000:.1f} ms {spread(gc_ms)}; collections in the last "
              f"run: gen0 {per_gen[0]}, gen1 {per_gen[1]}, gen2 {per_gen[2]}")
        # The baseline's own collections: whether a full one falls inside it is what moves it most between runs.
        base_ms = [g.seconds for g in base_gcs]
        full = sum(g.collections[2] for g in base_gcs)
        print(f"  the baseline's cyclic GC: {median(base_ms) * 1000:.1f} ms {spread(base_ms)}; full collections in "
              f"its {len(base_gcs)} runs: {full}")
        if profile:
            _profile(diagnose)


def _measure_analysis(reps: int) -> None:
    """The engine's own work on parsed records, no HTTP and no parsing: history analysis and classification."""
    data, captured = big_history.big_case()
    records = parse_page({"records": data["workloads"][0]["history"]}, "records", HistoryRecord).items
    cutoff = captured - timedelta(days=7)

    def analyse() -> float:
        def work() -> None:
            analysis = analyse_history(records, cutoff=cutoff, current_phase="Failed")
            for occurrence in analysis.occurrences:
                classify(occurrence.observations)

        return _cpu(work)

    samples = alternate(
        {"analysis": analyse, "sort": lambda: _cpu(lambda: sorted(records, key=lambda r: r.timestamp))},  # type: ignore[arg-type,return-value]
        reps,
    )
    print(f"\nengine logic alone on {len(records):,} parsed records (analyse_history + classify every occurrence):")
    print(f"  CPU {median(samples['analysis']) * 1000:.1f} ms {spread(samples['analysis'])}; baseline sorting the "
          f"records by time {median(samples['sort']) * 1000:.1f} ms")


def _demo_requests(captured: datetime) -> list[DiagnosisRequest]:
    out = []
    for case in demo_expectations():
        kwargs: dict[str, Any] = {"cluster_id": case["clusterId"], "lookback": case.get("lookback") or "24h"}
        if case.get("lookup") == "id" and case.get("workloadId"):
            kwargs["workload_id"] = case["workloadId"]
        else:
            kwargs.update(name=case["name"], project=case["project"], active=case.get("intent") == "active")
        out.append(DiagnosisRequest(now=captured, **kwargs))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=9, help="repetitions of each side (median kept; default 9)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile split by package")
    args = parser.parse_args()
    reps = max(1, args.reps)
    with tempfile.TemporaryDirectory(prefix="runai-bench-") as tmp:
        path, captured = big_history.write_big_case(Path(tmp))
        label = f"{big_history.RECORDS:,} history records, lookback 7d"
        _measure(label, path, [big_history.request(captured)], reps, args.profile, TARGET)
    _measure_analysis(reps)
    demo = load_demo_bundle()
    assert demo.captured_at is not None
    # Small bodies: a story's CPU is per request (HTTP, the steps' logic), so the issue sets no ratio for it.
    _measure("every hand-shaped demo story", None, _demo_requests(demo.captured_at), reps, args.profile, None)


if __name__ == "__main__":
    main()
