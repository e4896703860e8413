"""Which of the tenant's clusters a user's `--cluster-id` names: an id in any case, or a cluster's exact name.

Pure functions over the clusters list (`GET /api/v1/clusters`), shared by the diagnosis's Step 1 check and the
app's start-up cluster, which must not load the engine before its first page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.models.runai import Cluster
from core.safety.untrusted import clean

SHOWN_CLUSTERS = 20


def same_cluster(a: str | None, b: str | None) -> bool:
    """Cluster ids are UUIDs: the same cluster whatever the case of their letters."""
    return a is not None and b is not None and a.strip().casefold() == b.strip().casefold()


def find_cluster(clusters: Sequence[Cluster], given: str) -> list[Cluster]:
    """The clusters `given` names: by id, in any case, else by exact name (several only for a shared name). A
    list that repeats a cluster (an answer larger than asked for, a server that pages badly) names it once."""
    by_id = _distinct(c for c in clusters if c.uuid and same_cluster(c.uuid, given))
    return by_id or _distinct(c for c in clusters if c.uuid and c.name is not None and c.name == given.strip())


def _distinct(clusters: Iterable[Cluster]) -> list[Cluster]:
    seen: dict[str, Cluster] = {}
    for cluster in clusters:
        seen.setdefault((cluster.uuid or "").strip().casefold(), cluster)
    return list(seen.values())


def listed_clusters(clusters: Sequence[Cluster]) -> str:
    """The clusters by name and id, for a message (the first SHOWN_CLUSTERS, then how many more)."""
    shown = [
        f"{clean(c.name, max_len=80, one_line=True) if c.name else '(no name)'} "
        f"({clean(c.uuid, max_len=80, one_line=True)})"
        for c in _distinct(clusters)
        if c.uuid
    ]
    more = f", and {len(shown) - SHOWN_CLUSTERS} more" if len(shown) > SHOWN_CLUSTERS else ""
    return ", ".join(shown[:SHOWN_CLUSTERS]) + more
