"""Step 1, the cluster asked about: checked against the tenant's own list (`GET /api/v1/clusters`).

The seed always requires a cluster id and never infers one. A cluster id that is not one of the tenant's is
said as such, with the clusters the tenant has (by name and id), instead of "no workload here"; a cluster's
exact name is accepted for its id. Ids are UUIDs, compared without regard to case. When the list cannot be
read (an old tenant, a key without the role), the id is used as given and the report says it was not checked.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.diagnosis.findings import Collect, Findings
from core.diagnosis.infra import CLUSTERS
from core.diagnosis.observations import quote
from core.diagnosis.reader import DiagnosisFailed, Reader, ReadFailure, Tier1
from core.models.clusters import find_cluster, listed_clusters, same_cluster
from core.models.pages import Page
from core.models.runai import Cluster


class UnknownCluster(DiagnosisFailed):
    """The cluster asked about is not one of the tenant's; the message lists the ones it has."""


@dataclass(frozen=True, slots=True)
class ClusterCheck:
    cluster_id: str  # the tenant's spelling of the id asked about (or the id as given, when unchecked)
    name: str | None
    findings: Findings


async def read_clusters(reader: Reader, t1: Tier1) -> Page[Cluster] | ReadFailure:
    return await reader.tier1(1, CLUSTERS, "clusters", t1.list_clusters_page)


def check_cluster(given: str, answer: Page[Cluster] | ReadFailure) -> ClusterCheck:
    """The cluster `given` names (its id in any case, or its exact name); UnknownCluster when it names none."""
    found = Collect()
    if isinstance(answer, ReadFailure):
        found.note(f"the tenant's clusters could not be listed ({answer.missing.why}), so the cluster id was used "
                   "as given, unchecked")
        return ClusterCheck(given, None, found.done())
    clusters = [c for c in answer.items if c.uuid]
    if not clusters:
        found.note("the tenant listed no cluster this access key can see, so the cluster id was used as given")
        return ClusterCheck(given, None, found.done())
    match = find_cluster(clusters, given)
    if len(match) == 1:
        cluster = match[0]
        assert cluster.uuid is not None
        if not same_cluster(cluster.uuid, given):
            found.note(f"the cluster was named by its name {quote(given, 80)}: its id is {quote(cluster.uuid, 80)}")
        return ClusterCheck(cluster.uuid, cluster.name, found.done())
    if len(match) > 1:
        raise UnknownCluster(
            f"the cluster name {quote(given, 80)} belongs to {len(match)} clusters ({listed_clusters(match)}): "
            "give the cluster id instead"
        )
    raise UnknownCluster(
        f"{quote(given, 80)} is not a cluster of this tenant (neither an id nor an exact name). "
        f"Its clusters: {listed_clusters(clusters)}. Use one of these ids, or a cluster's exact name."
    )
