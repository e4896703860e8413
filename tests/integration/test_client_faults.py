"""Injected faults from a bundle's `faults` list, seen through the real client: what is retried, how often,
how long it waited, and what the caller is told."""

from __future__ import annotations

import socket
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import pytest

from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.loopback import LoopbackServer
from core.sim.transport import SimTransport
from core.sources.credentials import BearerToken, ClientCredentials
from core.sources.errors import (
    ApiError,
    ApiTimeout,
    ForbiddenError,
    MalformedResponse,
    NotFoundError,
    RunaiError,
    UnreachableError,
)
from core.sources.retry import RetryPolicy
from core.sources.runai import RunaiClient

WID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"
CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
PODS = f"/api/v1/workloads/{WID}/pods"


def bundle(faults: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "format": "runai-triage/case@1",
        "capturedAt": "2026-11-30T12:00:00Z",
        "workloads": [
            {
                "workload": {
                    "id": WID,
                    "name": "whisper-ft",
                    "type": "Training",
                    "clusterId": CLUSTER,
                    "projectName": "speech",
                    "phase": "Failed",
                    "phaseUpdatedAt": "2026-11-30T11:25:00Z",
                },
                "pods": [{"name": "whisper-ft-0-0", "id": "p1", "workloadId": WID, "k8sPhase": "Failed"}],
            }
        ],
        "faults": faults,
    }


@dataclass
class Sleeps:
    waits: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@dataclass
class Rig:
    cp: ControlPlane
    client: RunaiClient
    sleeps: Sleeps

    def hits(self, method: str, path: str) -> int:
        return sum(1 for r in self.cp.requests if r.method == method and r.path == path)


Factory = Callable[..., Awaitable[Rig]]


def pods_fault(status: int, times: int, **extra: Any) -> dict[str, Any]:
    return {"match": "GET /api/v1/workloads/{id}/pods", "status": status, "times": times, **extra}


@pytest.fixture(params=["in-process", "loopback"])
async def rig(request: pytest.FixtureRequest) -> AsyncIterator[Factory]:
    async with AsyncExitStack() as stack:

        async def make(faults: list[dict[str, Any]], **kwargs: Any) -> Rig:
            cp = ControlPlane(parse_bundle(bundle(faults)))
            sleeps = Sleeps()
            kwargs.setdefault("rand", lambda: 0.5)
            creds = kwargs.pop("credentials", None) or ClientCredentials("bot", "s3cret-value-abc")
            if request.param == "in-process":
                url, transport = "https://tenant.run.ai", SimTransport(cp)
            else:
                url, transport = stack.enter_context(LoopbackServer(cp)).url, None
            client = RunaiClient(url, creds, transport=transport, sleep=sleeps, **kwargs)
            await stack.enter_async_context(client)
            return Rig(cp, client, sleeps)

        yield make


async def test_503_twice_then_ok(rig: Factory) -> None:
    r = await rig([pods_fault(503, 2)])
    page = await r.client.get_pods(WID)
    assert [p.name for p in page.items] == ["whisper-ft-0-0"]
    assert r.hits("GET", PODS) == 3
    # Full jitter with rand()=0.5: half of 0.2 s, then half of 0.4 s.
    assert r.sleeps.waits == pytest.approx([0.1, 0.2])


@pytest.mark.parametrize("status", [502, 504])
async def test_gateway_errors_are_retried(rig: Factory, status: int) -> None:
    r = await rig([pods_fault(status, 1)])
    await r.client.get_pods(WID)
    assert r.hits("GET", PODS) == 2


async def test_429_waits_for_retry_after(rig: Factory) -> None:
    r = await rig([pods_fault(429, 1, retryAfter=3)])
    await r.client.get_pods(WID)
    assert r.sleeps.waits == [3.0]
    assert r.hits("GET", PODS) == 2


async def test_retry_after_is_capped(rig: Factory) -> None:
    r = await rig([pods_fault(503, 1, retryAfter=600)])
    await r.client.get_pods(WID)
    assert r.sleeps.waits == [RetryPolicy().retry_after_cap_s]


async def test_persistent_503_gives_up_after_max_attempts(rig: Factory) -> None:
    r = await rig([pods_fault(503, 99)])
    with pytest.raises(ApiError) as info:
        await r.client.get_pods(WID)
    assert info.value.status == 503
    assert r.hits("GET", PODS) == RetryPolicy().max_attempts
    assert "gave up after 4 attempts" in str(info.value) and f"GET {PODS}" in str(info.value)
    assert len(r.sleeps.waits) == 3


async def test_budget_stops_before_a_wait_that_would_overrun(rig: Factory) -> None:
    policy = RetryPolicy(budget_s=5.0)
    r = await rig(
        [pods_fault(429, 5, retryAfter=8)], retry=policy
    )
    with pytest.raises(ApiError) as info:
        await r.client.get_pods(WID)
    assert info.value.status == 429
    assert r.sleeps.waits == [] and r.hits("GET", PODS) == 1


async def test_hang_longer_than_read_timeout(rig: Factory) -> None:
    r = await rig(
        [pods_fault(0, 99, delayMs=3000)],
        timeout=0.05,
    )
    with pytest.raises(ApiTimeout) as info:
        await r.client.get_pods(WID)
    assert info.value.attempts == 4 and r.hits("GET", PODS) == 4
    assert "0.05 s" in str(info.value) and f"GET {PODS}" in str(info.value)


async def test_hang_then_answer(rig: Factory) -> None:
    r = await rig(
        [pods_fault(0, 1, delayMs=3000)], timeout=0.05
    )
    page = await r.client.get_pods(WID)
    assert len(page.items) == 1 and r.hits("GET", PODS) == 2


async def test_connection_reset_is_retried(rig: Factory) -> None:
    r = await rig([pods_fault(0, 2)])
    page = await r.client.get_pods(WID)
    assert len(page.items) == 1
    assert r.hits("GET", PODS) == 3 and len(r.sleeps.waits) == 2


async def test_malformed_body_is_not_retried(rig: Factory) -> None:
    r = await rig([pods_fault(200, 1, body='{"pods": [1,')])
    with pytest.raises(MalformedResponse) as info:
        await r.client.get_pods(WID)
    assert PODS in str(info.value) and "malformed JSON" in str(info.value)
    assert r.hits("GET", PODS) == 1


async def test_wrong_envelope_names_what_was_expected(rig: Factory) -> None:
    r = await rig([pods_fault(200, 1, body='{"pods": 7}')])
    with pytest.raises(MalformedResponse) as info:
        await r.client.get_pods(WID)
    assert "'pods' list" in str(info.value) and PODS in str(info.value)


@pytest.mark.parametrize(
    ("status", "kind"), [(404, NotFoundError), (403, ForbiddenError), (400, ApiError), (500, ApiError)]
)
async def test_client_errors_are_not_retried(rig: Factory, status: int, kind: type[ApiError]) -> None:
    r = await rig([pods_fault(status, 1)])
    with pytest.raises(kind) as info:
        await r.client.get_pods(WID)
    assert info.value.status == status
    assert r.hits("GET", PODS) == 1 and r.sleeps.waits == []
    if status == 403:
        assert "lacks a role that can read workload pods" in str(info.value)


async def test_500_retried_only_when_the_policy_says_so(rig: Factory) -> None:
    r = await rig(
        [pods_fault(500, 1)],
        retry=RetryPolicy(retry_500=True),
    )
    await r.client.get_pods(WID)
    assert r.hits("GET", PODS) == 2


async def test_token_post_is_not_retried_on_503(rig: Factory) -> None:
    # A 503 is not a token: v1 is asked next, and neither POST is retried.
    r = await rig([{"match": "POST /api/v2/token", "status": 503, "times": 1},
                   {"match": "POST /api/v1/token", "status": 503, "times": 1}])
    with pytest.raises(ApiError) as info:
        await r.client.get_pods(WID)
    assert info.value.status == 503 and "POST /api/v1/token" in str(info.value)
    assert "/api/v2/token answered" in str(info.value)
    assert r.hits("POST", "/api/v2/token") == 1 and r.hits("POST", "/api/v1/token") == 1
    assert r.hits("GET", PODS) == 0


def _all_text(exc: BaseException) -> str:
    return "\n".join([str(exc), repr(exc), *traceback.format_exception(exc)])


async def test_error_bodies_never_leak_credentials(rig: Factory) -> None:
    secret = "PLANTED-client-secret-7d1c"
    # Token-shaped strings a server might echo: a JWT and an opaque bearer value.
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QifQ.c2lnbmF0dXJlLXBsYW50ZWQ"
    opaque = "opaque-bearer-PLANTED-91ab"
    hostile = (
        f'{{"code": 500, "message": "boom \\u001b[31mred\\u001b[0m Authorization: Bearer {opaque} '
        f'token {jwt} client_secret={secret} also {secret}", "details": "{"x" * 5000}"}}'
    )
    r = await rig(
        [
            {"match": "POST /api/v2/token", "status": 401, "times": 1, "body": f"bad secret {secret}"},
            {"match": "POST /api/v1/token", "status": 401, "times": 1, "body": f"bad secret {secret}"},
            pods_fault(500, 1, body=hostile),
        ],
        credentials=ClientCredentials("bot", secret),
    )
    with pytest.raises(RunaiError) as auth:
        await r.client.get_pods(WID)
    assert "credentials refused" in str(auth.value) and "/api/v2/token" in str(auth.value)
    assert secret not in _all_text(auth.value)

    # The token endpoint now works; the pods endpoint answers the hostile body.
    with pytest.raises(ApiError) as info:
        await r.client.get_pods(WID)
    text = _all_text(info.value)
    token = await r.client.tokens.token()
    for planted in (secret, jwt, opaque, token):
        assert planted not in text
    assert "\x1b" not in str(info.value)
    assert "boom" in info.value.api_message and len(info.value.details or "") <= 200


async def test_closed_port_is_unreachable_after_the_retries() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    base = f"http://127.0.0.1:{port}"

    for creds, method, path in [
        (BearerToken("tok-closed-port-123"), "GET", "/api/v1/clusters"),
        (ClientCredentials("bot", "sec-closed-port-456"), "POST", "/api/v2/token"),
    ]:
        sleeps = Sleeps()
        async with RunaiClient(base, creds, sleep=sleeps, rand=lambda: 1.0) as client:
            with pytest.raises(UnreachableError) as info:
                await client.list_clusters()
        assert info.value.attempts == 4
        assert sleeps.waits == pytest.approx([0.2, 0.4, 0.8])
        message = str(info.value)
        assert message.startswith(f"{method} {path}") and base in message and "RUNAI_BASE_URL" in message
        assert "closed-port" not in _all_text(info.value)
