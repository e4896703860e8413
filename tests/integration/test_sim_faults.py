"""Injected faults through both transports: real httpx clients see real errors and timeouts."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from core.sim.bundle import load_bundle, parse_bundle
from core.sim.control_plane import ControlPlane, SimRequest
from core.sim.loopback import LoopbackServer
from core.sim.transport import SimSyncTransport, SimTransport
from tests.paths import CASES

WID = "11111111-2222-3333-4444-555555555555"
IMAGE_PULL = str(CASES / "example-image-pull.json")


def _bundle(faults: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": "runai-triage/case@1",
        "capturedAt": "2026-11-30T12:00:00Z",
        "workloads": [
            {
                "workload": {
                    "id": WID,
                    "name": "w",
                    "clusterId": "c",
                    "projectName": "p",
                    "phase": "Failed",
                    "phaseUpdatedAt": "2026-11-30T11:00:00Z",
                },
                "history": [{"meta": {"creationTimestamp": "2026-11-30T11:00:00Z"}, "spec": {}}],
            }
        ],
        "kubernetes": {"pods": [], "nodes": [{"metadata": {"name": "n1"}}]},
        "faults": faults,
    }


async def _clients(
    kind: str, cp: ControlPlane, read_timeout: float = 5.0
) -> AsyncIterator[httpx.AsyncClient]:
    timeout = httpx.Timeout(5.0, read=read_timeout)
    if kind == "inprocess":
        async with httpx.AsyncClient(transport=SimTransport(cp), base_url="http://sim", timeout=timeout) as c:
            yield c
    else:
        with LoopbackServer(cp) as server:
            async with httpx.AsyncClient(base_url=server.url, timeout=timeout) as c:
                yield c


@pytest.fixture(params=["inprocess", "loopback"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _auth(cp: ControlPlane) -> dict[str, str]:
    return {"Authorization": f"Bearer {cp.issue_token()}"}


HISTORY = f"/api/v1/workloads/{WID}/history"


async def test_5xx_for_times_then_success(kind: str) -> None:
    cp = ControlPlane(
        parse_bundle(_bundle([{"match": "GET /api/v1/workloads/{id}/history", "status": 503, "times": 2}]))
    )
    async for c in _clients(kind, cp):
        h = _auth(cp)
        statuses = [(await c.get(HISTORY, headers=h)).status_code for _ in range(3)]
        assert statuses == [503, 503, 200]
        # the injected 503 carries the API error body
        cp2 = ControlPlane(
            parse_bundle(
                _bundle([{"match": "GET /api/v1/workloads/{id}/history", "status": 503, "times": 1}])
            )
        )
        r = cp2.handle(SimRequest("GET", HISTORY, (), {"authorization": f"Bearer {cp2.issue_token()}"}))
        assert json.loads(r.body) == {"code": 503, "message": "injected fault: HTTP 503"}
    assert [r.status for r in cp.requests] == [503, 503, 200]


async def test_example_bundle_fault_hits_the_pods_endpoint_once(kind: str) -> None:
    cp = ControlPlane(load_bundle(IMAGE_PULL))
    wid = "36c57368-2cfe-5aea-8a36-3f60c4934bca"
    async for c in _clients(kind, cp):
        h = _auth(cp)
        assert (await c.get(f"/api/v1/workloads/{wid}", headers=h)).status_code == 200
        first = await c.get(f"/api/v1/workloads/{wid}/pods", headers=h)
        assert first.status_code == 503 and first.json()["code"] == 503
        assert (await c.get(f"/api/v1/workloads/{wid}/pods", headers=h)).status_code == 200


async def test_faults_are_per_control_plane(kind: str) -> None:
    bundle = load_bundle(IMAGE_PULL)
    wid = "36c57368-2cfe-5aea-8a36-3f60c4934bca"
    for _ in range(2):
        cp = ControlPlane(bundle)
        async for c in _clients(kind, cp):
            assert (await c.get(f"/api/v1/workloads/{wid}/pods", headers=_auth(cp))).status_code == 503


async def test_429_with_retry_after(kind: str) -> None:
    cp = ControlPlane(
        parse_bundle(
            _bundle(
                [{"match": "GET /api/v1/workloads/{id}/history", "status": 429, "times": 1, "retryAfter": 7}]
            )
        )
    )
    async for c in _clients(kind, cp):
        r = await c.get(HISTORY, headers=_auth(cp))
        assert r.status_code == 429 and r.headers["retry-after"] == "7" and r.json()["code"] == 429


async def test_fault_not_consumed_by_unauthenticated_or_token_calls(kind: str) -> None:
    cp = ControlPlane(
        parse_bundle(_bundle([{"match": "GET /api/v1/workloads/{id}/history", "status": 500, "times": 1}]))
    )
    async for c in _clients(kind, cp):
        assert (await c.get(HISTORY)).status_code == 401
        tok = await c.post(
            "/api/v2/token", data={"grant_type": "client_credentials", "client_id": "a", "client_secret": "b"}
        )
        assert tok.status_code == 200
        h = {"Authorization": f"Bearer {tok.json()['access_token']}"}
        assert (await c.get(HISTORY, headers=h)).status_code == 500
        assert (await c.get(HISTORY, headers=h)).status_code == 200


async def test_token_endpoint_fault(kind: str) -> None:
    cp = ControlPlane(parse_bundle(_bundle([{"match": "POST /api/v2/token", "status": 503, "times": 1}])))
    form = {"grant_type": "client_credentials", "client_id": "a", "client_secret": "b"}
    async for c in _clients(kind, cp):
        assert (await c.post("/api/v2/token", data=form)).status_code == 503
        assert (await c.post("/api/v2/token", data=form)).status_code == 200


async def test_malformed_body_passed_through(kind: str) -> None:
    raw = '{"records": [ {"meta": '
    cp = ControlPlane(
        parse_bundle(
            _bundle([{"match": "GET /api/v1/workloads/{id}/history", "status": 200, "times": 1, "body": raw}])
        )
    )
    async for c in _clients(kind, cp):
        r = await c.get(HISTORY, headers=_auth(cp))
        assert r.status_code == 200 and r.text == raw
        with pytest.raises(json.JSONDecodeError):
            r.json()
        assert (await c.get(HISTORY, headers=_auth(cp))).json()["records"]


async def test_hang_gives_read_timeout(kind: str) -> None:
    cp = ControlPlane(
        parse_bundle(
            _bundle(
                [{"match": "GET /api/v1/workloads/{id}/history", "status": 0, "times": 1, "delayMs": 3000}]
            )
        )
    )
    async for c in _clients(kind, cp, read_timeout=0.05):
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            await c.get(HISTORY, headers=_auth(cp))
        waited = time.monotonic() - started
        assert 0.04 <= waited < 1.0
        assert (await c.get(HISTORY, headers=_auth(cp))).status_code == 200
    assert cp.requests[0].status == 0


async def test_slow_answer_within_timeout_arrives(kind: str) -> None:
    cp = ControlPlane(
        parse_bundle(
            _bundle(
                [
                    {
                        "match": "GET /api/v1/nodes/{name}",
                        "status": 200,
                        "times": 1,
                        "delayMs": 30,
                        "body": "{}",
                    }
                ]
            )
        )
    )
    async for c in _clients(kind, cp, read_timeout=2.0):
        started = time.monotonic()
        r = await c.get("/api/v1/nodes/n1", headers={"Authorization": f"Bearer {cp.kube_token}"})
        assert r.status_code == 200 and r.text == "{}"
        assert time.monotonic() - started >= 0.025


async def test_connection_reset_is_a_transport_error(kind: str) -> None:
    cp = ControlPlane(
        parse_bundle(_bundle([{"match": "GET /api/v1/workloads/{id}/history", "status": 0, "times": 1}]))
    )
    async for c in _clients(kind, cp):
        with pytest.raises(httpx.TransportError):
            await c.get(HISTORY, headers=_auth(cp))
        assert (await c.get(HISTORY, headers=_auth(cp))).status_code == 200


async def test_kube_path_fault_gets_a_status_body(kind: str) -> None:
    cp = ControlPlane(
        parse_bundle(_bundle([{"match": "GET /api/v1/nodes/{name}", "status": 500, "times": 1}]))
    )
    async for c in _clients(kind, cp):
        r = await c.get("/api/v1/nodes/n1", headers={"Authorization": f"Bearer {cp.kube_token}"})
        assert r.status_code == 500 and r.json()["kind"] == "Status" and r.json()["code"] == 500


def test_sync_transport_timeout_and_reset_without_real_sleeping() -> None:
    slept: list[float] = []
    cp = ControlPlane(
        parse_bundle(
            _bundle(
                [
                    {
                        "match": "GET /api/v1/workloads/{id}/history",
                        "status": 0,
                        "times": 1,
                        "delayMs": 60000,
                    },
                    {"match": "GET /api/v1/workloads/{id}/history", "status": 0, "times": 1},
                ]
            )
        ),
        latency_ms=10,
    )
    transport = SimSyncTransport(cp, sleep=slept.append)
    with httpx.Client(transport=transport, base_url="http://sim", timeout=httpx.Timeout(5.0, read=2.0)) as c:
        with pytest.raises(httpx.ReadTimeout):
            c.get(HISTORY, headers=_auth(cp))
        with pytest.raises(httpx.RemoteProtocolError):
            c.get(HISTORY, headers=_auth(cp))
        assert c.get(HISTORY, headers=_auth(cp)).status_code == 200
    assert slept == [2.0, 0.01, 0.01]


async def test_async_transport_uses_injected_sleep() -> None:
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    cp = ControlPlane(
        parse_bundle(
            _bundle(
                [{"match": "GET /api/v1/workloads/{id}/history", "status": 0, "times": 1, "delayMs": 90000}]
            )
        )
    )
    async with httpx.AsyncClient(
        transport=SimTransport(cp, sleep=fake_sleep),
        base_url="http://sim",
        timeout=httpx.Timeout(5.0, read=30.0),
    ) as c:
        with pytest.raises(httpx.ReadTimeout):
            await c.get(HISTORY, headers=_auth(cp))
    assert slept == [30.0]


def test_loopback_stop_does_not_wait_for_a_hung_request() -> None:
    cp = ControlPlane(
        parse_bundle(
            _bundle(
                [{"match": "GET /api/v1/workloads/{id}/history", "status": 0, "times": 1, "delayMs": 30000}]
            )
        )
    )
    server = LoopbackServer(cp)
    url = server.start()
    with (
        httpx.Client(base_url=url, timeout=httpx.Timeout(2.0, read=0.05)) as c,
        pytest.raises(httpx.ReadTimeout),
    ):
        c.get(HISTORY, headers=_auth(cp))
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 1.0
