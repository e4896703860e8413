"""Tier 2 opened in its own thread while Step 1 reads: waited for only by a diagnosis that goes on, never by one
routed out at Step 1, and giving the same report as a Kubernetes source handed over ready.

Real HTTP against the demo tenant. The openers here are the tenant's own seam for how Tier 2 is opened; the
slow one holds until the test lets it go.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.sim.demo import demo_expectations
from core.sources.credentials import BearerToken
from core.sources.kube_types import KubeUnavailable
from core.sources.runai import RunaiClient
from core.tenant import Tenant, open_demo_tenant

pytestmark = pytest.mark.asyncio(loop_scope="module")

STORIES = {e["key"]: e for e in demo_expectations()}


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def demo() -> AsyncIterator[Tenant]:
    async with open_demo_tenant() as tenant:
        yield tenant


def _request(tenant: Tenant, key: str) -> DiagnosisRequest:
    story = STORIES[key]
    return DiagnosisRequest(cluster_id=story["clusterId"], workload_id=story["workloadId"], now=tenant.captured_at)


class _HeldOpener:
    """Opens Tier 2 only once released (or says it could not, when `fails`)."""

    def __init__(self, demo: Tenant, *, fails: bool = False) -> None:
        self.demo, self.fails = demo, fails
        self.release = threading.Event()
        self.started = threading.Event()
        self.thread: threading.Thread | None = None

    def __call__(self) -> Any:
        self.started.set()
        self.thread = threading.current_thread()
        self.release.wait(30)
        if self.fails:
            return KubeUnavailable("Tier 2 unavailable: the test's kubeconfig names no cluster")
        return self.demo.kube


async def test_a_diagnosis_routed_out_at_step_1_never_waits_for_tier2(demo: Tenant) -> None:
    opener = _HeldOpener(demo)
    tenant = Tenant("held", demo.runai, kube_opener=opener, captured_at=demo.captured_at)
    report = await asyncio.wait_for(
        run_to_report(_request(demo, "preempt-priority"), tenant.runai, open_tier2=tenant.open_tier2), 20
    )
    assert report.outcome == "preempted"
    assert opener.started.is_set() and not opener.release.is_set()  # still opening: nobody waited
    assert opener.thread is not None and opener.thread.daemon  # so the process may end without it
    assert tenant.tier2_known() is None
    opener.release.set()


async def test_a_diagnosis_that_goes_on_waits_for_tier2_and_reads_it(demo: Tenant) -> None:
    request = _request(demo, "pull-rate-limit")
    ready = await run_to_report(request, demo.runai, demo.kube, tier2_unavailable=demo.kube_unavailable)
    opener = _HeldOpener(demo)
    tenant = Tenant("held", demo.runai, kube_opener=opener, captured_at=demo.captured_at)
    diagnosis = asyncio.ensure_future(run_to_report(request, tenant.runai, open_tier2=tenant.open_tier2))
    await asyncio.to_thread(opener.started.wait, 10)
    await asyncio.sleep(0.3)
    assert not diagnosis.done()  # Step 1 is long over: it waits for Tier 2
    opener.release.set()
    opened = await asyncio.wait_for(diagnosis, 20)
    assert opened.model_dump() == ready.model_dump()
    assert any(e.source.startswith("kubectl") for e in opened.evidence)


async def test_tier2_that_cannot_be_opened_reads_as_unavailable_with_its_reason(demo: Tenant) -> None:
    request = _request(demo, "pull-rate-limit")
    reason = "Tier 2 unavailable: the test's kubeconfig names no cluster"
    given = await run_to_report(request, demo.runai, None, tier2_unavailable=reason)
    opener = _HeldOpener(demo, fails=True)
    opener.release.set()
    tenant = Tenant("failing", demo.runai, kube_opener=opener, captured_at=demo.captured_at)
    opened = await run_to_report(request, tenant.runai, open_tier2=tenant.open_tier2)
    assert opened.model_dump() == given.model_dump()
    assert any(reason in m.why for m in opened.missing)
    assert tenant.tier2_known() == (None, reason)


async def test_closing_a_tenant_does_not_wait_for_tier2_still_opening(demo: Tenant) -> None:
    closed = []

    class _Source:
        def close(self) -> None:
            closed.append(True)

    opener = _HeldOpener(demo)
    opener.demo = type("D", (), {"kube": _Source()})()  # type: ignore[assignment]
    tenant = Tenant("closing", RunaiClient(demo.runai.base_url, BearerToken("unused")), kube_opener=opener)
    tenant.start_opening_kube()
    await asyncio.to_thread(opener.started.wait, 10)
    await asyncio.wait_for(tenant.aclose(), 5)  # returns while the opener still holds
    opener.release.set()
    await asyncio.wait_for(asyncio.wrap_future(tenant.start_opening_kube()), 10)
    assert closed == [True]  # what was opened after the close was closed, not kept
