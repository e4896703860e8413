"""Whole diagnoses on a tenant whose every answer is a body Run:ai's SDK accepts, drawn from its models (see
sdk_strategies.py): a workload of any kind and phase, its events, pods, history and kind-specific spec, and its
cluster, served by the simulator to our real client in process. Asserted: a report, never an exception; what
the report says of the workload is what the body said; no memory value that the tenant did not hold (no
metrics are stored, so no peak may appear).

Fixed seed and a small budget in CI; `RUNAI_TRIAGE_SDK_EXAMPLES=500` runs longer (README, tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from runai.models.displayed_cluster import DisplayedCluster
from runai.models.event2 import Event2
from runai.models.history_record1 import HistoryRecord1
from runai.models.pod1 import Pod1
from runai.models.workload_detailed import WorkloadDetailed

from core.diagnosis.engine import run_to_report
from core.diagnosis.observations import quote
from core.diagnosis.request import DiagnosisRequest
from core.models.quantity import QuantityError, quantity_to_bytes
from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.transport import SimTransport
from core.sources.credentials import ClientCredentials
from core.sources.runai import RunaiClient
from tests.contract.oracle import sdk_model
from tests.contract.sdk_strategies import body_of, valid

EXAMPLES = max(5, int(os.environ.get("RUNAI_TRIAGE_SDK_EXAMPLES", "25")) // 2)
CAPTURED = "2031-01-01T00:00:00Z"  # after every instant the strategies draw
WORKLOAD_ID = "8e0d3d8e-4e0f-5b7c-9d1e-0f2a3b4c5d6e"
CLUSTER_ID = "5b77e6d6-7b53-5206-9a65-c6331d0e09cc"
SPEC_ENDPOINTS = {
    "Training": "/api/v1/workloads/trainings/{id}",
    "Workspace": "/api/v1/workloads/workspaces/{id}",
    "Distributed": "/api/v1/workloads/distributed/{id}",
    "Inference": "/api/v1/workloads/inferences/{id}",
    "DistributedInference": "/api/v1/workloads/distributed-inferences/{id}",
}


@st.composite
def tenants(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    kind = draw(st.sampled_from(sorted(SPEC_ENDPOINTS)))
    workload = {**draw(body_of(WorkloadDetailed)), "id": WORKLOAD_ID, "clusterId": CLUSTER_ID, "type": kind}
    spec = {**draw(body_of(sdk_model(SPEC_ENDPOINTS[kind]))), "workloadId": WORKLOAD_ID, "clusterId": CLUSTER_ID}
    pods = [{**p, "workloadId": WORKLOAD_ID} for p in draw(st.lists(body_of(Pod1), max_size=3))]
    cluster = {**draw(body_of(DisplayedCluster)), "uuid": CLUSTER_ID}
    entry = {
        "workload": workload,
        "events": draw(st.lists(body_of(Event2), max_size=4)),
        "pods": pods,
        "history": draw(st.lists(body_of(HistoryRecord1), max_size=4)),
        "spec": spec,
    }
    # A workload's name and project are Kubernetes names, never empty (a case bundle refuses an empty one).
    assume(workload["name"].strip() and workload["projectName"].strip())
    assume(valid(WorkloadDetailed, workload) and valid(sdk_model(SPEC_ENDPOINTS[kind]), spec))
    assume(valid(DisplayedCluster, cluster) and all(valid(Pod1, p) for p in pods))
    assume(all(valid(Event2, e) for e in entry["events"]) and all(valid(HistoryRecord1, r) for r in entry["history"]))
    bundle = {"format": "runai-triage/case@1", "capturedAt": CAPTURED, "clusters": [cluster], "workloads": [entry]}
    return bundle, workload


def _quantities(value: Any) -> set[int]:
    """Every memory quantity anywhere in the tenant, in bytes: what a reported request or limit may be."""
    found: set[int] = set()
    if isinstance(value, dict):
        for item in value.values():
            found |= _quantities(item)
    elif isinstance(value, list):
        for item in value:
            found |= _quantities(item)
    elif isinstance(value, str):
        with contextlib.suppress(QuantityError, ValueError, OverflowError):
            found.add(quantity_to_bytes(value))
    return found


async def _diagnose(bundle: dict[str, Any]) -> Any:
    parsed = parse_bundle(bundle, "sdk bodies")
    plane = ControlPlane(parsed)
    creds = ClientCredentials("sdk-bodies", "sdk-bodies-secret")
    async with RunaiClient("https://tenant.run.ai", creds, transport=SimTransport(plane)) as client:
        request = DiagnosisRequest(cluster_id=CLUSTER_ID, workload_id=WORKLOAD_ID, now=parsed.captured_at)
        return await run_to_report(request, client, None, tier2_unavailable="no Kubernetes access in this test")


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(tenants())
def test_a_diagnosis_on_bodies_the_sdk_accepts_reads_them_and_invents_nothing(drawn: Any) -> None:
    bundle, workload = drawn
    started = time.monotonic()
    report = asyncio.run(_diagnose(bundle))
    assert time.monotonic() - started < 30
    ref = report.workload
    # As the report cites cluster text: cleaned (control characters shown, one line) and bounded.
    read = {"id": ref.id, "name": ref.name, "projectName": ref.project, "phase": ref.phase, "type": ref.type}
    limits = {"id": 80, "name": 200, "projectName": 200, "phase": 40, "type": 60}
    assert read == {key: quote(workload[key], limits[key]) for key in read}
    if workload["namespace"].strip():
        assert ref.namespace == quote(workload["namespace"], 80)
    memory = report.memory
    if memory is not None:
        held = _quantities(bundle)
        assert memory.peak_bytes is None and memory.samples == 0  # no metrics are stored: no peak was measured
        assert memory.request_bytes in held | {None} and memory.limit_bytes in held | {None}
    assert report.recurrence.count >= 0
