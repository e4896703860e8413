"""Same node, other victims: the pods on one node listed across namespaces with the real kubernetes client against
the simulated API server (field selector, one page, a refusal said as such), and which of them failed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from core.diagnosis.same_node import other_failures
from core.sources.evidence import Missing
from core.sources.kube_types import NodePods
from tests.integration.test_kube_source import CAPTURED, Sim


def _pod(name: str, ns: str, node: str, phase: str, state: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
    status: dict[str, Any] = {
        "phase": phase,
        "containerStatuses": [{"name": "main", "image": "img", "state": state, "lastState": {}, "restartCount": 0}],
    }
    if reason:
        status["reason"] = reason
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}"},
        "spec": {"nodeName": node, "containers": [{"name": "main", "image": "img"}]},
        "status": status,
    }


def _ended(code: int, at: str, reason: str = "Error") -> dict[str, Any]:
    return {"terminated": {"exitCode": code, "reason": reason, "finishedAt": at}}


PODS = [
    _pod("ours-0", "runai-nlp", "gpu-1", "Failed", _ended(1, "2026-11-30T11:40:00Z")),
    _pod("eval-0", "runai-vision", "gpu-1", "Failed", _ended(1, "2026-11-30T11:41:00Z")),
    _pod("evicted-0", "team-b", "gpu-1", "Failed", _ended(137, "2026-11-30T11:42:00Z"), reason="Evicted"),
    _pod("healthy-0", "team-b", "gpu-1", "Running", {"running": {"startedAt": "2026-11-30T09:00:00Z"}}),
    _pod("old-0", "team-b", "gpu-1", "Failed", _ended(1, "2026-11-20T11:00:00Z")),  # before the lookback
    _pod("elsewhere-0", "team-b", "gpu-2", "Failed", _ended(1, "2026-11-30T11:41:00Z")),  # another node
]


def _bundle(**kube: Any) -> dict[str, Any]:
    return {
        "format": "runai-triage/case@1",
        "capturedAt": CAPTURED.isoformat().replace("+00:00", "Z"),
        "workloads": [],
        "kubernetes": {"pods": PODS, **kube},
    }


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[Sim]:
    s = Sim(_bundle(), tmp_path)
    yield s
    s.assert_only_reads()
    s.close()


async def test_pods_on_the_node_by_field_selector_one_request(sim: Sim) -> None:
    listed = await sim.source.node_pods("gpu-1")
    assert isinstance(listed, NodePods)
    assert sorted(p.metadata.name for p in listed.items if p.metadata) == [  # type: ignore[misc]
        "eval-0", "evicted-0", "healthy-0", "old-0", "ours-0"
    ]
    assert sim.queries("/api/v1/pods") == [{"fieldSelector": "spec.nodeName=gpu-1", "limit": "500"}]
    others, note = other_failures(listed, {"ours-0"}, datetime(2026, 11, 29, 12, 0, tzinfo=UTC))
    assert [(p.name, p.how) for p in others] == [
        ("evicted-0", "Failed: Evicted; container main terminated: Error (exit 137)"),
        ("eval-0", "Failed; container main terminated: Error (exit 1)"),
    ]
    assert "2 other pods on node gpu-1 failed" in note and "5 pods listed" in note


async def test_one_page_only_and_said_so(sim: Sim) -> None:
    listed = await sim.source.node_pods("gpu-1", limit=2)
    assert isinstance(listed, NodePods) and listed.more and len(listed.items) == 2
    _, note = other_failures(listed, set(), datetime(2026, 11, 29, 12, 0, tzinfo=UTC))
    assert "more than the 2 pods read" in note


async def test_a_refused_list_is_a_gap_that_says_so(tmp_path: Path) -> None:
    s = Sim(_bundle(forbidden=["pods"]), tmp_path)
    try:
        gap = await s.source.node_pods("gpu-1")
        assert isinstance(gap, Missing)
        assert gap.why == "RBAC denies list on pods at cluster scope (403)"
    finally:
        s.close()


async def test_an_invalid_node_name_is_refused_without_a_request(sim: Sim) -> None:
    gap = await sim.source.node_pods("gpu-1,spec.nodeName=gpu-2")
    assert isinstance(gap, Missing) and "not a valid node name" in gap.why
    assert sim.queries("/api/v1/pods") == []
    await sim.source.node_pods("gpu-2")  # the fixture's read-only check needs one request
