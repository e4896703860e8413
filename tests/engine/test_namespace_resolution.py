"""Where the engine looks for the pod's namespace: the workload, then the project, then events, then runai-<p>."""

from __future__ import annotations

import copy
import json
from typing import Any

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.sim.bundle import parse_bundle
from core.tenant import open_bundle_tenant
from tests.paths import CASES

CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
WORKLOAD = "9c272e2c-4cbd-59c9-ad76-2b982958772c"
PROJECTS = "/api/v1/org-unit/projects"


def _oom_case(*, namespace: str | None, project_namespace: str | None, pod_namespace: str) -> dict[str, Any]:
    data = copy.deepcopy(json.loads((CASES / "example-oom.json").read_text(encoding="utf-8")))
    entry = data["workloads"][0]
    if namespace is None:
        entry["workload"].pop("namespace", None)
    else:
        entry["workload"]["namespace"] = namespace
    # The status events would also name a namespace; drop them so the project is what decides.
    entry["events"] = []
    data["projects"] = [
        {"name": "speech", "id": "77", "clusterId": CLUSTER, "status": {"namespace": project_namespace}}
    ]
    for pod in data["kubernetes"]["pods"]:
        pod["metadata"]["namespace"] = pod_namespace
    for log in data["kubernetes"]["logs"]:
        log["namespace"] = pod_namespace
    return data


async def _diagnose(data: dict[str, Any]):
    async with open_bundle_tenant(parse_bundle(data, "namespace-case"), label="t") as tenant:
        request = DiagnosisRequest(cluster_id=CLUSTER, workload_id=WORKLOAD, now=tenant.captured_at)
        report = await run_to_report(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable)
        assert tenant.control_plane is not None
        return report, [r.path for r in tenant.control_plane.requests]


async def test_project_status_namespace_is_used_when_the_workload_has_none() -> None:
    report, paths = await _diagnose(
        _oom_case(namespace=None, project_namespace="speech-linked", pod_namespace="speech-linked")
    )
    assert report.workload.namespace == "speech-linked"
    assert report.workload.namespace_source == "project status.namespace"
    assert PROJECTS in paths
    # The pod was found there: its container status is cited.
    assert any("kubectl describe pod" in e.sources for e in report.evidence)


async def test_workload_namespace_needs_no_project_lookup() -> None:
    report, paths = await _diagnose(
        _oom_case(namespace="runai-speech", project_namespace="elsewhere", pod_namespace="runai-speech")
    )
    assert report.workload.namespace == "runai-speech"
    assert PROJECTS not in paths


async def test_the_default_namespace_is_an_assumption_said_out_loud() -> None:
    report, _ = await _diagnose(_oom_case(namespace=None, project_namespace=None, pod_namespace="custom-ns"))
    assert report.workload.namespace == "runai-speech"
    assert report.workload.namespace_source and report.workload.namespace_source.startswith("assumed")
    # The pod lives elsewhere, so the 404 says the namespace may be wrong rather than that the pod is gone.
    assert any("namespace" in m.why and "runai-speech" in m.why for m in report.missing)
    assert report.category == "OOM_KILLED"  # Tier 1 still decides
