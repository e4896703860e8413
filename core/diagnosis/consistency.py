"""Where the evidence read disagrees with itself, said in the recommendations rather than left for a reader to
notice (issue 34): a real tenant can show these as well as a demo can.

- The failed pod's node went NotReady (or was lost) before the pod ended, yet the verdict rests on another
  signal (an OOM kill, an exit code): whether the node matters is said, and who checks it.
- A container restarted although the restart policy submitted (or the pod's own) is Never: Kubernetes restarts
  nothing under Never, so the pod does not run what was submitted, or a read is stale.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from core.diagnosis.crash_loop import CrashLoop
from core.diagnosis.observations import Observation
from core.diagnosis.signals import SignalKind
from core.plural import duration, plural

_NODE_DOWN = (SignalKind.NODE_NOT_READY, SignalKind.NODE_LOST)
# A node's condition is dated to the minute or so; a NotReady this close after the failure is the same moment.
SLACK = timedelta(seconds=60)


def _when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC")


def node_down_before(
    observations: Sequence[Observation], category: str | None, node: str | None, failed_at: datetime | None
) -> str | None:
    """The advice when the failed pod's node was NotReady or lost before the failure but the verdict is not
    NODE_FAILURE; None otherwise."""
    if not node or failed_at is None or category == "NODE_FAILURE":
        return None
    down = [o.at for o in observations if o.kind in _NODE_DOWN and o.node == node and o.at is not None]
    earlier = [at for at in down if at <= failed_at + SLACK]
    if not earlier:
        return None
    since = min(earlier)
    before = f"{duration((failed_at - since).total_seconds())} before this failure" if since < failed_at else (
        "as this failure happened"
    )
    return (
        f"Node {node} was NotReady from {_when(since)}, {before}. The verdict rests on the workload's own signal, "
        f"which the node's state does not explain away; but a node whose kubelet stopped reporting may have "
        f"reported this end late, so have the administrator check node {node} (kubectl describe node {node}) "
        "before the workload runs there again."
    )


def restarts_under_never(loop: CrashLoop | None, submitted_policy: str | None) -> str | None:
    """The advice when a container restarted although the restart policy is Never; None otherwise."""
    if loop is None or not loop.restarts:
        return None
    who = f"container {loop.container}" if loop.container else "a container"
    times = plural(loop.restarts, "time")
    if loop.policy == "Never":
        return (
            f"The pod's own restart policy is Never, yet {who} restarted {times} (restartCount): Kubernetes "
            "restarts nothing under Never, so one of these reads is stale or wrong; read the pod again "
            "(kubectl get pod -o yaml) before acting on either."
        )
    if submitted_policy == "Never":
        actual = f" (the pod's is {loop.policy})" if loop.policy else ""
        return (
            f"The restart policy submitted is Never, yet {who} restarted {times}{actual}: the pod does not run "
            "with the policy that was submitted (a mutating webhook, a policy or an operator changed it), so "
            "check what it runs before changing the submission."
        )
    return None
