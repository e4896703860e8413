"""Every way past the read-only guard that code could try, against a loopback server that records whatever
reaches it: each attempt must be refused before a byte is sent (the server sees no connection at all).

The Kubernetes side is tried at every layer (ApiClient, REST client, pool manager, connection pool, connection,
http.client's request line, a websocket upgrade header, exec/attach/port-forward paths, kubernetes.stream and
websocket-client directly); the Run:ai side through its httpx client and past it. A final GET through the
same objects shows the recorder does record, so "nothing received" means something.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from kubernetes.client import Configuration, CoreV1Api

from core.sources.credentials import BearerToken
from core.sources.errors import ReadOnlyViolation
from core.sources.kube_config import bounded_retry
from core.sources.kube_guard import read_only_api_client
from core.sources.runai import RunaiClient
from tests.integration.fault_rig import Recorder


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    server = Recorder()
    try:
        yield server
    finally:
        server.close()


def _kube_client(url: str) -> Any:
    configuration = Configuration()
    configuration.host = url
    configuration.api_key = {"BearerToken": "Bearer token-for-the-recorder"}
    configuration.retries = bounded_retry()
    return read_only_api_client(configuration)


POD = "/api/v1/namespaces/ns/pods/p"


def _kube_attempts(url: str) -> dict[str, Callable[[Any], object]]:
    import kubernetes.stream
    from kubernetes.stream import ws_client

    def connection(client: Any) -> Any:
        return client.rest_client.pool_manager.connection_from_url(url)

    return {
        "ApiClient.call_api DELETE": lambda c: c.call_api("DELETE", url + POD, header_params={}),
        "ApiClient.call_api POST": lambda c: c.call_api("POST", url + "/api/v1/namespaces/ns/pods", body={}),
        "RESTClient.request PATCH": lambda c: c.rest_client.request("PATCH", url + "/api/v1/nodes/n", body={}),
        "PoolManager.urlopen DELETE": lambda c: c.rest_client.pool_manager.urlopen("DELETE", url + POD),
        "PoolManager.request PUT": lambda c: c.rest_client.pool_manager.request("PUT", url + POD, body=b"{}"),
        "ConnectionPool.urlopen DELETE": lambda c: connection(c).urlopen("DELETE", POD),
        "ConnectionPool.request POST": lambda c: connection(c).request("POST", POD, body=b"{}"),
        "HTTPConnection.request DELETE": lambda c: connection(c)._get_conn().request("DELETE", POD),
        "http.client putrequest POST": lambda c: connection(c)._get_conn().putrequest("POST", POD),
        "GET on the exec subresource": lambda c: c.call_api("GET", url + POD + "/exec?command=sh", header_params={}),
        "GET on a node proxy": lambda c: c.rest_client.pool_manager.urlopen("GET", url + "/api/v1/nodes/n/proxy/x"),
        "GET with a websocket upgrade": lambda c: c.rest_client.pool_manager.request(
            "GET", url + POD, headers={"Connection": "Upgrade", "Upgrade": "websocket"}
        ),
        "kubernetes.stream exec": lambda c: kubernetes.stream.stream(
            CoreV1Api(c).connect_get_namespaced_pod_exec, "p", "ns", command=["sh"], stdout=True, tty=False
        ),
        "kubernetes.stream portforward": lambda c: kubernetes.stream.portforward(
            CoreV1Api(c).connect_get_namespaced_pod_portforward, "p", "ns", ports="8080"
        ),
        "ws_client.websocket_call": lambda c: ws_client.websocket_call(
            c.configuration, "GET", url + POD + "/exec?command=sh", headers={}
        ),
        "replacing ApiClient.call_api": lambda c: setattr(c, "call_api", lambda *a, **k: None),
    }


def _refused(exc: BaseException) -> bool:
    """The guard's refusal, raised as is or wrapped (websocket_call turns every failure into an ApiException)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ReadOnlyViolation) or "runai-triage is read-only" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@pytest.mark.parametrize("attempt", sorted(_kube_attempts("http://x")))
def test_kubernetes_bypass_is_refused_before_a_byte_leaves(recorder: Recorder, attempt: str) -> None:
    client = _kube_client(recorder.url)
    try:
        with pytest.raises(Exception) as raised:
            _kube_attempts(recorder.url)[attempt](client)
        assert _refused(raised.value), f"{attempt}: {raised.value!r}"
        assert recorder.nothing_reached(), f"{attempt}: {recorder.connections} connection(s), {recorder.received!r}"
        # The same client still reads: the recorder sees a GET, so its silence above was the guard's doing.
        response = CoreV1Api(client).read_namespaced_pod("p", "ns", _preload_content=False, _request_timeout=(1, 2))
        assert response.status == 200
        assert bytes(recorder.received).startswith(b"GET /api/v1/namespaces/ns/pods/p ")
    finally:
        client.close()


async def test_runai_bypasses_are_refused_before_a_byte_leaves(recorder: Recorder) -> None:
    async with RunaiClient(recorder.url, BearerToken("token-for-the-recorder")) as client:
        attempts: dict[str, Callable[[], Any]] = {
            "client DELETE": lambda: client.http.delete("/api/v1/workloads/w"),
            "client POST to a non-token path": lambda: client.http.post("/api/v1/workloads", json={}),
            "client PUT": lambda: client.http.put("/api/v1/workloads/w", json={}),
            "transport DELETE": lambda: client.http._transport.handle_async_request(
                httpx.Request("DELETE", recorder.url + "/api/v1/workloads/w")
            ),
            "inner transport PATCH": lambda: client.http._transport.inner.handle_async_request(  # type: ignore[attr-defined]
                httpx.Request("PATCH", recorder.url + "/api/v1/workloads/w")
            ),
        }
        for name, attempt in attempts.items():
            with pytest.raises(ReadOnlyViolation):
                await attempt()
            assert recorder.nothing_reached(), name
        response = await client.http.get("/api/v1/clusters")
        assert response.status_code == 200
        assert bytes(recorder.received).startswith(b"GET /api/v1/clusters ")


@pytest.mark.parametrize("attempt", ["ConnectionPool.urlopen DELETE", "HTTPConnection.request DELETE"])
def test_without_the_guard_the_recorder_sees_the_write(recorder: Recorder, attempt: str) -> None:
    # The control: the same call on a plain ApiClient reaches the recorder, so the tests above can fail.
    from kubernetes.client import ApiClient

    configuration = Configuration()
    configuration.host = recorder.url
    plain = ApiClient(configuration)
    try:
        with contextlib.suppress(Exception):  # the request line is all that matters here
            result = _kube_attempts(recorder.url)[attempt](plain)
            if hasattr(result, "getresponse"):
                result.getresponse()
        deadline = time.monotonic() + 2.0
        while b"DELETE " not in bytes(recorder.received) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert bytes(recorder.received).startswith(b"DELETE /api/v1/namespaces/ns/pods/p ")
    finally:
        plain.close()
