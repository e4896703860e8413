"""Retry timing: the exact waits the client asks for, measured with an injected sleep (nothing really sleeps)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx
import pytest
import respx

from core.sources.credentials import BearerToken, ClientCredentials
from core.sources.errors import ApiError, ApiTimeout, BrokenAnswer, MalformedResponse
from core.sources.retry import RetryPolicy, parse_retry_after
from core.sources.runai import RunaiClient

BASE = "https://tenant.run.ai"
T0 = 1_800_000_000.0
CLUSTERS = "/api/v1/clusters"


class Clock:
    """Epoch seconds that only move when the injected sleep is called."""

    def __init__(self) -> None:
        self.now = T0
        self.waits: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


@pytest.fixture
def mock() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=BASE, assert_all_called=False) as router:
        yield router


def client(clock: Clock, rand: float = 0.5, **kwargs: Any) -> RunaiClient:
    return RunaiClient(BASE, BearerToken("tok-unit-1"), clock=clock, sleep=clock.sleep, rand=lambda: rand, **kwargs)


def ok() -> httpx.Response:
    return httpx.Response(200, json=[{"uuid": "c1", "name": "one"}])


def test_full_jitter_backoff_maths() -> None:
    policy = RetryPolicy()
    assert [policy.backoff(n, 1.0) for n in range(1, 8)] == pytest.approx([0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0])
    assert [policy.backoff(n, 0.25) for n in range(1, 4)] == pytest.approx([0.05, 0.1, 0.2])
    assert policy.backoff(3, 0.0) == 0.0
    custom = RetryPolicy(base_delay_s=1.0, max_delay_s=3.0)
    assert [custom.backoff(n, 1.0) for n in range(1, 5)] == pytest.approx([1.0, 2.0, 3.0, 3.0])


def test_retry_after_parsing() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert parse_retry_after("7", now) == 7.0
    assert parse_retry_after(" 2.5 ", now) == 2.5
    assert parse_retry_after(format_datetime(now + timedelta(seconds=42), usegmt=True), now) == 42.0
    assert parse_retry_after(format_datetime(now - timedelta(seconds=42), usegmt=True), now) == 0.0
    for bad in (None, "", "soon", "-3", "nan-ish"):
        assert parse_retry_after(bad, now) is None


def test_policy_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="budget_s"):
        RetryPolicy(budget_s=-1)


async def test_backoff_waits_between_503s(mock: respx.MockRouter) -> None:
    route = mock.get(CLUSTERS).mock(side_effect=[httpx.Response(503), httpx.Response(503), httpx.Response(503), ok()])
    clock = Clock()
    async with client(clock) as c:
        clusters = await c.list_clusters()
    assert [x.uuid for x in clusters] == ["c1"]
    assert route.call_count == 4
    assert clock.waits == pytest.approx([0.1, 0.2, 0.4])


async def test_retry_after_seconds_and_date(mock: respx.MockRouter) -> None:
    clock = Clock()
    when = datetime.fromtimestamp(T0, UTC) + timedelta(seconds=4)
    route = mock.get(CLUSTERS).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "3"}),
            httpx.Response(503, headers={"Retry-After": format_datetime(when, usegmt=True)}),
            ok(),
        ]
    )
    async with client(clock) as c:
        await c.list_clusters()
    # The date is 4 s after T0, and 3 s have already passed on the injected clock.
    assert clock.waits == pytest.approx([3.0, 1.0])
    assert route.call_count == 3


async def test_retry_after_is_capped(mock: respx.MockRouter) -> None:
    clock = Clock()
    mock.get(CLUSTERS).mock(side_effect=[httpx.Response(429, headers={"Retry-After": "3600"}), ok()])
    async with client(clock, retry=RetryPolicy(retry_after_cap_s=7.5)) as c:
        await c.list_clusters()
    assert clock.waits == [7.5]


async def test_budget_stops_before_overrunning(mock: respx.MockRouter) -> None:
    clock = Clock()
    route = mock.get(CLUSTERS).mock(return_value=httpx.Response(429, headers={"Retry-After": "4"}))
    async with client(clock, retry=RetryPolicy(budget_s=10.0, max_attempts=10)) as c:
        with pytest.raises(ApiError) as info:
            await c.list_clusters()
    # 4 + 4 = 8 s fit in the 10 s budget; a third wait would end at 12 s.
    assert clock.waits == [4.0, 4.0]
    assert route.call_count == 3
    assert info.value.status == 429 and "gave up after 3 attempts" in str(info.value)


async def test_max_attempts(mock: respx.MockRouter) -> None:
    clock = Clock()
    route = mock.get(CLUSTERS).mock(return_value=httpx.Response(502))
    async with client(clock, rand=1.0, retry=RetryPolicy(max_attempts=3)) as c:
        with pytest.raises(ApiError):
            await c.list_clusters()
    assert route.call_count == 3 and clock.waits == pytest.approx([0.2, 0.4])


@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 500])
async def test_statuses_that_are_never_retried(mock: respx.MockRouter, status: int) -> None:
    clock = Clock()
    route = mock.get(CLUSTERS).mock(return_value=httpx.Response(status, json={"code": status, "message": "no"}))
    async with client(clock) as c:
        with pytest.raises(ApiError) as info:
            await c.list_clusters()
    assert info.value.status == status
    assert route.call_count == 1 and clock.waits == []


@pytest.mark.parametrize(
    "error", [httpx.ReadTimeout("slow"), httpx.ConnectError("refused"), httpx.RemoteProtocolError("reset")]
)
async def test_transport_errors_are_retried_for_get(mock: respx.MockRouter, error: Exception) -> None:
    clock = Clock()
    route = mock.get(CLUSTERS).mock(side_effect=[error, error, ok()])
    async with client(clock) as c:
        await c.list_clusters()
    assert route.call_count == 3 and clock.waits == pytest.approx([0.1, 0.2])


async def test_read_timeouts_end_as_api_timeout(mock: respx.MockRouter) -> None:
    clock = Clock()
    route = mock.get(CLUSTERS).mock(side_effect=httpx.ReadTimeout("slow"))
    async with client(clock, timeout=httpx.Timeout(5.0, read=12.0)) as c:
        with pytest.raises(ApiTimeout) as info:
            await c.list_clusters()
    assert route.call_count == 4 and info.value.attempts == 4 and info.value.timeout_s == 12.0


async def test_token_post_retries_connect_errors_only(mock: respx.MockRouter) -> None:
    clock = Clock()
    token = mock.post("/api/v2/token").mock(
        side_effect=[httpx.ConnectError("refused"), httpx.Response(200, json={"access_token": "t1", "expires_in": 60})]
    )
    mock.get(CLUSTERS).mock(return_value=ok())
    creds = ClientCredentials("id", "sec")
    async with RunaiClient(BASE, creds, clock=clock, sleep=clock.sleep, rand=lambda: 0.5) as c:
        await c.list_clusters()
    assert token.call_count == 2 and clock.waits == pytest.approx([0.1])
    form = dict(httpx.QueryParams(token.calls[-1].request.content.decode()))
    assert form == {"grant_type": "client_credentials", "client_id": "id", "client_secret": "sec"}

    for error in (httpx.RemoteProtocolError("reset"), httpx.ReadTimeout("slow")):
        clock = Clock()
        mock.post("/api/v2/token").mock(side_effect=[error, httpx.Response(200, json={"access_token": "t2"})])
        async with RunaiClient(BASE, creds, clock=clock, sleep=clock.sleep) as c:
            with pytest.raises((BrokenAnswer, ApiTimeout)):
                await c.list_clusters()
        assert clock.waits == []  # the server may have seen the POST, so it is not sent again


async def test_authorization_header_and_no_secret_in_url(mock: respx.MockRouter) -> None:
    route = mock.get(CLUSTERS).mock(return_value=ok())
    async with client(Clock()) as c:
        await c.list_clusters()
    request = route.calls[-1].request
    assert request.headers["Authorization"] == "Bearer tok-unit-1"
    assert "tok-unit-1" not in str(request.url)


async def test_undecodable_body_is_malformed_not_retried(mock: respx.MockRouter) -> None:
    clock = Clock()
    route = mock.get(CLUSTERS).mock(
        return_value=httpx.Response(200, headers={"Content-Encoding": "gzip"}, stream=httpx.ByteStream(b"not gzip"))
    )
    async with client(clock) as c:
        with pytest.raises(MalformedResponse, match="could not be decoded") as info:
            await c.list_clusters()
    assert route.call_count == 1 and clock.waits == [] and "GET /api/v1/clusters" in str(info.value)
