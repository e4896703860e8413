"""Everything a story family module needs, in one import: the world, the `Story`, the Kubernetes object
builders, and the words Run:ai writes when a workload fails."""

from __future__ import annotations

from core.sim.demo.kube import (
    EVENT_TTL_MINUTES,
    condition,
    cstatus,
    kube_event,
    node,
    other_pod,
    running,
    taint,
    terminated,
    waiting,
)
from core.sim.demo.runai import revision_json, revision_pod_json, v2_document
from core.sim.demo.story import Family, PodPlan, Story
from core.sim.demo.world import (
    DEMO_CAPTURED_AT,
    DEMO_CLUSTERS,
    EAST,
    EDGE,
    GI,
    NOW,
    PROJECTS,
    TENANT_ID,
    WEST,
    Json,
    Project,
    flat,
    project_json,
    ramp,
    ts,
    uid,
)

__all__ = [
    "DEMO_CAPTURED_AT",
    "DEMO_CLUSTERS",
    "EAST",
    "EDGE",
    "EVENT_TTL_MINUTES",
    "GI",
    "NOW",
    "PROJECTS",
    "TENANT_ID",
    "WEST",
    "Family",
    "Json",
    "PodPlan",
    "Project",
    "Story",
    "condition",
    "cstatus",
    "error_message",
    "flat",
    "kube_event",
    "lifecycle",
    "memory_expectation",
    "node",
    "oom_message",
    "other_pod",
    "project_json",
    "ramp",
    "revision_json",
    "revision_pod_json",
    "running",
    "taint",
    "terminated",
    "ts",
    "uid",
    "v2_document",
    "waiting",
]


def oom_message(pod: str, container: str = "main") -> str:
    return f"Workload failed: pod {pod} container {container} terminated (OOMKilled)"


def error_message(pod: str, code: int, container: str = "main") -> str:
    return f"Workload failed: pod {pod} container {container} terminated (Error), exit code {code}"


def memory_expectation(
    request: str | None, limit: str | None, req_b: int | None, lim_b: int | None, peak: int | None
) -> Json:
    """The `memory` of an expectation: as submitted, in bytes (None when unreadable), and the measured peak."""
    return {"request": request, "limit": limit, "requestBytes": req_b, "limitBytes": lim_b, "peakBytes": peak}


def lifecycle(s: Story, start: float, end: float, final: str, message: str) -> None:
    """The usual history: Pending when created, Running at `start`, `final` at `end`."""
    s.add_phase(s.created, "Pending")
    s.add_phase(start, "Running")
    s.add_phase(end, final, message)
