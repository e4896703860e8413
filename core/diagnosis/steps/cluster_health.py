"""Step 1, beside the workload read: the Run:ai cluster's own status, from the clusters list.

`GET /api/v1/clusters` gives each cluster's `status` (shape UNVERIFIED, read tolerantly) and `lastLiveness`.
A disconnected or stale cluster is a `control-plane` finding: what Run:ai shows about the workload may be out
of date, and the report says so. The list is read once beside the workload's own (steps/cluster.py, which
also checks the cluster id against it), so it costs no round trip; when it fails, that is a stated gap and the
diagnosis carries on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.diagnosis.findings import Collect, Findings
from core.diagnosis.infra import CLUSTERS
from core.diagnosis.observations import Observation, quote
from core.diagnosis.reader import ReadFailure
from core.diagnosis.signals.control_plane import cluster_health
from core.models.clusters import same_cluster
from core.models.pages import Page
from core.models.runai import Cluster


@dataclass(frozen=True, slots=True)
class ClusterRead:
    observations: tuple[Observation, ...]  # a CONTROL_PLANE observation when the cluster is disconnected or stale
    findings: Findings


NOT_READ = ClusterRead((), Findings())


def cluster_health_of(page: Page[Cluster] | ReadFailure, cluster_id: str, now: datetime) -> ClusterRead:
    """The cluster asked about, from the clusters list: a CONTROL_PLANE observation when it is disconnected or
    stale, a stated gap when the list could not be read."""
    found = Collect()
    if isinstance(page, ReadFailure):
        found.missing("Run:ai cluster status", page.missing.why, CLUSTERS)
        return ClusterRead((), found.done())
    cluster = next((c for c in page.items if same_cluster(c.uuid, cluster_id)), None)
    if cluster is None:
        return ClusterRead((), found.done())
    name = quote(cluster.name or cluster.uuid, 120)
    health = cluster_health(name, cluster.status, cluster.last_liveness, now)
    if health.signal is None:
        return ClusterRead((), found.done())
    obs = Observation(health.signal, CLUSTERS, health.signal.at, quote(health.signal.detail, 400))
    return ClusterRead((obs,), found.done())
