"""Properties of whole diagnoses when one endpoint answers with a generated document.

The simulator's normal answer for one endpoint (the workload, its events, spec, pods, history, metrics, or the
Kubernetes pod, events, node and log) is taken, a few values anywhere in it (containers included, the envelope
too) are replaced with wrong types, unknown enum values, huge, deep or 5,000-digit values, edge timestamps or
hostile text, and that document is served in its place (a bundle `faults` item with a `body`). Asserted:

- never a traceback: a report, or, only when the workload answer itself cannot be read as a workload,
  DiagnosisFailed with a message;
- bounded time per example;
- no control character in any rendering of the report.
"""

from __future__ import annotations

import asyncio
import copy
import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from core.diagnosis.engine import DiagnosisFailed, run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.pages import ShapeError, parse_json, parse_object
from core.models.report import Report
from core.models.runai import Workload
from core.sources.budget import time_budget
from tests.integration.fault_rig import OOM_CASE, OOM_CLUSTER, OOM_ID, bundle_with, served
from tests.property.strategies import PROPERTY_SETTINGS, hostile_text, json_paths, set_path, wrong_values
from tests.property.test_generated_bundles import _assert_clean, _control_characters

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
_METRICS_QUERY = urlencode(
    {
        "metricType": "CPU_MEMORY_USAGE_BYTES,CPU_MEMORY_LIMIT_BYTES",
        "start": (NOW - timedelta(hours=3)).isoformat(),
        "end": NOW.isoformat(),
        "numberOfSamples": 100,
    }
)
# (endpoint template for the fault, the path that fetches its normal answer)
ANSWERS: dict[str, tuple[str, str]] = {
    "workload": ("/api/v1/workloads/{id}", f"/api/v1/workloads/{OOM_ID}"),
    "events": ("/api/v1/workloads/{id}/events", f"/api/v1/workloads/{OOM_ID}/events?limit=500"),
    "spec": ("/api/v1/workloads/trainings/{id}", f"/api/v1/workloads/trainings/{OOM_ID}"),
    "pods": ("/api/v1/workloads/{id}/pods", f"/api/v1/workloads/{OOM_ID}/pods"),
    "history": ("/api/v1/workloads/{id}/history", f"/api/v1/workloads/{OOM_ID}/history?limit=500"),
    "metrics": ("/api/v1/workloads/{id}/metrics", f"/api/v1/workloads/{OOM_ID}/metrics?{_METRICS_QUERY}"),
    "kube pod": ("/api/v1/namespaces/{ns}/pods/{name}", "/api/v1/namespaces/runai-speech/pods/whisper-ft-0-0"),
    "kube events": ("/api/v1/namespaces/{ns}/events", "/api/v1/namespaces/runai-speech/events"),
    "kube node events": ("/api/v1/events", "/api/v1/events?fieldSelector=involvedObject.kind%3DNode"),
}
LOG = ("/api/v1/namespaces/{ns}/pods/{name}/log", "")
EXAMPLE_BOUND_S = 12.0
_DEEP_MARK = "\u0000deep-value\u0000"


def _normal_answers() -> dict[str, Any]:
    with served(bundle_with(OOM_CASE, [])) as s:
        runai = {"Authorization": f"Bearer {s.plane.issue_token()}"}
        kube = {"Authorization": f"Bearer {s.plane.kube_token}"}
        out = {}
        for name, (_, path) in ANSWERS.items():
            response = httpx.get(s.url + path, headers=kube if name.startswith("kube") else runai, timeout=5)
            assert response.status_code in (200, 207), (name, response.status_code)
            out[name] = response.json()
        return out


NORMAL = _normal_answers()


@st.composite
def generated_answer(draw: st.DrawFn, name: str) -> tuple[str, str, bytes]:
    """(endpoint name, fault template, body): a normal answer with a few values replaced anywhere in it."""
    if name == "kube log":
        lines = draw(st.lists(hostile_text, min_size=1, max_size=20))
        return name, LOG[0], "\n".join(lines).encode("utf-8", "surrogatepass")
    document = copy.deepcopy(NORMAL[name])
    paths = json_paths(document)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        try:
            set_path(document, path, draw(wrong_values))
        except (KeyError, IndexError, TypeError):
            continue
    deep = draw(st.one_of(st.none(), st.integers(min_value=500, max_value=20_000)))
    if deep is not None and paths:
        # Planted as text: a value this deep cannot even be built with json.dumps.
        try:
            set_path(document, draw(st.sampled_from(paths)), _DEEP_MARK)
        except (KeyError, IndexError, TypeError):
            deep = None
    if draw(st.booleans()) and isinstance(document, dict):
        document = draw(st.sampled_from([[document], "a string", None, 42, {"unexpected": True}]))
    text = json.dumps(document, default=str)
    if deep is not None:
        text = text.replace(json.dumps(_DEEP_MARK), "[" * deep + '"bottom"' + "]" * deep)
    return name, ANSWERS[name][0], text.encode()


def _workload_readable(name: str, body: bytes) -> bool:
    if name != "workload":
        return True
    try:
        workload = parse_object(parse_json(body, "body"), Workload, "workload")
    except ShapeError:
        return False
    return isinstance(workload.id, str) and bool(workload.id)


@pytest.mark.parametrize("endpoint", [*sorted(ANSWERS), "kube log"])
@settings(PROPERTY_SETTINGS, max_examples=6)
@given(data=st.data())
def test_a_generated_answer_on_any_endpoint_still_gives_a_report(endpoint: str, data: st.DataObject) -> None:
    asyncio.run(_check(*data.draw(generated_answer(endpoint))))


async def _check(name: str, template: str, body: bytes) -> None:
    fault = {"match": f"GET {template}", "status": 200, "times": 9, "body": body.decode("utf-8", "surrogatepass")}
    with served(bundle_with(OOM_CASE, [fault])) as s:
        tenant = s.tenant()
        started = time.monotonic()
        try:
            request = DiagnosisRequest(cluster_id=OOM_CLUSTER, workload_id=OOM_ID, now=NOW)
            with time_budget(8.0):
                outcome: Report | DiagnosisFailed = await run_to_report(request, tenant.runai, tenant.kube)
        except DiagnosisFailed as exc:
            outcome = exc
        finally:
            await tenant.aclose()
        elapsed = time.monotonic() - started
    assert elapsed < EXAMPLE_BOUND_S, elapsed
    if isinstance(outcome, DiagnosisFailed):
        event(f"no report ({name})")
        assert not _workload_readable(name, body), f"{name}: no report although the workload was readable: {outcome}"
        assert not _control_characters(str(outcome))
        return
    event(f"report ({name}): {outcome.outcome}")
    _assert_clean(outcome)


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_every_normal_answer_was_fetched(name: str) -> None:
    # The property's inputs start from real answers; an empty one would make it vacuous.
    assert NORMAL[name]
