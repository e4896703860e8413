"""The simulated Run:ai API through real httpx clients: in-process (SimTransport) and over loopback HTTP."""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from core.sim import audit
from core.sim.bundle import CaseBundle, load_bundle, parse_bundle
from core.sim.control_plane import ControlPlane, SimRequest
from core.sim.loopback import LoopbackServer
from core.sim.transport import SimSyncTransport, SimTransport
from tests.paths import CASES as CASES_DIR

CASES = str(CASES_DIR)
OOM_ID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"
CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"


def _workload(i: int, **extra: Any) -> dict[str, Any]:
    wl = {
        "id": f"00000000-0000-0000-0000-{i:012d}",
        "name": f"job-{i:02d}",
        "clusterId": CLUSTER if i % 2 == 0 else "other-cluster",
        "projectName": "nlp" if i % 3 else "vision",
        "projectId": str(10 + i % 3),
        "phase": "Failed" if i % 4 == 0 else "Running",
        "type": "Training" if i % 2 == 0 else "Workspace",
        "submittedBy": f"user{i % 5}@example.com",
        "createdAt": f"2026-11-30T{i % 24:02d}:00:00Z",
        # Distinct instants written with different offsets: comparison must be by instant, not by text.
        "phaseUpdatedAt": f"2026-11-30T{(i + 1) % 24:02d}:30:00+00:00",
        "updatedAt": f"2026-11-30T{(i + 1) % 24:02d}:45:00Z",
    }
    wl.update(extra)
    return wl


def _tenant() -> dict[str, Any]:
    workloads = [{"workload": _workload(i)} for i in range(23)]
    workloads.append({"workload": _workload(90, name="gone-job", deletedAt="2026-11-30T05:00:00Z")})
    entry = workloads[0]
    entry["events"] = [
        {
            "createdAt": f"2026-11-30T10:{m:02d}:00Z",
            "type": "Normal",
            "clusterId": CLUSTER,
            "message": f"m{m}",
        }
        for m in (5, 1, 9, 3, 7)
    ]
    entry["spec"] = {"name": "job-00", "workloadId": entry["workload"]["id"], "spec": {"image": "img"}}
    entry["pods"] = [
        {"name": "job-00-0-0", "id": "p0", "workloadId": entry["workload"]["id"]},
        {"name": "job-00-0-1", "id": "p1", "workloadId": entry["workload"]["id"]},
        {"name": "job-00-old", "id": "p2", "deletedAt": "2026-11-30T09:00:00Z"},
    ]
    entry["history"] = [
        {"meta": {"creationTimestamp": f"2026-11-30T0{h}:00:00Z", "type": "PhaseUpdate"}, "spec": {}}
        for h in (3, 1, 2)
    ]
    entry["metrics"] = [
        {
            "type": "GPU_UTILIZATION",
            "labels": None,
            # samples every minute from 10:00 to 10:10, then a 20-minute gap, then 10:30..10:40
            "values": [{"value": str(m), "timestamp": f"2026-11-30T10:{m:02d}:00Z"} for m in range(0, 11)]
            + [{"value": str(m), "timestamp": f"2026-11-30T10:{m:02d}:00Z"} for m in range(30, 41)],
        },
        {
            "type": "CPU_USAGE_CORES",
            "labels": {"podId": "p0"},
            "values": [{"value": "1.5", "timestamp": "2026-11-30T10:00:00Z"}],
        },
    ]
    workloads[1]["events"] = None
    workloads[2]["workload"]["type"] = "NIM"
    workloads[2]["spec"] = {"name": "job-02", "workloadId": workloads[2]["workload"]["id"], "spec": {}}
    return {
        "format": "runai-triage/case@1",
        "capturedAt": "2026-11-30T12:00:00Z",
        "clusters": [{"uuid": CLUSTER, "name": "c1"}],
        "projects": [
            {"name": f"proj-{i}", "id": str(i), "clusterId": CLUSTER if i % 2 else "x", "status": {}}
            for i in range(7)
        ],
        "workloads": workloads,
    }


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["inprocess", "loopback"])
async def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def _client(kind: str, cp: ControlPlane) -> AsyncIterator[httpx.AsyncClient]:
    if kind == "inprocess":
        async with httpx.AsyncClient(transport=SimTransport(cp), base_url="http://sim.test") as c:
            yield c
    else:
        with LoopbackServer(cp) as server:
            async with httpx.AsyncClient(base_url=server.url) as c:
                yield c


class Api:
    def __init__(self, client: httpx.AsyncClient, cp: ControlPlane) -> None:
        self.client = client
        self.cp = cp
        self.headers = {"Authorization": f"Bearer {cp.issue_token()}"}

    async def get(self, path: str, **params: Any) -> httpx.Response:
        return await self.client.get(path, params=params, headers=self.headers)

    async def ok(self, path: str, **params: Any) -> Any:
        r = await self.get(path, **params)
        assert r.status_code == 200, r.text
        return r.json()


@pytest.fixture
async def api(kind: str) -> AsyncIterator[Api]:
    cp = ControlPlane(parse_bundle(_tenant()))
    async for c in _client(kind, cp):
        yield Api(c, cp)


@pytest.fixture
async def oom(kind: str) -> AsyncIterator[Api]:
    cp = ControlPlane(load_bundle(f"{CASES}/example-oom.json"))
    async for c in _client(kind, cp):
        yield Api(c, cp)


def _names(body: dict[str, Any]) -> list[str]:
    return [w["name"] for w in body["workloads"]]


# -- workloads list ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("filter_by", "expected"),
    [
        ("name==job-07", lambda w: w["name"] == "job-07"),
        ("name!=job-07", lambda w: w["name"] != "job-07"),
        ("name=@-1", lambda w: "-1" in w["name"]),
        ("name!@-1", lambda w: "-1" not in w["name"]),
        ("name=^job-2", lambda w: w["name"].startswith("job-2")),
        ("name=$5", lambda w: w["name"].endswith("5")),
        ("projectName==vision", lambda w: w["projectName"] == "vision"),
        ("projectId==11", lambda w: w["projectId"] == "11"),
        (f"clusterId=={CLUSTER}", lambda w: w["clusterId"] == CLUSTER),
        ("phase==Failed", lambda w: w["phase"] == "Failed"),
        ("type!=Training", lambda w: w["type"] != "Training"),
        ("submittedBy=^user3", lambda w: w["submittedBy"].startswith("user3")),
        ("phaseUpdatedAt>=2026-11-30T10:30:00Z", lambda w: w["phaseUpdatedAt"][:13] >= "2026-11-30T10"),
        ("phaseUpdatedAt<=2026-11-30T11:30:00+01:00", lambda w: w["phaseUpdatedAt"][:13] <= "2026-11-30T10"),
        ("createdAt==2026-11-30T05:00:00Z", lambda w: w["createdAt"] == "2026-11-30T05:00:00Z"),
        ("createdAt!=2026-11-30T05:00:00Z", lambda w: w["createdAt"] != "2026-11-30T05:00:00Z"),
        ("projectName==nlp,phase==Failed", lambda w: w["projectName"] == "nlp" and w["phase"] == "Failed"),
    ],
)
async def test_every_filter_operator(api: Api, filter_by: str, expected: Any) -> None:
    body = await api.ok("/api/v1/workloads", filterBy=filter_by, limit=500)
    live = [e["workload"] for e in _tenant()["workloads"] if not e["workload"].get("deletedAt")]
    want = [w["name"] for w in live if expected(w)]
    assert want, "the table row must select something"
    assert _names(body) == want
    count = await api.ok("/api/v1/workloads/count", filterBy=filter_by)
    assert count == {"count": len(want)}


@pytest.mark.parametrize(
    ("filter_by", "phrase"),
    [
        ("namespace==runai-nlp", "unknown field 'namespace'"),
        ("name~~x", "unknown operator '~~'"),
        ("name<=x", "operator '<=' is not supported for field 'name'"),
        ("createdAt=@2026", "not supported for date field 'createdAt'"),
        ("createdAt>=yesterday", "needs an ISO-8601 date"),
    ],
)
async def test_bad_filters_answer_400_naming_the_problem(api: Api, filter_by: str, phrase: str) -> None:
    r = await api.get("/api/v1/workloads", filterBy=filter_by)
    assert r.status_code == 400
    assert r.json()["code"] == 400
    assert phrase in r.json()["message"]


@pytest.mark.parametrize(
    "field", ["phaseUpdatedAt", "createdAt", "name", "phase", "projectName", "submittedBy"]
)
@pytest.mark.parametrize("order", ["asc", "desc"])
async def test_sort_both_ways_with_id_tiebreak(api: Api, field: str, order: str) -> None:
    body = await api.ok("/api/v1/workloads", sortBy=field, sortOrder=order, limit=500)
    got = [(w[field], w["id"]) for w in body["workloads"]]
    key = (lambda v: v) if field not in ("phaseUpdatedAt", "createdAt") else (lambda v: v[:19])
    primary = [key(v) for v, _ in got]
    assert primary == sorted(primary, reverse=order == "desc")
    for (a, ida), (b, idb) in itertools.pairwise(got):
        if key(a) == key(b):
            assert ida < idb


async def test_unknown_sort_field_and_order_are_400(api: Api) -> None:
    assert (await api.get("/api/v1/workloads", sortBy="colour")).status_code == 400
    r = await api.get("/api/v1/workloads", sortBy="name", sortOrder="sideways")
    assert r.status_code == 400 and "sortOrder" in r.json()["message"]


@pytest.mark.parametrize("limit", [1, 5, 7, 50])
async def test_paging_to_the_end_without_gaps_or_duplicates(api: Api, limit: int) -> None:
    seen: list[str] = []
    offset: int | None = 0
    pages = 0
    while offset is not None:
        body = await api.ok("/api/v1/workloads", sortBy="name", limit=limit, offset=offset)
        seen.extend(w["id"] for w in body["workloads"])
        offset = body.get("next")
        pages += 1
        assert pages < 100
    everything = await api.ok("/api/v1/workloads", sortBy="name", limit=500)
    assert seen == [w["id"] for w in everything["workloads"]]
    assert len(seen) == len(set(seen)) == 23
    assert "next" not in everything


@pytest.mark.parametrize(
    ("params", "phrase"),
    [
        ({"limit": 0}, "limit"),
        ({"limit": 501}, "limit"),
        ({"offset": -1}, "offset"),
        ({"limit": "ten"}, "limit"),
    ],
)
async def test_paging_bounds(api: Api, params: dict[str, Any], phrase: str) -> None:
    r = await api.get("/api/v1/workloads", **params)
    assert r.status_code == 400 and phrase in r.json()["message"]


async def test_default_limit_is_50_and_next_points_on(kind: str) -> None:
    data = _tenant()
    data["workloads"] = [{"workload": _workload(i)} for i in range(120)]
    cp = ControlPlane(parse_bundle(data))
    async for c in _client(kind, cp):
        a = Api(c, cp)
        first = await a.ok("/api/v1/workloads")
        assert len(first["workloads"]) == 50 and first["next"] == 50
        last = await a.ok("/api/v1/workloads", offset=100)
        assert len(last["workloads"]) == 20 and "next" not in last


async def test_deleted_and_search(api: Api) -> None:
    deleted = await api.ok("/api/v1/workloads", deleted="true")
    assert _names(deleted) == ["gone-job"]
    live = await api.ok("/api/v1/workloads", limit=500)
    assert "gone-job" not in _names(live)
    found = await api.ok("/api/v1/workloads", search="JOB-1", limit=500)
    assert _names(found) == [f"job-{i}" for i in range(10, 20)]
    # the deleted workload's own endpoint still answers
    gone = await api.ok(f"/api/v1/workloads/{_workload(90)['id']}")
    assert gone["name"] == "gone-job"


# -- one workload ------------------------------------------------------------------------------------------
async def test_workload_by_id_and_404(oom: Api) -> None:
    wl = await oom.ok(f"/api/v1/workloads/{OOM_ID}")
    assert wl["name"] == "whisper-ft" and wl["pendingSchedulingMessages"] == []
    r = await oom.get("/api/v1/workloads/nope")
    assert r.status_code == 404 and r.json()["code"] == 404


async def test_events_newest_first_sort_and_paging(api: Api) -> None:
    wid = _workload(0)["id"]
    body = await api.ok(f"/api/v1/workloads/{wid}/events")
    assert [e["message"] for e in body["events"]] == ["m9", "m7", "m5", "m3", "m1"]
    asc = await api.ok(f"/api/v1/workloads/{wid}/events", sortOrder="asc", limit=2)
    assert [e["message"] for e in asc["events"]] == ["m1", "m3"] and asc["next"] == 2
    rest = await api.ok(f"/api/v1/workloads/{wid}/events", sortOrder="asc", limit=2, offset=4)
    assert [e["message"] for e in rest["events"]] == ["m9"] and "next" not in rest
    assert (await api.get(f"/api/v1/workloads/{wid}/events", limit=501)).status_code == 400


async def test_events_null_is_500_and_absent_is_empty(api: Api) -> None:
    r = await api.get(f"/api/v1/workloads/{_workload(1)['id']}/events")
    assert r.status_code == 500 and r.json()["code"] == 500
    assert await api.ok(f"/api/v1/workloads/{_workload(3)['id']}/events") == {"events": []}


@pytest.mark.parametrize(
    ("wtype", "good"),
    [
        ("Training", "trainings"),
        ("training", "trainings"),
        ("Workspace", "workspaces"),
        ("Distributed", "distributed"),
        ("Inference", "inferences"),
        ("DistributedInference", "distributed-inferences"),
        ("NIM", None),
    ],
)
async def test_spec_only_on_the_matching_kind(kind: str, wtype: str, good: str | None) -> None:
    data = _tenant()
    data["workloads"][0]["workload"]["type"] = wtype
    cp = ControlPlane(parse_bundle(data))
    wid = _workload(0)["id"]
    kinds = ["trainings", "workspaces", "distributed", "inferences", "distributed-inferences"]
    async for c in _client(kind, cp):
        a = Api(c, cp)
        for k in kinds:
            r = await a.get(f"/api/v1/workloads/{k}/{wid}")
            assert r.status_code == (200 if k == good else 404), (k, r.text)
        r2 = await a.get(f"/api/v2/workloads/{wid}")
        assert r2.status_code == (200 if good is None else 404)
        served = r if good is not None else r2
        if good is None:
            assert served.json()["spec"] == {"image": "img"}


async def test_spec_absent_or_null_is_404(api: Api) -> None:
    assert (await api.get(f"/api/v1/workloads/trainings/{_workload(4)['id']}")).status_code == 404
    data = _tenant()
    data["workloads"][0]["spec"] = None
    cp = ControlPlane(parse_bundle(data))
    async with httpx.AsyncClient(transport=SimTransport(cp), base_url="http://sim") as c:
        r = await Api(c, cp).get(f"/api/v1/workloads/trainings/{_workload(0)['id']}")
        assert r.status_code == 404


async def test_pods_deleted_search_paging(api: Api) -> None:
    wid = _workload(0)["id"]
    live = await api.ok(f"/api/v1/workloads/{wid}/pods")
    assert [p["name"] for p in live["pods"]] == ["job-00-0-0", "job-00-0-1"]
    gone = await api.ok(f"/api/v1/workloads/{wid}/pods", deleted="true")
    assert [p["name"] for p in gone["pods"]] == ["job-00-old"]
    one = await api.ok(f"/api/v1/workloads/{wid}/pods", limit=1)
    assert len(one["pods"]) == 1 and one["next"] == 1
    assert [p["id"] for p in (await api.ok(f"/api/v1/workloads/{wid}/pods", search="0-1"))["pods"]] == ["p1"]
    assert await api.ok(f"/api/v1/workloads/{_workload(5)['id']}/pods") == {"pods": []}


async def test_history_newest_first_with_paging(api: Api) -> None:
    wid = _workload(0)["id"]
    body = await api.ok(f"/api/v1/workloads/{wid}/history", limit=2)
    stamps = [r["meta"]["creationTimestamp"] for r in body["records"]]
    assert stamps == ["2026-11-30T03:00:00Z", "2026-11-30T02:00:00Z"] and body["next"] == 2
    assert (await api.get(f"/api/v1/workloads/{wid}/history", limit=501)).status_code == 400


# -- metrics -----------------------------------------------------------------------------------------------
async def test_metrics_sampling_with_staleness_gap(api: Api) -> None:
    wid = _workload(0)["id"]
    body = await api.ok(
        f"/api/v1/workloads/{wid}/metrics",
        metricType="GPU_UTILIZATION",
        start="2026-11-30T10:00:00Z",
        end="2026-11-30T10:40:00Z",
        numberOfSamples=9,
    )
    (series,) = body["measurements"]
    # instants every 5 minutes; 10:20 and 10:25 are more than 300 s after the last sample (10:10): omitted.
    assert [(v["timestamp"][11:16], v["value"]) for v in series["values"]] == [
        ("10:00", "0"),
        ("10:05", "5"),
        ("10:10", "10"),
        ("10:15", "10"),
        ("10:30", "30"),
        ("10:35", "35"),
        ("10:40", "40"),
    ]
    assert series["labels"] is None


async def test_metrics_207_when_some_types_missing(oom: Api) -> None:
    # stored samples run every 30 s from 10:30 to 11:25
    params = {"start": "2026-11-30T10:30:00Z", "end": "2026-11-30T11:25:00Z"}
    r = await oom.get(
        f"/api/v1/workloads/{OOM_ID}/metrics", metricType="CPU_MEMORY_USAGE_BYTES,GPU_UTILIZATION", **params
    )
    assert r.status_code == 207
    assert [m["type"] for m in r.json()["measurements"]] == ["CPU_MEMORY_USAGE_BYTES"]
    assert (
        len(r.json()["measurements"][0]["values"]) == 20
    )  # the default numberOfSamples, all within staleness
    both = await oom.get(
        f"/api/v1/workloads/{OOM_ID}/metrics",
        metricType="CPU_MEMORY_USAGE_BYTES,CPU_MEMORY_LIMIT_BYTES",
        **params,
    )
    assert both.status_code == 200 and len(both.json()["measurements"]) == 2
    none = await oom.get(f"/api/v1/workloads/{OOM_ID}/metrics", metricType="GPU_UTILIZATION", **params)
    assert none.status_code == 200 and none.json() == {"measurements": []}


@pytest.mark.parametrize(
    ("params", "phrase"),
    [
        ({"start": "2026-11-30T10:00:00Z", "end": "2026-11-30T11:00:00Z"}, "metricType"),
        ({"metricType": "GPU_UTILIZATION", "end": "2026-11-30T11:00:00Z"}, "start"),
        ({"metricType": "GPU_UTILIZATION", "start": "2026-11-30T10:00:00Z"}, "end"),
        ({"metricType": "GPU_UTILIZATION", "start": "noon", "end": "2026-11-30T11:00:00Z"}, "start"),
        (
            {"metricType": "GPU_UTILIZATION", "start": "2026-11-30T12:00:00Z", "end": "2026-11-30T11:00:00Z"},
            "before start",
        ),
        (
            {
                "metricType": "GPU_UTILIZATION",
                "start": "2026-11-30T10:00:00Z",
                "end": "2026-11-30T11:00:00Z",
                "numberOfSamples": 0,
            },
            "numberOfSamples",
        ),
        (
            {
                "metricType": "GPU_UTILIZATION",
                "start": "2026-11-30T10:00:00Z",
                "end": "2026-11-30T11:00:00Z",
                "numberOfSamples": 1001,
            },
            "numberOfSamples",
        ),
    ],
)
async def test_metrics_parameter_errors(api: Api, params: dict[str, Any], phrase: str) -> None:
    r = await api.get(f"/api/v1/workloads/{_workload(0)['id']}/metrics", **params)
    assert r.status_code == 400 and phrase in r.json()["message"]


async def test_metrics_sample_count_bounds_accepted(api: Api) -> None:
    base = {"metricType": "GPU_UTILIZATION", "start": "2026-11-30T10:00:00Z", "end": "2026-11-30T10:40:00Z"}
    one = await api.ok(f"/api/v1/workloads/{_workload(0)['id']}/metrics", numberOfSamples=1, **base)
    assert one["measurements"][0]["values"] == [{"value": "40", "timestamp": "2026-11-30T10:40:00Z"}]
    many = await api.ok(f"/api/v1/workloads/{_workload(0)['id']}/metrics", numberOfSamples=1000, **base)
    assert 0 < len(many["measurements"][0]["values"]) < 1000  # the gap leaves instants out


async def test_pod_metrics_use_the_pod_series_only(api: Api) -> None:
    wid = _workload(0)["id"]
    params = {
        "metricType": "CPU_USAGE_CORES,GPU_UTILIZATION",
        "start": "2026-11-30T10:00:00Z",
        "end": "2026-11-30T10:04:00Z",
        "numberOfSamples": 5,
    }
    r = await api.get(f"/api/v1/workloads/{wid}/pods/p0/metrics", **params)
    assert r.status_code == 207
    (m,) = r.json()["measurements"]
    assert m["labels"] == {"podId": "p0"} and [v["value"] for v in m["values"]] == ["1.5"] * 5
    other = await api.ok(f"/api/v1/workloads/{wid}/pods/p1/metrics", **params)
    assert other == {"measurements": []}
    # the pod series is not part of the workload-level answer
    wl = await api.get(f"/api/v1/workloads/{wid}/metrics", **params)
    assert [x["type"] for x in wl.json()["measurements"]] == ["GPU_UTILIZATION"]


# -- org lookups -------------------------------------------------------------------------------------------
async def test_clusters_and_projects(api: Api) -> None:
    assert await api.ok("/api/v1/clusters") == [{"uuid": CLUSTER, "name": "c1"}]
    body = await api.ok("/api/v1/org-unit/projects", filterBy=f"clusterId=={CLUSTER}", limit=2)
    assert [p["name"] for p in body["projects"]] == ["proj-1", "proj-3"] and body["next"] == 2
    rest = await api.ok("/api/v1/org-unit/projects", filterBy=f"clusterId=={CLUSTER}", limit=2, offset=2)
    assert [p["name"] for p in rest["projects"]] == ["proj-5"] and "next" not in rest
    named = await api.ok("/api/v1/org-unit/projects", filterBy="name=$6")
    assert [p["name"] for p in named["projects"]] == ["proj-6"]
    assert (await api.get("/api/v1/org-unit/projects", filterBy="phase==x")).status_code == 400


# -- auth --------------------------------------------------------------------------------------------------
def _claims(token: str) -> dict[str, Any]:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


async def test_token_endpoints_both_versions(kind: str) -> None:
    clock = Clock()
    cp = ControlPlane(parse_bundle(_tenant()), token_ttl_s=600, clock=clock)
    async for c in _client(kind, cp):
        v2 = await c.post(
            "/api/v2/token",
            data={"grant_type": "client_credentials", "client_id": "id", "client_secret": "s3cret"},
        )
        assert v2.status_code == 200
        b2 = v2.json()
        assert b2["token_type"] == "Bearer" and b2["expires_in"] == 600
        assert _claims(b2["access_token"])["exp"] == int(clock.now) + 600
        assert _claims(b2["access_token"])["sub"] == "id"
        v1 = await c.post(
            "/api/v1/token",
            json={"grantType": "client_credentials", "clientID": "id", "clientSecret": "s3cret"},
        )
        assert v1.status_code == 200 and set(v1.json()) == {"accessToken", "expiresIn"}
        for token in (b2["access_token"], v1.json()["accessToken"]):
            r = await c.get("/api/v1/clusters", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200
        # The SDK's own client asks v1 for an app token, spelling its keys AppId/AppSecret.
        app = await c.post("/api/v1/token", json={"grantType": "app_token", "AppId": "app", "AppSecret": "s3cret"})
        assert app.status_code == 200 and _claims(app.json()["accessToken"])["sub"] == "app"
        # Every error is OAuth2's {error, error_description} (RFC 6749 5.2), with its standard code.
        bad_form = await c.post("/api/v2/token", content=b"%%%", headers={"Content-Type": "text/plain"})
        assert bad_form.status_code == 400 and bad_form.json()["error"] == "invalid_request"
        bad_json = await c.post("/api/v1/token", content=b"{not json")
        assert bad_json.status_code == 400 and bad_json.json()["error"] == "invalid_request"
        wrong_grant = await c.post(
            "/api/v1/token", json={"grantType": "password", "clientID": "a", "clientSecret": "b"}
        )
        assert wrong_grant.status_code == 400 and wrong_grant.json()["error"] == "unsupported_grant_type"
        assert "grantType" in wrong_grant.json()["error_description"]
        empty = await c.post(
            "/api/v2/token", data={"grant_type": "client_credentials", "client_id": "", "client_secret": "x"}
        )
        assert empty.status_code == 401 and empty.json()["error"] == "invalid_client"
        no_app_secret = await c.post("/api/v1/token", json={"grantType": "app_token", "appID": "app"})
        assert no_app_secret.status_code == 401 and set(no_app_secret.json()) == {"error", "error_description"}
        wrong_method = await c.get("/api/v2/token")
        assert wrong_method.status_code == 405 and wrong_method.json()["error"] == "invalid_request"


async def test_disabled_token_version_is_404(kind: str) -> None:
    cp = ControlPlane(parse_bundle(_tenant()), token_versions=frozenset({"v1"}))
    async for c in _client(kind, cp):
        r = await c.post(
            "/api/v2/token", data={"grant_type": "client_credentials", "client_id": "a", "client_secret": "b"}
        )
        assert r.status_code == 404
        r1 = await c.post(
            "/api/v1/token", json={"grantType": "client_credentials", "clientID": "a", "clientSecret": "b"}
        )
        assert r1.status_code == 200


async def test_missing_bad_expired_and_revoked_tokens_are_401(kind: str) -> None:
    clock = Clock()
    cp = ControlPlane(parse_bundle(_tenant()), token_ttl_s=60, clock=clock)
    async for c in _client(kind, cp):
        assert (await c.get("/api/v1/clusters")).status_code == 401
        r = await c.get("/api/v1/clusters", headers={"Authorization": "Bearer forged.token.here"})
        assert r.status_code == 401 and r.json()["code"] == 401 and r.json()["message"]
        assert (await c.get("/api/v1/clusters", headers={"Authorization": "Basic abc"})).status_code == 401
        token = cp.issue_token()
        auth = {"Authorization": f"Bearer {token}"}
        assert (await c.get("/api/v1/clusters", headers=auth)).status_code == 200
        clock.now += 61
        expired = await c.get("/api/v1/clusters", headers=auth)
        assert expired.status_code == 401 and "expired" in expired.json()["message"]
        fresh = {"Authorization": f"Bearer {cp.issue_token()}"}
        assert (await c.get("/api/v1/clusters", headers=fresh)).status_code == 200
        cp.revoke_tokens()
        assert (await c.get("/api/v1/clusters", headers=fresh)).status_code == 401
        # Run:ai tokens are not Kubernetes credentials
        new = {"Authorization": f"Bearer {cp.issue_token()}"}
        assert (await c.get("/api/v1/nodes/n1", headers=new)).status_code == 401


# -- unknown paths and methods -----------------------------------------------------------------------------
async def test_unknown_path_404_and_other_method_405(kind: str) -> None:
    cp = ControlPlane(parse_bundle(_tenant()), audited=False)
    async for c in _client(kind, cp):
        a = Api(c, cp)
        r = await a.get("/api/v1/nothing-here")
        assert r.status_code == 404 and r.json()["code"] == 404
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            r = await c.request(method, f"/api/v1/workloads/{_workload(0)['id']}", headers=a.headers)
            assert r.status_code == 405 and r.headers["allow"] == "GET" and r.json()["code"] == 405
        assert [q.method for q in cp.requests[-4:]] == ["POST", "PUT", "DELETE", "PATCH"]
        assert [q.status for q in cp.requests[-4:]] == [405] * 4


async def test_requests_are_recorded_with_query(api: Api) -> None:
    await api.get("/api/v1/workloads", filterBy="name==a,phase==Failed", limit=3)
    last = api.cp.requests[-1]
    assert (last.method, last.path, last.status) == ("GET", "/api/v1/workloads", 200)
    assert last.query == (("filterBy", "name==a,phase==Failed"), ("limit", "3"))


async def test_audited_planes_feed_the_read_only_audit(api: Api) -> None:
    before = audit.counted()
    await api.client.post(
        "/api/v2/token", data={"grant_type": "client_credentials", "client_id": "a", "client_secret": "b"}
    )
    await api.get("/api/v1/clusters")
    assert audit.counted() >= before + 2
    assert not any(r in audit.write_violations() for r in api.cp.requests)
    quiet = ControlPlane(parse_bundle(_tenant()), audited=False)
    quiet.handle(SimRequest("PUT", "/x", (), {}))
    assert not any(r.path == "/x" for r in audit.write_violations())


def test_sync_transport_and_latency() -> None:
    slept: list[float] = []
    cp = ControlPlane(parse_bundle(_tenant()), latency_ms=250)
    with httpx.Client(transport=SimSyncTransport(cp, sleep=slept.append), base_url="http://sim") as c:
        r = c.get("/api/v1/clusters", headers={"Authorization": f"Bearer {cp.issue_token()}"})
        assert r.status_code == 200
        cp.latency_ms = 0
        c.get("/api/v1/clusters")
    assert slept == [0.25]


def test_bundle_fixture_types() -> None:
    b = parse_bundle(_tenant())
    assert isinstance(b, CaseBundle) and len(b.workloads) == 24
