"""Run:ai's own SDK (`runapy`, generated from the 2.24 OpenAPI document) as the judge of what a body may be.

Each read endpoint the simulator serves is mapped to the SDK model of its 200 answer. The SDK's API methods
return plain bodies and name no model, so the map was made by reading `runai/api/*.py` (the paths and their
parameters) beside `runai/models/` (the bodies), and checked against the OpenAPI document the SDK is generated
from (runapy's `.generator/swagger.json` at 1.224.0): every model named here is that document's 200 schema.

A body is checked with the model's `model_validate`, not its `from_dict`: `from_dict` reads each key with
`dict.get`, so a required key that is absent passes as null, and an error inside a nested model loses the path
to it. `model_validate` reports the whole field path.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

# Route template (as core.sim.runai_routes writes it) -> (SDK module, model). A list body (`/clusters`) is
# validated as a list of the model.
ENDPOINT_MODELS: dict[str, tuple[str, str]] = {
    "/api/v1/workloads": ("get_workloads200_response", "GetWorkloads200Response"),
    "/api/v1/workloads/count": ("count_response", "CountResponse"),
    "/api/v1/workloads/{id}": ("workload_detailed", "WorkloadDetailed"),
    "/api/v1/workloads/{id}/events": ("get_workload_events200_response", "GetWorkloadEvents200Response"),
    "/api/v1/workloads/{id}/pods": ("list_pods200_response", "ListPods200Response"),
    "/api/v1/workloads/{id}/history": ("get_workload_history200_response", "GetWorkloadHistory200Response"),
    "/api/v1/workloads/{id}/metrics": ("metrics_composite_response", "MetricsCompositeResponse"),
    "/api/v1/workloads/{id}/pods/{podId}/metrics": ("metrics_composite_response", "MetricsCompositeResponse"),
    "/api/v1/workloads/trainings/{id}": ("training1", "Training1"),
    "/api/v1/workloads/workspaces/{id}": ("workspace1", "Workspace1"),
    "/api/v1/workloads/distributed/{id}": ("distributed_workload", "DistributedWorkload"),
    "/api/v1/workloads/inferences/{id}": ("inference1", "Inference1"),
    "/api/v1/workloads/distributed-inferences/{id}": ("distributed_inference", "DistributedInference"),
    "/api/v2/workloads/{id}": ("workload_v2_get_response", "WorkloadV2GetResponse"),
    "/api/v1/workloads/inferences/{id}/revisions": (
        "get_inference_workload_revisions200_response",
        "GetInferenceWorkloadRevisions200Response",
    ),
    "/api/v1/workloads/inferences/revisions/{revisionId}/pods": (
        "get_revision_pods200_response",
        "GetRevisionPods200Response",
    ),
    "/api/v1/workloads/inferences/revisions/{revisionId}/events": (
        "get_workload_events200_response",
        "GetWorkloadEvents200Response",
    ),
    "/api/v1/workloads/inferences/revisions/{revisionId}/history": (
        "get_workload_history200_response",
        "GetWorkloadHistory200Response",
    ),
    "/api/v1/clusters": ("displayed_cluster", "DisplayedCluster"),
    # The fleet (the Nodes view): the tenant-wide pod list and the nodes, tenant-wide and of one cluster.
    "/api/v1/workloads/pods": ("list_pods200_response", "ListPods200Response"),
    "/api/v1/nodes": ("nodes", "Nodes"),
    "/api/v1/clusters/{clusterUuid}/nodes": ("nodes", "Nodes"),
}
LIST_BODIES: frozenset[str] = frozenset({"/api/v1/clusters"})

# Not judged, and why. `/org-unit/projects` answers `{projects: [Project], next}`, and the SDK's `Project` model
# is mis-generated: it rejects the projects bodies a real tenant sends, so it cannot judge ours.
SKIPPED_ENDPOINTS: dict[str, str] = {
    "/api/v1/org-unit/projects": "runapy 1.224.0's Project model is mis-generated and rejects real projects bodies",
}


@cache
def sdk_model(name: str) -> type[BaseModel]:
    module, cls = ENDPOINT_MODELS[name]
    found = getattr(importlib.import_module(f"runai.models.{module}"), cls)
    assert isinstance(found, type) and issubclass(found, BaseModel)
    return found


@cache
def _list_adapter(name: str) -> TypeAdapter[list[Any]]:
    return TypeAdapter(list[sdk_model(name)])  # type: ignore[valid-type]


@dataclass(frozen=True)
class Failure:
    """One field of one body that the SDK's model refuses."""

    endpoint: str  # the route template
    workload: str  # "name (id)" or "-" for tenant-wide bodies
    path: str  # the field path inside the body, e.g. "workloads.3.phase"
    problem: str

    def line(self) -> str:
        return f"{self.endpoint} [{self.workload}] {self.path}: {self.problem}"


def validate(endpoint: str, body: Any, workload: str) -> list[Failure]:
    """The fields of `body` that the SDK's model of `endpoint`'s 200 answer refuses (none: the body is valid)."""
    try:
        if endpoint in LIST_BODIES:
            _list_adapter(endpoint).validate_python(body)
        else:
            sdk_model(endpoint).model_validate(body)
    except ValidationError as exc:
        return [
            Failure(endpoint, workload, ".".join(str(p) for p in err["loc"]) or "(body)", _problem(err))
            for err in exc.errors(include_url=False)
        ]
    return []


def _problem(err: Any) -> str:
    value = repr(err.get("input"))
    if len(value) > 60:
        value = value[:57] + "..."
    return f"{err['msg']} (got {value})"


def unknown_fields(endpoint: str, body: Any, workload: str) -> list[Failure]:
    """Keys of a valid body that its model does not define. Such a key is not refused (the SDK ignores it), but
    the API never sends it: a field our data invents (a restart policy on an inference, say) shows here."""
    if endpoint in LIST_BODIES:
        parsed = _list_adapter(endpoint).validate_python(body)
        pairs = [(str(i), m, d) for i, (m, d) in enumerate(zip(parsed, body, strict=True))]
    else:
        pairs = [("", sdk_model(endpoint).model_validate(body), body)]
    found: list[Failure] = []
    for path, model, raw in pairs:
        for where in _extras(model, raw, path):
            found.append(Failure(endpoint, workload, where, "not a field of the API's model"))
    return found


def _extras(model: Any, raw: Any, path: str) -> list[str]:
    if isinstance(model, BaseModel):
        if "actual_instance" in type(model).model_fields:  # a oneOf/anyOf wrapper: the chosen model judges
            return _extras(getattr(model, "actual_instance", None), raw, path)
        if not isinstance(raw, dict):
            return []
        out: list[str] = []
        known: dict[str, str] = {}
        for name, info in type(model).model_fields.items():
            known[info.alias or name] = name
        for key in raw:
            if key not in known:
                out.append(_join(path, key))
            else:
                out += _extras(getattr(model, known[key]), raw[key], _join(path, key))
        return out
    if isinstance(model, list) and isinstance(raw, list):
        return [x for i, (m, r) in enumerate(zip(model, raw, strict=False)) for x in _extras(m, r, _join(path, str(i)))]
    if isinstance(model, dict) and isinstance(raw, dict):
        return [x for k, m in model.items() for x in _extras(m, raw.get(k), _join(path, str(k)))]
    return []


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
