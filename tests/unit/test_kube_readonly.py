"""Read-only, twice: the Tier 2 source calls only read methods, and a guard under the client stops writes."""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Iterator

import pytest
from kubernetes.client import ApiClient, Configuration, CoreV1Api
from kubernetes.client.exceptions import ApiException

from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.loopback import LoopbackServer
from core.sources.kube import KubeSource
from core.sources.kube_config import KubeConnection, bounded_retry
from core.sources.kube_core_v1 import CoreReads
from core.sources.kube_guard import ReadOnlyViolation, guard_api_client, is_guarded, read_only_api_client

SOURCES = pathlib.Path(__file__).resolve().parents[2] / "core" / "sources"
KUBE_SOURCE = SOURCES / "kube.py"
KUBE_READS = SOURCES / "kube_core_v1.py"
# The classes whose instance the source sends its reads through: the generated one, or ours that sends the same.
API_CLASSES = {"CoreV1Api", "CoreReads"}
ALLOWED = {
    "read_namespaced_pod",
    "read_namespaced_pod_log",
    "list_namespaced_event",
    "list_event_for_all_namespaces",
    "read_node",
    "list_pod_for_all_namespaces",
}
WRITE_PREFIXES = ("create", "patch", "replace", "delete", "connect")


def _core_api_attributes(tree: ast.AST) -> set[str]:
    """Attribute names under which the API object is stored (``self._api = CoreReads(...)``)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            func = node.value.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in API_CLASSES:
                for target in node.targets:
                    if isinstance(target, ast.Attribute):
                        names.add(target.attr)
                    elif isinstance(target, ast.Name):
                        names.add(target.id)
    return names


def _receiver_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def api_calls(source: str) -> list[ast.Call]:
    """Every call made on the API object in ``source``."""
    tree = ast.parse(source)
    holders = _core_api_attributes(tree)
    assert holders, "no CoreReads(...) or CoreV1Api(...) assignment found"
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and _receiver_name(node.func.value) in holders
    ]


def dynamic_access(source: str) -> list[int]:
    """Lines that reach the API object by name at run time (getattr), which the call check could not see."""
    tree = ast.parse(source)
    holders = _core_api_attributes(tree)
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "getattr"
        and node.args
        and _receiver_name(node.args[0]) in holders
    ]


def write_like(names: set[str]) -> set[str]:
    return {n for n in names if n.startswith(WRITE_PREFIXES) or "evict" in n}


def test_kube_source_calls_only_the_six_read_methods() -> None:
    source = KUBE_SOURCE.read_text(encoding="utf-8")
    called = {call.func.attr for call in api_calls(source)}  # type: ignore[union-attr]
    assert write_like(called) == set()
    assert called == ALLOWED
    assert dynamic_access(source) == []


def test_every_api_call_has_an_explicit_timeout() -> None:
    for call in api_calls(KUBE_SOURCE.read_text(encoding="utf-8")):
        keywords = {kw.arg: kw.value for kw in call.keywords}
        assert "_request_timeout" in keywords, ast.unparse(call)


def test_the_reads_module_offers_the_five_reads_and_serialises_only_get() -> None:
    tree = ast.parse(KUBE_READS.read_text(encoding="utf-8"))
    reads = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "CoreReads")
    public = {f.name for f in reads.body if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")}
    assert public == ALLOWED
    serialised = [
        n for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "param_serialize"
    ]
    assert len(serialised) == 1
    method = {kw.arg: kw.value for kw in serialised[0].keywords}["method"]
    assert isinstance(method, ast.Constant) and method.value == "GET"


def test_the_ast_check_flags_a_write_and_a_getattr() -> None:
    # The same helpers over a source that deletes and evicts must report it, or the test above proves nothing.
    bad = (
        "class S:\n"
        "    def __init__(self, c):\n"
        "        self._api = CoreV1Api(c)\n"
        "    def go(self):\n"
        "        self._api.delete_namespaced_pod('p', 'ns')\n"
        "        self._api.create_namespaced_pod_eviction('p', 'ns', body={})\n"
        "        getattr(self._api, 'patch_node')('n', {})\n"
    )
    called = {call.func.attr for call in api_calls(bad)}  # type: ignore[union-attr]
    assert write_like(called) == {"delete_namespaced_pod", "create_namespaced_pod_eviction"}
    assert dynamic_access(bad) == [7]


@pytest.fixture
def server() -> Iterator[tuple[ControlPlane, str]]:
    bundle = parse_bundle(
        {
            "format": "runai-triage/case@1",
            "capturedAt": "2026-11-30T12:00:00Z",
            "workloads": [],
            "kubernetes": {
                "pods": [{"metadata": {"name": "p", "namespace": "ns", "uid": "u1"}, "spec": {}}],
            },
        }
    )
    plane = ControlPlane(bundle)
    loop = LoopbackServer(plane)
    url = loop.start()
    try:
        yield plane, url
    finally:
        loop.stop()


def _configuration(url: str, token: str) -> Configuration:
    configuration = Configuration()
    configuration.host = url
    configuration.api_key = {"BearerToken": f"Bearer {token}"}
    configuration.retries = bounded_retry()
    return configuration


@pytest.mark.parametrize("method", ["DELETE", "POST", "PUT", "PATCH", "OPTIONS", "HEAD"])
def test_guard_refuses_call_api_writes_before_anything_is_sent(
    server: tuple[ControlPlane, str], method: str
) -> None:
    plane, url = server
    client = read_only_api_client(_configuration(url, plane.kube_token))
    with pytest.raises(ReadOnlyViolation) as caught:
        client.call_api(method, url + "/api/v1/namespaces/ns/pods/p", header_params={})
    assert method in str(caught.value)
    assert plane.requests == []
    client.close()


def test_guard_refuses_raw_rest_and_pool_manager_writes(server: tuple[ControlPlane, str]) -> None:
    plane, url = server
    client = read_only_api_client(_configuration(url, plane.kube_token))
    with pytest.raises(ReadOnlyViolation):
        client.rest_client.request("POST", url + "/api/v1/namespaces/ns/pods", body={"kind": "Pod"})
    with pytest.raises(ReadOnlyViolation):
        client.rest_client.pool_manager.urlopen("DELETE", url + "/api/v1/nodes/n")
    with pytest.raises(ReadOnlyViolation):
        client.rest_client.pool_manager.request("PATCH", url + "/api/v1/nodes/n", body=b"{}")
    assert plane.requests == []
    client.close()


def test_guard_lets_gets_through_so_the_log_above_is_meaningful(server: tuple[ControlPlane, str]) -> None:
    plane, url = server
    client = read_only_api_client(_configuration(url, plane.kube_token))
    pod = CoreReads(client).read_namespaced_pod("p", "ns", _request_timeout=(1, 2))
    assert pod.status == 200
    assert [(r.method, r.path) for r in plane.requests] == [("GET", "/api/v1/namespaces/ns/pods/p")]
    client.close()


# The six reads, as the source calls them, with what the generated client takes for each.
_READS = [
    ("read_namespaced_pod", ("p", "ns"), {}),
    ("read_namespaced_pod_log", ("p", "ns"), {"container": "main", "previous": True, "tail_lines": 500,
                                              "limit_bytes": 1048576}),
    ("read_namespaced_pod_log", ("p", "ns"), {"container": "main", "previous": False}),
    ("list_namespaced_event", ("ns",), {"field_selector": "involvedObject.name=p,involvedObject.namespace=ns"}),
    ("list_event_for_all_namespaces", (), {"field_selector": "involvedObject.kind=Node,involvedObject.name=n"}),
    ("read_node", ("n",), {}),
    ("list_pod_for_all_namespaces", (), {"field_selector": "spec.nodeName=n", "limit": 200}),
]


def test_the_reads_send_exactly_what_the_generated_client_sends(server: tuple[ControlPlane, str]) -> None:
    plane, url = server
    client = read_only_api_client(_configuration(url, plane.kube_token))
    ours, theirs = CoreReads(client), CoreV1Api(client)
    for name, args, kwargs in _READS:
        plane.clear_requests()
        answers = []
        for api, extra in ((theirs, {"_preload_content": False}), (ours, {})):
            try:
                answers.append(getattr(api, name)(*args, **kwargs, **extra, _request_timeout=(1, 2)).status)
            except ApiException as exc:  # a 404 for the node: both must raise it alike
                answers.append(exc.status)
        sent = [(r.method, r.path, r.query) for r in plane.requests]
        assert len(sent) == 2 and sent[0] == sent[1], name
        assert answers[0] == answers[1], name
    client.close()


def test_a_read_returns_the_body_unread_and_raises_for_a_failed_status(server: tuple[ControlPlane, str]) -> None:
    plane, url = server
    client = read_only_api_client(_configuration(url, plane.kube_token))
    answer = CoreReads(client).read_namespaced_pod("p", "ns", _request_timeout=(1, 2))
    assert b'"name":"p"' in answer.read().replace(b" ", b"")
    with pytest.raises(ApiException) as missing:
        CoreReads(client).read_namespaced_pod("ghost", "ns", _request_timeout=(1, 2))
    assert missing.value.status == 404 and "NotFound" in str(missing.value.body)
    client.close()


def test_guard_is_idempotent_and_a_plain_client_is_not_guarded() -> None:
    configuration = _configuration("http://127.0.0.1:9", "t")
    plain = ApiClient(configuration)
    assert not is_guarded(plain)
    guarded = guard_api_client(guard_api_client(plain))
    assert guarded is plain and is_guarded(plain)
    with pytest.raises(ReadOnlyViolation):
        plain.rest_client.pool_manager.urlopen("DELETE", "http://127.0.0.1:9/api/v1/nodes/n")
    plain.close()


def test_kube_source_builds_its_client_with_the_guard(server: tuple[ControlPlane, str]) -> None:
    plane, url = server
    source = KubeSource(KubeConnection(_configuration(url, plane.kube_token), "test", None, (1.0, 2.0)))
    assert is_guarded(source._api_client)
    with pytest.raises(ReadOnlyViolation):
        source._api_client.call_api("DELETE", url + "/api/v1/namespaces/ns/pods/p", header_params={})
    assert plane.requests == []
    source.close()
