"""Step 1, the cluster asked about: checked against the tenant's own list (`GET /api/v1/clusters`).

The seed always requires a cluster id and never infers one. A cluster id that is not one of the tenant's is
said as such, with the clusters the tenant has (by name and id), instead of "no workload here"; a cluster's
exact name is accepted for its id. Ids are UUIDs, compared without regard to case. When the list cannot be
read (an old tenant, a key without the role), the id is used as given and the report says it was not checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.diagnosis.findings import Collect, Findings
from core.diagnosis.infra import CLUSTERS
from core.diagnosis.observations import quote
from core.diagnosis.reader import DiagnosisFailed, Reader, ReadFailure, Tier1
from core.models.pages import Page
from core.models.runai import Cluster

SHOWN_CLUSTERS = 20


class UnknownCluster(DiagnosisFailed):
    """The cluster asked about is not one of the tenant's; the message lists the ones it has."""


def same_cluster(a: str | None, b: str | None) -> bool:
    """Cluster ids are UUIDs: the same cluster whatever the case of their letters."""
    return a is not None and b is not None and a.strip().casefold() == b.strip().casefold()


@dataclass(frozen=True, slots=True)
class ClusterCheck:
    cluster_id: str  # the tenant's spelling of the id asked about (or the id as given, when unchecked)
    name: str | None
    findings: Findings


async def read_clusters(reader: Reader, t1: Tier1) -> Page[Cluster] | ReadFailure:
    return await reader.tier1(1, CLUSTERS, "clusters", t1.list_clusters_page)


def _listed(clusters: Sequence[Cluster]) -> str:
    shown = [f"{quote(c.name, 80) if c.name else '(no name)'} ({quote(c.uuid, 80)})" for c in clusters if c.uuid]
    more = f", and {len(shown) - SHOWN_CLUSTERS} more" if len(shown) > SHOWN_CLUSTERS else ""
    return ", ".join(shown[:SHOWN_CLUSTERS]) + more


def find_cluster(clusters: Sequence[Cluster], given: str) -> list[Cluster]:
    """The clusters `given` names: by id, in any case, else by exact name (several only for a shared name)."""
    by_id = [c for c in clusters if c.uuid and same_cluster(c.uuid, given)]
    return by_id or [c for c in clusters if c.uuid and c.name is not None and c.name == given.strip()]


def listed_clusters(clusters: Sequence[Cluster]) -> str:
    """The clusters by name and id, for a message."""
    return _listed(clusters)


def check_cluster(given: str, answer: Page[Cluster] | ReadFailure) -> ClusterCheck:
    """The cluster `given` names (its id in any case, or its exact name); UnknownCluster when it names none."""
    found = Collect()
    if isinstance(answer, ReadFailure):
        found.note(f"the tenant's clusters could not be listed ({answer.missing.why}), so the cluster id was used "
                   "as given, unchecked")  # fmt: skip
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
            f"the cluster name {quote(given, 80)} belongs to {len(match)} clusters ({_listed(match)}): "
            "give the cluster id instead"
        )
    raise UnknownCluster(
        f"{quote(given, 80)} is not a cluster of this tenant (neither an id nor an exact name). "
        f"Its clusters: {_listed(clusters)}. Use one of these ids, or a cluster's exact name."
    )
