"""Requests the API understands: every query parameter our client sends is one the SDK sends to that path (so
no paging parameters to the unpaged revisions list, revision pods or clusters), every `sortBy` and `filterBy`
field the picker, `scan` and a diagnosis can send is one the 2.24 document lists, and the simulator accepts all
26 `sortBy` values and every documented filter field.

The query parameters come from the SDK's own API methods (`runai/api/*.py`); the `sortBy` enum and the
`filterBy` fields, which the SDK takes as plain strings, from the OpenAPI document it is generated from
(`openapi_2_24.json` beside this file says where).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from runai.models.node_filter_sort_fields import NodeFilterSortFields
from runai.models.project_filter_sort_fields import ProjectFilterSortFields

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.sim.control_plane import RecordedRequest
from core.sim.demo import demo_expectations, load_demo_bundle
from core.sim.filtering import WORKLOAD_FIELDS
from core.sim.fleet_routes import NODE_FIELDS
from core.sim.pod_index import POD_FIELDS
from core.tenant import Tenant, open_bundle_tenant
from core.triage.attention import attention_filters
from core.triage.nodes import NodesRequest, nodes_view
from core.triage.scan import ScanRequest, _filters, scan
from tests.contract.sdk_paths import sdk_query_parameters
from tui.picker_query import COLUMN_SORT, DATE_FIELDS, SORT_CYCLE, TEXT_FIELDS, PickerQuery

DOCUMENT = json.loads((Path(__file__).parent / "openapi_2_24.json").read_text(encoding="utf-8"))["enums"]
SORT_BY: list[str] = DOCUMENT["/api/v1/workloads sortBy"]
FILTER_FIELDS: list[str] = DOCUMENT["/api/v1/workloads filterBy fields"]
POD_FILTER_FIELDS: list[str] = DOCUMENT["/api/v1/workloads/pods filterBy fields"]
POD_SORT_BY: list[str] = DOCUMENT["/api/v1/workloads/pods sortBy"]
NODE_FILTER_FIELDS: list[str] = DOCUMENT["/api/v1/nodes filterBy fields"]
PROJECT_FIELDS = {f.value for f in ProjectFilterSortFields}
# Demo stories whose diagnoses reach every read a diagnosis makes: by name (the list), an inference's
# revisions, a distributed inference, a v2 manifest, a long history, memory and pod metrics, Kubernetes.
STORIES = (
    "inference-revision-pull", "di-leader-oom", "v2-pytorchjob-crash", "long-history", "oom-rising",
    "node-notready", "resnet-bench-by-name", "disconnected-cluster", "dist-oom-cascade", "mount-pvc-missing",
)
_FILTER_FIELD = re.compile(r"^([A-Za-z][A-Za-z0-9_.]*)(?:==|!=|<=|>=|=@|!@|=\^|=\$)")


def _filter_fields(items: list[str]) -> set[str]:
    return {m.group(1) for item in items if (m := _FILTER_FIELD.match(item))}


def test_the_document_lists_26_sort_fields_and_the_same_filter_fields() -> None:
    assert len(SORT_BY) == len(set(SORT_BY)) == 26
    assert set(FILTER_FIELDS) == set(SORT_BY)
    assert "updatedAt" not in SORT_BY  # a field of the workload, not an order the list can be asked for


def test_every_order_the_picker_and_scan_can_ask_for_is_documented() -> None:
    asked = {sort.field for sort in SORT_CYCLE} | set(COLUMN_SORT.values()) | set(DATE_FIELDS) | set(TEXT_FIELDS)
    asked |= {"phaseUpdatedAt"}  # scan, and a lookup by name (the seed's order)
    assert asked <= set(SORT_BY), asked - set(SORT_BY)


def test_every_filter_the_picker_and_scan_can_send_is_documented() -> None:
    picker = PickerQuery(cluster_id="c", project="p", name="bert", attention=True).filters()
    scanned = ScanRequest("c", project="p", name_prefix="bert")
    sent = _filter_fields(picker) | _filter_fields(_filters(scanned, datetime(2026, 11, 30, tzinfo=UTC)))
    sent |= _filter_fields(attention_filters())
    assert sent <= set(FILTER_FIELDS), sent - set(FILTER_FIELDS)
    assert {"clusterId", "projectName", "name", "phase", "phaseUpdatedAt"} <= sent


def test_the_simulator_sorts_and_filters_on_exactly_the_documented_fields() -> None:
    assert set(WORKLOAD_FIELDS) == set(SORT_BY)
    assert set(POD_FIELDS) == set(POD_FILTER_FIELDS) == set(POD_SORT_BY)
    assert set(NODE_FIELDS) == set(NODE_FILTER_FIELDS) == {f.value for f in NodeFilterSortFields}


module_loop = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def served() -> Any:
    async with open_bundle_tenant(load_demo_bundle(), label="contract") as tenant:
        yield tenant


@module_loop
@pytest.mark.parametrize("field", SORT_BY)
async def test_the_simulator_answers_every_documented_sort(served: Tenant, field: str) -> None:
    page = await served.runai.list_workloads(sort_by=field, sort_order="desc", limit=500)
    assert len(page.items) == 500 and page.next == 500 and not page.problems


@module_loop
@pytest.mark.parametrize("field", FILTER_FIELDS)
async def test_the_simulator_answers_a_filter_on_every_documented_field(served: Tenant, field: str) -> None:
    kind = WORKLOAD_FIELDS[field].kind
    item = {"date": f"{field}<=2030-01-01T00:00:00Z", "number": f"{field}>=0", "text": f"{field}!=zz"}[kind]
    assert await served.runai.count_workloads([item]) >= 0


@module_loop
async def test_the_client_sends_only_parameters_the_sdk_sends(served: Tenant) -> None:
    """Diagnoses that reach every read, the picker's every order and filter, and a scan: each request's query
    names are ones the SDK sends to that path, and its sortBy and filterBy fields are documented."""
    plane = served.control_plane
    assert plane is not None
    plane.clear_requests()
    stories = {case["key"]: case for case in demo_expectations()}
    for key in STORIES:
        case = stories[key]
        request: dict[str, Any] = {"cluster_id": case["clusterId"], "lookback": case["lookback"]}
        if case["lookup"] == "id":
            request["workload_id"] = case["workloadId"]
        else:
            request.update(name=case["name"], project=case["project"])
        await run_to_report(DiagnosisRequest(now=served.captured_at, **request), served.runai, served.kube)
    cluster = stories["oom-rising"]["clusterId"]
    for field in {sort.field for sort in SORT_CYCLE} | set(COLUMN_SORT.values()):
        query = PickerQuery(cluster_id=cluster, project="nlp", name="llama", attention=True)
        await served.runai.list_workloads(filters=query.filters(), sort_by=field, sort_order="desc", limit=50)
    await served.runai.list_projects(filters=[f"clusterId=={cluster}"], limit=500)
    await served.runai.list_clusters_page()
    await scan(ScanRequest(cluster, since="24h", max_workloads=20), served.runai, served.kube, now=served.captured_at)
    await nodes_view(NodesRequest(cluster, node_pool="default", max_failures=5), served.runai, served.kube,
                     now=served.captured_at)
    requests = plane.requests
    assert len(requests) > 200
    problems = [p for r in requests for p in _problems(r)]
    assert not problems, "\n".join(problems[:40])
    # The unpaged endpoints were asked, and without paging.
    asked = {r.path.rsplit("/", 1)[-1] for r in requests if "/inferences/" in r.path}
    assert {"revisions", "pods", "events", "history"} <= asked
    # The Nodes view's own reads were among them, asked of Run:ai (not of the Kubernetes API beside it).
    assert {"/api/v1/workloads/pods", "/api/v1/nodes"} <= {r.path for r in requests if not r.kube}


def _problems(request: RecordedRequest) -> list[str]:
    path = request.path
    if request.method != "GET" or request.kube:  # a token, or the Kubernetes API (not Run:ai's)
        return []
    documented = _documented(path)
    if documented is None:
        return [f"{path}: not a GET the SDK makes"]
    out = [f"{path}: sends {name}, which the API does not take there" for name, _ in request.query
           if name not in documented]
    for name, value in request.query:
        if name == "sortBy" and path == "/api/v1/workloads" and value not in SORT_BY:
            out.append(f"{path}: sortBy={value} is not documented")
        if name == "sortBy" and path == "/api/v1/workloads/pods" and value not in POD_SORT_BY:
            out.append(f"{path}: sortBy={value} is not documented")
        if name == "sortBy" and path.endswith("/nodes") and value not in NODE_FILTER_FIELDS:
            out.append(f"{path}: sortBy={value} is not documented")
        if name == "filterBy":
            fields = _filter_fields(value.split(","))
            out += [f"{path}: filters on {f}, which is not documented" for f in fields - _filter_fields_of(path)]
    return out


def _filter_fields_of(path: str) -> set[str]:
    if path == "/api/v1/workloads/pods":
        return set(POD_FILTER_FIELDS)
    if path == "/api/v1/nodes" or path.endswith("/nodes"):
        return set(NODE_FILTER_FIELDS)
    return set(FILTER_FIELDS) if path.startswith("/api/v1/workloads") else PROJECT_FIELDS


def _documented(path: str) -> frozenset[str] | None:
    """The query names the SDK sends to `path` (the most literal of the SDK's paths it fits)."""
    best: tuple[int, frozenset[str]] | None = None
    for shape, names in sdk_query_parameters().items():
        pattern = "^" + re.escape(shape).replace(r"\{\}", "[^/]+") + "$"
        if re.match(pattern, path):
            holes = shape.count("{}")
            if best is None or holes < best[0]:
                best = (holes, names)
    return best[1] if best else None


def test_query_names_are_read_from_the_sdk() -> None:
    params = sdk_query_parameters()
    assert _documented("/api/v1/workloads/inferences/abc/revisions") == {"deleted"}
    assert _documented("/api/v1/workloads/inferences/revisions/abc/pods") == {"deleted"}
    assert _documented("/api/v1/clusters") == {"verbosity", "includeRequestedForDelete"}
    assert _documented("/api/v1/workloads/count") == {"deleted", "filterBy", "search"}
    assert {"offset", "limit"} <= _documented("/api/v1/workloads/abc/history")  # type: ignore[operator]
    assert len(params) > 100
