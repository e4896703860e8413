"""The simulator's list endpoint on a 100,000-workload tenant against the same on the 2,160-workload demo tenant.

Run: `.venv/bin/python -m tests.benchmarks.bench_sim_scale [--workloads N] [--reps N]`

The large tenant is the demo tenant's workloads repeated under new ids, names and phase times (their per-workload
reads shared with the originals, as a bundle loaded from disk would hold its own copies). Each query is what the
picker sends: one cluster, newest phase change first, 40 rows a page; the same with a name filter, with a
project, with the needs-attention phase filters, and the count. Timed in this process through
`ControlPlane.handle` (no HTTP), CPU time (`process_time`):
- a page: the next page of a query already asked for (paging through a list; target <= 2x the demo's);
- a first page: a query asked for the first time (filters just changed), printed beside;
- the count of a query already counted, and of one never asked for (which walks every workload of the
  cluster that passes the filters: the one figure that grows with the tenant).
Memory: Python memory (tracemalloc) the control plane adds to the loaded bundle once every query has been
asked, per workload, for both tenants. Prints only; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from core.sim.bundle import CaseBundle, parse_bundle, parse_instant
from core.sim.control_plane import ControlPlane, SimRequest
from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from tests.benchmarks.harness import alternate, median, ratio, spread

TARGET = 2.0
PAGE = 40
QUIET = ("Succeeded", "Completed", "Running", "Initializing", "Creating", "Resuming", "Deleting", "Updating")


def _queries(cluster: str) -> dict[str, list[str]]:
    base = f"clusterId=={cluster}"
    return {
        "cluster": [base],
        "name": [f"{base},name=@vision"],
        "project": [f"{base},projectName==nlp"],
        "attention": [base + "".join(f",phase!={p}" for p in QUIET)],
    }


def _request(filters: list[str], offset: int, *, count: bool = False) -> SimRequest:
    if count:
        return SimRequest("GET", "/api/v1/workloads/count", tuple(("filterBy", f) for f in filters), {})
    params = [("filterBy", f) for f in filters]
    params += [("sortBy", "phaseUpdatedAt"), ("sortOrder", "desc"), ("offset", str(offset)), ("limit", str(PAGE))]
    return SimRequest("GET", "/api/v1/workloads", tuple(params), {})


def _grown(demo: CaseBundle, workloads: int) -> CaseBundle:
    """The demo tenant repeated to `workloads` workloads: new ids, names and times; the rest shared."""
    raw = dict(demo.raw)
    entries: list[dict[str, Any]] = []
    base = demo.raw["workloads"]
    copy_no = 0
    while len(entries) < workloads:
        for entry in base:
            if len(entries) >= workloads:
                break
            if copy_no == 0:
                entries.append(entry)
                continue
            wl = dict(entry["workload"])
            wl["id"] = f"{wl['id'][:-6]}{copy_no:06d}"
            wl["name"] = f"{wl['name']}-{copy_no}"
            for key in ("phaseUpdatedAt", "createdAt", "updatedAt"):
                when = parse_instant(wl.get(key))
                if when is not None:
                    wl[key] = (when - timedelta(minutes=7 * copy_no)).strftime("%Y-%m-%dT%H:%M:%SZ")
            entries.append({**entry, "workload": wl})
        copy_no += 1
    raw["workloads"] = entries
    raw.pop("faults", None)  # the demo's one injected 429 belongs to one request, not to a benchmark
    return parse_bundle(raw, f"demo x{copy_no}")


def _cpu(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


class Tenant:
    def __init__(self, name: str, bundle: CaseBundle) -> None:
        self.name = name
        self.bundle = bundle
        self.plane = ControlPlane(bundle, audited=False)
        self.token = self.plane.issue_token()
        self.cluster = DEMO_CLUSTERS[0]["uuid"]
        self.asked = 0  # queries asked so far: each first page below is a query not seen before

    def handle(self, request: SimRequest) -> None:
        answer = self.plane.handle(
            SimRequest(request.method, request.path, request.query, {"authorization": f"Bearer {self.token}"})
        )
        assert answer.status == 200, answer.body[:300]

    def first_page(self, kind: str) -> float:
        self.asked += 1
        # A filter never asked for before (a name no workload has), as when the user types a new one.
        filters = [f"{_queries(self.cluster)[kind][0]},name!=never-{self.asked}"]
        return _cpu(lambda: self.handle(_request(filters, 0)))

    def next_page(self, kind: str) -> float:
        filters = _queries(self.cluster)[kind]
        self.handle(_request(filters, 0))
        return _cpu(lambda: self.handle(_request(filters, PAGE)))

    def count(self, kind: str) -> float:
        filters = _queries(self.cluster)[kind]
        self.handle(_request(filters, 0, count=True))
        return _cpu(lambda: self.handle(_request(filters, 0, count=True)))

    def first_count(self, kind: str) -> float:
        self.asked += 1
        filters = [f"{_queries(self.cluster)[kind][0]},name!=never-{self.asked}"]
        return _cpu(lambda: self.handle(_request(filters, 0, count=True)))


def _memory(bundle_of: Callable[[], CaseBundle], tenant: Callable[[CaseBundle], Tenant]) -> tuple[int, int]:
    """Bytes the control plane adds to a loaded bundle once every query was asked, and the workload count."""
    bundle = bundle_of()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    t = tenant(bundle)
    for kind in _queries(t.cluster):
        t.next_page(kind)
        t.count(kind)
    t.first_page("cluster")
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return after - before, len(bundle.workloads)


def _time_pages(demo: CaseBundle, workloads: int, reps: int) -> None:
    big = _grown(demo, workloads)
    small_t, big_t = Tenant("demo", demo), Tenant("large", big)
    print(f"simulator list pages: {len(big.workloads):,} workloads against {len(demo.workloads):,}, "
          f"CPU per request, median of {reps}")
    print(f"{'query':28s} {'large':>10s} {'demo':>10s} {'ratio':>7s}")
    worst = 0.0
    measures = (
        ("next page", Tenant.next_page),
        ("first page", Tenant.first_page),
        ("count again", Tenant.count),
        ("first count", Tenant.first_count),
    )
    for kind in _queries(small_t.cluster):
        for what, measure in measures:
            samples = alternate(
                {"large": lambda m=measure, k=kind: m(big_t, k), "demo": lambda m=measure, k=kind: m(small_t, k)},
                reps,
            )
            large, small = median(samples["large"]), median(samples["demo"])
            r = ratio(large, small)
            if what == "next page":
                worst = max(worst, r)
            print(f"{kind + ': ' + what:28s} {large * 1000:8.2f}ms {small * 1000:8.2f}ms {r:6.1f}x  "
                  f"{spread(samples['large'])}")
    print(f"worst next-page ratio {worst:.1f}x   target <= {TARGET:g}x: {'meets' if worst <= TARGET else 'MISSES'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workloads", type=int, default=100_000, help="workloads in the large tenant")
    parser.add_argument("--reps", type=int, default=5, help="repetitions (median kept; default 5)")
    args = parser.parse_args()
    _time_pages(load_demo_bundle(), args.workloads, args.reps)
    for label, size in (("demo", None), ("large", args.workloads)):
        added, n = _memory(
            lambda s=size: load_demo_bundle() if s is None else _grown(load_demo_bundle(), s),
            lambda b, lab=label: Tenant(lab, b),
        )
        print(f"memory the simulator adds ({label}, {n:,} workloads): {added / 2**20:7.1f} MiB, "
              f"{added / n:7.0f} bytes per workload")


if __name__ == "__main__":
    main()
