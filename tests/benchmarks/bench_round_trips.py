"""Effective sequential round trips of one diagnosis, against the simulator (in a process of its own) with latency.

Run: `.venv/bin/python -m tests.benchmarks.bench_round_trips [--reps N] [--latencies 0,50,100] [--timeline]`

For each case the engine runs with the real clients (Run:ai over httpx and, when the case has Kubernetes data,
the kubernetes client) against `runai-triage serve --latency-ms L`, one server process per latency, whose every
answer is delayed by L ms. With T(L) the median of N wall times (the latencies alternate, repetition after
repetition), (T(L) - T(0)) / L is how many round trips the diagnosis waited for one after another; the number
of requests is what it would wait for if it made them one at a time. Targets: <= 3 for Option A with metrics and
Tier 2 (example-oom), <= 8 for a workload with 20,000 history records. Prints only; asserts nothing about time.
`--timeline` also prints when each read started and ended at the largest L.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from core.diagnosis.engine import diagnose, run_to_report
from core.diagnosis.progress import ReadFinished
from core.diagnosis.request import DiagnosisRequest
from core.sim.bundle import load_bundle
from core.sim.demo import demo_expectations, load_demo_bundle
from core.sources.credentials import BearerToken
from core.sources.kube_types import KubeSettings
from core.tenant import Tenant, open_real_tenant
from tests.benchmarks import big_history
from tests.benchmarks.harness import ServedCase, alternate, median, spread
from tests.paths import CASES


@dataclass(frozen=True)
class Case:
    label: str
    bundle: Path | None  # None: the demo tenant
    request: DiagnosisRequest
    target: float | None = None


def _cases(tmp: Path) -> list[Case]:
    oom = load_bundle(CASES / "example-oom.json")
    demo = load_demo_bundle()
    stories = {e["key"]: e for e in demo_expectations()}
    by_name, pull = stories["llama-ft-7b-by-name"], stories["pull-rate-limit"]
    big, captured = big_history.write_big_case(tmp, tier2=True)
    return [
        Case(
            "A example-oom (OOM, metrics, Tier 2)",
            CASES / "example-oom.json",
            DiagnosisRequest(cluster_id=big_history.CLUSTER, workload_id=big_history.WORKLOAD, now=oom.captured_at),
            3.0,
        ),
        Case(
            "B demo llama-ft-7b by name (OOM, metrics, Tier 2)",
            None,
            DiagnosisRequest(
                cluster_id=by_name["clusterId"],
                name=by_name["name"],
                project=by_name["project"],
                lookback=by_name["lookback"],
                now=demo.captured_at,
            ),
        ),
        Case(
            "C demo pull-rate-limit (image pull, Tier 2)",
            None,
            DiagnosisRequest(cluster_id=pull["clusterId"], workload_id=pull["workloadId"], now=demo.captured_at),
        ),
        Case(f"D {big_history.RECORDS:,} history records (Tier 2)", big, big_history.request(captured), 8.0),
    ]


def _tenant(served: ServedCase) -> Tenant:
    settings = KubeSettings(kubeconfig=served.kubeconfig, in_cluster=False)
    return open_real_tenant(served.url, BearerToken(served.token), settings)


async def _run_once(served: ServedCase, request: DiagnosisRequest) -> tuple[float, str]:
    tenant = _tenant(served)
    try:
        kube, unavailable = tenant.kube, tenant.kube_unavailable  # opened before the clock starts
        start = time.perf_counter()
        report = await run_to_report(request, tenant.runai, kube, tier2_unavailable=unavailable)
        return time.perf_counter() - start, f"{report.outcome}/{report.category}"
    finally:
        await tenant.aclose()


async def _timeline(served: ServedCase, request: DiagnosisRequest, latency_ms: float) -> None:
    """When each read started and ended, in units of L: reads on one row of the chain overlap."""
    tenant = _tenant(served)
    rows: list[tuple[float, float, str]] = []
    try:
        kube, unavailable = tenant.kube, tenant.kube_unavailable
        start = time.perf_counter()
        async for event in diagnose(request, tenant.runai, kube, tier2_unavailable=unavailable):
            if isinstance(event, ReadFinished):
                end = time.perf_counter() - start
                rows.append((end - event.seconds, end, f"{event.source}: {event.what}"))
    finally:
        await tenant.aclose()
    unit = latency_ms / 1000
    print(f"  reads at L = {latency_ms:g} ms (start..end in units of L):")
    for begin, end, what in sorted(rows):
        print(f"    {begin / unit:5.2f} .. {end / unit:5.2f}  {what}")


def _measure(case: Case, latencies: list[float], reps: int, timeline: bool) -> None:
    with ExitStack() as stack:
        servers = {lat: stack.enter_context(ServedCase(case.bundle, latency_ms=lat)) for lat in latencies}
        verdicts: set[str] = set()

        def run(latency: float) -> float:
            elapsed, verdict = asyncio.run(_run_once(servers[latency], case.request))
            verdicts.add(verdict)
            return elapsed

        samples = alternate({f"{lat:g}": (lambda lat=lat: run(lat)) for lat in latencies}, reps)
        log = servers[latencies[0]].requests()
        runs = reps + 1  # the warm-up round included
        requests = sum(1 for r in log if r["method"] == "GET") // runs
        print(f"\n{case.label}: verdict {', '.join(sorted(verdicts))}, {requests} requests")
        base = median(samples[f"{latencies[0]:g}"])
        print(f"  T({latencies[0]:g} ms) = {base * 1000:8.1f} ms {spread(samples[f'{latencies[0]:g}'])}")
        for latency in latencies[1:]:
            values = samples[f"{latency:g}"]
            effective = (median(values) - base) / (latency / 1000)
            target = ""
            if case.target is not None:
                target = f"   target <= {case.target:g}: {'meets' if effective <= case.target else 'MISSES'}"
            print(f"  T({latency:g} ms) = {median(values) * 1000:8.1f} ms {spread(values)}  effective sequential "
                  f"round trips {effective:5.2f} of {requests} requests{target}")
        if timeline:
            asyncio.run(_timeline(servers[latencies[-1]], case.request, latencies[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per latency (median kept; default 5)")
    parser.add_argument("--latencies", default="0,50,100", help="comma-separated latencies in ms, 0 first")
    parser.add_argument("--timeline", action="store_true", help="also print each read's start and end")
    parser.add_argument("--only", help="run only the cases whose label starts with this letter (A, B, C, D)")
    args = parser.parse_args()
    latencies = [float(x) for x in args.latencies.split(",")]
    if latencies[0] != 0:
        latencies.insert(0, 0.0)
    print(f"latencies {', '.join(f'{x:g}' for x in latencies)} ms, median of {args.reps} alternating runs each")
    with tempfile.TemporaryDirectory(prefix="runai-bench-") as tmp:
        for case in _cases(Path(tmp)):
            if args.only is None or case.label.startswith(args.only):
                _measure(case, latencies, max(1, args.reps), args.timeline)


if __name__ == "__main__":
    main()
