"""A workload's `type`, however a tenant spells it, and the kind-specific spec endpoint it names.

The SDK (runapy 1.224.0, `WorkloadType`) spells the kinds `Training`, `Workspace`, `Distributed`, `Inference` and
`DistributedInference`; tenants and older control planes also send them with spaces, dashes or underscores, in
any letter case, in the plural, or as the CLI's `interactive`. The spelling is reduced to its letters (case
folded; spaces of every kind, dashes, underscores, dots and invisible format characters dropped) and looked up.
A `type` that names no kind here (a Kubernetes kind such as `PyTorchJob`, a NIM service) is served by the v2
document instead. The client chooses the spec endpoint by it (core/sources/runai_params.py), and the simulator
answers a kind's endpoint for every spelling of that kind (core/sim/runai_routes.py), as the API does.
"""

from __future__ import annotations

import unicodedata

# The kind's letters -> the path segment of `/api/v1/workloads/<segment>/{id}`.
SPEC_SEGMENTS: dict[str, str] = {
    "training": "trainings",
    "trainings": "trainings",
    "workspace": "workspaces",
    "workspaces": "workspaces",
    "interactive": "workspaces",
    "distributed": "distributed",
    "distributedtraining": "distributed",
    "inference": "inferences",
    "inferences": "inferences",
    "distributedinference": "distributed-inferences",
    "distributedinferences": "distributed-inferences",
}
# Each segment's kind, as the SDK spells it reduced to its letters.
_KIND_OF_SEGMENT = {
    "trainings": "training",
    "workspaces": "workspace",
    "distributed": "distributed",
    "inferences": "inference",
    "distributed-inferences": "distributedinference",
}
_DROPPED = frozenset("-_.")


def kind_key(workload_type: object) -> str:
    """The letters of a `type`: case folded, without separators or invisible characters (`Distributed Inference`,
    `distributed-inference` and `DistributedInference` all give `distributedinference`)."""
    if not isinstance(workload_type, str):
        return ""
    text = unicodedata.normalize("NFKC", workload_type).casefold()
    return "".join(
        ch for ch in text if not (ch.isspace() or ch in _DROPPED or unicodedata.category(ch) in ("Cf", "Zs"))
    )[:64]


def spec_segment(workload_type: object) -> str | None:
    """The kind-specific spec endpoint's segment for a `type`, or None (served by `/api/v2/workloads/{id}`)."""
    return SPEC_SEGMENTS.get(kind_key(workload_type))


def kind_of(workload_type: object) -> str | None:
    """The SDK's kind (reduced to its letters) that a `type` names, or None."""
    segment = spec_segment(workload_type)
    return _KIND_OF_SEGMENT[segment] if segment is not None else None


def is_kind(workload_type: object, kind: str) -> bool:
    """Whether a `type`, however spelt, names `kind` (given as the SDK spells it, in any case)."""
    return kind_of(workload_type) == kind_key(kind)
