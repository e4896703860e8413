"""Every body the simulator answers for a case bundle: each read endpoint, for each workload, every page.

The simulator is asked in process (`ControlPlane.handle`, the same handler `serve` and the loopback server
run), so tens of thousands of answers take seconds. The bundle's injected faults are left out: they are
answers a test asked for, not the API's shape.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from core.sim.bundle import CaseBundle, parse_instant
from core.sim.control_plane import ControlPlane, SimRequest
from core.sim.runai_routes import SPEC_KINDS

PAGE = 500  # the API's largest page: fewest requests, and the largest bodies a strict client must read


@dataclass(frozen=True)
class Answer:
    endpoint: str  # the route template
    workload: str  # "name (id)", or "-" for a tenant-wide body
    path: str
    status: int
    body: Any


class Asker:
    def __init__(self, bundle: CaseBundle) -> None:
        self.plane = ControlPlane(replace(bundle, faults=[]))
        self._auth = {"authorization": f"Bearer {self.plane.issue_token()}"}

    def get(self, path: str, query: dict[str, str] | None = None) -> tuple[int, Any]:
        answer = self.plane.handle(SimRequest("GET", path, tuple((query or {}).items()), self._auth))
        return answer.status, json.loads(answer.body) if answer.body else None


def _label(entry: dict[str, Any]) -> str:
    workload = entry["workload"]
    return f"{workload.get('name')} ({workload.get('id')})"


def _pages(asker: Asker, endpoint: str, who: str, path: str, query: dict[str, str]) -> Iterator[Answer]:
    """Every page of a paged list, following `next`."""
    offset = 0
    while True:
        status, body = asker.get(path, {**query, "offset": str(offset), "limit": str(PAGE)})
        yield Answer(endpoint, who, f"{path}?offset={offset}", status, body)
        nxt = body.get("next") if status == 200 and isinstance(body, dict) else None
        if not isinstance(nxt, int) or nxt <= offset:
            return
        offset = nxt


def _metric_query(series: list[dict[str, Any]], fallback_end: str) -> dict[str, str]:
    """A query asking for every stored type over the stored samples' span (the client's usual types when none)."""
    types = sorted({str(s.get("type")) for s in series if s.get("type")}) or ["CPU_MEMORY_USAGE_BYTES"]
    stamps = [
        when
        for s in series
        for v in s.get("values") or []
        if isinstance(v, dict) and (when := parse_instant(v.get("timestamp"))) is not None
    ]
    end = max(stamps) if stamps else parse_instant(fallback_end)
    start = min(stamps) if stamps else end - timedelta(days=1)  # type: ignore[operator]
    return {
        "metricType": ",".join(types),
        "start": start.isoformat().replace("+00:00", "Z"),  # type: ignore[union-attr]
        "end": end.isoformat().replace("+00:00", "Z"),  # type: ignore[union-attr]
        "numberOfSamples": "20",
    }


def tenant_answers(asker: Asker) -> Iterator[Answer]:
    for deleted in ("false", "true"):
        yield from _pages(asker, "/api/v1/workloads", "-", "/api/v1/workloads", {"deleted": deleted})
        status, body = asker.get("/api/v1/workloads/count", {"deleted": deleted})
        yield Answer("/api/v1/workloads/count", "-", "/api/v1/workloads/count", status, body)
    status, body = asker.get("/api/v1/clusters")
    yield Answer("/api/v1/clusters", "-", "/api/v1/clusters", status, body)
    yield from fleet_answers(asker, body if status == 200 and isinstance(body, list) else [])


def fleet_answers(asker: Asker, clusters: list[Any]) -> Iterator[Answer]:
    """Every pod of the tenant-wide list (live and deleted, both verbosities), and the nodes, tenant-wide and
    of each cluster (their body has no `next`: asked for in pages until a short one)."""
    pods = "/api/v1/workloads/pods"
    for deleted in ("false", "true"):
        for verbosity in ("brief", "full"):
            yield from _pages(asker, pods, "-", pods, {"deleted": deleted, "verbosity": verbosity})
    paths = ["/api/v1/nodes"] + [f"/api/v1/clusters/{c.get('uuid')}/nodes" for c in clusters if isinstance(c, dict)]
    for path in paths:
        endpoint = path if path == "/api/v1/nodes" else "/api/v1/clusters/{clusterUuid}/nodes"
        offset = 0
        while True:
            status, body = asker.get(path, {"offset": str(offset), "limit": str(PAGE)})
            yield Answer(endpoint, "-", f"{path}?offset={offset}", status, body)
            got = body.get("nodes") if status == 200 and isinstance(body, dict) else None
            if not isinstance(got, list) or len(got) < PAGE:
                break
            offset += PAGE


def workload_answers(asker: Asker, entry: dict[str, Any], captured_at: str) -> Iterator[Answer]:
    who = _label(entry)
    wid = str(entry["workload"]["id"])
    base = f"/api/v1/workloads/{wid}"

    def one(endpoint: str, path: str, query: dict[str, str] | None = None) -> Answer:
        status, body = asker.get(path, query)
        return Answer(endpoint, who, path, status, body)

    yield one("/api/v1/workloads/{id}", base)
    yield from _pages(asker, "/api/v1/workloads/{id}/events", who, f"{base}/events", {})
    pod_ids: list[str] = []
    for deleted in ("false", "true"):
        for answer in _pages(asker, "/api/v1/workloads/{id}/pods", who, f"{base}/pods", {"deleted": deleted}):
            yield answer
            if answer.status == 200:
                pod_ids += [str(p.get("id")) for p in answer.body.get("pods") or [] if isinstance(p, dict)]
    yield from _pages(asker, "/api/v1/workloads/{id}/history", who, f"{base}/history", {})
    # The spec at the kind's own path, and the v2 document where the bundle has one.
    wtype = str(entry["workload"].get("type") or "").lower()
    for kind, served in SPEC_KINDS.items():
        if served == wtype:
            yield one(f"/api/v1/workloads/{kind}/{{id}}", f"/api/v1/workloads/{kind}/{wid}")
    if entry.get("specV2") is not None:
        yield one("/api/v2/workloads/{id}", f"/api/v2/workloads/{wid}")
    metrics = [s for s in entry.get("metrics") or [] if isinstance(s, dict)]
    yield one("/api/v1/workloads/{id}/metrics", f"{base}/metrics", _metric_query(metrics, captured_at))
    pod_series = entry.get("podMetrics") or {}
    for pod_id in dict.fromkeys([*pod_ids, *pod_series]):
        stored = [s for s in pod_series.get(pod_id) or [] if isinstance(s, dict)]
        query = _metric_query(stored or metrics, captured_at)
        yield one("/api/v1/workloads/{id}/pods/{podId}/metrics", f"{base}/pods/{pod_id}/metrics", query)
    if wtype == "inference":
        yield from _revision_answers(asker, who, wid)


def _revision_answers(asker: Asker, who: str, wid: str) -> Iterator[Answer]:
    path = f"/api/v1/workloads/inferences/{wid}/revisions"
    status, body = asker.get(path)
    yield Answer("/api/v1/workloads/inferences/{id}/revisions", who, path, status, body)
    revisions = body.get("revisions") if status == 200 and isinstance(body, dict) else None
    base = "/api/v1/workloads/inferences/revisions"
    for revision in revisions or []:
        rid = str(revision.get("id")) if isinstance(revision, dict) else ""
        for deleted in ("false", "true"):
            status, body = asker.get(f"{base}/{rid}/pods", {"deleted": deleted})
            yield Answer(f"{base}/{{revisionId}}/pods", who, f"{base}/{rid}/pods", status, body)
        yield from _pages(asker, f"{base}/{{revisionId}}/events", who, f"{base}/{rid}/events", {})
        yield from _pages(asker, f"{base}/{{revisionId}}/history", who, f"{base}/{rid}/history", {})


def all_answers(bundle: CaseBundle, entries: list[dict[str, Any]] | None = None) -> Iterator[Answer]:
    """The tenant-wide answers, then every workload's (or only `entries`')."""
    asker = Asker(bundle)
    captured = bundle.captured_at.isoformat().replace("+00:00", "Z")
    yield from tenant_answers(asker)
    for entry in bundle.workloads if entries is None else entries:
        yield from workload_answers(asker, entry, captured)
