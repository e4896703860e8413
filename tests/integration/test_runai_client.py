"""The real Run:ai client against the simulated control plane, in-process and over loopback HTTP."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from core.models.pages import Page
from core.models.runai import Workload
from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.loopback import LoopbackServer
from core.sim.transport import SimTransport
from core.sources.credentials import ClientCredentials
from core.sources.errors import ApiError, MalformedResponse, NotFoundError, ReadOnlyViolation
from core.sources.guard import assert_read_only
from core.sources.paging import iter_pages
from core.sources.runai import RunaiClient, filter_item, spec_path

CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
CAPTURED = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SECRET = "client-secret-PLANTED-5f1e"


def wid(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def workload(name: str, project: str, kind: str, phase: str, age_min: int, **extra: Any) -> dict[str, Any]:
    at = CAPTURED - timedelta(minutes=age_min)
    return {
        "id": wid(name),
        "name": name,
        "type": kind,
        "clusterId": CLUSTER,
        "projectName": project,
        "projectId": "5" if project == "nlp" else "6",
        "namespace": f"runai-{project}",
        "phase": phase,
        "createdAt": iso(at - timedelta(minutes=30)),
        "phaseUpdatedAt": iso(at),
        **extra,
    }


def event(name: str, minute: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "createdAt": iso(CAPTURED - timedelta(minutes=minute)),
        "type": "Warning",
        "clusterId": CLUSTER,
        "reason": reason,
        "message": message,
        "involvedObject": {"kind": "Pod", "name": f"{name}-0-0", "namespace": "runai-nlp"},
    }


def history(minute: int, phase: str) -> dict[str, Any]:
    return {
        "meta": {"creationTimestamp": iso(CAPTURED - timedelta(minutes=minute)), "type": "PhaseUpdate"},
        "spec": {"phaseUpdate": {"phase": phase, "phaseMessage": f"now {phase}"}},
    }


def pod(name: str, deleted: bool) -> dict[str, Any]:
    return {
        "name": name,
        "id": wid("pod-" + name),
        "workloadId": wid("bert-0"),
        "clusterId": CLUSTER,
        "createdAt": iso(CAPTURED - timedelta(hours=2)),
        "k8sPhase": "Failed",
        "deletedAt": iso(CAPTURED - timedelta(hours=1)) if deleted else None,
        "containers": [{"name": "main", "image": "nvcr.io/nvidia/pytorch:24.05-py3"}],
    }


MEM_START = datetime(2026, 11, 30, 11, 0, tzinfo=UTC)
STORED_MEMORY = [(MEM_START, "100"), (MEM_START + timedelta(minutes=20), "200")]


def make_bundle() -> dict[str, Any]:
    bert_names = [f"bert-{i}" for i in range(5)]
    entries: list[dict[str, Any]] = []
    for i, name in enumerate(bert_names):
        entries.append({"workload": workload(name, "nlp", "Training", "Failed", 10 + i * 7)})
    first = entries[0]
    first["events"] = [
        event("bert-0", m, "BackOff", f"Back-off restarting failed container ({m})") for m in range(4)
    ]
    first["spec"] = {
        "name": "bert-0",
        "workloadId": wid("bert-0"),
        "projectId": "5",
        "clusterId": CLUSTER,
        "spec": {"image": "nvcr.io/nvidia/pytorch:24.05-py3", "command": "python train.py"},
    }
    first["pods"] = [pod("bert-0-0-0", deleted=False), pod("bert-0-0-1", deleted=True)]
    first["history"] = [history(m, p) for m, p in ((50, "Pending"), (40, "Running"), (10, "Failed"))]
    first["metrics"] = [
        {
            "type": "CPU_MEMORY_USAGE_BYTES",
            "labels": None,
            "values": [{"value": v, "timestamp": iso(t)} for t, v in STORED_MEMORY],
        }
    ]
    entries.append({"workload": workload("gpt-ws", "vision", "Workspace", "Running", 3)})
    entries.append({"workload": workload("dist-x", "vision", "Distributed", "Failed", 90)})
    entries.append({"workload": workload("nim-llm", "vision", "NIM", "Failed", 95)})
    entries.append(
        {"workload": workload("old-run", "nlp", "Training", "Failed", 600, deletedAt=iso(CAPTURED))}
    )
    entries.append({"workload": workload("events-broken", "nlp", "Training", "Failed", 120), "events": None})
    entries[-2]["spec"] = None
    entries[6]["spec"] = {"name": "dist-x", "workloadId": wid("dist-x"), "spec": {"image": "img:1"}}
    entries[7]["spec"] = {"name": "nim-llm", "workloadId": wid("nim-llm"), "spec": {"image": "nim:1"}}
    return {
        "format": "runai-triage/case@1",
        "capturedAt": iso(CAPTURED),
        "clusters": [{"uuid": CLUSTER, "name": "c1", "version": "2.24.0"}],
        "projects": [
            {"name": "nlp", "id": "5", "clusterId": CLUSTER, "status": {"namespace": "runai-nlp"}},
            {"name": "vision", "id": "6", "clusterId": CLUSTER, "status": {"namespace": "vision-ns"}},
        ],
        "workloads": entries,
    }


BUNDLE = make_bundle()
LIVE = [e["workload"] for e in BUNDLE["workloads"] if not e["workload"].get("deletedAt")]


@dataclass
class Setup:
    client: RunaiClient
    cp: ControlPlane

    def gets(self, path_suffix: str = "") -> list[Any]:
        return [r for r in self.cp.requests if r.method == "GET" and r.path.endswith(path_suffix)]


@pytest.fixture(params=["in-process", "loopback"])
async def setup(request: pytest.FixtureRequest) -> AsyncIterator[Setup]:
    cp = ControlPlane(parse_bundle(BUNDLE))
    creds = ClientCredentials("triage-bot", SECRET)
    if request.param == "in-process":
        async with RunaiClient("https://tenant.run.ai", creds, transport=SimTransport(cp)) as client:
            yield Setup(client, cp)
    else:
        with LoopbackServer(cp) as server:
            async with RunaiClient(server.url, creds) as client:
                yield Setup(client, cp)


async def test_every_endpoint_returns_models(setup: Setup) -> None:
    client = setup.client
    page = await client.list_workloads(limit=50)
    assert sorted(w.name for w in page.items) == sorted(w["name"] for w in LIVE)
    assert page.next is None and page.problems == []
    assert await client.count_workloads() == len(LIVE)

    bert = await client.get_workload(wid("bert-0"))
    assert bert.name == "bert-0" and bert.project_name == "nlp" and bert.namespace == "runai-nlp"

    events = await client.get_events(wid("bert-0"))
    times = [e.created_at for e in events.items]
    assert len(times) == 4 and times == sorted(times, reverse=True)
    ascending = await client.get_events(wid("bert-0"), sort_order="asc")
    assert [e.created_at for e in ascending.items] == sorted(times)

    spec = await client.get_spec(wid("bert-0"), bert.type)
    assert spec.workload_id == wid("bert-0") and spec.spec is not None
    assert spec.spec.image == "nvcr.io/nvidia/pytorch:24.05-py3"

    pods = await client.get_pods(wid("bert-0"))
    assert [p.name for p in pods.items] == ["bert-0-0-0"]
    history = await client.get_history(wid("bert-0"))
    assert {r.spec.phase_update.phase for r in history.items if r.spec and r.spec.phase_update} == {
        "Pending",
        "Running",
        "Failed",
    }

    clusters = await client.list_clusters()
    assert [c.uuid for c in clusters] == [CLUSTER]
    projects = await client.list_projects()
    assert {p.name for p in projects.items} == {"nlp", "vision"}


async def test_spec_kind_follows_type_case_insensitively(setup: Setup) -> None:
    spec = await setup.client.get_spec(wid("dist-x"), "DISTRIBUTED")
    assert spec.name == "dist-x"
    nim = await setup.client.get_spec(wid("nim-llm"), "NIM")
    assert nim.name == "nim-llm"
    paths = [r.path for r in setup.gets()]
    assert f"/api/v1/workloads/distributed/{wid('dist-x')}" in paths
    assert f"/api/v2/workloads/{wid('nim-llm')}" in paths
    with pytest.raises(NotFoundError) as info:
        await setup.client.get_spec(wid("events-broken"), "training")
    assert "/api/v1/workloads/trainings/" in str(info.value)


def test_spec_path_table() -> None:
    w = wid("x")
    assert spec_path(w, "Training") == f"/api/v1/workloads/trainings/{w}"
    assert spec_path(w, "workspace") == f"/api/v1/workloads/workspaces/{w}"
    assert spec_path(w, "Inference") == f"/api/v1/workloads/inferences/{w}"
    assert spec_path(w, "Distributed-Inference") == f"/api/v1/workloads/distributed-inferences/{w}"
    assert spec_path(w, None) == f"/api/v2/workloads/{w}"
    assert spec_path(w, "SomethingNew") == f"/api/v2/workloads/{w}"
    for bad in ("../token", "a/b", "..", "", "x y"):
        with pytest.raises(ValueError, match="workload id"):
            spec_path(bad, "Training")


PREDICATES: list[tuple[str, str, str, Callable[[dict[str, Any]], bool]]] = [
    ("name", "==", "bert-3", lambda w: w["name"] == "bert-3"),
    ("projectName", "!=", "nlp", lambda w: w["projectName"] != "nlp"),
    ("name", "=@", "-w", lambda w: "-w" in w["name"]),
    ("name", "!@", "bert", lambda w: "bert" not in w["name"]),
    ("name", "=^", "dist", lambda w: w["name"].startswith("dist")),
    ("name", "=$", "-4", lambda w: w["name"].endswith("-4")),
]


@pytest.mark.parametrize(("field", "op", "value", "predicate"), PREDICATES, ids=[p[1] for p in PREDICATES])
async def test_string_filter_operators(
    setup: Setup, field: str, op: str, value: str, predicate: Callable[[dict[str, Any]], bool]
) -> None:
    page = await setup.client.list_workloads(filters=[filter_item(field, op, value)])
    expected = sorted(w["name"] for w in LIVE if predicate(w))
    assert expected, "the bundle must give every operator something to find"
    assert sorted(w.name for w in page.items) == expected
    sent = setup.gets("/api/v1/workloads")[-1]
    assert ("filterBy", f"{field}{op}{value}") in sent.query


@pytest.mark.parametrize("op", ["<=", ">="])
async def test_date_filter_operators(setup: Setup, op: str) -> None:
    pivot = CAPTURED - timedelta(minutes=30)
    page = await setup.client.list_workloads(filters=[filter_item("phaseUpdatedAt", op, pivot)])

    def keep(w: dict[str, Any]) -> bool:
        at = datetime.fromisoformat(w["phaseUpdatedAt"].replace("Z", "+00:00"))
        return at <= pivot if op == "<=" else at >= pivot

    expected = sorted(w["name"] for w in LIVE if keep(w))
    assert expected and len(expected) < len(LIVE)
    assert sorted(w.name for w in page.items) == expected


async def test_filters_combine_and_sort(setup: Setup) -> None:
    filters = [filter_item("projectName", "==", "nlp"), filter_item("phase", "==", "Failed")]
    page = await setup.client.list_workloads(filters=filters, sort_by="phaseUpdatedAt", sort_order="desc")
    expected = sorted(
        (w for w in LIVE if w["projectName"] == "nlp" and w["phase"] == "Failed"),
        key=lambda w: w["phaseUpdatedAt"],
        reverse=True,
    )
    assert [w.name for w in page.items] == [w["name"] for w in expected]
    assert await setup.client.count_workloads(filters) == len(expected)


def test_filter_item_refuses_what_it_cannot_express() -> None:
    with pytest.raises(ValueError, match=r"comma.*UNVERIFIED"):
        filter_item("name", "==", "a,b")
    with pytest.raises(ValueError, match="operator"):
        filter_item("name", "~=", "x")
    with pytest.raises(ValueError, match="date field"):
        filter_item("createdAt", "=@", datetime(2026, 1, 1, tzinfo=UTC))
    with pytest.raises(ValueError, match="timezone-aware"):
        filter_item("createdAt", ">=", datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="field"):
        filter_item("name;drop", "==", "x")
    when = datetime(2026, 1, 1, 1, tzinfo=UTC)
    assert filter_item("createdAt", ">=", when) == "createdAt>=2026-01-01T01:00:00Z"


async def test_preformatted_filters_are_checked(setup: Setup) -> None:
    with pytest.raises(ValueError, match="comma"):
        await setup.client.list_workloads(filters=["name==a,projectName==b"])
    with pytest.raises(ValueError, match="no operator"):
        await setup.client.list_workloads(filters=["bert"])
    assert setup.gets("/api/v1/workloads") == []


async def test_paging_to_the_end(setup: Setup) -> None:
    async def fetch(offset: int) -> Page[Workload]:
        return await setup.client.list_workloads(offset=offset, limit=2, sort_by="name")

    pages = [page async for page in iter_pages(fetch)]
    names = [w.name for page in pages for w in page.items]
    assert names == sorted(w["name"] for w in LIVE)
    assert len(pages) == -(-len(LIVE) // 2)
    assert pages[-1].next is None
    assert [dict(r.query)["offset"] for r in setup.gets("/api/v1/workloads")] == [
        str(2 * i) for i in range(len(pages))
    ]


async def test_paging_is_lazy(setup: Setup) -> None:
    async def fetch(offset: int) -> Page[Workload]:
        return await setup.client.list_workloads(offset=offset, limit=2)

    assert len(LIVE) >= 9  # five pages of two
    taken = []
    async for page in iter_pages(fetch):
        taken.append(page)
        if len(taken) == 2:
            break
    assert len(setup.gets("/api/v1/workloads")) == 2
    limited = [page async for page in iter_pages(fetch, max_pages=3)]
    assert len(limited) == 3 and len(setup.gets("/api/v1/workloads")) == 5


async def test_paging_refuses_a_next_that_does_not_advance() -> None:
    calls: list[int] = []

    async def fetch(offset: int) -> Page[Workload]:
        calls.append(offset)
        return Page(items=[], next=offset)  # a server bug: the same offset again

    with pytest.raises(MalformedResponse, match="does not advance"):
        async for _ in iter_pages(fetch, start=4, what="/api/v1/workloads"):
            pass
    assert calls == [4]


async def test_deleted_workloads_and_pods(setup: Setup) -> None:
    deleted = await setup.client.list_workloads(deleted=True)
    assert [w.name for w in deleted.items] == ["old-run"]
    assert ("deleted", "true") in setup.gets("/api/v1/workloads")[-1].query
    assert await setup.client.count_workloads(deleted=True) == 1
    pods = await setup.client.get_pods(wid("bert-0"), deleted=True)
    assert [p.name for p in pods.items] == ["bert-0-0-1"]


async def test_metrics_sampling_and_staleness(setup: Setup) -> None:
    start, end = MEM_START, MEM_START + timedelta(minutes=20)
    result = await setup.client.get_metrics(wid("bert-0"), ["CPU_MEMORY_USAGE_BYTES"], start, end, samples=5)
    (series,) = result.series("CPU_MEMORY_USAGE_BYTES")
    got = [(s.timestamp, s.number()) for s in series.values or []]
    # Expected by the Prometheus rule: latest stored sample at or before each instant, at most 5 minutes old.
    expected = []
    for i in range(5):
        instant = start + (end - start) * i / 4
        older = [(t, v) for t, v in STORED_MEMORY if t <= instant and instant - t <= timedelta(minutes=5)]
        if older:
            expected.append((instant, float(older[-1][1])))
    assert got == expected
    assert len(got) < 5  # the stale instants were left out, not filled in
    sent = dict(setup.gets("/metrics")[-1].query)
    assert sent["numberOfSamples"] == "5" and sent["start"] == "2026-11-30T11:00:00Z"


async def test_metrics_partial_success_is_not_an_error(setup: Setup) -> None:
    start, end = MEM_START, MEM_START + timedelta(minutes=20)
    types = ["CPU_MEMORY_USAGE_BYTES", "GPU_UTILIZATION"]
    result = await setup.client.get_metrics(wid("bert-0"), types, start, end, samples=3)
    assert setup.gets("/metrics")[-1].status == 207
    assert result.series("GPU_UTILIZATION") == []
    assert len(result.series("CPU_MEMORY_USAGE_BYTES")) == 1
    with pytest.raises(ValueError, match="samples"):
        await setup.client.get_metrics(wid("bert-0"), types, start, end, samples=1001)
    with pytest.raises(ValueError, match="after start"):
        await setup.client.get_metrics(wid("bert-0"), types, end, start)


async def test_events_null_is_a_500_and_not_retried(setup: Setup) -> None:
    with pytest.raises(ApiError) as info:
        await setup.client.get_events(wid("events-broken"))
    assert info.value.status == 500
    assert f"GET /api/v1/workloads/{wid('events-broken')}/events" in str(info.value)
    assert len(setup.gets("/events")) == 1


async def test_unknown_workload_is_not_found(setup: Setup) -> None:
    with pytest.raises(NotFoundError) as info:
        await setup.client.get_workload(wid("nope"))
    assert info.value.status == 404 and len(setup.gets(wid("nope"))) == 1


async def test_no_credentials_in_any_url(setup: Setup) -> None:
    await setup.client.list_workloads()
    await setup.client.get_events(wid("bert-0"))
    token = await setup.client.tokens.token()
    for record in setup.cp.requests:
        text = record.path + "?" + "&".join(f"{k}={v}" for k, v in record.query)
        assert SECRET not in text and token not in text and "triage-bot" not in text


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
async def test_guard_stops_writes_before_the_server(setup: Setup, method: str) -> None:
    with pytest.raises(ReadOnlyViolation) as info:
        await setup.client.http.request(method, f"/api/v1/workloads/{wid('bert-0')}", json={"x": 1})
    assert method in str(info.value) and "/api/v1/workloads/" in str(info.value)
    # Also a POST that only looks like a token path.
    with pytest.raises(ReadOnlyViolation):
        await setup.client.http.request(method, "/api/v2/token/../workloads")
    assert setup.cp.requests == []


def test_assert_read_only_rules() -> None:
    assert_read_only("GET", "/api/v1/workloads")
    assert_read_only("get", "/api/v1/workloads")
    assert_read_only("POST", "/api/v1/token")
    assert_read_only("POST", "/api/v2/token")
    for method, path in [
        ("POST", "/api/v1/workloads"),
        ("POST", "/api/v2/token/"),
        ("HEAD", "/api/v1/workloads"),
        ("DELETE", "/api/v1/token"),
        ("PUT", "/api/v2/token"),
    ]:
        with pytest.raises(ReadOnlyViolation):
            assert_read_only(method, path)
    with pytest.raises(ReadOnlyViolation):
        assert_read_only("POST", "/api/v1/token", allowed_posts=())


async def test_custom_transport_is_still_guarded() -> None:
    seen: list[str] = []

    class Recorder(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            seen.append(request.method)
            return httpx.Response(200, json={})

    async with RunaiClient("https://t.run.ai", ClientCredentials("a", "b"), transport=Recorder()) as client:
        with pytest.raises(ReadOnlyViolation):
            await client.http.delete("/api/v1/workloads/x")
    assert seen == []


def test_base_url_must_not_carry_credentials() -> None:
    with pytest.raises(ValueError, match="user name or password") as info:
        RunaiClient("https://bob:hunter2-secret@t.run.ai", ClientCredentials("a", "b"))
    assert "hunter2" not in str(info.value)
    with pytest.raises(ValueError, match="http"):
        RunaiClient("ftp://t.run.ai", ClientCredentials("a", "b"))
    with pytest.raises(ValueError, match="query"):
        RunaiClient("https://t.run.ai/?token=x", ClientCredentials("a", "b"))
