"""Effective sequential round trips of one diagnosis, against the simulated control plane with injected latency.

Run: `.venv/bin/python -m tests.benchmarks.bench_round_trips [--runs N] [--latencies 0,50,100]`

For each case the engine runs over real HTTP (the Run:ai client and, when the case has Kubernetes data, the
kubernetes client) against a loopback simulator whose every answer is delayed by L ms. With T(L) the best of N
wall times, (T(L) - T(0)) / L is how many round trips the diagnosis waited for one after another; the number of
requests is what it would wait for if it made them one at a time. Target: <= 3 for Option A with metrics and
Tier 2 (example-oom). Prints only; it asserts nothing about time. `--timeline` also prints when each read
started and ended at the largest L, which shows the chain of reads that waited for one another.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import dataclass

from core.diagnosis.engine import diagnose, run_to_report
from core.diagnosis.progress import ReadFinished
from core.diagnosis.request import DiagnosisRequest
from core.sim.bundle import CaseBundle, load_bundle
from core.sim.demo import demo_expectations, load_demo_bundle
from core.tenant import open_bundle_tenant
from tests.paths import CASES

TARGET_OPTION_A = 3.0


@dataclass(frozen=True)
class Case:
    label: str
    bundle: CaseBundle
    request: DiagnosisRequest
    target: float | None = None


def _cases() -> list[Case]:
    oom = load_bundle(CASES / "example-oom.json")
    demo = load_demo_bundle()
    stories = {e["key"]: e for e in demo_expectations()}
    by_name = stories["llama-ft-7b-by-name"]
    pull = stories["pull-rate-limit"]
    return [
        Case(
            "A example-oom (OOM, metrics, Tier 2)",
            oom,
            DiagnosisRequest(
                cluster_id="05664dde-1ea7-5931-81c6-fcd52b6608e7",
                workload_id="9c272e2c-4cbd-59c9-ad76-2b982958772c",
                now=oom.captured_at,
            ),
            TARGET_OPTION_A,
        ),
        Case(
            "B demo llama-ft-7b by name (OOM, metrics, Tier 2)",
            demo,
            DiagnosisRequest(
                cluster_id=by_name["clusterId"],
                name=by_name["name"],
                project=by_name["project"],
                lookback=by_name["lookback"],
                now=demo.captured_at,
            ),
        ),
        Case(
            "A demo pull-rate-limit (image pull, Tier 2)",
            demo,
            DiagnosisRequest(
                cluster_id=pull["clusterId"], workload_id=pull["workloadId"], now=demo.captured_at
            ),
        ),
    ]


async def _run_once(case: Case, latency_ms: float) -> tuple[float, int, str]:
    tenant = open_bundle_tenant(case.bundle, label=case.label, latency_ms=latency_ms)
    try:
        assert tenant.control_plane is not None
        before = len(tenant.control_plane.requests)
        start = time.perf_counter()
        report = await run_to_report(
            case.request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable
        )
        elapsed = time.perf_counter() - start
        requests = len(tenant.control_plane.requests) - before
        return elapsed, requests, f"{report.outcome}/{report.category}"
    finally:
        await tenant.aclose()


async def _measure(case: Case, latencies: list[float], runs: int) -> None:
    best: dict[float, float] = {}
    requests = 0
    verdict = ""
    for latency in latencies:
        times = []
        for _ in range(runs):
            elapsed, requests, verdict = await _run_once(case, latency)
            times.append(elapsed)
        best[latency] = min(times)
    print(
        f"\n{case.label}: verdict {verdict}, {requests} requests (= sequential round trips if one at a time)"
    )
    base = best[latencies[0]]
    print(f"  T({latencies[0]:g} ms) = {base * 1000:8.1f} ms (best of {runs})")
    for latency in latencies[1:]:
        effective = (best[latency] - base) / (latency / 1000)
        target = ""
        if case.target is not None:
            verdict_mark = "meets" if effective <= case.target else "MISSES"
            target = f"   target <= {case.target:g}: {verdict_mark}"
        print(
            f"  T({latency:g} ms) = {best[latency] * 1000:8.1f} ms  effective sequential round trips "
            f"{effective:5.2f} of {requests} requests{target}"
        )


async def _timeline(case: Case, latency_ms: float) -> None:
    """When each read started and ended, in units of L: reads on one row of the chain overlap."""
    tenant = open_bundle_tenant(case.bundle, label=case.label, latency_ms=latency_ms)
    rows: list[tuple[float, float, str]] = []
    try:
        start = time.perf_counter()
        async for event in diagnose(
            case.request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable
        ):
            if isinstance(event, ReadFinished):
                end = time.perf_counter() - start
                rows.append((end - event.seconds, end, f"{event.source}: {event.what}"))
    finally:
        await tenant.aclose()
    unit = latency_ms / 1000
    print(f"  reads at L = {latency_ms:g} ms (start..end in units of L):")
    for begin, end, what in sorted(rows):
        print(f"    {begin / unit:5.2f} .. {end / unit:5.2f}  {what}")


async def main_async(latencies: list[float], runs: int, timeline: bool) -> None:
    print(f"latencies {', '.join(f'{x:g}' for x in latencies)} ms, best of {runs} runs per latency")
    for case in _cases():
        await _measure(case, latencies, runs)
        if timeline:
            await _timeline(case, latencies[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per latency; the best is kept (default 3)")
    parser.add_argument("--latencies", default="0,50,100", help="comma-separated latencies in ms, 0 first")
    parser.add_argument("--timeline", action="store_true", help="also print each read's start and end")
    args = parser.parse_args()
    latencies = [float(x) for x in args.latencies.split(",")]
    if latencies[0] != 0:
        latencies.insert(0, 0.0)
    asyncio.run(main_async(latencies, max(1, args.runs), args.timeline))


if __name__ == "__main__":
    main()
