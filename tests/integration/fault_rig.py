"""Shared rig for the robustness tests: a case bundle with injected faults, served on loopback, read by the
real clients with short deadlines so a hang or a trickle costs a fraction of a second.

Every endpoint a diagnosis reads is listed in ENDPOINTS with the case that makes the engine read it, and every
fault kind of the matrix in FAULTS as the bundle `faults` item it becomes.
"""

from __future__ import annotations

import copy
import json
import socket
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.fault_kinds import gzip_bomb
from core.sim.kubeconfig import write_kubeconfig
from core.sim.loopback import LoopbackServer
from core.sources.credentials import BearerToken
from core.sources.kube_config import KubeConnection, build_configuration
from core.sources.kube_types import KubeSettings
from core.sources.retry import RetryPolicy
from core.sources.runai import RunaiClient
from core.tenant import Tenant
from tests.paths import CASES

OOM_CASE = CASES / "example-oom.json"
OOM_ID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"
OOM_CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
NODE_CASE = CASES / "rules" / "conflict-137-and-node-notready.json"
NODE_ID = "cb0a9fb3-87c9-5f10-8dfd-cc65c39fb52a"
NODE_CLUSTER = "5b77e6d6-7b53-5206-9a65-c6331d0e09cc"

# Short limits: a hang ends at the read timeout, a trickle at the request deadline, retries within the call's.
# Long enough that a fast fault (a reset, a garbage status line) is still told apart from a slow one when the
# machine is busy running other tests.
READ_TIMEOUT_S = 1.0
REQUEST_DEADLINE_S = 1.5
CALL_DEADLINE_S = 2.5
KUBE_DEADLINE_S = 1.5
HTTP_TIMEOUT = httpx.Timeout(2.0, read=READ_TIMEOUT_S)
# For a test of a size limit, not of time: deadlines a loaded machine cannot miss reading a few MiB.
PATIENT: dict[str, object] = {
    "timeout": httpx.Timeout(20.0),
    "request_deadline_s": 20.0,
    "call_deadline_s": 30.0,
}
RETRY = RetryPolicy(base_delay_s=0.05, max_delay_s=0.1, retry_after_cap_s=0.1, budget_s=1.0)
MAX_BODY = 8 * 1024 * 1024
# Built once here, not under the simulator's lock in the middle of a timed read.
gzip_bomb(1 << 30)


@dataclass(frozen=True)
class Endpoint:
    name: str
    match: str  # the fault's "<METHOD> <template>"
    case: Path
    workload_id: str
    cluster_id: str
    primary: bool = False  # a read everything depends on: its failure may end the diagnosis
    by_name: bool = False  # read only when the workload is looked up by name (Option B)
    kube: bool = False
    source: str = ""  # the report's name for this read


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("list workloads", "GET /api/v1/workloads", OOM_CASE, OOM_ID, OOM_CLUSTER, primary=True, by_name=True,
             source="list_workloads"),
    Endpoint("workload", "GET /api/v1/workloads/{id}", OOM_CASE, OOM_ID, OOM_CLUSTER, primary=True,
             source="get_workload_status"),
    Endpoint("events", "GET /api/v1/workloads/{id}/events", OOM_CASE, OOM_ID, OOM_CLUSTER,
             source="get_workload_status"),
    Endpoint("spec", "GET /api/v1/workloads/trainings/{id}", OOM_CASE, OOM_ID, OOM_CLUSTER,
             source="get_workload_spec"),
    Endpoint("pods", "GET /api/v1/workloads/{id}/pods", OOM_CASE, OOM_ID, OOM_CLUSTER, source="get_workload_pods"),
    Endpoint("history", "GET /api/v1/workloads/{id}/history", OOM_CASE, OOM_ID, OOM_CLUSTER,
             source="get_workload_history"),
    Endpoint("metrics", "GET /api/v1/workloads/{id}/metrics", OOM_CASE, OOM_ID, OOM_CLUSTER,
             source="get_workload_metrics"),
    Endpoint("kube pod", "GET /api/v1/namespaces/{ns}/pods/{name}", OOM_CASE, OOM_ID, OOM_CLUSTER, kube=True,
             source="kubectl describe pod"),
    Endpoint("kube pod events", "GET /api/v1/namespaces/{ns}/events", OOM_CASE, OOM_ID, OOM_CLUSTER, kube=True,
             source="kubectl get events"),
    Endpoint("kube node events", "GET /api/v1/events", OOM_CASE, OOM_ID, OOM_CLUSTER, kube=True,
             source="kubectl get events"),
    Endpoint("kube log", "GET /api/v1/namespaces/{ns}/pods/{name}/log", OOM_CASE, OOM_ID, OOM_CLUSTER, kube=True,
             source="kubectl logs --previous"),
    Endpoint("kube node", "GET /api/v1/nodes/{name}", NODE_CASE, NODE_ID, NODE_CLUSTER, kube=True,
             source="kubectl describe node"),
)

# Reads added with multi-pod workloads and infrastructure findings, tried end to end only: each on a case that
# makes it. Every one is secondary: its failure is a stated gap and the diagnosis carries on.
MULTIPOD = CASES / "multipod"
SECONDARY_E2E: tuple[Endpoint, ...] = (
    Endpoint("clusters list", "GET /api/v1/clusters", OOM_CASE, OOM_ID, OOM_CLUSTER, source="list_clusters"),
    Endpoint("name's other submissions", "GET /api/v1/workloads", OOM_CASE, OOM_ID, OOM_CLUSTER,
             source="list_workloads"),
    Endpoint("pod metrics", "GET /api/v1/workloads/{id}/pods/{pod}/metrics", MULTIPOD / "per-pod-memory.json",
             "b0d6d05d-7ee9-56e2-8ddb-34b856a5b0d7", NODE_CLUSTER, source="get_workload_metrics"),
    Endpoint("v2 spec", "GET /api/v2/workloads/{id}", MULTIPOD / "spec-v2-mpijob.json",
             "1271fc39-650c-5a52-a94a-39a3fa393c92", NODE_CLUSTER, source="get_workload_spec"),
    Endpoint("inference revisions", "GET /api/v1/workloads/inferences/{id}/revisions",
             MULTIPOD / "inference-revision-not-covered.json", "983b471b-1802-5939-b28a-d0aca92055cc", NODE_CLUSTER,
             source="get_workload_pods"),
    Endpoint("kube pods on node", "GET /api/v1/pods", CASES / "infra" / "gpu-xid48-node-event.json",
             "079b1c6d-f363-5823-9d85-1944b9bcb370", NODE_CLUSTER, kube=True,
             source="kubectl get pods --all-namespaces --field-selector spec.nodeName"),
)

# The fault matrix's columns, as bundle fault items (without "match"). A persistent fault: every attempt gets it.
FAULTS: dict[str, dict[str, Any]] = {
    "reset": {"status": 0},
    "protocol error": {"status": 200, "kind": "garbage-status"},
    "500": {"status": 500},
    "429 Retry-After": {"status": 429, "retryAfter": 1},
    "hang": {"status": 0, "delayMs": 6000},
    "trickle": {"status": 200, "kind": "trickle", "intervalMs": 100},
    "trickle head": {"status": 200, "kind": "trickle-head", "intervalMs": 100},
    "truncated": {"status": 200, "kind": "truncated"},
    "oversized": {"status": 200, "kind": "oversized"},
    "endless": {"status": 200, "kind": "endless"},
    "gzip bomb": {"status": 200, "kind": "gzip-bomb"},
    "deep JSON": {"status": 200, "kind": "deep-json", "depth": 5000},
    "HTML 200": {"status": 200, "kind": "html"},
    "wrong shape": {"status": 200, "kind": "wrong-shape"},
    "huge page": {"status": 200, "kind": "huge-page", "items": 600},
}
# Faults the tolerant parsers absorb: the read succeeds (values dropped or items cut, and said so).
ABSORBED = frozenset({"deep JSON", "huge page"})


def bundle_with(case: Path, faults: list[dict[str, Any]]) -> dict[str, Any]:
    data = json.loads(case.read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    data["faults"] = faults
    return data


def fault_item(endpoint: Endpoint, fault: str, times: int = 99) -> dict[str, Any]:
    return {"match": endpoint.match, "times": times, **FAULTS[fault]}


@dataclass
class Served:
    plane: ControlPlane
    url: str
    kubeconfig: Path

    def runai(self, **overrides: Any) -> RunaiClient:
        options: dict[str, Any] = {
            "timeout": HTTP_TIMEOUT,
            "retry": RETRY,
            "request_deadline_s": REQUEST_DEADLINE_S,
            "call_deadline_s": CALL_DEADLINE_S,
            "max_body_bytes": MAX_BODY,
        }
        options.update(overrides)
        return RunaiClient(self.url, BearerToken(self.plane.issue_token()), **options)

    def kube_connection(self, deadline: float = KUBE_DEADLINE_S) -> KubeConnection:
        settings = KubeSettings(
            kubeconfig=self.kubeconfig,
            in_cluster=False,
            connect_timeout=1.0,
            read_timeout=READ_TIMEOUT_S,
            deadline=deadline,
        )
        connection = build_configuration(settings, env={})
        assert isinstance(connection, KubeConnection), connection
        return connection

    def tenant(self) -> Tenant:
        from core.sources.kube import KubeSource

        return Tenant("fault rig", self.runai(), kube=KubeSource(self.kube_connection()))


@contextmanager
def served(bundle: dict[str, Any]) -> Iterator[Served]:
    plane = ControlPlane(parse_bundle(bundle))
    server = LoopbackServer(plane)
    url = server.start()
    with tempfile.TemporaryDirectory(prefix="fault-rig-") as tmp:
        kubeconfig = Path(tmp) / "kubeconfig"
        write_kubeconfig(kubeconfig, url, plane.kube_token)
        try:
            yield Served(plane, url, kubeconfig)
        finally:
            server.stop()


class Recorder:
    """A TCP server that records every connection and every byte, and answers any request with an empty 200."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.port = self._listener.getsockname()[1]
        self.connections = 0
        self.received = bytearray()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(2.0)
        with conn:
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                    with self._lock:
                        self.received += chunk
                body = b'{"kind": "Status"}'
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
            except OSError:
                return

    def nothing_reached(self) -> bool:
        with self._lock:
            return self.connections == 0 and not self.received

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        self._thread.join(timeout=2)
