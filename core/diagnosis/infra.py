"""Infrastructure findings: the faults under the workload that the evidence shows, and whether they explain it.

The signal families name the evidence (GPU hardware and driver, fabric, node pressure, admission, control
plane: core/diagnosis/signals/); this module turns the observations that carry them into the report's
`findings` (report-format.md, "Infrastructure findings"): one per kind and node, its best evidence quoted, the
node it is on, its source, and whether it explains this failure. The category stays the seed's.

What "explains" means, per kind:
- GPU hardware or driver: the failed pod's own evidence (its log, status, events) or its node's, not later than
  the failure, when the category is one a broken GPU ends in (an app error, an init failure, a node failure or
  unknown; not an OOM kill, a pull, a mount or a policy stop);
- network fabric: only on the pod that failed first. In a gang-scheduled job every pod loses its connections
  when one dies, so the same NCCL / InfiniBand lines on a pod torn down after a peer's death are a cascade
  victim's, not a fabric fault: no finding at all. Which pod failed first comes from `first_failure`; with
  several pods and no order known, nothing on a pod counts (a node's own fabric condition still does);
- node pressure: an eviction because the node ran short (not because the pod outgrew its own limit);
- admission, or the API server failing: when no pod of the workload ever ran;
- a disconnected Run:ai cluster never explains a failure; it says the control plane's view may be stale.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis.observations import Observation, quote
from core.diagnosis.signals import SignalKind
from core.diagnosis.signals.node_pressure import node_short
from core.models.report import Finding
from core.models.runai import RunaiPod
from core.safety.untrusted import redacted

K = SignalKind
CLUSTERS = "list_clusters"

KIND_NAMES: dict[SignalKind, str] = {
    K.GPU_HARDWARE: "gpu-hardware",
    K.GPU_DRIVER: "gpu-driver-runtime",
    K.NETWORK_FABRIC: "network-fabric",
    K.NODE_PRESSURE: "node-pressure",
    K.EVICTED: "node-pressure",
    K.ADMISSION_DENIED: "admission",
    K.CONTROL_PLANE: "control-plane",
}
_ORDER = ("gpu-hardware", "gpu-driver-runtime", "network-fabric", "node-pressure", "admission", "control-plane")
# Categories a broken GPU or fabric can end a workload in.
EXPLAINABLE = frozenset({"CRASH_APP_ERROR", "INIT_FAILED", "NODE_FAILURE", "UNKNOWN"})
NODE_LEVEL = frozenset({"gpu-hardware", "gpu-driver-runtime", "node-pressure", "network-fabric"})
# A node's fault that began this long after the failure did not cause it.
LATER_THAN_FAILURE = timedelta(minutes=15)
# The evidence to quote when one kind shows up in several reads: the closest to the failed container first.
_SOURCE_PREFERENCE = (
    "kubectl logs --previous",
    "kubectl logs",
    "kubectl describe pod",
    "kubectl get events",
    "kubectl describe node",
    "get_workload_status",
    "get_workload_pods",
    "get_workload_history",
    CLUSTERS,
)
_FAILED_PHASES = frozenset({"Error", "Failed", "OOMKilled", "CrashLoopBackOff", "Evicted", "Unknown"})


@dataclass(frozen=True, slots=True)
class Scope:
    """What the findings are judged against."""

    category: str | None  # None for a workload routed out
    failed_pod: str | None  # the pod whose failure is diagnosed
    failed_node: str | None  # the node it ran on
    first_failure: str | None  # the pod that failed first (None: not known)
    pod_count: int
    pod_ran: bool  # whether any pod of the workload was ever created
    failed_at: datetime | None


def first_failed_pod(pods: Sequence[RunaiPod]) -> str | None:
    """The pod that failed first (its cleaned name) by Run:ai's completedAt (or phase time); None when several tie
    or none has a time. Used only when no termination order was made (a workload of several pods has one)."""
    failed = [p for p in pods if p.name and (p.k8s_phase or "") in _FAILED_PHASES]
    if len(failed) == 1:
        return quote(failed[0].name, 120)
    timed = sorted(
        (at, quote(p.name, 120)) for p in failed if (at := p.completed_at or p.k8s_phase_updated_at) is not None
    )
    if not timed or (len(timed) > 1 and timed[0][0] == timed[1][0]):
        return None
    return timed[0][1]


def _kind_of(obs: Observation) -> str | None:
    if obs.kind is K.EVICTED:
        return "node-pressure" if node_short(obs.signal.detail) else None
    return KIND_NAMES.get(obs.kind)


def _node_of(obs: Observation, kind: str, scope: Scope) -> str | None:
    if kind not in NODE_LEVEL:
        return None
    if obs.node:
        return obs.node
    if obs.pod is None or obs.pod == scope.failed_pod:
        return scope.failed_node
    return None


def _on_failed_pod(obs: Observation, scope: Scope) -> bool:
    return obs.pod is None or scope.failed_pod is None or obs.pod == scope.failed_pod


def _not_later(obs: Observation, scope: Scope) -> bool:
    return obs.at is None or scope.failed_at is None or obs.at <= scope.failed_at + LATER_THAN_FAILURE


def _fabric_counts(obs: Observation, scope: Scope) -> bool:
    """A fabric error counts on the pod that failed first, or as the node's own condition or event."""
    if obs.pod is None and obs.node is not None:
        return True
    if scope.pod_count <= 1:
        return True
    pod = obs.pod or scope.failed_pod
    return scope.first_failure is not None and pod == scope.first_failure


def _explains(obs: Observation, kind: str, scope: Scope) -> bool:
    category = scope.category
    if kind in {"gpu-hardware", "gpu-driver-runtime", "network-fabric"}:
        return category in EXPLAINABLE and _on_failed_pod(obs, scope) and _not_later(obs, scope)
    if kind == "node-pressure":
        return obs.kind is K.EVICTED
    if kind == "admission":
        return not scope.pod_ran
    if kind == "control-plane":
        return obs.source != CLUSTERS and not scope.pod_ran
    return False


# Where the words that named the fault sit in a long message: the quote is cut around them.
_KEY_TERMS = re.compile(
    r"Xid|fallen off|GPU is lost|ECC|NVLink|nvidia-container-cli|NVML|NVIDIA-SMI|driver version|driver not loaded"
    r"|NET/|socketProgress|remote peer|admission webhook|failed calling webhook|exceeded quota|usage per"
    r"|PodSecurity|etcdserver|the server|low on resource|had condition",
    re.IGNORECASE,
)
QUOTE_CHARS = 240


def excerpt(detail: str, limit: int = QUOTE_CHARS) -> str:
    """The part of a message that names the fault, cleaned, at most about `limit` characters."""
    text = redacted(detail)  # cut only redacted text: a cut through a credential would show part of it
    hit = _KEY_TERMS.search(text)
    if hit is not None and hit.start() > limit - 60 and len(text) > limit:
        start = max(0, hit.start() - 40)
        return "… " + quote(text[start:], limit)
    return quote(text, limit)


def _admission(obs: Observation) -> str:
    sig = obs.signal
    name = quote(sig.resource, 120) if sig.resource else None
    if sig.reason == "webhook" and sig.note and "could not be called" in sig.note:
        return f'admission webhook "{name}" could not be called and fails closed, so the pods were refused'
    if sig.reason == "webhook":
        return f'admission webhook "{name}" denied the pods'
    if sig.reason == "policy":
        # The requirement itself, so whoever reads the finding sees what to change without the whole message.
        tail = sig.detail.split("validation error:", 1)[-1] if "validation error:" in sig.detail else sig.detail
        wanted = quote(tail.split("denied the request:", 1)[-1].strip(), 240).replace('"', "'")
        return f'admission webhook "{name}" refused the pod spec; the policy requires: {wanted}'
    if sig.reason == "ResourceQuota":
        return f'ResourceQuota "{name}" is full, so the pods were refused'
    if sig.reason == "PodSecurity":
        return f"Pod Security admission ({name}) refused the pods"
    return sig.note or "the API server refused the pods"


def _text(obs: Observation, kind: str) -> str:
    sig = obs.signal
    if kind == "node-pressure" and sig.kind is K.EVICTED:
        what = f"the kubelet evicted the pod because the node ran short of {quote(sig.resource or 'a resource', 60)}"
    elif kind == "node-pressure":
        what = f"the node is under {quote(sig.resource or 'resource', 60)} pressure"
    elif kind == "admission":
        what = _admission(obs)
    elif obs.source == CLUSTERS:
        return f"{quote(sig.detail, 300)}; {sig.note}"
    else:
        what = sig.note or kind
        tags = [quote(t, 60) for t in (sig.reason, sig.resource) if t and t not in {"cluster", "kube-apiserver"}]
        if sig.reason and sig.reason.startswith("Xid"):
            what += f" ({', '.join(tags)})"
    return f'{what}: "{excerpt(sig.detail)}"'


def _preference(item: tuple[Observation, bool]) -> tuple[int, int, int]:
    obs, explains = item
    source = _SOURCE_PREFERENCE.index(obs.source) if obs.source in _SOURCE_PREFERENCE else len(_SOURCE_PREFERENCE)
    specific = int(bool(obs.signal.reason and obs.signal.reason.startswith("Xid")))
    return (-int(explains), -specific, source)


def infra_findings(observations: Sequence[Observation], scope: Scope) -> list[Finding]:
    """One finding per kind and node, its best evidence quoted; explaining ones first."""
    grouped: dict[tuple[str, str | None], list[tuple[Observation, bool]]] = {}
    for obs in observations:
        kind = _kind_of(obs)
        if kind is None or (kind == "network-fabric" and not _fabric_counts(obs, scope)):
            continue
        node = _node_of(obs, kind, scope)
        grouped.setdefault((kind, node), []).append((obs, _explains(obs, kind, scope)))
    findings: list[Finding] = []
    for (kind, node), items in grouped.items():
        best, _ = min(items, key=_preference)
        findings.append(
            Finding(
                kind=kind,  # type: ignore[arg-type]
                # A policy's requirement of the pod spec is the submitter's to meet; every other fault is not.
                owner="user" if kind == "admission" and best.signal.reason == "policy" else "administrator",
                node=quote(node, 120) if node else None,
                text=_text(best, kind),
                source=best.source,  # type: ignore[arg-type]
                explains=any(e for _, e in items),
            )
        )
    findings.sort(key=lambda f: (not f.explains, _ORDER.index(f.kind), f.node or ""))
    return findings


# CUDA errors a failing GPU (or its driver) gives the application, though the application can cause them too:
# reason enough to read the node's health conditions, never a finding by themselves.
GPU_SUSPECT_RE = re.compile(
    r"CUDA error: (?:unknown error|unspecified launch failure|an illegal instruction|launch timed out"
    r"|GPU is lost)|cudaError(?:Unknown|LaunchFailure|DevicesUnavailable)|CUDA_ERROR_UNKNOWN",
    re.IGNORECASE,
)


def gpu_suspect(line: str) -> bool:
    return bool(GPU_SUSPECT_RE.search(line[:8192]))


def node_level_evidence(observations: Sequence[Observation], failed_pod: str | None, node: str) -> bool:
    """Whether the failed pod or its node shows a GPU, driver or node-pressure fault (then the node is described
    and the other pods on it are listed)."""
    for obs in observations:
        kind = _kind_of(obs)
        if kind in {"gpu-hardware", "gpu-driver-runtime", "node-pressure"} and (
            obs.node == node or (obs.node is None and obs.pod in (None, failed_pod))
        ):
            return True
    return False


def explaining(findings: Sequence[Finding]) -> list[Finding]:
    return [f for f in findings if f.explains]


def routed_findings(observations: Sequence[Observation], pod_seen: bool, failed_at: datetime | None) -> list[Finding]:
    """The findings of a workload routed out at Step 1: no pod is diagnosed, so none is the failed one."""
    return infra_findings(observations, Scope(None, None, None, None, 0, pod_seen, failed_at))
