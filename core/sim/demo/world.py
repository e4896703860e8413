"""The fixed world every demo story lives in: the capture instant, deterministic ids, the clusters (two
connected, and a third that lost its connection to the control plane) and their projects, and metric series
laid out in minutes before the capture.

Every timestamp is given in minutes before `DEMO_CAPTURED_AT`, so the whole tenant moves together if the
capture instant ever changes.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

Json = dict[str, Any]

DEMO_CAPTURED_AT = "2026-11-30T12:00:00Z"
NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
DEMO_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://runai-triage.invalid/demo-tenant")
TENANT_ID = 4217
NODE_POOL = "default"
GI = 1024**3


def uid(*parts: str) -> str:
    """A stable UUID for an object of the demo tenant, from the parts that name it."""
    return str(uuid.uuid5(DEMO_NAMESPACE, "/".join(parts)))


def ts(minutes_ago: float) -> str:
    """ISO-8601 UTC instant `minutes_ago` before the capture (fractions give seconds)."""
    moment = NOW - timedelta(seconds=round(minutes_ago * 60))
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


EAST = uid("cluster", "demo-east")
WEST = uid("cluster", "demo-west")
EDGE = uid("cluster", "demo-edge")


def _connected(uuid_: str, name: str, version: str, created: str) -> Json:
    """A cluster as `GET /api/v1/clusters` lists a connected one (the SDK's `DisplayedCluster`)."""
    return {
        "uuid": uuid_,
        "tenantId": TENANT_ID,
        "name": name,
        "createdAt": created,
        "version": version,
        "status": {
            "state": "Connected",
            "conditions": [
                {
                    "type": "Connected",
                    "status": "True",
                    "reason": "ClusterConnected",
                    "message": "the cluster is connected to the control plane",
                    "lastTransitionTime": created,
                }
            ],
        },
        "updatedAt": "2026-11-30T11:59:30Z",
        "lastLiveness": "2026-11-30T11:59:30Z",
    }


DEMO_CLUSTERS: list[Json] = [
    _connected(EAST, "demo-east", "2.24.0", "2025-03-11T09:20:00Z"),
    _connected(WEST, "demo-west", "2.23.2", "2025-06-02T14:05:00Z"),
]
# A cluster whose sync with the control plane stopped three hours before the capture: what Run:ai shows about
# its workloads is stale. `status` has the SDK's `ClusterDisplayedStatus` shape (a state of its enum, and
# conditions with every key).
EDGE_CLUSTER: Json = {
    "uuid": EDGE,
    "tenantId": TENANT_ID,
    "name": "demo-edge",
    "createdAt": "2026-02-17T08:45:00Z",
    "version": "2.24.0",
    "status": {
        "state": "Disconnected",
        "conditions": [
            {
                "type": "Connected",
                "status": "False",
                "reason": "ClusterDisconnected",
                "message": "the cluster has not reported to the control plane since 09:02",
                "lastTransitionTime": "2026-11-30T09:07:00Z",
            }
        ],
    },
    "updatedAt": "2026-11-30T09:07:00Z",
    "lastLiveness": "2026-11-30T09:02:00Z",
}
TENANT_CLUSTERS: list[Json] = [*DEMO_CLUSTERS, EDGE_CLUSTER]


@dataclass(frozen=True)
class Project:
    name: str
    id: str
    cluster: str
    namespace: str
    department: str


# Two projects use admin-linked namespaces, so "runai-<project>" would be the wrong guess for them.
PROJECTS: dict[str, Project] = {
    p.name: p
    for p in (
        Project("nlp", "101", EAST, "runai-nlp", "language"),
        Project("vision", "102", EAST, "runai-vision", "perception"),
        Project("speech", "103", EAST, "runai-speech", "language"),
        Project("research", "104", EAST, "ml-research", "research"),
        Project("robotics", "201", WEST, "runai-robotics", "perception"),
        Project("genai", "202", WEST, "genai-prod", "research"),
        Project("recsys", "203", WEST, "runai-recsys", "ads"),
        Project("edge-lab", "301", EDGE, "runai-edge-lab", "research"),
    )
}
# The routine workloads fill the connected clusters' projects only.
ROUTINE_PROJECTS: tuple[str, ...] = tuple(sorted(name for name, p in PROJECTS.items() if p.cluster in (EAST, WEST)))


def project_json(p: Project) -> Json:
    return {
        "name": p.name,
        "id": p.id,
        "clusterId": p.cluster,
        "parentId": uid("department", p.department),
        "status": {"namespace": p.namespace, "phase": "Ready"},
    }


def ramp(start: float, end: float, t0: float, t1: float, step_min: float = 0.5) -> list[tuple[float, float]]:
    """A linear memory ramp sampled every `step_min` minutes from t0 down to t1 minutes ago."""
    points: list[tuple[float, float]] = []
    n = max(1, round((t0 - t1) / step_min))
    for i in range(n + 1):
        frac = i / n
        points.append((t0 - (t0 - t1) * frac, start + (end - start) * frac))
    return points


def flat(value: float, t0: float, t1: float, step_min: float = 0.5) -> list[tuple[float, float]]:
    return ramp(value, value, t0, t1, step_min)
