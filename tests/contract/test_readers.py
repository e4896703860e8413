"""The readers accept every valid shape: bodies Run:ai's SDK accepts, drawn from its own models (optional fields
there or not, nullable ones null, every enum value, any text), go through our client's parsers for their
endpoint: nothing raises, no problem is reported for a valid body, every field our models hold is read as
written, and none the body leaves out is filled in. Then whole diagnoses run on such bodies.

Fixed seed (derandomized) and a small budget in CI. A longer run: `RUNAI_TRIAGE_SDK_EXAMPLES=2000
.venv/bin/python -m pytest -q tests/contract/test_readers.py` (the README's test section says so too).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core.models.history_compact import parse_history_bytes
from core.models.pages import Page, parse_list, parse_object, parse_object_bytes, parse_page_bytes
from core.models.runai import Cluster, HistoryRecord, InferenceRevision, RunaiPod, Workload, WorkloadEvent
from core.models.runai_nodes import RunaiNode
from core.models.runai_spec import WorkloadSpecDoc
from core.models.spec_v2 import is_v2_document, spec_from_v2
from core.sources.metrics_body import read_metrics
from tests.contract.faithful import unfaithful
from tests.contract.oracle import ENDPOINT_MODELS, LIST_BODIES, sdk_model
from tests.contract.sdk_strategies import body_of, valid

EXAMPLES = int(os.environ.get("RUNAI_TRIAGE_SDK_EXAMPLES", "25"))
SDK_SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def _page(key: str, model: type[Any]) -> Callable[[bytes, Any], list[str]]:
    def read(raw: bytes, body: Any) -> list[str]:
        page: Page[Any] = parse_page_bytes(raw, key, model)
        out = [f"problem: {p.message}" for p in page.problems]
        out += unfaithful(page.items, body[key], key)
        if page.next != body.get("next"):
            out.append(f"next: {body.get('next')!r} read as {page.next!r}")
        return out

    return read


def _object(model: type[Any]) -> Callable[[bytes, Any], list[str]]:
    def read(raw: bytes, body: Any) -> list[str]:
        parsed = parse_object_bytes(raw, model, "body")
        return [f"problem: {p}" for p in parsed.parse_problems()] + unfaithful(parsed, body)

    return read


def _history(raw: bytes, body: Any) -> list[str]:
    compact = parse_history_bytes(raw)
    out = [f"problem: {p.message}" for p in compact.problems]
    if len(compact.items) != len(body["records"]):
        out.append(f"records: {len(body['records'])} in the body, {len(compact.items)} read")
    return out + _page("records", HistoryRecord)(raw, body)


def _metrics(raw: bytes, body: Any) -> list[str]:
    response, cuts = read_metrics(raw, 10_000, 10_000, "metrics")
    return [f"cut: {c}" for c in cuts] + [f"problem: {p}" for p in response.parse_problems()] + unfaithful(
        response.measurements, body["measurements"], "measurements"
    )


def _spec(raw: bytes, body: Any) -> list[str]:
    parsed = parse_object(json.loads(raw), WorkloadSpecDoc, "spec")
    return [f"problem: {p}" for p in parsed.parse_problems()] + unfaithful(parsed, body)


def _v2(raw: bytes, body: Any) -> list[str]:
    assert is_v2_document(body)
    doc = spec_from_v2(body)
    # Read from the manifest, whatever it holds; what it names of the workload is the body's own.
    return [] if doc.name in (None, body["workload"]["metadata"]["name"]) else [f"name read as {doc.name!r}"]


def _clusters(raw: bytes, body: Any) -> list[str]:
    page = parse_list(json.loads(raw), Cluster, "clusters")
    return [f"problem: {p.message}" for p in page.problems] + unfaithful(page.items, body, "clusters")


def _count(raw: bytes, body: Any) -> list[str]:
    count = json.loads(raw)["count"]
    return [] if isinstance(count, int) and count == body["count"] else [f"count read as {count!r}"]


# Each endpoint, the reader our client runs on its body (core/sources/runai.py).
READERS: dict[str, Callable[[bytes, Any], list[str]]] = {
    "/api/v1/workloads": _page("workloads", Workload),
    "/api/v1/workloads/count": _count,
    "/api/v1/workloads/{id}": _object(Workload),
    "/api/v1/workloads/{id}/events": _page("events", WorkloadEvent),
    "/api/v1/workloads/{id}/pods": _page("pods", RunaiPod),
    "/api/v1/workloads/{id}/history": _history,
    "/api/v1/workloads/{id}/metrics": _metrics,
    "/api/v1/workloads/{id}/pods/{podId}/metrics": _metrics,
    "/api/v1/workloads/trainings/{id}": _spec,
    "/api/v1/workloads/workspaces/{id}": _spec,
    "/api/v1/workloads/distributed/{id}": _spec,
    "/api/v1/workloads/inferences/{id}": _spec,
    "/api/v1/workloads/distributed-inferences/{id}": _spec,
    "/api/v2/workloads/{id}": _v2,
    "/api/v1/workloads/inferences/{id}/revisions": _page("revisions", InferenceRevision),
    "/api/v1/workloads/inferences/revisions/{revisionId}/pods": _page("pods", RunaiPod),
    "/api/v1/workloads/inferences/revisions/{revisionId}/events": _page("events", WorkloadEvent),
    "/api/v1/workloads/inferences/revisions/{revisionId}/history": _page("records", HistoryRecord),
    "/api/v1/clusters": _clusters,
    "/api/v1/workloads/pods": _page("pods", RunaiPod),
    "/api/v1/nodes": _page("nodes", RunaiNode),
    "/api/v1/clusters/{clusterUuid}/nodes": _page("nodes", RunaiNode),
}


def _bodies(endpoint: str) -> st.SearchStrategy[Any]:
    model = sdk_model(endpoint)
    if endpoint in LIST_BODIES:
        return st.lists(body_of(model), max_size=4)
    return body_of(model)


def _accepted(endpoint: str, body: Any) -> bool:
    model = sdk_model(endpoint)
    if endpoint in LIST_BODIES:
        return all(valid(model, item) for item in body)
    return valid(model, body)


def test_every_endpoint_the_sdk_judges_has_a_reader() -> None:
    assert set(READERS) == set(ENDPOINT_MODELS)


@pytest.mark.parametrize("endpoint", list(READERS))
def test_the_readers_accept_every_valid_shape(endpoint: str) -> None:
    @SDK_SETTINGS
    @given(_bodies(endpoint))
    def check(body: Any) -> None:
        assume(_accepted(endpoint, body))
        raw = json.dumps(body).encode("utf-8")
        wrong = READERS[endpoint](raw, body)
        assert not wrong, f"{endpoint}:\n" + "\n".join(wrong[:20])

    check()
