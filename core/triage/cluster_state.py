"""A cluster's own state, in the words the picker's header and `scan` show: whether the control plane can see it
now, and when it last reported. Health is decided in one place, `cluster_health`
(core.diagnosis.signals.control_plane); this only words what it decided for a list of many workloads, whose rows
may be stale when the cluster is not Connected or has not reported lately.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.diagnosis.signals.control_plane import cluster_health
from core.models.runai import Cluster
from core.plural import duration
from core.safety.untrusted import clean


@dataclass(frozen=True, slots=True)
class ClusterState:
    """One cluster as the clusters list shows it. `stale` is what `cluster_health` decided; `warning` says it
    in one line (None for a cluster that is Connected and reporting)."""

    cluster_id: str
    name: str
    status: str | None
    last_liveness: datetime | None
    stale: bool
    warning: str | None
    short: str | None = None  # the warning in a few words, for a header line


    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.cluster_id,
            "name": self.name,
            "status": self.status,
            "lastLiveness": self.last_liveness.isoformat() if self.last_liveness else None,
            "stale": self.stale,
            "warning": self.warning,
        }


def cluster_state(cluster: Cluster, now: datetime) -> ClusterState:
    name = clean(cluster.name or cluster.uuid or "(unnamed)", one_line=True, max_len=80)
    health = cluster_health(name, cluster.status, cluster.last_liveness, now)
    status = health.status.split(";")[0].strip()[:60] if health.status else None
    warning = short = None
    if health.signal is not None:
        ago = (
            f"last report {duration((now - cluster.last_liveness).total_seconds())} ago"
            if cluster.last_liveness is not None
            else "no last report time"
        )
        warning = f"cluster {name}: {f'status {status}' if status else 'no status'}, {ago}; what Run:ai lists for it " \
            "may be stale"
        short = f"{name} {status or 'status unknown'}, {ago}"
    stale = health.signal is not None
    return ClusterState(cluster.uuid or "", name, status, cluster.last_liveness, stale, warning, short)
