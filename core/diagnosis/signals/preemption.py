"""Preemption: the scheduler stopped the workload to free resources. Not a failure: the seed routes it out.

Preemption is the reason `Evict` (the KAI/Run:ai scheduler's), `Preempted`/`Preempting`, DisruptionTarget
`PreemptionByScheduler`, or the words preempt(ed|ion|ing), reclaim(ed), consolidation. Not preemption:
preemptible/non-preemptible/NonPreemptibleOverQuota, negated wording ("will not be preempted", "No preemption
victims found"), FailedScheduling texts (the default scheduler prefixes them with "preemption:"), the kubelet's
"Attempting to reclaim memory" (node pressure), a PV "reclaim policy", Karpenter node consolidation (a drain),
and a kubelet `Evict` with eviction wording (the kubelet's own eviction: the node family's).
"""

from __future__ import annotations

import re

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.node import EVICTION_RE
from core.diagnosis.signals.text import Collector, Text, canonical_reason, rx

K = SignalKind
_PREEMPT_RE = rx(r"(?<![\w-])pre-?empt(?:ed|ion|ing|s|or)?(?![\w-])")
_RECLAIM_RE = rx(r"(?<![\w-])reclaim(?:ed|ing|s)?(?![\w-])")
_CONSOLIDATION_RE = rx(r"(?<![\w-])consolidat(?:ion|ed|ing|es|e)(?![\w-])")
_NEGATION_BEFORE_RE = rx(r"\b(?:not|never|cannot|can't|won't|no|without|isn't)\s+(?:be\s+|been\s+|get\s+)?$")
_NEGATION_AFTER_RE = rx(r"^\s*(?:is\s+not|isn't|was\s+not|wasn't)\s+(?:helpful|possible|needed|allowed)")
_NODE_RECLAIM_CONTEXT_RE = rx(r"attempting to reclaim|reclaim\s+polic")
_KARPENTER_RE = rx(r"karpenter|disrupting node")
REASONS = frozenset({"evict", "preempted", "preempting", "preemptionbyscheduler", "preemptionbykubescheduler"})


def _negated(text: str, start: int, end: int) -> bool:
    return bool(
        _NEGATION_BEFORE_RE.search(text[max(0, start - 30) : start]) or _NEGATION_AFTER_RE.search(text[end : end + 40])
    )


def _first_unnegated(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    for match in pattern.finditer(text):
        if not _negated(text, match.start(), match.end()):
            return match
    return None


def match(t: Text, out: Collector) -> None:
    if t.r in REASONS:
        # The kubelet's own eviction is told by its wording, never by the reporting component alone.
        kubelet_eviction = t.r == "evict" and bool(EVICTION_RE.search(t.m))
        if not kubelet_eviction:
            out.add(K.PREEMPTED, reason=canonical_reason(t.r))
            return
    if t.scheduling:
        return
    if _first_unnegated(_PREEMPT_RE, t.m):
        out.add(K.PREEMPTED, container=t.container)
        return
    if (
        t.obj_kind != "persistentvolume"
        and not _NODE_RECLAIM_CONTEXT_RE.search(t.m)
        and _first_unnegated(_RECLAIM_RE, t.m)
    ):
        out.add(K.PREEMPTED, container=t.container, note="quota reclaim")
        return
    karpenter = bool(_KARPENTER_RE.search(t.m)) or t.r.startswith("disruption")
    if not karpenter and _first_unnegated(_CONSOLIDATION_RE, t.m):
        out.add(K.PREEMPTED, container=t.container, note="resource consolidation (bin packing)")


EXAMPLES = (
    example(
        "Evict", "Pod runai-nlp/train-0-0 was preempted by higher priority workload runai-prod/serve-pg", K.PREEMPTED
    ),
    example(
        "Evict", "Pod runai-speech/hp-search-17-0-0 was preempted by workload runai-prod/asr-serving.", K.PREEMPTED
    ),
    example(
        None,
        "Pod runai-nlp/train-0-0 was preempted and rescheduled due to bin packing (resource consolidation) procedure",
        K.PREEMPTED,
    ),
    example("Evict", None, K.PREEMPTED, reason="Evict"),
    example(None, "Workload resources were reclaimed by project prod", K.PREEMPTED, note="quota reclaim"),
    example(None, "Workload was moved for CONSOLIDATION of GPU resources", K.PREEMPTED),
    example("Preempting", "Preempted in order to admit critical pod", K.PREEMPTED),
    example("PreemptionByScheduler", "Kai scheduler: preempting to accommodate a higher priority pod", K.PREEMPTED),
    # Look-alikes that are not preemption.
    example(None, "Workload preemptible: true", None),
    example(None, "Workload is non-preemptible", None),
    example("NonPreemptibleOverQuota", "Non-preemptible workloads cannot exceed the project's quota", None),
    example(None, "This workload will not be preempted", None),
    example(None, "Priority class train is preemptible", None),
    example(
        "FailedScheduling",
        "0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are "
        "available: 4 No preemption victims found for incoming pod.",
        None,
    ),
    example("ProvisioningSucceeded", "Successfully provisioned volume pvc-1 with reclaim policy Delete", None),
    example("DisruptionBlocked", "Karpenter is disrupting node gpu-7 for consolidation", K.NODE_DRAIN),  # a drain
)

FAMILY = Family(name="preemption", kinds=frozenset({K.PREEMPTED}), match=match, examples=EXAMPLES)
