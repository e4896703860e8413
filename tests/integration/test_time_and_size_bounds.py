"""Issue 8 items 2 and 3: every read ends on time and in bounded memory, whatever the server sends.

A trickling server (one byte every 100 ms, in the body or from the first byte of the status line) is cut off
at the read's deadline on both sides; retries never extend a call past its deadline; the diagnosis budget
bounds a whole run of slow reads; a gzip bomb, an endless or oversized body never costs more memory than the
cap; a page far longer than its limit is cut there and says so.
"""

from __future__ import annotations

import asyncio
import gzip
import time
import tracemalloc
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from core.diagnosis.engine import diagnose, run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.transport import SimTransport
from core.sources.budget import time_budget
from core.sources.credentials import BearerToken
from core.sources.errors import ApiTimeout, BodyTooLarge, MalformedResponse
from core.sources.evidence import Missing
from core.sources.kube import KubeSource
from core.sources.retry import RetryPolicy
from core.sources.runai import RunaiClient
from tests.integration.fault_rig import ENDPOINTS, OOM_CASE, OOM_CLUSTER, OOM_ID, PATIENT, bundle_with, served

WORKLOAD = "GET /api/v1/workloads/{id}"
PODS = "GET /api/v1/workloads/{id}/pods"
KUBE_POD = "GET /api/v1/namespaces/{ns}/pods/{name}"
# A one-second limit is met within this, however busy the machine (a trickle would take minutes).
LATE = 2.5
TRICKLE = {"status": 200, "kind": "trickle", "intervalMs": 100, "times": 99}
TRICKLE_HEAD = {"status": 200, "kind": "trickle-head", "intervalMs": 100, "times": 99}


def _fault(match: str, **item: Any) -> dict[str, Any]:
    return {"match": match, **item}


async def _timed_timeout(client: RunaiClient) -> tuple[ApiTimeout, float]:
    """The ApiTimeout reading the workload ends with, and how long it took to come."""
    started = time.monotonic()
    with pytest.raises(ApiTimeout) as caught:
        await client.get_workload(OOM_ID)
    return caught.value, time.monotonic() - started


@pytest.mark.parametrize("shape", [TRICKLE, TRICKLE_HEAD], ids=["body", "head"])
async def test_a_trickling_runai_answer_ends_at_the_request_deadline(shape: dict[str, Any]) -> None:
    with served(bundle_with(OOM_CASE, [_fault(WORKLOAD, **shape)])) as s:
        async with s.runai(request_deadline_s=1.0, call_deadline_s=10.0) as client:
            error, elapsed = await _timed_timeout(client)
    # Not retried (a trickler trickles again), so one deadline, not four; each byte came within any read timeout.
    assert 1.0 <= elapsed < LATE, elapsed
    assert "no complete answer within 1 s" in str(error)
    assert "connecting, the headers and the whole body" in str(error)


@pytest.mark.parametrize("shape", [TRICKLE, TRICKLE_HEAD], ids=["body", "head"])
def test_a_trickling_kubernetes_answer_ends_at_the_read_deadline(shape: dict[str, Any]) -> None:
    with served(bundle_with(OOM_CASE, [_fault(KUBE_POD, **shape)])) as s:
        source = KubeSource(s.kube_connection(deadline=1.0))
        try:
            started = time.monotonic()
            gap = source.read_pod("runai-speech", "whisper-ft-0-0")
            elapsed = time.monotonic() - started
        finally:
            source.close()
    assert isinstance(gap, Missing)
    assert 1.0 <= elapsed < LATE, elapsed
    assert gap.why.startswith("no complete answer within 1 s (the deadline for the whole read")


async def test_retries_never_carry_a_call_past_its_deadline() -> None:
    # 503 with Retry-After 5 on every attempt: the retry loop would wait 15 s; the call deadline is 1.5 s.
    fault = _fault(WORKLOAD, status=503, retryAfter=5, times=99)
    with served(bundle_with(OOM_CASE, [fault])) as s:
        retry = RetryPolicy(retry_after_cap_s=5.0, budget_s=60.0)
        async with s.runai(retry=retry, call_deadline_s=1.5) as client:
            error, elapsed = await _timed_timeout(client)
    assert 1.5 <= elapsed < 0.5 + LATE, elapsed
    assert "retries included" in str(error)


async def test_the_budget_bounds_a_run_of_slow_reads_and_says_so() -> None:
    faults = [_fault(WORKLOAD, **TRICKLE), _fault(PODS, **TRICKLE)]
    with served(bundle_with(OOM_CASE, faults)) as s:
        async with s.runai(request_deadline_s=30.0, call_deadline_s=60.0) as client:
            started = time.monotonic()
            with time_budget(1.0):
                with pytest.raises(ApiTimeout) as first:
                    await client.get_workload(OOM_ID)
                with pytest.raises(ApiTimeout) as second:
                    await client.get_pods(OOM_ID)
            elapsed = time.monotonic() - started
    assert elapsed < LATE, elapsed
    assert "budget" in str(first.value) and "budget" in str(second.value)


def test_the_budget_bounds_kubernetes_reads_too() -> None:
    with served(bundle_with(OOM_CASE, [_fault(KUBE_POD, **TRICKLE)])) as s:
        source = KubeSource(s.kube_connection(deadline=30.0))
        try:
            started = time.monotonic()
            with time_budget(0.8):
                gap = source.read_pod("runai-speech", "whisper-ft-0-0")
                late = source.read_node("gpu-node-a1")
            elapsed = time.monotonic() - started
        finally:
            source.close()
    assert isinstance(gap, Missing) and isinstance(late, Missing)
    assert elapsed < LATE, elapsed
    assert "diagnosis time budget ran out" in gap.why and "diagnosis time budget ran out" in late.why


async def test_a_whole_diagnosis_with_every_secondary_read_trickling_ends_within_its_budget() -> None:
    secondary = [e for e in ENDPOINTS if not e.primary and e.case == OOM_CASE]
    faults = [_fault(e.match, **TRICKLE) for e in secondary]
    with served(bundle_with(OOM_CASE, faults)) as s:
        tenant = s.tenant()
        request = DiagnosisRequest(
            cluster_id=OOM_CLUSTER, workload_id=OOM_ID, now=datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
        )
        started = time.monotonic()
        try:
            with time_budget(3.0):
                report = await run_to_report(request, tenant.runai, tenant.kube)
        finally:
            await tenant.aclose()
        elapsed = time.monotonic() - started
    assert isinstance(report, Report)
    assert elapsed < 2.0 + LATE, elapsed
    sources = {m.source for m in report.missing}
    assert {"get_workload_spec", "get_workload_pods", "get_workload_history"} <= sources, sources


async def test_the_engine_gives_every_diagnosis_its_budget_whoever_drives_it() -> None:
    """The app and the scans drain diagnose() themselves, with no budget of their own around it."""
    secondary = [e for e in ENDPOINTS if not e.primary and e.case == OOM_CASE]
    faults = [_fault(e.match, **TRICKLE) for e in secondary]
    with served(bundle_with(OOM_CASE, faults)) as s:
        tenant = s.tenant()
        request = DiagnosisRequest(
            cluster_id=OOM_CLUSTER, workload_id=OOM_ID, now=datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
        )
        started = time.monotonic()
        try:
            events = [e async for e in diagnose(request, tenant.runai, tenant.kube, budget_s=3.0)]
        finally:
            await tenant.aclose()
        elapsed = time.monotonic() - started
    report = events[-1].report  # type: ignore[attr-defined]
    assert isinstance(report, Report)
    assert elapsed < 3.0 + LATE, elapsed
    assert any("diagnosis time budget ran out" in m.why for m in report.missing), report.missing


CAP = 4 * 1024 * 1024


@pytest.mark.parametrize("kind", ["gzip-bomb", "oversized", "endless"])
@pytest.mark.parametrize("wire", ["loopback", "in-process"])
async def test_a_body_past_the_cap_is_refused_with_memory_bounded_by_the_cap(kind: str, wire: str) -> None:
    # gzip-bomb: 1 GiB of zeros from 1 MiB on the wire; oversized: 64 MiB; endless: no end at all.
    bundle = bundle_with(OOM_CASE, [_fault(WORKLOAD, status=200, kind=kind, times=99)])

    async def read(client: RunaiClient) -> tuple[BodyTooLarge, int]:
        """The error reading the workload ends with, and the peak of traced memory meanwhile."""
        tracemalloc.start()
        try:
            with pytest.raises(BodyTooLarge) as caught:
                await client.get_workload(OOM_ID)
            return caught.value, tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    if wire == "loopback":
        with served(bundle) as s:
            async with s.runai(max_body_bytes=CAP) as client:
                error, peak = await read(client)
    else:
        plane = ControlPlane(parse_bundle(bundle))
        transport = SimTransport(plane)
        async with RunaiClient(
            "https://tenant.run.ai", BearerToken(plane.issue_token()), transport=transport, max_body_bytes=CAP
        ) as client:
            error, peak = await read(client)
    assert "larger than 4 MiB once decompressed" in str(error)
    # The cap, the join of the chunks httpx makes, one slice of inflated output and the simulator's own buffers.
    assert peak < 3 * CAP, f"peak {peak / 2**20:.1f} MiB"


class RawAnswers(httpx.AsyncBaseTransport):
    """Hands back bytes exactly as a server sent them (httpx.MockTransport would decode them first)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/damaged"):
            broken = bytearray(gzip.compress(b'{"id": "x"}' * 100))
            broken[20:30] = b"\x00" * 10
            return httpx.Response(200, headers={"Content-Encoding": "gzip"}, stream=httpx.ByteStream(bytes(broken)))
        return httpx.Response(200, headers={"Content-Encoding": "br"}, stream=httpx.ByteStream(b"\x8b\x02\x80"))


async def test_damaged_and_unsupported_encodings_are_named() -> None:
    async with RunaiClient("https://tenant.run.ai", BearerToken("t"), transport=RawAnswers()) as client:
        with pytest.raises(MalformedResponse, match="the gzip body is damaged"):
            await client.get_workload("damaged")
        with pytest.raises(MalformedResponse, match="unsupported content encoding 'br'"):
            await client.get_workload("brotli")


async def test_accept_encoding_asks_only_for_what_is_decoded_here() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("accept-encoding", ""))
        return httpx.Response(200, json=[])

    async with RunaiClient("https://tenant.run.ai", BearerToken("t"), transport=httpx.MockTransport(answer)) as c:
        await c.list_clusters()
    assert seen == ["gzip, deflate"]


async def test_a_page_far_longer_than_its_limit_is_cut_there_and_says_so() -> None:
    fault = _fault(PODS, status=200, kind="huge-page", items=5000, times=1)
    with served(bundle_with(OOM_CASE, [fault])) as s:
        async with s.runai(**PATIENT) as client:
            page = await client.get_pods(OOM_ID, limit=500)
    assert len(page.items) == 500 and page.cut == 4500
    assert any("5000 items where at most 500 were asked for" in p.message for p in page.problems)


async def test_metrics_are_read_only_as_far_as_asked() -> None:
    fault = _fault("GET /api/v1/workloads/{id}/metrics", status=200, kind="huge-page", items=400, times=1)
    with served(bundle_with(OOM_CASE, [fault])) as s:
        async with s.runai(**PATIENT) as client:
            start, end = datetime(2026, 11, 30, 10, 0, tzinfo=UTC), datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
            metrics = await client.get_metrics(OOM_ID, ["CPU_MEMORY_USAGE_BYTES"], start, end, 50)
    assert metrics.measurements is not None and len(metrics.measurements) == 64
    assert any("series where at most 64 fit" in p for p in metrics.parse_problems())


def test_an_out_of_range_port_is_refused_before_anything_is_sent() -> None:
    with pytest.raises(ValueError, match="port 99999 is out of range"):
        RunaiClient("http://127.0.0.1:99999", BearerToken("t"))


async def test_reads_under_way_are_not_slowed_by_the_watchdogs() -> None:
    # Ten concurrent Kubernetes reads, each with its own deadline scope, all answer at once.
    with served(bundle_with(OOM_CASE, [])) as s:
        source = KubeSource(s.kube_connection(deadline=5.0))
        try:
            started = time.monotonic()
            results = await asyncio.gather(*(source.pod("runai-speech", "whisper-ft-0-0") for _ in range(10)))
            elapsed = time.monotonic() - started
        finally:
            source.close()
    assert not any(isinstance(r, Missing) for r in results)
    assert elapsed < LATE, elapsed
