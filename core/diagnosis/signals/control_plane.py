"""The control plane: the Run:ai cluster disconnected from (or out of sync with) its control plane, and the
Kubernetes API server or its store failing while the workload's objects were made.

Run:ai lists each cluster at `GET /api/v1/clusters` with a `status` and `lastLiveness`, when it last reported.
The status's shape is the SDK's `ClusterDisplayedStatus`: `state`, one of `WaitingToConnect Connected
Disconnected MissingPrerequisites ServiceIssues Unknown`, and `conditions` (type, status, reason, message,
lastTransitionTime). Every state but `Connected` means the control plane cannot fully see or trust the cluster:
a finding that names the state and the failing conditions. Any other shape (a bare word, an older or unknown
object) is still read tolerantly. Operators' notes say that while a cluster is disconnected its sync service
cannot push updates, so what the control plane shows about its workloads may be stale: a diagnosis made then
must say so. A cluster that has not reported for a while is stale whatever its state says. API server words
(kube-apiserver, etcd): `etcdserver: request timed out`, `the server was unable to return a response in the time
allotted, but may still be processing the request`, `Internal error occurred: resource quota evaluation timed
out`. A `control-plane` finding for the administrator; no category.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import Signal, SignalKind
from core.diagnosis.signals.text import Collector, Text, as_text, for_matching, rx
from core.plural import duration

K = SignalKind

_API_SERVER_RE = rx(
    r"etcdserver: [a-z ]{1,60}|the server was unable to return a response in the time allotted"
    r"|the server is currently unable to handle the request|resource quota evaluation timed out"
    r"|Timeout: request did not complete within requested timeout|apiserver (?:is )?(?:not ready|unavailable)"
)
_CLUSTER_TEXT_RE = rx(r"\bcluster (?:is |was |has been )?(?:disconnected|not connected|out of sync|unreachable)")

# Words of a cluster status that mean the control plane cannot see (or trust) the cluster.
_BAD_STATUS_RE = rx(r"disconnect|not[\s_-]?connected|out[\s_-]?of[\s_-]?sync|unreachable|offline|lost|unknown|fail")
_GOOD_STATUS_RE = rx(r"^(?:connected|ready|healthy|ok|online|running)$")
# A cluster that has not reported for this long is stale whatever its status says; Run:ai's own threshold is
# not published, so this is ours, and the report says how old the last report was.
STALE_AFTER = timedelta(minutes=15)
_STATUS_KEYS = ("state", "status", "phase", "displayedStatus", "displayStatus", "value", "name")
# A free-text message is read unless a status word says the cluster is fine: "Connected" with the message
# "0 failures" is connected; "ServiceIssues" with "cluster sync failed" is not.
_MESSAGE_KEYS = ("message", "reason", "details")
_MAX_DEPTH = 3


def match(t: Text, out: Collector) -> None:
    if (hit := _API_SERVER_RE.search(t.m)) is not None:
        out.add(K.CONTROL_PLANE, reason="kube-apiserver", note=f"the Kubernetes API server failed: {hit.group(0)}")
    elif _CLUSTER_TEXT_RE.search(t.m):
        out.add(K.CONTROL_PLANE, reason="cluster", note="the cluster lost its connection to the control plane")


def _words(value: Any, depth: int = 0) -> Iterable[str]:
    """The status words inside a tolerant reading of `status`: a string, or an object or list holding them."""
    if depth > _MAX_DEPTH or value is None:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        stated = [word for key in _STATUS_KEYS if key in value for word in _words(value[key], depth + 1)]
        yield from stated
        if not any(_GOOD_STATUS_RE.match(word.strip()) for word in stated):
            for key in _MESSAGE_KEYS:
                if key in value:
                    yield from _words(value[key], depth + 1)
        conditions = value.get("conditions")
        for condition in conditions[:20] if isinstance(conditions, list) else ():
            if isinstance(condition, Mapping) and as_text(condition.get("status")) in {"False", "Unknown"}:
                label = " ".join(as_text(condition.get(k)) for k in ("type", "reason", "message") if condition.get(k))
                yield f"{label} (not true)"
    elif isinstance(value, list):
        for item in value[:20]:
            yield from _words(item, depth + 1)


@dataclass(frozen=True, slots=True)
class ClusterHealth:
    """What the clusters list says about one cluster: its status words, when it last reported, and the signal."""

    name: str
    status: str | None
    last_liveness: datetime | None
    signal: Signal | None


# `status.state` of a cluster (the SDK's `ClusterState`); all but CONNECTED are a finding.
CLUSTER_STATES: tuple[str, ...] = (
    "WaitingToConnect", "Connected", "Disconnected", "MissingPrerequisites", "ServiceIssues", "Unknown",
)
CONNECTED = "Connected"
_MAX_CONDITIONS = 5  # named in the finding; a cluster with more says how many more
_CONDITION_CHARS = 160


def cluster_health(name: str, status: Any, last_liveness: datetime | None, now: datetime) -> ClusterHealth:
    """A CONTROL_PLANE signal when the cluster's state is any but Connected (naming the state and its failing
    conditions' reasons and messages), when a status of another shape says disconnected (or similar), or when
    its last report is stale. The one place that decides whether a cluster is healthy."""
    state, failing = _stated(status)
    if state is not None:
        shown = "; ".join([state, *failing])[:400]
        bad = state.casefold() != CONNECTED.casefold()
        said = f"reports state {state}" + (f" ({'; '.join(failing)})" if failing else "")
    else:
        words = [w.strip() for w in _words(status) if w and w.strip()]
        shown = "; ".join(dict.fromkeys(words))[:200]
        found = [w for w in words if _BAD_STATUS_RE.search(w) and not _GOOD_STATUS_RE.match(w)]
        bad = bool(found)
        said = f"reports status {found[0][:80]}" if found else ""
    age = now - last_liveness if last_liveness is not None else None
    stale = age is not None and age > STALE_AFTER
    if not bad and not stale:
        return ClusterHealth(name, shown or None, last_liveness, None)
    parts = [said] if bad else []
    if last_liveness is not None and age is not None:
        ago = duration(age.total_seconds())
        parts.append(f"last reported to the control plane at {last_liveness.isoformat()} ({ago} before now)")
    signal = Signal(
        kind=K.CONTROL_PLANE,
        detail=f"Run:ai cluster {name} " + " and ".join(parts),
        reason="cluster",
        note="what Run:ai shows about its workloads may be out of date",
        at=last_liveness,
        source="clusters",
    )
    return ClusterHealth(name, shown or None, last_liveness, signal)


# What the administrator does about a cluster in each state (a stale or disconnected one: reconnect it).
_ADVICE: dict[str, str] = {
    "ServiceIssues": "Repair the Run:ai services the cluster reports failing (the conditions above say which)",
    "MissingPrerequisites": "Install or repair the prerequisites the cluster reports missing",
    "WaitingToConnect": "Finish connecting the cluster to the control plane (its install has not reported yet)",
}
_RECONNECT = "Restore the cluster's connection to the control plane"
_STATE_IN_TEXT = re.compile(r"\breports state (\w+)")


def cluster_advice(detail: str) -> str:
    """The administrator's next step for a cluster finding, from the state its detail names."""
    found = _STATE_IN_TEXT.search(detail)
    return _ADVICE.get(found.group(1), _RECONNECT) if found else _RECONNECT


def _stated(status: Any) -> tuple[str | None, list[str]]:
    """The state of a status in the API's shape (None for any other shape), and its failing conditions, each
    as `<type> <status>: <reason>: <message>`."""
    if not isinstance(status, Mapping):
        return None, []
    state = for_matching(status.get("state")).strip()
    known = {s.casefold(): s for s in CLUSTER_STATES}
    if state.casefold() not in known:
        return None, []
    conditions = status.get("conditions")
    failing = [
        _condition_text(c)
        for c in (conditions if isinstance(conditions, list) else [])[:20]
        if isinstance(c, Mapping) and as_text(c.get("status")) != "True"
    ]
    more = len(failing) - _MAX_CONDITIONS
    named = failing[:_MAX_CONDITIONS] + ([f"{more} more failing condition(s)"] if more > 0 else [])
    return known[state.casefold()], named


def _condition_text(condition: Mapping[str, Any]) -> str:
    head = " ".join(for_matching(condition.get(k)).strip() for k in ("type", "status") if condition.get(k))
    said = [for_matching(condition.get(k)).strip() for k in ("reason", "message") if condition.get(k)]
    text = ": ".join(part for part in (head or "condition", *said) if part)
    return " ".join(text.split())[:_CONDITION_CHARS]


EXAMPLES = (
    example(
        "FailedCreate",
        "Error creating: Internal error occurred: resource quota evaluation timed out",
        K.CONTROL_PLANE,
        reason="kube-apiserver",
    ),
    example("FailedCreate", "Error creating: etcdserver: request timed out", K.CONTROL_PLANE),
    example(
        None,
        "the server was unable to return a response in the time allotted, but may still be processing the request "
        "(get pods train-0-0)",
        K.CONTROL_PLANE,
    ),
    example(None, "Workload status unknown: the cluster is disconnected from the control plane", K.CONTROL_PLANE),
    example(None, "Cluster demo-east connected", None),
    example("Scheduled", "Successfully assigned runai-nlp/train-0-0 to gpu-node-1", None),
)

FAMILY = Family(
    name="control-plane",
    kinds=frozenset({K.CONTROL_PLANE}),
    match=match,
    examples=EXAMPLES,
)
