"""The engine against the shared example bundles and every hand-shaped demo story, over real HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.sim.demo import demo_expectations, load_offspec_bundle, offspec_expectations
from core.tenant import Tenant, open_bundle_tenant, open_case_tenant, open_demo_tenant
from tests.paths import CASES

# One demo tenant (one loopback server) serves every story, so the whole module shares one event loop.
pytestmark = pytest.mark.asyncio(loop_scope="module")

CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"


async def _diagnose(tenant: Tenant, **kwargs: object):
    request = DiagnosisRequest(now=tenant.captured_at, **kwargs)  # type: ignore[arg-type]
    return await run_to_report(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable)


async def test_example_oom_gives_oom_killed_with_measured_peak() -> None:
    async with open_case_tenant(CASES / "example-oom.json") as tenant:
        report = await _diagnose(tenant, cluster_id=CLUSTER, workload_id="9c272e2c-4cbd-59c9-ad76-2b982958772c")
    assert (report.outcome, report.category) == ("diagnosed", "OOM_KILLED")
    assert report.memory is not None
    assert report.memory.limit_bytes == 24 * 2**30
    assert report.memory.request_bytes == 24 * 2**30
    # The stored series peaks just under the limit; the sampled peak must be that stored value exactly.
    assert report.memory.peak_bytes == 25447681228
    assert report.recurrence.count == 1 and not report.recurrence.recurring
    assert report.evidence[0].source in {"get_workload_status", "get_workload_pods", "kubectl describe pod"}


async def test_example_image_pull_is_a_rate_limit() -> None:
    async with open_case_tenant(CASES / "example-image-pull.json") as tenant:
        report = await _diagnose(tenant, cluster_id=CLUSTER, workload_id="36c57368-2cfe-5aea-8a36-3f60c4934bca")
        # The pods endpoint failed once with 503: retried, so the verdict does not change.
        pod_calls = [r for r in tenant.control_plane.requests if r.path.endswith("/pods")]  # type: ignore[union-attr]
    assert (report.outcome, report.category) == ("diagnosed", "IMAGE_PULL_FAILED")
    assert [r.status for r in pod_calls] == [503, 200]
    assert "rate" in " ".join(report.recommendations).lower()
    assert report.memory is None


async def test_example_preempted_routes_out_without_category() -> None:
    async with open_case_tenant(CASES / "example-preempted.json") as tenant:
        report = await _diagnose(tenant, cluster_id=CLUSTER, workload_id="95df3412-1827-5728-b3ea-5d68230d4c25")
        paths = [r.path for r in tenant.control_plane.requests]  # type: ignore[union-attr]
    assert (report.outcome, report.category) == ("preempted", None)
    assert report.recurrence.count == 0
    # Step 1 routes out: nothing past status and events was read.
    assert not [p for p in paths if p.endswith(("/pods", "/history", "/metrics")) or "/trainings/" in p]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def demo() -> AsyncIterator[Tenant]:
    async with open_demo_tenant() as tenant:
        yield tenant


EXPECTATIONS = demo_expectations()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def offspec() -> AsyncIterator[Tenant]:
    async with open_bundle_tenant(load_offspec_bundle(), label="off-spec tenant") as tenant:
        yield tenant


OFF_SPEC = offspec_expectations()


@pytest.mark.parametrize("case", EXPECTATIONS, ids=[e["key"] for e in EXPECTATIONS])
async def test_demo_story_verdicts(demo: Tenant, case: dict) -> None:
    await _check_story(demo, case)


@pytest.mark.parametrize("case", OFF_SPEC, ids=[e["key"] for e in OFF_SPEC])
async def test_off_spec_story_verdicts(offspec: Tenant, case: dict) -> None:
    """The stories whose data a 2.24 control plane does not send keep their verdicts, from their own tenant."""
    await _check_story(offspec, case)


def _story_kwargs(case: dict) -> dict[str, object]:
    """The request a story asks for: by id (Option A) or by name and project (Option B), over its lookback."""
    kwargs: dict[str, object] = {"cluster_id": case["clusterId"], "lookback": case.get("lookback") or "24h"}
    if case.get("lookup") == "id" and case.get("workloadId"):
        kwargs["workload_id"] = case["workloadId"]
    else:
        kwargs.update(name=case["name"], project=case["project"], active=case.get("intent") == "active")
    return kwargs


async def _check_story(tenant: Tenant, case: dict) -> None:
    report = await _diagnose(tenant, **_story_kwargs(case))
    assert (report.outcome, report.category) == (case["outcome"], case["category"]), report.reason
    if case.get("recurrence") is not None:
        assert report.recurrence.count == case["recurrence"]
    if "otherSubmissionsFailed" in case:
        others = report.recurrence.other_submissions
        assert others is not None and others.failed == case["otherSubmissionsFailed"], others
    if str(case.get("detail") or "").startswith("first-failure:"):
        first = [e for e in report.termination_order if e.first]
        assert [e.pod for e in first] == [case["detail"].removeprefix("first-failure:")], report.termination_order
        assert all(e.consequence for e in report.termination_order if not e.first)
    # Infrastructure findings: exactly those the story names (kind, node, whether it explains), none otherwise.
    found = [{"kind": f.kind, "node": f.node, "explains": f.explains} for f in report.findings]
    assert found == case.get("findings", []), report.findings
    if "cites" in case:  # the log line the report must cite as the one that explains the failure
        cited = [e.text for e in report.evidence if e.text.startswith("Log line ")]
        assert any(case["cites"] in text for text in cited), [e.text for e in report.evidence]
    memory = case.get("memory")
    if memory and report.memory is not None:
        assert report.memory.limit_bytes == memory.get("limitBytes")
        assert report.memory.peak_bytes == memory.get("peakBytes")


@pytest.mark.parametrize("case", EXPECTATIONS, ids=[e["key"] for e in EXPECTATIONS])
async def test_every_line_names_the_read_it_came_from(demo: Tenant, case: dict) -> None:
    """A log line is cited from the instance read (`--previous` only when the previous one was read); the
    reason's memory figures each name their own read, never the status read the reason quotes first."""
    report = await _diagnose(demo, **_story_kwargs(case))
    for item in report.evidence:
        if "(current instance)" in item.text:
            assert item.source == "kubectl logs", item
        if "(previous instance)" in item.text:
            assert item.source == "kubectl logs --previous", item
    for finding in report.findings:
        if "(current instance)" in finding.text:
            assert finding.source == "kubectl logs", finding
    reason = report.reason or ""
    if report.category == "OOM_KILLED" and report.memory is not None and report.memory.limit_bytes:
        assert "; limit " in reason, reason
        limit = reason.split("; limit ", 1)[1].split(",")[0]
        assert limit.endswith(("(source: get_workload_spec)", "(source: get_workload_pods)")), reason
        if report.memory.peak_bytes is not None:
            assert "observed peak" in reason and reason.endswith("(source: get_workload_metrics)"), reason
