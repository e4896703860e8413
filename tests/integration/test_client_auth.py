"""Tokens through the real client and the simulated control plane: v2 and the v1 fallback, proactive refresh,
one single-flight refresh after a 401, refused credentials, and the borrowed Run:ai CLI session."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest

from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.loopback import LoopbackServer
from core.sim.tokens import b64url
from core.sim.transport import SimTransport
from core.sources.credentials import BearerToken, ClientCredentials, Credentials, load_cli_session
from core.sources.errors import AuthError, MalformedResponse
from core.sources.runai import RunaiClient
from core.sources.tokens import ClientCredentialTokens

WID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"
CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
T0 = 1_800_000_000.0


def bundle(faults: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "format": "runai-triage/case@1",
        "capturedAt": "2026-11-30T12:00:00Z",
        "clusters": [{"uuid": CLUSTER, "name": "c1"}],
        "workloads": [
            {
                "workload": {
                    "id": WID,
                    "name": "whisper-ft",
                    "clusterId": CLUSTER,
                    "projectName": "speech",
                    "phase": "Failed",
                    "phaseUpdatedAt": "2026-11-30T11:25:00Z",
                }
            }
        ],
        "faults": faults or [],
    }


class FakeClock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def posts(cp: ControlPlane) -> list[str]:
    return [r.path for r in cp.requests if r.method == "POST"]


def gets(cp: ControlPlane, status: int | None = None) -> int:
    return sum(1 for r in cp.requests if r.method == "GET" and (status is None or r.status == status))


Make = Callable[..., Awaitable[tuple[RunaiClient, ControlPlane]]]


@pytest.fixture(params=["in-process", "loopback"])
async def make(request: pytest.FixtureRequest) -> AsyncIterator[Make]:
    async with AsyncExitStack() as stack:

        async def build(
            credentials: Credentials | None = None,
            *,
            faults: list[dict[str, Any]] | None = None,
            cp_kwargs: dict[str, Any] | None = None,
            **client_kwargs: Any,
        ) -> tuple[RunaiClient, ControlPlane]:
            cp = ControlPlane(parse_bundle(bundle(faults)), **(cp_kwargs or {}))
            creds = credentials or ClientCredentials("triage-bot", "bot-secret-a1b2")
            if request.param == "in-process":
                url, transport = "https://tenant.run.ai", SimTransport(cp)
            else:
                url, transport = stack.enter_context(LoopbackServer(cp)).url, None
            client = RunaiClient(url, creds, transport=transport, **client_kwargs)
            await stack.enter_async_context(client)
            return client, cp

        yield build


async def test_v2_token_is_used_and_reused(make: Make) -> None:
    client, cp = await make()
    for _ in range(3):
        await client.get_workload(WID)
    assert posts(cp) == ["/api/v2/token"]
    assert gets(cp, 200) == 3
    assert isinstance(client.tokens, ClientCredentialTokens) and client.tokens.version == "v2"


async def test_v1_fallback_is_remembered(make: Make) -> None:
    client, cp = await make(cp_kwargs={"token_versions": frozenset({"v1"})})
    await client.get_workload(WID)
    assert posts(cp) == ["/api/v2/token", "/api/v1/token"]
    assert [r.status for r in cp.requests if r.method == "POST"] == [404, 200]
    cp.revoke_tokens()
    await client.get_workload(WID)
    # The refresh goes straight to v1: v2 is not asked again.
    assert posts(cp) == ["/api/v2/token", "/api/v1/token", "/api/v1/token"]
    assert client.tokens.version == "v1"  # type: ignore[union-attr]


async def test_proactive_refresh_before_expiry(make: Make) -> None:
    clock = FakeClock()
    client, cp = await make(clock=clock, cp_kwargs={"clock": clock, "token_ttl_s": 3600.0})
    await client.get_workload(WID)
    clock.now = T0 + 3600 - 61  # 61 s left: still fresh with the 60 s margin
    await client.get_workload(WID)
    assert len(posts(cp)) == 1
    clock.now = T0 + 3600 - 59  # 59 s left: refreshed before the call, so the server never says 401
    await client.get_workload(WID)
    assert len(posts(cp)) == 2
    assert gets(cp, 401) == 0 and gets(cp, 200) == 3


async def test_refresh_margin_is_configurable(make: Make) -> None:
    clock = FakeClock()
    client, cp = await make(clock=clock, refresh_margin_s=600.0, cp_kwargs={"clock": clock})
    await client.get_workload(WID)
    clock.now = T0 + 3600 - 599
    await client.get_workload(WID)
    assert len(posts(cp)) == 2


def _jwt(exp: float) -> str:
    header = b64url(json.dumps({"alg": "none"}).encode())
    return f"{header}.{b64url(json.dumps({'sub': 'x', 'exp': int(exp)}).encode())}.sig"


async def test_lifetime_from_jwt_exp_when_expires_in_is_missing(make: Make) -> None:
    clock = FakeClock()
    body = json.dumps({"access_token": _jwt(T0 + 300), "token_type": "Bearer"})
    fault = {"match": "POST /api/v2/token", "status": 200, "times": 9, "body": body}
    client, cp = await make(clock=clock, faults=[fault])
    tokens = client.tokens
    assert isinstance(tokens, ClientCredentialTokens)
    await tokens.token()
    clock.now = T0 + 239
    await tokens.token()
    assert len(posts(cp)) == 1
    clock.now = T0 + 241
    await tokens.token()
    assert len(posts(cp)) == 2


async def test_refresh_once_after_revocation(make: Make) -> None:
    client, cp = await make()
    await client.get_workload(WID)
    cp.revoke_tokens()
    workload = await client.get_workload(WID)
    assert workload.id == WID
    assert len(posts(cp)) == 2
    assert [r.status for r in cp.requests if r.method == "GET"] == [200, 401, 200]


async def test_twenty_concurrent_401s_cause_one_token_request(make: Make) -> None:
    # Latency keeps all twenty calls in flight at once, so they all see the revoked token.
    client, cp = await make(cp_kwargs={"latency_ms": 20.0})
    await client.get_workload(WID)
    cp.revoke_tokens()
    results = await asyncio.gather(*(client.get_workload(WID) for _ in range(20)))
    assert all(w.id == WID for w in results)
    assert gets(cp, 401) == 20
    assert len(posts(cp)) == 2  # the first token and exactly one refresh
    assert gets(cp, 200) == 21


async def test_concurrent_first_calls_share_one_token(make: Make) -> None:
    client, cp = await make(cp_kwargs={"latency_ms": 20.0})
    await asyncio.gather(*(client.get_workload(WID) for _ in range(10)))
    assert len(posts(cp)) == 1 and gets(cp, 200) == 10


async def test_second_401_is_an_auth_error_without_a_loop(make: Make) -> None:
    # Tokens that expire the instant they are issued: the refreshed token is refused too.
    client, cp = await make(cp_kwargs={"token_ttl_s": 0.0})
    with pytest.raises(AuthError) as info:
        await client.get_workload(WID)
    assert str(info.value).startswith(f"GET /api/v1/workloads/{WID}")
    assert "credentials refused" in str(info.value)
    assert len(posts(cp)) == 2 and gets(cp, 401) == 2


async def test_bearer_token_refused_gives_advice(make: Make) -> None:
    client, cp = await make(BearerToken("expired-token-zz9"))
    with pytest.raises(AuthError) as info:
        await client.list_clusters()
    message = str(info.value)
    assert "runai auth get-token" in message and "RUNAI_CLIENT_ID" in message
    assert "GET /api/v1/clusters" in message and "expired-token-zz9" not in message
    assert posts(cp) == [] and gets(cp) == 1


async def test_token_endpoint_refusal_by_both_versions(make: Make) -> None:
    faults = [
        {"match": "POST /api/v2/token", "status": 401, "times": 1,
         "body": '{"error": "invalid_client", "error_description": "client authentication failed"}'},
        {"match": "POST /api/v1/token", "status": 401, "times": 1,
         "body": '{"code": 401, "message": "invalid client credentials"}'},
    ]
    client, cp = await make(faults=faults)
    with pytest.raises(AuthError) as info:
        await client.get_workload(WID)
    message = str(info.value)
    assert "credentials refused" in message and "'triage-bot'" in message
    # Both answers are read, the OAuth2 error body of v2 included.
    assert "invalid client credentials" in message and "invalid_client: client authentication failed" in message
    assert "bot-secret-a1b2" not in repr(info.value)
    assert gets(cp) == 0 and posts(cp) == ["/api/v2/token", "/api/v1/token"]


# What an old tenant may answer on /api/v2/token (UNVERIFIED which): none of it is a token, so v1 is asked.
@pytest.mark.parametrize(
    ("status", "body"),
    [
        (400, '{"code": 400, "message": "unsupported grant"}'),
        (401, '{"error": "unauthorized_client"}'),
        (404, '{"code": 404, "message": "not found"}'),
        (405, ""),
        (200, "<!doctype html><html><body>Run:ai</body></html>"),
        (200, '["access_token"]'),
        (200, '{"access_token": 5, "expires_in": 60}'),
    ],
)
async def test_any_answer_but_a_token_falls_back_to_v1(make: Make, status: int, body: str) -> None:
    client, cp = await make(faults=[{"match": "POST /api/v2/token", "status": status, "times": 1, "body": body}])
    assert (await client.get_workload(WID)).id == WID
    assert posts(cp) == ["/api/v2/token", "/api/v1/token"]
    assert isinstance(client.tokens, ClientCredentialTokens) and client.tokens.version == "v1"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<html>oops</html>", "non-JSON"),
        ('["access_token"]', "JSON object"),
        ('{"access_token": 5, "expires_in": 60}', "token string"),
    ],
)
async def test_malformed_token_response_from_v1_after_v2(make: Make, body: str, expected: str) -> None:
    faults = [
        {"match": "POST /api/v2/token", "status": 404, "times": 1},
        {"match": "POST /api/v1/token", "status": 200, "times": 1, "body": body},
    ]
    client, _ = await make(faults=faults)
    with pytest.raises(MalformedResponse) as info:
        await client.get_workload(WID)
    assert "POST /api/v1/token" in str(info.value) and expected in str(info.value)


async def test_cli_session_from_a_temp_dir(tmp_path: Path) -> None:
    cp = ControlPlane(parse_bundle(bundle()))
    with LoopbackServer(cp) as server:
        token = cp.issue_token("alice")
        (tmp_path / "config.json").write_text(
            json.dumps({"control_plane": {"url": server.url + "/"}, "cluster": {"uuid": CLUSTER}})
        )
        stored = base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")
        (tmp_path / "authentication.json").write_text(json.dumps({"accessToken": stored}))
        session = load_cli_session(env={"RUNAI_CLI_CONFIG_PATH": str(tmp_path)})
        assert session is not None and session.base_url == server.url and session.cluster_uuid == CLUSTER
        async with RunaiClient(session.base_url, session) as client:
            clusters = await client.list_clusters()
            assert [c.uuid for c in clusters] == [session.cluster_uuid]
            cp.revoke_tokens()
            with pytest.raises(AuthError, match="runai login"):
                await client.list_clusters()
        assert posts(cp) == []
