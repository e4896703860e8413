"""The fault matrix, client level: every endpoint a diagnosis reads x every fault a server or a network can
produce, through the real clients over loopback HTTP.

Each cell asserts the outcome (a typed error with a message naming what went wrong, or, for the faults the
tolerant parsers absorb, a parsed answer that says what it dropped or cut), that it came within the read's
deadline, and that memory stayed bounded (tracemalloc peak, which counts the simulator's thread too). The end
to end half, through the engine, is in test_fault_matrix_e2e.py.
"""

from __future__ import annotations

import asyncio
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.models.kube import K8sEvent, K8sNode, K8sPod
from core.models.pages import Page, parse_object
from core.models.runai import MetricsResponse, Workload
from core.models.runai_spec import WorkloadSpecDoc
from core.sources.errors import ApiError, ApiTimeout, BodyTooLarge, BrokenAnswer, MalformedResponse, RunaiError
from core.sources.evidence import Missing
from core.sources.kube import KubeSource
from core.sources.kube_types import KubeEvents, LogExcerpt
from core.sources.runai import RunaiClient, filter_item
from tests.integration.fault_rig import (
    ABSORBED,
    CALL_DEADLINE_S,
    ENDPOINTS,
    FAULTS,
    KUBE_DEADLINE_S,
    Endpoint,
    Served,
    bundle_with,
    fault_item,
    served,
)

# Worst case of one Run:ai read is its call deadline, of one Kubernetes read its deadline (twice for a log read
# that falls back to the current instance); the slack covers thread start-up on a busy two-core machine (a hang or
# a trickle without these deadlines never ends, so the bound still tells them apart).
SLACK_S = 5.0
MEMORY_BOUND = 48 * 1024 * 1024

RUNAI_ERRORS: dict[str, tuple[type[RunaiError], str]] = {
    "reset": (BrokenAnswer, "was reached but answered badly"),
    "protocol error": (BrokenAnswer, "was reached but answered badly"),
    "truncated": (BrokenAnswer, "was reached but answered badly"),
    "500": (ApiError, "answered 500"),
    "429 Retry-After": (ApiError, "answered 429"),
    "hang": (ApiTimeout, "s"),
    "trickle": (ApiTimeout, "no complete answer within"),
    "trickle head": (ApiTimeout, "no complete answer within"),
    "oversized": (BodyTooLarge, "larger than 8 MiB once decompressed"),
    "endless": (BodyTooLarge, "larger than 8 MiB once decompressed"),
    "gzip bomb": (BodyTooLarge, "larger than 8 MiB once decompressed"),
    "HTML 200": (MalformedResponse, "got an HTML page"),
    "wrong shape": (MalformedResponse, "expected"),
}
KUBE_WHYS: dict[str, str] = {
    "reset": "was reached but answered badly",
    "protocol error": "was reached but answered badly",
    "truncated": "was reached but answered badly",
    "500": "failed (HTTP 500) on both attempts",
    "429 Retry-After": "rate-limiting this client (429)",
    "hang": "read timeout after 1s",
    "trickle": "no complete answer within 1.5 s",
    "trickle head": "no complete answer within 1.5 s",
    "oversized": "body larger than 16 MiB",
    "endless": "body larger than 16 MiB",
    "gzip bomb": "body larger than 16 MiB",
    "HTML 200": "got an HTML page",
    "wrong shape": "malformed answer",
}
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
# A log is text: a body reshaped as JSON is still a log (quoted in the report, never obeyed), and a log longer
# than the cap is cut there and marked truncated rather than refused.
TEXT_ONLY = frozenset({"wrong shape", "oversized", "endless", "gzip bomb"})


async def read_runai(client: RunaiClient, endpoint: Endpoint) -> Any:
    wid = endpoint.workload_id
    if endpoint.name == "list workloads":
        filters = [filter_item("name", "==", "whisper-ft"), filter_item("projectName", "==", "speech")]
        return await client.list_workloads(filters=filters, sort_by="phaseUpdatedAt", sort_order="desc", limit=50)
    if endpoint.name == "workload":
        return await client.get_workload(wid)
    if endpoint.name == "events":
        return await client.get_events(wid, limit=500)
    if endpoint.name == "spec":
        return await client.get_spec(wid, "Training")
    if endpoint.name == "pods":
        return await client.get_pods(wid)
    if endpoint.name == "history":
        return await client.get_history(wid, limit=50)
    if endpoint.name == "metrics":
        return await client.get_metrics(wid, ["CPU_MEMORY_USAGE_BYTES"], NOW - timedelta(hours=3), NOW, 100)
    raise AssertionError(endpoint.name)


def read_kube(source: KubeSource, endpoint: Endpoint) -> Any:
    if endpoint.name == "kube pod":
        return source.read_pod("runai-speech", "whisper-ft-0-0")
    if endpoint.name == "kube pod events":
        return source.read_pod_events("runai-speech", "whisper-ft-0-0")
    if endpoint.name == "kube node events":
        return source.read_node_events("gpu-node-a1")
    if endpoint.name == "kube log":
        pod = parse_object(
            {"metadata": {"name": "whisper-ft-0-0", "namespace": "runai-speech"},
             "spec": {"containers": [{"name": "main"}]}},
            K8sPod,
            "pod",
        )
        return source.read_logs(pod)
    if endpoint.name == "kube node":
        return source.read_node("gpu-e-21")
    raise AssertionError(endpoint.name)


def _absorbed_ok(endpoint: Endpoint, fault: str, result: Any) -> None:
    """A deep value or an over-long page is read anyway, and the cut is stated."""
    assert not isinstance(result, Missing | Exception), (endpoint.name, fault, result)
    expected = (Page, Workload, WorkloadSpecDoc, MetricsResponse, K8sPod, K8sNode, KubeEvents, LogExcerpt)
    assert isinstance(result, expected), (endpoint.name, fault, type(result))
    if fault == "huge page" and isinstance(result, Page):
        assert result.cut > 0 and any("were not read" in p.message for p in result.problems), endpoint.name
    if isinstance(result, KubeEvents):
        assert all(isinstance(e, K8sEvent) for e in result.items)
    if isinstance(result, LogExcerpt) and fault in ("oversized", "endless", "gzip bomb"):
        assert result.truncated, fault


async def _one(s: Served, endpoint: Endpoint, fault: str) -> tuple[object, float]:
    started = time.monotonic()
    if endpoint.kube:
        source = KubeSource(s.kube_connection())
        try:
            result: object = await asyncio.to_thread(read_kube, source, endpoint)
        finally:
            source.close()
        return result, time.monotonic() - started
    async with s.runai() as client:
        try:
            result = await read_runai(client, endpoint)
        except RunaiError as exc:
            result = exc
    return result, time.monotonic() - started


async def _served_one(endpoint: Endpoint, fault: str) -> tuple[object, float, int]:
    with served(bundle_with(endpoint.case, [fault_item(endpoint, fault)])) as s:
        result, elapsed = await _one(s, endpoint, fault)
        asked = sum(1 for r in s.plane.requests if r.method == "GET")
    return result, elapsed, asked


async def _measured(fault: str) -> list[tuple[Endpoint, object, float, int, int]]:
    """Each endpoint under ``fault``: (endpoint, result, seconds, GETs seen, traced memory peak).

    Faults that only cost waiting (a hang, a trickle) run side by side, the peak then covering all of them;
    the others one at a time, so each peak is that read's own.
    """
    if fault in ("hang", "trickle", "trickle head"):
        tracemalloc.start()
        try:
            runs = await asyncio.gather(*(_served_one(e, fault) for e in ENDPOINTS))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        return [(e, *run, peak) for e, run in zip(ENDPOINTS, runs, strict=True)]
    out = []
    for endpoint in ENDPOINTS:
        tracemalloc.start()
        try:
            run = await _served_one(endpoint, fault)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        out.append((endpoint, *run, peak))
    return out


@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_every_endpoint_under_fault(fault: str, capsys: pytest.CaptureFixture[str]) -> None:
    worst_time = 0.0
    worst_memory = 0
    for endpoint, result, elapsed, asked, peak in await _measured(fault):
        where = f"{endpoint.name} x {fault}"
        assert asked, f"{where}: the faulted endpoint was never asked"
        bound = (2 * KUBE_DEADLINE_S if endpoint.name == "kube log" else KUBE_DEADLINE_S) if endpoint.kube \
            else CALL_DEADLINE_S
        assert elapsed < bound + SLACK_S, f"{where}: {elapsed:.2f} s"
        assert peak < MEMORY_BOUND, f"{where}: peak {peak / 2**20:.1f} MiB"
        worst_time, worst_memory = max(worst_time, elapsed), max(worst_memory, peak)
        if fault in ABSORBED or (endpoint.name == "kube log" and fault in TEXT_ONLY):
            _absorbed_ok(endpoint, fault, result)
        elif endpoint.kube:
            assert isinstance(result, Missing), f"{where}: {result!r}"
            assert KUBE_WHYS[fault] in result.why, f"{where}: {result.why}"
            assert result.source == endpoint.source or result.source == "kubectl logs", where
        else:
            kind, text = RUNAI_ERRORS[fault]
            assert isinstance(result, kind), f"{where}: {result!r}"
            message = str(result)
            assert text in message and message.startswith("GET /api/"), f"{where}: {message}"
            assert "VPN" not in message or "not a network or VPN problem" in message, f"{where}: {message}"
    with capsys.disabled():
        print(
            f"\n[fault matrix] {fault}: {len(ENDPOINTS)} endpoints tried, worst time {worst_time:.2f} s, "
            f"worst memory {worst_memory / 2**20:.1f} MiB"
        )
