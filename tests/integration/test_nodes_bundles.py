"""The Nodes view on small bundles over real HTTP: which pods belong to a window (live, completed, deleted, at
its edges), a node's state now, a pool, the reads that fail (the node list: states unknown; the pod list: no
view), an older control plane without the tenant-wide node list, the politeness budget, and a live view
reading again without diagnosing twice.
"""

from __future__ import annotations

import asyncio
import copy
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.diagnosis.engine import DiagnosisFailed
from core.sim.bundle import parse_bundle
from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.tenant import open_bundle_tenant
from core.triage.nodes import NodesMemory, NodesRequest, NodesResult, nodes_view
from core.triage.nodes_render import to_text

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
C = "0c0c0c0c-0000-5000-8000-000000000001"
OTHER = "0c0c0c0c-0000-5000-8000-000000000002"


def at(hours: float) -> str:
    return (NOW - timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def pod(wid: str, name: str, node: str | None, created: float, *, cluster: str = C, phase: str = "Running",
        completed: float | None = None, deleted: float | None = None) -> dict[str, Any]:
    return {
        "name": name, "id": f"pod-{name}", "workloadId": wid, "clusterId": cluster, "projectId": "1",
        "projectName": "p", "workloadName": wid, "priorityClassName": "train", "tenantId": 1,
        "nodeName": node, "createdAt": at(created), "updatedAt": at(created), "k8sPhase": phase,
        "k8sPhaseUpdatedAt": at(created), "containers": [{"name": "main", "image": "busybox"}],
        "completedAt": at(completed) if completed is not None else None,
        "deletedAt": at(deleted) if deleted is not None else None,
    }


def entry(wid: str, phase: str, changed: float, pods: list[dict[str, Any]], *, cluster: str = C,
          message: str = "") -> dict[str, Any]:
    workload = {"id": wid, "name": wid, "clusterId": cluster, "projectName": "p", "projectId": "1", "phase": phase,
                "phaseUpdatedAt": at(changed), "createdAt": at(changed + 1), "type": "Training",
                "phaseMessage": message, "namespace": "runai-p"}
    return {"workload": workload, "events": [], "pods": pods}


def node(name: str, *, status: str = "Ready", pool: str = "default", taints: list[dict[str, str]] | None = None,
         cluster: str = C) -> dict[str, Any]:
    return {"id": f"id-{name}", "name": name, "clusterUuid": cluster, "status": status, "conditions": [],
            "taints": taints or [], "nodePool": pool, "gpuInfo": {"gpuType": "H100", "gpuCount": 8},
            "createdAt": at(2000), "updatedAt": at(0)}


def failed(wid: str, nodes: list[str], hours: float) -> dict[str, Any]:
    message = f"Workload failed: pod {wid}-0 container main terminated (Error), exit code 1"
    pods = [pod(wid, f"{wid}-{i}", n, hours + 2, phase="Error", completed=hours) for i, n in enumerate(nodes)]
    return entry(wid, "Failed", hours, pods, message=message)


def bundle(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    workloads = [
        entry("w-run", "Running", 30, [pod("w-run", "w-run-0", "n1", 30)]),  # running since before the window
        entry("w-done", "Completed", 2, [pod("w-done", "w-done-0", "n1", 5, phase="Succeeded", completed=2)]),
        entry("w-old", "Completed", 30, [pod("w-old", "w-old-0", "n1", 40, phase="Succeeded", completed=30)]),
        # Stopped by its user (a stop was asked for): its pod deleted, never completed. Ran there, did not fail.
        {**entry("w-del", "Stopped", 3, [pod("w-del", "w-del-0", "n1", 6, deleted=3)]),
         "spec": {"name": "w-del", "workloadId": "w-del", "desiredPhase": "Stopped", "actualPhase": "Stopped",
                  "spec": {"image": "busybox"}}},
        entry("w-del-old", "Stopped", 40, [pod("w-del-old", "w-del-old-0", "n1", 50, deleted=40)]),
        entry("w-edge", "Completed", 24, [pod("w-edge", "w-edge-0", "n1", 26, phase="Succeeded", completed=24)]),
        entry("w-pend", "Pending", 1, [pod("w-pend", "w-pend-0", None, 1, phase="Pending")]),
        entry("w-else", "Running", 5, [pod("w-else", "w-else-0", "n1", 5, cluster=OTHER)], cluster=OTHER),
        failed("w-fail1", ["n2"], 1),
        failed("w-fail2", ["n2"], 1.2),
        failed("w-multi", ["n1", "n3"], 4),
    ]
    cordon = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    raw = {
        "format": "runai-triage/case@1", "capturedAt": at(0),
        "clusters": [{"uuid": C, "name": "c"}, {"uuid": OTHER, "name": "other"}],
        "workloads": workloads,
        "nodes": [node("n1"), node("n2", taints=cordon), node("n3", status="NotReady", pool="spare"),
                  node("n4"), node("n1", cluster=OTHER)],
    }
    return {**raw, **(extra or {})}


async def view(raw: dict[str, Any], request: NodesRequest | None = None, memory: NodesMemory | None = None,
               latency_ms: float = 0.0) -> tuple[NodesResult, list[Any]]:
    async with open_bundle_tenant(parse_bundle(copy.deepcopy(raw)), label="nodes", latency_ms=latency_ms) as t:
        result = await nodes_view(request or NodesRequest(C), t.runai, None, tier2_unavailable="none here",
                                  now=NOW, memory=memory)
        assert t.control_plane is not None
        return result, t.control_plane.requests


@pytest.mark.asyncio
async def test_the_window_holds_live_completed_and_deleted_pods_and_nothing_older() -> None:
    result, _ = await view(bundle())
    rows = {row.name: row for row in result.rows}
    assert set(rows) == {"n1", "n2", "n3", "n4"}  # the other cluster's n1 is not this one
    # Running since before the window, completed in it, deleted in it, completed exactly at its start, and the
    # failed job whose other pod was on n3; not what ended before the window, not another cluster's pod.
    assert set(rows["n1"].ran) == {"w-run", "w-done", "w-del", "w-edge", "w-multi"}
    assert [f.workload_id for f in rows["n1"].failures] == ["w-multi"]
    assert {f.workload_id for f in rows["n2"].failures} == {"w-fail1", "w-fail2"} == set(rows["n2"].ran)
    assert set(rows["n3"].ran) == {"w-multi"} and rows["n4"].workloads == 0
    assert result.unplaced == 1 and result.pods == 8
    # The state now: cordoned by its taint, NotReady, the pool.
    assert rows["n2"].state.cordoned and rows["n2"].state.taints == ("node.kubernetes.io/unschedulable:NoSchedule",)
    assert rows["n3"].state.ready is False and rows["n3"].state.pool == "spare"
    assert rows["n1"].state.ready is True and rows["n1"].state.gpus == 8
    # No shared cause here: ranked by failures, then rate.
    assert [row.name for row in result.rows][:2] == ["n2", "n3"]


@pytest.mark.asyncio
async def test_a_pool_and_a_node_narrow_the_view() -> None:
    result, _ = await view(bundle(), NodesRequest(C, node_pool="spare"))
    assert [row.name for row in result.rows] == ["n3"]
    result, requests = await view(bundle(), NodesRequest(C, node="n2"))
    assert [row.name for row in result.rows] == ["n2"]
    # The pods are asked for that node only.
    assert all(("filterBy", value) for r in requests if r.path == "/api/v1/workloads/pods"
               for name, value in r.query if name == "filterBy" and "nodeName==n2" in value)
    assert any("nodeName==n2" in value for r in requests if r.path == "/api/v1/workloads/pods"
               for name, value in r.query if name == "filterBy")


@pytest.mark.asyncio
async def test_an_unreadable_node_list_leaves_the_states_unknown_and_says_why() -> None:
    fault = {"match": "GET /api/v1/nodes", "status": 500, "times": 99}
    result, _ = await view(bundle({"faults": [fault]}))
    assert result.nodes_unread is not None and "500" in result.nodes_unread
    rows = {row.name: row for row in result.rows}
    assert set(rows) == {"n1", "n2", "n3"}  # what ran is still known; a node nothing ran on is not
    assert all(not row.state.listed and row.state.cordoned is None for row in rows.values())
    assert "Node states unknown: the node list could not be read" in to_text(result)


@pytest.mark.asyncio
async def test_an_older_control_plane_is_asked_for_its_clusters_nodes() -> None:
    fault = {"match": "GET /api/v1/nodes", "status": 404, "times": 99}
    result, requests = await view(bundle({"faults": [fault]}))
    assert result.nodes_unread is None
    assert {row.name: row.state.cordoned for row in result.rows}["n2"] is True
    assert f"/api/v1/clusters/{C}/nodes" in [r.path for r in requests]


@pytest.mark.asyncio
async def test_no_view_without_the_pods_of_the_window() -> None:
    fault = {"match": "GET /api/v1/workloads/pods", "status": 503, "times": 99}
    with pytest.raises(DiagnosisFailed, match="pods that ran in the window could not be listed"):
        await view(bundle({"faults": [fault]}))


@pytest.mark.asyncio
async def test_a_live_view_reading_again_does_not_diagnose_twice() -> None:
    memory = NodesMemory()
    first, asked = await view(bundle(), memory=memory)
    again, asked_again = await view(bundle(), memory=memory)
    assert first.diagnosed == 4 and again.diagnosed == 0  # the stopped one is diagnosed too, then not counted
    assert [r.failed for r in first.rows] == [r.failed for r in again.rows]
    assert len(asked_again) < len(asked) / 2


@pytest.mark.asyncio
async def test_the_view_keeps_to_its_politeness_budget() -> None:
    """Reads in flight, counted at the server (slow, so they pile up), never more than 2 x --concurrency."""
    demo = load_demo_bundle()
    async with open_bundle_tenant(demo, label="slow", latency_ms=15) as tenant:
        inner, peak, now = tenant.runai, [0], [0]

        class Counting:
            def __getattr__(self, name: str) -> Any:
                call = getattr(inner, name)
                if not asyncio.iscoroutinefunction(call):
                    return call

                async def counted(*args: Any, **kwargs: Any) -> Any:
                    now[0] += 1
                    peak[0] = max(peak[0], now[0])
                    try:
                        return await call(*args, **kwargs)
                    finally:
                        now[0] -= 1

                return counted

        request = NodesRequest(DEMO_CLUSTERS[0]["uuid"], since="6h", concurrency=2)
        assert tenant.captured_at is not None
        result = await nodes_view(request, Counting(), None, tier2_unavailable="off", now=tenant.captured_at)
    assert result.diagnosed >= 4
    assert 2 <= peak[0] <= request.politeness.requests
