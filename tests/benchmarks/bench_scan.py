"""`scan` throughput: workloads diagnosed per second by a scan, against the same workloads diagnosed one after
another, in the same run, on the demo tenant over real HTTP with every answer delayed by L ms (a real tenant
answers in tens of milliseconds, and that wait is what a scan overlaps).

Run: `.venv/bin/python -m tests.benchmarks.bench_scan [--since 24h] [--latency-ms 20] [--concurrency 1,2,4,8]`

Baseline: each workload the scan chose, diagnosed alone with `run_to_report`, one after the other (no listing,
no events reads for judging: the scan's extra work counts against it). Prints wall time, workloads per second
and the ratio to the baseline; asserts nothing about time. The verdicts of both are compared, as a check that
the speed is not bought with a different answer.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from core.diagnosis.engine import run_to_report
from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.tenant import Tenant, open_bundle_tenant
from core.triage.batch import verdict_label
from core.triage.scan import ScanRequest, ScanResult, scan


async def _scan(tenant: Tenant, since: str, concurrency: int) -> tuple[float, ScanResult]:
    assert tenant.captured_at is not None
    request = ScanRequest(cluster_id=DEMO_CLUSTERS[0]["uuid"], since=since, concurrency=concurrency)
    began = time.perf_counter()
    result = await scan(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable,
                        now=tenant.captured_at)
    return time.perf_counter() - began, result


async def _one_after_another(tenant: Tenant, result: ScanResult) -> tuple[float, list[str]]:
    began = time.perf_counter()
    labels = []
    for entry in result.entries:
        report = await run_to_report(entry.verdict.request, tenant.runai, tenant.kube,
                                     tier2_unavailable=tenant.kube_unavailable)
        labels.append(verdict_label(report))
    return time.perf_counter() - began, labels


async def main(since: str, latency_ms: float, levels: list[int]) -> None:
    bundle = load_demo_bundle()
    async with open_bundle_tenant(bundle, label="demo", latency_ms=latency_ms) as tenant:
        await asyncio.to_thread(tenant.warm_kube)
        _, first = await _scan(tenant, since, max(levels))  # warm: clients, connections, parsing caches
        base, labels = await _one_after_another(tenant, first)
        count = len(first.entries)
        assert labels == [e.label for e in first.entries], "a scan verdict differs from its single diagnosis"
        print(f"demo-east, window {since}, {count} workloads, every answer delayed {latency_ms:g} ms")
        print(f"{'run':<28}{'seconds':>9}{'workloads/s':>13}{'vs one by one':>15}")
        print(f"{'one after another':<28}{base:>9.2f}{count / base:>13.1f}{1.0:>14.2f}x")
        for level in levels:
            took, result = await _scan(tenant, since, level)
            assert len(result.entries) == count
            label = f"scan --concurrency {level}"
            print(f"{label:<28}{took:>9.2f}{count / took:>13.1f}{base / took:>14.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", default="24h")
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--concurrency", default="1,2,4,8", help="comma-separated levels")
    args = parser.parse_args()
    asyncio.run(main(args.since, args.latency_ms, [int(x) for x in args.concurrency.split(",")]))
