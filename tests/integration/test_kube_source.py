"""Tier 2 end to end: the real kubernetes client against the simulated Kubernetes API over loopback."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from core.models.kube import K8sEvent, K8sNode, K8sPod
from core.sim.bundle import load_bundle, parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.kubeconfig import write_kubeconfig
from core.sim.loopback import LoopbackServer
from core.sources.evidence import Missing
from core.sources.kube import (
    LOG_TAIL_LINES,
    MAX_LOG_LINE_CHARS,
    KubeEvents,
    KubeSource,
    LogExcerpt,
    choose_log_container,
)
from core.sources.kube_config import KubeConnection, KubeSettings, build_configuration
from core.sources.namespace import resolve_namespace
from tests.paths import CASES

EXAMPLE_OOM = CASES / "example-oom.json"
CAPTURED = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
NS = "team-a"  # a linked namespace, deliberately not runai-<project>
POD = "trainer-0-0"
UID = "6a1f0c9e-0000-4000-8000-000000000001"
OLD_UID = "6a1f0c9e-0000-4000-8000-0000000000aa"
NODE = "gpu-node-7"


def _status(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "image": "img", "ready": False, "restartCount": 0, "state": {}, "lastState": {}, **fields}


def _pod(name: str, containers: list[str], statuses: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    uid = extra.pop("uid", f"uid-{name}")
    init = extra.pop("init", None)
    init_statuses = extra.pop("init_statuses", None)
    annotations = extra.pop("annotations", {})
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": NS, "uid": uid, "annotations": annotations},
        "spec": {"nodeName": NODE, "containers": [{"name": c, "image": "img"} for c in containers]},
        "status": {"phase": "Running", "containerStatuses": statuses},
    }
    if init:
        pod["spec"]["initContainers"] = [{"name": c, "image": "img"} for c in init]
        pod["status"]["initContainerStatuses"] = init_statuses or []
    return pod


def _event(name: str, uid: str, reason: str, message: str, *, ns: str = NS, kind: str = "Pod", count: int = 1,
           first: str = "2026-11-30T11:40:00Z", last: str = "2026-11-30T11:50:00Z") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.{reason.lower()}.{uid[-4:]}", "namespace": ns},
        "involvedObject": {"kind": kind, "name": name, "namespace": ns if kind == "Pod" else "", "uid": uid},
        "reason": reason,
        "message": message,
        "type": "Warning",
        "count": count,
        "firstTimestamp": first,
        "lastTimestamp": last,
        "source": {"component": "kubelet", "host": NODE},
    }


HOSTILE_LOG = "worker log\n\x1b]8;;http://evil.example\x07click\x1b]8;;\x07 password=hunter2hunter2\n"
OOM_LAST_STATE = {"terminated": {"reason": "OOMKilled", "exitCode": 137, "finishedAt": "2026-11-30T11:50:00Z"}}


def _bundle(*, forbidden: list[str] | None = None, faults: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    long_line = "x" * (MAX_LOG_LINE_CHARS + 500)
    many_lines = "".join(f"line {i}\n" for i in range(700)) + long_line + "\n"
    kube: dict[str, Any] = {
        "pods": [
            _pod(
                POD,
                ["main", "istio-proxy"],
                [
                    _status(
                        "main", restartCount=3, state={"waiting": {"reason": "CrashLoopBackOff"}},
                        lastState=OOM_LAST_STATE,
                    ),
                    _status("istio-proxy", ready=True, state={"running": {"startedAt": "2026-11-30T10:00:00Z"}}),
                ],
                uid=UID,
            ),
            _pod(
                "init-fail-0",
                ["main"],
                [_status("main", state={"waiting": {"reason": "PodInitializing"}})],
                init=["fetch-data"],
                init_statuses=[
                    _status("fetch-data", state={"terminated": {"reason": "Error", "exitCode": 2}}),
                ],
            ),
            _pod(
                "annotated-0",
                ["helper", "worker"],
                [_status("helper"), _status("worker")],
                annotations={"kubectl.kubernetes.io/default-container": "worker"},
            ),
            _pod("chatty-0", ["main"], [_status("main", state={"running": {}})]),
            # Restarted, but the kubelet kept no previous instance: --previous answers 400, current is shown.
            _pod(
                "restarted-0",
                ["main"],
                [_status("main", restartCount=2, state={"running": {}}, lastState=OOM_LAST_STATE)],
            ),
            _pod("pulling-0", ["main"], [_status("main", state={"waiting": {"reason": "ImagePullBackOff"}})]),
        ],
        "logs": [
            {"namespace": NS, "pod": POD, "container": "main", "previous": True,
             "text": "loading shards\nRuntimeError: DataLoader worker (pid 77) is killed by signal: Killed.\n"},
            {"namespace": NS, "pod": POD, "container": "main", "previous": False, "text": "restarting\n"},
            {"namespace": NS, "pod": "init-fail-0", "container": "fetch-data", "previous": False,
             "text": "fetching s3://bucket/data\nerror: access denied\n"},
            {"namespace": NS, "pod": "annotated-0", "container": "worker", "previous": True, "text": HOSTILE_LOG},
            {"namespace": NS, "pod": "chatty-0", "container": "main", "previous": True, "text": many_lines},
            {"namespace": NS, "pod": "restarted-0", "container": "main", "previous": False, "text": "up again\n"},
        ],
        "events": [
            _event(POD, UID, "BackOff", "Back-off restarting failed container main", count=5),
            _event(POD, UID, "Killing", "Stopping container main", count=1, last="2026-11-30T11:45:00Z"),
            # Same pod name, earlier incarnation: must be dropped by uid.
            _event(POD, OLD_UID, "Failed", "old pod failed", first="2026-11-30T09:00:00Z",
                   last="2026-11-30T09:05:00Z"),
            # Same pod name in another namespace: the field selector must exclude it.
            _event(POD, "uid-elsewhere", "Failed", "other namespace", ns="team-b"),
            _event(NODE, "node-uid-7", "OOMKilling",
                   "Memory cgroup out of memory: Killed process 4242 (python)", ns="default", kind="Node"),
        ],
        "nodes": [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": NODE, "uid": "node-uid-7"},
                "spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]},
                "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}],
                           "futureField": {"kept": True}},
            }
        ],
    }
    if forbidden:
        kube["forbidden"] = forbidden
    return {
        "format": "runai-triage/case@1",
        "capturedAt": CAPTURED.isoformat().replace("+00:00", "Z"),
        "workloads": [],
        "kubernetes": kube,
        "faults": faults or [],
    }


class Sim:
    """A control plane on loopback plus a KubeSource connected through a kubeconfig, as a user would. Its timeouts
    are generous (a loaded CI machine answers loopback late); a test of a timeout gives its own."""

    def __init__(self, bundle: dict[str, Any] | Path, tmp: Path, *, token: str | None = None,
                 read_timeout: float = 15.0) -> None:
        parsed = load_bundle(bundle) if isinstance(bundle, Path) else parse_bundle(bundle)
        self.plane = ControlPlane(parsed)
        self.server = LoopbackServer(self.plane)
        self.url = self.server.start()
        kubeconfig = write_kubeconfig(tmp / "kubeconfig", self.url, token or self.plane.kube_token)
        settings = KubeSettings(kubeconfig=kubeconfig, connect_timeout=5.0, read_timeout=read_timeout)
        connection = build_configuration(settings, env={}, home=tmp)
        assert isinstance(connection, KubeConnection), connection
        self.connection = connection
        self.source = KubeSource(connection)

    def close(self) -> None:
        self.source.close()
        self.server.stop()

    def queries(self, path: str) -> list[dict[str, str]]:
        return [dict(r.query) for r in self.plane.requests if r.path == path]

    def assert_only_reads(self) -> None:
        requests = self.plane.requests
        assert requests, "no request reached the simulator"
        assert {r.method for r in requests} == {"GET"}
        assert not [r for r in requests if "secrets" in r.path]


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[Sim]:
    s = Sim(_bundle(), tmp_path)
    yield s
    s.assert_only_reads()
    s.close()


def _ok(value: Any, kind: type) -> Any:
    assert not isinstance(value, Missing), value
    assert isinstance(value, kind), value
    return value


def _gap(value: Any) -> Missing:
    assert isinstance(value, Missing), value
    assert value.what and value.why and value.source
    return value


# -- every read ---------------------------------------------------------------------------------------------------
async def test_reads_pod_logs_events_and_node_concurrently(sim: Sim) -> None:
    pod = _ok(await sim.source.pod(NS, POD), K8sPod)
    logs, events, node_events, node = await asyncio.gather(
        sim.source.logs(pod),
        sim.source.pod_events(NS, POD, pod.metadata.uid, failed_at=CAPTURED - timedelta(minutes=10), now=CAPTURED),
        sim.source.node_events(NODE, failed_at=CAPTURED - timedelta(minutes=10), now=CAPTURED),
        sim.source.node(NODE),
    )
    assert pod.status.container_statuses[0].last_state.terminated.exit_code == 137

    logs = _ok(logs, LogExcerpt)
    assert (logs.container, logs.previous, logs.note) == ("main", True, None)
    assert logs.lines[-1] == "RuntimeError: DataLoader worker (pid 77) is killed by signal: Killed."
    assert logs.source == "kubectl logs --previous"
    assert "OOMKilled" in (logs.reason or "")

    events = _ok(events, KubeEvents)
    assert [e.reason for e in events.items] == ["Killing", "BackOff"]  # oldest first, stale one gone
    assert events.dropped_stale == 1
    backoff = events.items[1]
    assert backoff.count == 5 and backoff.first_timestamp < backoff.last_timestamp

    node_events = _ok(node_events, KubeEvents)
    assert [e.reason for e in node_events.items] == ["OOMKilling"]
    assert all(isinstance(e, K8sEvent) for e in node_events.items)

    node = _ok(node, K8sNode)
    assert node.condition("Ready").status == "False"
    assert node.status.model_extra["futureField"] == {"kept": True}  # unknown fields tolerated and kept


async def test_exact_field_selectors_and_log_bounds_are_sent(sim: Sim) -> None:
    pod = _ok(await sim.source.pod(NS, POD), K8sPod)
    await sim.source.logs(pod)
    await sim.source.pod_events(NS, POD, UID)
    await sim.source.node_events(NODE)
    assert sim.queries(f"/api/v1/namespaces/{NS}/events") == [
        {"fieldSelector": f"involvedObject.name={POD},involvedObject.namespace={NS}"}
    ]
    assert sim.queries("/api/v1/events") == [{"fieldSelector": f"involvedObject.kind=Node,involvedObject.name={NODE}"}]
    assert sim.queries(f"/api/v1/namespaces/{NS}/pods/{POD}/log") == [
        {"container": "main", "previous": "true", "tailLines": "500", "limitBytes": str(1024 * 1024)}
    ]


# -- log container choice and bounds -----------------------------------------------------------------------------
async def test_failing_init_container_log_with_current_fallback_labelled(sim: Sim) -> None:
    pod = _ok(await sim.source.pod(NS, "init-fail-0"), K8sPod)
    logs = _ok(await sim.source.logs(pod), LogExcerpt)
    assert logs.container == "fetch-data"
    assert logs.previous is False
    # It never restarted: the instance that failed is the current one, read at once (no doomed --previous).
    assert logs.note is not None and "never restarted" in logs.note
    assert logs.lines == ["fetching s3://bucket/data", "error: access denied"]
    assert logs.source == "kubectl logs"
    queries = sim.queries(f"/api/v1/namespaces/{NS}/pods/init-fail-0/log")
    assert [q["previous"] for q in queries] == ["false"]


async def test_missing_previous_instance_falls_back_to_the_current_one_labelled(sim: Sim) -> None:
    pod = _ok(await sim.source.pod(NS, "restarted-0"), K8sPod)
    logs = _ok(await sim.source.logs(pod), LogExcerpt)
    assert (logs.container, logs.previous, logs.lines) == ("main", False, ["up again"])
    assert logs.note is not None and "no previous instance" in logs.note
    assert 'previous terminated container "main"' in logs.note
    queries = sim.queries(f"/api/v1/namespaces/{NS}/pods/restarted-0/log")
    assert [q["previous"] for q in queries] == ["true", "false"]


async def test_default_container_annotation_is_honoured(sim: Sim) -> None:
    pod = _ok(await sim.source.pod(NS, "annotated-0"), K8sPod)
    logs = _ok(await sim.source.logs(pod), LogExcerpt)
    assert logs.container == "worker" and logs.lines[0] == "worker log"
    # Hostile text arrives neutralised: escape sequences made visible, the credential redacted.
    assert all("\x1b" not in line and "\x07" not in line for line in logs.lines)
    assert "\\x1b]8;;" in logs.lines[1]
    assert "hunter2" not in logs.lines[1] and "redacted" in logs.lines[1]


async def test_log_is_bounded_to_the_tail_with_overlong_lines_cut(sim: Sim) -> None:
    pod = _ok(await sim.source.pod(NS, "chatty-0"), K8sPod)
    logs = _ok(await sim.source.logs(pod), LogExcerpt)
    assert len(logs.lines) == LOG_TAIL_LINES
    assert logs.truncated is True
    assert logs.lines[0] == "line 201"
    last = logs.lines[-1]
    assert len(last) <= MAX_LOG_LINE_CHARS
    assert last.startswith("x" * 1900)
    assert re.search(r"… \[\+\d+ chars\]$", last)


async def test_no_log_at_all_quotes_both_kubelet_messages(sim: Sim) -> None:
    pod = _ok(await sim.source.pod(NS, "pulling-0"), K8sPod)
    gap = _gap(await sim.source.logs(pod))
    assert "no previous terminated instance" in gap.why
    assert "still waiting to start" in gap.why and "ImagePullBackOff" in gap.why


def test_container_choice_skips_a_healthy_sidecar_and_prefers_the_failed_one() -> None:
    pod = K8sPod.model_validate(
        _pod("p", ["istio-proxy", "a", "b"], [
            _status("istio-proxy", state={"running": {}}),
            _status("a", state={"running": {}}),
            _status("b", state={"terminated": {"reason": "Error", "exitCode": 3}}),
        ])
    )
    choice = choose_log_container(pod)
    assert choice is not None and choice.name == "b" and "exited 3" in choice.reason


def test_container_choice_without_failures_avoids_sidecars() -> None:
    pod = K8sPod.model_validate(
        _pod("p", ["linkerd-proxy", "runai-sidecar-x", "app"], [_status("app", state={"running": {}})])
    )
    choice = choose_log_container(pod)
    assert choice is not None and choice.name == "app"
    assert choose_log_container(K8sPod.model_validate({"metadata": {"name": "p"}})) is None


async def test_log_bytes_are_decoded_with_replacement(tmp_path: Path) -> None:
    # A fault body is sent raw, so it can carry bytes that are not UTF-8 (surrogatepass makes them so).
    fault = {"match": f"GET /api/v1/namespaces/{NS}/pods/{POD}/log", "status": 200, "times": 1,
             "body": "ok line\n\udcff\udcfe broken\n"}
    s = Sim(_bundle(faults=[fault]), tmp_path)
    try:
        pod = _ok(await s.source.pod(NS, POD), K8sPod)
        logs = _ok(await s.source.logs(pod), LogExcerpt)
        assert logs.lines[0] == "ok line"
        assert "\ufffd" in logs.lines[1] and logs.lines[1].endswith("broken")
    finally:
        s.close()


# -- events expire ------------------------------------------------------------------------------------------------
async def test_no_events_for_an_old_failure_means_expired_not_nothing(sim: Sim) -> None:
    gap = _gap(await sim.source.pod_events(NS, "init-fail-0", "uid-init-fail-0",
                                           failed_at=CAPTURED - timedelta(hours=3), now=CAPTURED))
    assert "is 3 h old" in gap.why and "likely expired" in gap.why
    assert "keeps events 60 min by default" in gap.why
    assert gap.source == "kubectl get events"


async def test_no_events_for_a_recent_failure_is_an_empty_list(sim: Sim) -> None:
    found = _ok(await sim.source.pod_events(NS, "init-fail-0", "uid-init-fail-0",
                                            failed_at=CAPTURED - timedelta(minutes=20), now=CAPTURED), KubeEvents)
    assert found.items == []


# -- example-oom.json --------------------------------------------------------------------------------------------
async def test_example_oom_case(tmp_path: Path) -> None:
    s = Sim(EXAMPLE_OOM, tmp_path)
    try:
        workload = json.loads(EXAMPLE_OOM.read_text())["workloads"][0]["workload"]
        choice = resolve_namespace(workload["namespace"], None, [], workload["projectName"])
        pod = _ok(await s.source.pod(choice, "whisper-ft-0-0"), K8sPod)
        term = pod.status.container_statuses[0].state.terminated
        assert (term.reason, term.exit_code) == ("OOMKilled", 137)
        logs = _ok(await s.source.logs(pod), LogExcerpt)
        # Never restarted: no previous instance, so the current one is shown and labelled as such.
        assert (logs.container, logs.previous, logs.lines) == ("main", False, ["epoch 1 step 900 loss 0.41"])
        failed = datetime(2026, 11, 30, 11, 25, tzinfo=UTC)
        recent = _ok(await s.source.pod_events("runai-speech", "whisper-ft-0-0", pod.metadata.uid,
                                               failed_at=failed, now=CAPTURED), KubeEvents)
        assert recent.items == []
        later = _gap(await s.source.pod_events("runai-speech", "whisper-ft-0-0", pod.metadata.uid,
                                               failed_at=failed, now=CAPTURED + timedelta(hours=2)))
        assert "likely expired" in later.why
        node = _ok(await s.source.node(pod.spec.node_name), K8sNode)
        assert node.condition("MemoryPressure").status == "False"
        s.assert_only_reads()
    finally:
        s.close()


# -- every error path ---------------------------------------------------------------------------------------------
async def test_wrong_token_is_401_credentials_refused(tmp_path: Path) -> None:
    s = Sim(_bundle(), tmp_path, token="not-the-token")
    try:
        gap = _gap(await s.source.pod(NS, POD))
        assert gap.why.startswith("credentials refused (401): check the kubeconfig user")
        assert "not-the-token" not in gap.why
        assert [r.status for r in s.plane.requests] == [401]
    finally:
        s.close()


async def test_rbac_denials_name_verb_resource_and_namespace(tmp_path: Path) -> None:
    s = Sim(_bundle(forbidden=["pods/log", "events", "nodes"]), tmp_path)
    try:
        pod = _ok(await s.source.pod(NS, POD), K8sPod)
        logs = _gap(await s.source.logs(pod))
        assert logs.why == f"RBAC denies get on pods/log in namespace {NS} (403)"
        events = _gap(await s.source.pod_events(NS, POD, UID))
        assert events.why == f"RBAC denies list on events in namespace {NS} (403)"
        node_events = _gap(await s.source.node_events(NODE))
        assert node_events.why == "RBAC denies list on events at cluster scope (403)"
        node = _gap(await s.source.node(NODE))
        assert node.why == "RBAC denies get on nodes at cluster scope (403)"
        # A denied --previous is not a 400: no fallback read of the current log.
        assert len(s.queries(f"/api/v1/namespaces/{NS}/pods/{POD}/log")) == 1
        s.assert_only_reads()
    finally:
        s.close()


async def test_forbidden_pod_read(tmp_path: Path) -> None:
    s = Sim(_bundle(forbidden=["pods"]), tmp_path)
    try:
        gap = _gap(await s.source.pod(NS, POD))
        assert gap.why == f"RBAC denies get on pods in namespace {NS} (403)"
    finally:
        s.close()


async def test_404_means_deleted_unless_the_namespace_was_assumed(sim: Sim) -> None:
    known = _gap(await sim.source.pod(NS, "gone-0"))
    assert "probably deleted" in known.why and "Run:ai history" in known.why
    assumed = resolve_namespace(None, None, [], "nlp")
    assert assumed.assumed
    guessed = _gap(await sim.source.pod(assumed, POD))
    assert "namespace may be wrong" in guessed.why and "runai-nlp" in guessed.why
    assert "deleted" not in guessed.why
    gone_node = _gap(await sim.source.node("gpu-node-99"))
    assert "not found (404)" in gone_node.why


async def test_malformed_body_is_a_gap_naming_the_problem(tmp_path: Path) -> None:
    fault = {"match": f"GET /api/v1/namespaces/{NS}/pods/{POD}", "status": 200, "times": 1, "body": '{"metadata": '}
    s = Sim(_bundle(faults=[fault]), tmp_path)
    try:
        gap = _gap(await s.source.pod(NS, POD))
        assert gap.why.startswith("malformed answer: pod: malformed JSON at line 1")
    finally:
        s.close()


async def test_one_5xx_is_retried_once_and_then_succeeds(tmp_path: Path) -> None:
    fault = {"match": f"GET /api/v1/nodes/{NODE}", "status": 503, "times": 1}
    s = Sim(_bundle(faults=[fault]), tmp_path)
    try:
        _ok(await s.source.node(NODE), K8sNode)
        assert [r.status for r in s.plane.requests] == [503, 200]
    finally:
        s.close()


async def test_persistent_5xx_gives_up_after_exactly_one_retry(tmp_path: Path) -> None:
    fault = {"match": f"GET /api/v1/nodes/{NODE}", "status": 500, "times": 5}
    s = Sim(_bundle(faults=[fault]), tmp_path)
    try:
        gap = _gap(await s.source.node(NODE))
        assert "failed (HTTP 500) on both attempts" in gap.why
        assert [r.status for r in s.plane.requests] == [500, 500]
    finally:
        s.close()


async def test_hung_endpoint_gives_up_within_its_read_timeout(tmp_path: Path) -> None:
    fault = {"match": f"GET /api/v1/namespaces/{NS}/pods/{POD}", "status": 0, "delayMs": 3000, "times": 1}
    s = Sim(_bundle(faults=[fault]), tmp_path, read_timeout=0.3)
    try:
        started = time.monotonic()
        gap = _gap(await s.source.pod(NS, POD))
        elapsed = time.monotonic() - started
        assert gap.why.startswith("read timeout after 0.3s")
        assert elapsed < 0.3 + 0.7, elapsed
        assert len(s.plane.requests) == 1  # a read timeout is never retried
    finally:
        s.close()


async def test_unreachable_api_server_on_a_closed_port(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    kubeconfig = write_kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{port}", "token")
    connection = build_configuration(
        KubeSettings(kubeconfig=kubeconfig, connect_timeout=0.5, read_timeout=0.5), env={}, home=tmp_path
    )
    assert isinstance(connection, KubeConnection)
    source = KubeSource(connection)
    try:
        started = time.monotonic()
        results = await asyncio.gather(source.pod(NS, POD), source.node(NODE), source.node_events(NODE))
        assert time.monotonic() - started < 2.0
        for result in results:
            gap = _gap(result)
            assert gap.why.startswith(f"API server unreachable at 127.0.0.1:{port}: connection refused")
    finally:
        source.close()


async def test_invalid_names_are_refused_without_a_request(sim: Sim) -> None:
    gap = _gap(await sim.source.pod(NS, "../../secrets/x"))
    assert "not a valid pod name" in gap.why
    gap = _gap(await sim.source.pod("Bad NS", POD))
    assert "not a valid namespace name" in gap.why
    none = resolve_namespace(None, None, [], None)
    gap = _gap(await sim.source.pod(none, POD))
    assert gap.why.startswith("no namespace to look in")
    await sim.source.node(NODE)  # one real read so the fixture's audit has something to check
    assert [r.path for r in sim.plane.requests] == [f"/api/v1/nodes/{NODE}"]
