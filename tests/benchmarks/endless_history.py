"""A workload whose history never ends: every page holds 20,000 records (whatever `limit` asked) and a `next`
further on, for ever. The shared OOM example with its history served by a control plane of its own, over real
HTTP, for the test and the benchmark that show a history read stops at its record cap, whatever the machine's
speed (tests/engine/test_history_cap.py, tests/benchmarks/bench_endless_history.py)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from core.diagnosis.request import DiagnosisRequest
from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.exchange import SimRequest, SimResponse
from core.sim.loopback import LoopbackServer
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient
from tests.benchmarks import big_history

PER_PAGE = 20_000


class EndlessHistory(ControlPlane):
    """The history of `workload_id` is endless; everything else is the bundle's. Records go oldest first, so a
    reader cannot stop at its lookback: only its own cap ends the read."""

    def __init__(self, bundle: Any, workload_id: str, records: list[dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(bundle, **kwargs)
        self._path = f"/api/v1/workloads/{workload_id}/history"
        self._head = json.dumps({"records": records}, separators=(",", ":")).encode()[:-1] + b',"next":'
        self.pages_served = 0

    def _route(self, method: str, path: str, request: SimRequest, kube: bool) -> SimResponse:
        if kube or path != self._path:
            return super()._route(method, path, request, kube)
        offset = int(dict(request.query).get("offset") or 0)
        self.pages_served += 1
        body = self._head + str(offset + PER_PAGE).encode() + b"}"
        return SimResponse(200, {"Content-Type": "application/json"}, body)


def endless_case() -> tuple[dict[str, Any], datetime, list[dict[str, Any]]]:
    """The OOM example (Tier 1 only) and one page of 20,000 history records, oldest first, inside 7 days."""
    data, captured = big_history.big_case(records=PER_PAGE)
    records = data["workloads"][0].pop("history")
    return data, captured, records


@asynccontextmanager
async def endless_tenant(
    *, latency_ms: float = 0.0
) -> AsyncIterator[tuple[RunaiClient, EndlessHistory, DiagnosisRequest]]:
    """The real Run:ai client on an endless history served over loopback, and the request that diagnoses it."""
    data, captured, records = endless_case()
    plane = EndlessHistory(parse_bundle(data, "endless-history"), big_history.WORKLOAD, records, latency_ms=latency_ms)
    with LoopbackServer(plane) as server:
        client = RunaiClient(server.url, BearerToken(plane.issue_token()))
        try:
            yield client, plane, big_history.request(captured)
        finally:
            await client.aclose()
