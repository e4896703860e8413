"""A job with more pods than one page (500) is read past its first page: the pod that failed first can be
anywhere in the list. Past `MAX_POD_PAGES` pages the rest is a stated gap, never taken for no pods."""

from __future__ import annotations

from core.diagnosis.steps.pod_pages import MAX_POD_PAGES
from core.diagnosis.steps.submissions import PAGE_LIMIT
from core.models.report import Report
from core.sim.control_plane import RecordedRequest
from core.sim.demo.kit import Story, lifecycle
from tests.engine.test_rule_cases import bundle_of, diagnose_bundle


def _large_job(pods: int) -> Story:
    """A distributed job whose last-listed pod was OOM-killed first; every other rank then exited 143."""
    s = Story(
        "pp-large", "moe-pretrain", "research", "Failed",
        phase_at=30, created=400, kind="Distributed", gpu=8, requested_pods=pods, command="torchrun train.py",
    )
    lifecycle(s, 390, 30, "Failed", "")
    for i in range(pods):
        first = i == pods - 1
        end = 31 if first else 30
        phase = "OOMKilled" if first else "Error"
        node = f"gpu-p-{i % 97:02d}"
        s.add_pod(node=node, created=395, k8s_phase=phase, updated=end, role="worker", index=i, completed=end)
    return s


async def _diagnose(pods: int) -> tuple[Report, list[RecordedRequest], Story]:
    s = _large_job(pods)
    report, requests = await diagnose_bundle(bundle_of([s], kube=False), cluster_id=s.cluster, workload_id=s.id)
    return report, requests, s


def _pod_offsets(requests: list[RecordedRequest], story: Story) -> list[int]:
    path = f"/api/v1/workloads/{story.id}/pods"
    live = [dict(r.query) for r in requests if r.path == path and dict(r.query).get("deleted") != "true"]
    return sorted(int(q.get("offset", 0)) for q in live)


async def test_the_pod_that_failed_first_is_found_past_the_first_page() -> None:
    report, requests, s = await _diagnose(2 * PAGE_LIMIT + 200)
    assert _pod_offsets(requests, s) == [0, PAGE_LIMIT, 2 * PAGE_LIMIT]
    [first] = [e for e in report.termination_order if e.first]
    assert first.pod == s.pod_name(2 * PAGE_LIMIT + 199, "worker"), report.termination_order
    assert not [m for m in report.missing if "pods" in m.what and "past" in m.what]


async def test_a_list_longer_than_the_pages_read_says_what_was_not_read() -> None:
    report, requests, s = await _diagnose(MAX_POD_PAGES * PAGE_LIMIT + 50)
    assert _pod_offsets(requests, s) == [i * PAGE_LIMIT for i in range(MAX_POD_PAGES)]
    [gap] = [m for m in report.missing if m.what == f"pods past the first {MAX_POD_PAGES * PAGE_LIMIT}"]
    assert "were not read" in gap.why and gap.source == "get_workload_pods"
