"""What a 24-hour Nodes view costs (`runai-triage nodes`): API requests and wall time on the 2,193-workload demo
tenant, against generated 20,000-workload tenants, in the same run; each tenant served by `runai-triage serve`
in a process of its own, so the simulator's CPU is not counted.

Run: `.venv/bin/python -m tests.benchmarks.bench_nodes [--workloads 20000] [--reps 3] [--concurrency 4]`

The generated tenants are the demo's workloads repeated under new ids and names (their pods too), each copy
moved back in time:
- "history": every copy a month or more older than the demo, its work ended then (its pods completed, its
  running workloads Completed), so the 24-hour window holds exactly the demo's pods while the tenant holds nine
  times the history;
- "busier window": one copy only ten minutes older, as it was (inside the window: its pods and failures are the
  window's too), the rest as in "history".
The view should cost the same on the demo and on "history" (its reads follow the pods of the window, not the
tenant's history) and more on "busier window". Prints, per tenant: the workloads it holds, the pods of the
window, the requests (the view's own list reads, and the reads of its diagnoses), the median wall time of the
repetitions and its ratio to the demo's. One unrecorded run warms each server and client first; the tenants
take turns, repetition after repetition. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from core.sim.bundle import CaseBundle, parse_instant
from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.sources.credentials import BearerToken
from core.sources.kube_types import KubeSettings
from core.tenant import Tenant, open_real_tenant
from core.triage.nodes import NodesRequest, NodesResult, nodes_view
from tests.benchmarks.harness import ServedCase, median, ratio

EAST = DEMO_CLUSTERS[0]["uuid"]
NOW = load_demo_bundle().captured_at
_TIMES = ("phaseUpdatedAt", "createdAt", "updatedAt", "completedAt", "deletedAt", "k8sPhaseUpdatedAt")
LIST_READS = ("/api/v1/workloads/pods", "/api/v1/nodes", "/api/v1/workloads", "/api/v1/clusters")


def _at(item: dict[str, Any], key: str) -> str | None:
    value = item.get(key)
    return value if isinstance(value, str) else None


def _shift(item: dict[str, Any], by: timedelta) -> dict[str, Any]:
    moved = dict(item)
    for key in _TIMES:
        when = parse_instant(moved.get(key))
        if when is not None:
            moved[key] = (when - by).strftime("%Y-%m-%dT%H:%M:%SZ")
    return moved


def _copy(entry: dict[str, Any], copy_no: int, back: timedelta, *, ended: bool) -> dict[str, Any]:
    wl = _shift(entry["workload"], back)
    wl["id"] = f"{wl['id'][:-6]}{copy_no:06d}"
    wl["name"] = f"{wl['name']}-c{copy_no}"
    if ended and wl.get("phase") not in ("Failed", "Completed", "Stopped"):
        wl.update(phase="Completed", completedAt=wl["phaseUpdatedAt"])
    pods = []
    for pod in entry.get("pods") or []:
        moved = _shift(pod, back)
        moved.update(id=f"{pod['id'][:-6]}{copy_no:06d}", workloadId=wl["id"], workloadName=wl["name"],
                     name=f"{pod['name']}-c{copy_no}")
        if ended and not moved.get("completedAt") and not moved.get("deletedAt"):
            moved.update(completedAt=_at(moved, "k8sPhaseUpdatedAt") or _at(moved, "createdAt"), k8sPhase="Succeeded")
        pods.append(moved)
    return {**entry, "workload": wl, "pods": pods}


def grown(demo: CaseBundle, workloads: int, *, in_window: int = 0) -> dict[str, Any]:
    """The demo repeated to `workloads` workloads: copy k moved 31*k days back with its work ended, except the
    first `in_window` copies, moved ten minutes back as they were (their pods in a 24-hour window)."""
    base = demo.raw["workloads"]
    entries = list(base)
    copy_no = 0
    while len(entries) < workloads:
        copy_no += 1
        recent = copy_no <= in_window
        back = timedelta(minutes=10) if recent else timedelta(days=31 * copy_no)
        entries += [_copy(e, copy_no, back, ended=not recent) for e in base[: workloads - len(entries)]]
    return {**{k: v for k, v in demo.raw.items() if k != "faults"}, "workloads": entries}


def _tenant(served: ServedCase) -> Tenant:
    settings = KubeSettings(kubeconfig=served.kubeconfig, in_cluster=False)
    return open_real_tenant(served.url, BearerToken(served.token), settings)


async def _view(tenant: Tenant, concurrency: int) -> tuple[float, NodesResult]:
    request = NodesRequest(EAST, since="24h", concurrency=concurrency)
    began = time.perf_counter()
    result = await nodes_view(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable, now=NOW)
    return time.perf_counter() - began, result


def _kinds(requests: list[dict[str, Any]]) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for asked in requests:
        kinds["list" if asked["path"] in LIST_READS and not asked.get("kube") else "diagnosis"] += 1
    return kinds


async def run(servers: dict[str, ServedCase], sizes: dict[str, int], reps: int, concurrency: int) -> None:
    tenants = {name: _tenant(served) for name, served in servers.items()}
    try:
        for tenant in tenants.values():
            await _view(tenant, concurrency)  # warm: the server's indexes, the client's connections and parsing
        counted: dict[str, Counter[str]] = {}
        times: dict[str, list[float]] = {name: [] for name in tenants}
        seen: dict[str, NodesResult] = {}
        for rep in range(reps):  # the tenants take turns, so a busy moment of the machine falls on each alike
            for name, tenant in tenants.items():
                before = len(servers[name].requests()) if rep == 0 else 0
                took, seen[name] = await _view(tenant, concurrency)
                times[name].append(took)
                if rep == 0:
                    counted[name] = _kinds(servers[name].requests()[before:])
    finally:
        for tenant in tenants.values():
            await tenant.aclose()
    base = median(times["demo"])
    print(f"24-hour Nodes view of demo-east, --concurrency {concurrency}, median of {reps}, server in its own process")
    print(f"{'tenant':<15}{'workloads':>10}{'window pods':>12}{'list reads':>11}{'diagnosis reads':>16}"
          f"{'requests':>9}{'seconds':>9}{'vs demo':>9}")
    for name in tenants:
        kinds, took = counted[name], median(times[name])
        print(f"{name:<15}{sizes[name]:>10,}{seen[name].pods:>12,}{kinds['list']:>11,}{kinds['diagnosis']:>16,}"
              f"{sum(kinds.values()):>9,}{took:>9.2f}{ratio(took, base):>8.2f}x")
    first = {name: (r.rows[0].name, r.rows[0].failed, r.rows[0].workloads) for name, r in seen.items()}
    print("first node (name, failed, workloads): " + "; ".join(f"{n}: {t}" for n, t in first.items()))


def main(workloads: int, reps: int, concurrency: int) -> None:
    demo = load_demo_bundle()
    bundles = {
        "demo": {k: v for k, v in demo.raw.items() if k != "faults"},
        "history": grown(demo, workloads),
        "busier window": grown(demo, workloads, in_window=1),
    }
    with tempfile.TemporaryDirectory(prefix="bench-nodes-") as tmp, contextlib.ExitStack() as stack:
        servers: dict[str, ServedCase] = {}
        for name, raw in bundles.items():
            path = Path(tmp) / f"{name.replace(' ', '-')}.json"
            path.write_text(json.dumps(raw), encoding="utf-8")
            servers[name] = stack.enter_context(ServedCase(path))
        asyncio.run(run(servers, {n: len(b["workloads"]) for n, b in bundles.items()}, reps, concurrency))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    main(args.workloads, args.reps, args.concurrency)
