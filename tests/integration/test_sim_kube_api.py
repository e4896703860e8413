"""The REAL `kubernetes` client, configured from a kubeconfig written by write_kubeconfig, against the
loopback simulator."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.kubeconfig import write_kubeconfig
from core.sim.loopback import LoopbackServer
from tests.paths import CASES

OOM = str(CASES / "example-oom.json")
NS = "runai-speech"
POD = "whisper-ft-0-0"


def _oom_data() -> dict[str, Any]:
    data = json.loads(Path(OOM).read_text())
    kube = data["kubernetes"]
    two = copy.deepcopy(kube["pods"][0])
    two["metadata"]["name"] = "two-containers"
    two["spec"]["containers"].append({"name": "sidecar", "image": "busybox"})
    waiting = copy.deepcopy(kube["pods"][0])
    waiting["metadata"]["name"] = "pulling"
    waiting["status"]["containerStatuses"][0]["state"] = {"waiting": {"reason": "ImagePullBackOff"}}
    kube["pods"] += [two, waiting]
    kube["logs"].append(
        {
            "namespace": NS,
            "pod": POD,
            "container": "main",
            "previous": True,
            "text": "a\nb\nc\nd\nlast line\n",
        }
    )
    kube["events"] = [
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{POD}.1", "namespace": NS},
            "involvedObject": {"kind": "Pod", "name": POD, "namespace": NS, "uid": "u-1"},
            "reason": "OOMKilling",
            "message": "Memory cgroup out of memory",
            "type": "Warning",
            "count": 1,
        },
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": f"{POD}.2", "namespace": NS},
            "involvedObject": {"kind": "Pod", "name": POD, "namespace": NS, "uid": "u-old"},
            "reason": "Scheduled",
            "message": "Successfully assigned",
            "type": "Normal",
        },
        {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "gpu-node-a1.1", "namespace": "default"},
            "involvedObject": {"kind": "Node", "name": "gpu-node-a1", "uid": "gpu-node-a1"},
            "reason": "NodeNotReady",
            "message": "Node gpu-node-a1 status is now: NodeNotReady",
            "type": "Normal",
        },
    ]
    return data


def _api(tmp_path: Path, server: LoopbackServer, token: str) -> client.CoreV1Api:
    path = write_kubeconfig(tmp_path / "kubeconfig", server.url, token, namespace=NS)
    cfg = client.Configuration()
    config.load_kube_config(config_file=str(path), client_configuration=cfg)
    cfg.retries = False
    return client.CoreV1Api(client.ApiClient(cfg))


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[tuple[client.CoreV1Api, ControlPlane]]:
    cp = ControlPlane(parse_bundle(_oom_data()))
    with LoopbackServer(cp) as server:
        yield _api(tmp_path, server, cp.kube_token), cp


def test_kubeconfig_is_owner_only_and_points_at_the_server(tmp_path: Path) -> None:
    path = write_kubeconfig(tmp_path / "kc", "http://127.0.0.1:1234", "tok", context="ctx")
    assert path.stat().st_mode & 0o777 == 0o600
    cfg = client.Configuration()
    config.load_kube_config(config_file=str(path), client_configuration=cfg)
    assert cfg.host == "http://127.0.0.1:1234"
    assert cfg.auth_settings()["BearerToken"]["value"] == "Bearer tok"


def test_read_namespaced_pod(sim: tuple[client.CoreV1Api, ControlPlane]) -> None:
    api, _ = sim
    pod = api.read_namespaced_pod(POD, NS, _request_timeout=(2, 5))
    assert pod.metadata.name == POD
    terminated = pod.status.container_statuses[0].state.terminated
    assert (terminated.reason, terminated.exit_code) == ("OOMKilled", 137)


def test_missing_pod_is_404_with_status_body(sim: tuple[client.CoreV1Api, ControlPlane]) -> None:
    api, _ = sim
    with pytest.raises(ApiException) as err:
        api.read_namespaced_pod("ghost", NS)
    assert err.value.status == 404
    body = json.loads(err.value.body)
    assert body == {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": 'pods "ghost" not found',
        "reason": "NotFound",
        "details": {"name": "ghost", "kind": "pods"},
        "code": 404,
    }


def test_pod_logs_previous_tail_and_limit(sim: tuple[client.CoreV1Api, ControlPlane]) -> None:
    api, cp = sim
    resp = api.read_namespaced_pod_log(
        POD, NS, container="main", previous=True, tail_lines=2, _preload_content=False
    )
    assert resp.data.decode("utf-8", errors="replace") == "d\nlast line\n"
    cut = api.read_namespaced_pod_log(
        POD, NS, container="main", previous=True, tail_lines=2, limit_bytes=4, _preload_content=False
    )
    assert cut.data == b"d\nla"
    current = api.read_namespaced_pod_log(POD, NS, _preload_content=False)  # one container: no name needed
    assert current.data == b"epoch 1 step 900 loss 0.41\n"
    query = dict(cp.requests[-2].query)
    assert query == {"container": "main", "limitBytes": "4", "previous": "true", "tailLines": "2"}


@pytest.mark.parametrize(
    ("pod", "kwargs", "status", "message"),
    [
        (
            "pulling",
            {"previous": True},
            400,
            'previous terminated container "main" in pod "pulling" not found',
        ),
        (
            "two-containers",
            {},
            400,
            "a container name must be specified for pod two-containers, choose one of: [main sidecar]",
        ),
        (POD, {"container": "nope"}, 400, f"container nope is not valid for pod {POD}"),
        ("pulling", {}, 400, 'container "main" in pod "pulling" is waiting to start: ImagePullBackOff'),
        ("ghost", {}, 404, 'pods "ghost" not found'),
    ],
)
def test_log_errors(
    sim: tuple[client.CoreV1Api, ControlPlane], pod: str, kwargs: dict[str, Any], status: int, message: str
) -> None:
    api, _ = sim
    with pytest.raises(ApiException) as err:
        api.read_namespaced_pod_log(pod, NS, _preload_content=False, **kwargs)
    assert err.value.status == status
    assert json.loads(err.value.body)["message"] == message


def test_list_namespaced_event_with_field_selector(sim: tuple[client.CoreV1Api, ControlPlane]) -> None:
    api, cp = sim
    selector = f"involvedObject.name={POD},involvedObject.namespace={NS},involvedObject.uid=u-1"
    events = api.list_namespaced_event(NS, field_selector=selector)
    assert [e.reason for e in events.items] == ["OOMKilling"]
    last = cp.requests[-1]
    assert last.path == f"/api/v1/namespaces/{NS}/events"
    assert dict(last.query)["fieldSelector"] == selector
    not_old = api.list_namespaced_event(
        NS, field_selector=f"involvedObject.name={POD},involvedObject.uid!=u-old"
    )
    assert [e.reason for e in not_old.items] == ["OOMKilling"]
    everything = api.list_namespaced_event(NS)
    assert len(everything.items) == 2


def test_node_events_for_all_namespaces_and_read_node(sim: tuple[client.CoreV1Api, ControlPlane]) -> None:
    api, cp = sim
    events = api.list_event_for_all_namespaces(
        field_selector="involvedObject.kind=Node,involvedObject.name=gpu-node-a1"
    )
    assert [e.reason for e in events.items] == ["NodeNotReady"]
    assert cp.requests[-1].path == "/api/v1/events"
    node = api.read_node("gpu-node-a1")
    assert {c.type: c.status for c in node.status.conditions}["Ready"] == "True"
    with pytest.raises(ApiException) as err:
        api.read_node("missing-node")
    assert (
        err.value.status == 404 and json.loads(err.value.body)["message"] == 'nodes "missing-node" not found'
    )


@pytest.mark.parametrize("selector", ["involvedObject.name", "spec.color=red", "=x"])
def test_malformed_selector_is_400(sim: tuple[client.CoreV1Api, ControlPlane], selector: str) -> None:
    api, _ = sim
    with pytest.raises(ApiException) as err:
        api.list_namespaced_event(NS, field_selector=selector)
    assert err.value.status == 400


def test_forbidden_resources_are_403(tmp_path: Path) -> None:
    data = _oom_data()
    data["kubernetes"]["forbidden"] = ["pods", "pods/log", "events", "nodes"]
    cp = ControlPlane(parse_bundle(data))
    user = 'User "system:serviceaccount:runai-triage:reader"'
    with LoopbackServer(cp) as server:
        api = _api(tmp_path, server, cp.kube_token)
        calls = [
            (
                lambda: api.read_namespaced_pod(POD, NS),
                f'pods "{POD}" is forbidden: {user} cannot get resource "pods" in API group "" '
                f'in the namespace "{NS}"',
            ),
            (
                lambda: api.read_namespaced_pod_log(POD, NS, _preload_content=False),
                f'pods "{POD}" is forbidden: {user} cannot get resource "pods/log" in API group "" '
                f'in the namespace "{NS}"',
            ),
            (
                lambda: api.list_namespaced_event(NS),
                f'events is forbidden: {user} cannot list resource "events" in API group "" '
                f'in the namespace "{NS}"',
            ),
            (
                lambda: api.list_event_for_all_namespaces(),
                f'events is forbidden: {user} cannot list resource "events" in API group "" '
                "at the cluster scope",
            ),
            (
                lambda: api.read_node("gpu-node-a1"),
                f'nodes "gpu-node-a1" is forbidden: {user} cannot get resource "nodes" in API group "" '
                "at the cluster scope",
            ),
        ]
        for call, message in calls:
            with pytest.raises(ApiException) as err:
                call()
            assert err.value.status == 403
            body = json.loads(err.value.body)
            assert (body["kind"], body["reason"], body["code"], body["message"]) == (
                "Status",
                "Forbidden",
                403,
                message,
            )


def test_wrong_kube_token_is_401(tmp_path: Path) -> None:
    cp = ControlPlane(parse_bundle(_oom_data()))
    with LoopbackServer(cp) as server:
        api = _api(tmp_path, server, cp.issue_token())  # a Run:ai token is not a Kubernetes credential
        with pytest.raises(ApiException) as err:
            api.read_namespaced_pod(POD, NS)
        assert err.value.status == 401


def test_bundle_without_kubernetes_answers_not_found(tmp_path: Path) -> None:
    data = _oom_data()
    del data["kubernetes"]
    cp = ControlPlane(parse_bundle(data))
    assert not cp.has_kubernetes
    with LoopbackServer(cp) as server:
        api = _api(tmp_path, server, cp.kube_token)
        with pytest.raises(ApiException) as err:
            api.read_namespaced_pod(POD, NS)
        assert err.value.status == 404


def test_kube_faults_apply(tmp_path: Path) -> None:
    data = _oom_data()
    data["faults"] = [{"match": "GET /api/v1/namespaces/{ns}/pods/{name}", "status": 503, "times": 1}]
    cp = ControlPlane(parse_bundle(data))
    with LoopbackServer(cp) as server:
        api = _api(tmp_path, server, cp.kube_token)
        with pytest.raises(ApiException) as err:
            api.read_namespaced_pod(POD, NS)
        assert err.value.status == 503
        assert api.read_namespaced_pod(POD, NS).metadata.name == POD


def test_kube_write_is_405(tmp_path: Path) -> None:
    cp = ControlPlane(parse_bundle(_oom_data()), audited=False)
    with LoopbackServer(cp) as server:
        api = _api(tmp_path, server, cp.kube_token)
        with pytest.raises(ApiException) as err:
            api.delete_namespaced_pod(POD, NS)
        assert err.value.status == 405
    assert cp.requests[-1].method == "DELETE"
