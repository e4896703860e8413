"""Recorded answers -> a `runai-triage/case@1` bundle that a simulated tenant answers the same way.

Each answer goes where case-format.md says a server built on a bundle finds it: a workload read to its entry's
`workload`, its events, spec, pods, history and metrics beside it (pages and metric windows merged), the
Kubernetes pod, log, events and node to `kubernetes`, and the pods a list read named (the pods on a node) to
`kubernetes.pods`, which answers pod lists as well. What the server could not reproduce from data is a
fault on the exact path, in the order it happened: an HTTP error (its status, body and Retry-After), an
answer that could not be read (its status and body as they came), no answer at all (status 0: the connection
is dropped, at once). A 403 from Kubernetes on a read by name is its resource in `forbidden`; a refused list
is a fault on its path (a role may list nowhere and still get pods by name); a 404 or a log's 400 is simply
absence, which the simulated server answers the same way. An answer that has no place in case@1 is a fault
too, one that says it was not recorded: the replay then shows a failed read, never an empty answer.

Redaction is the caller's (core.record.redact), over the whole result.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from core.models.json_keys import decode_unique, first_duplicate, object_pairs
from core.record.tap import Exchange

FORMAT = "runai-triage/case@1"
REQUIRED_WORKLOAD_KEYS = ("id", "name", "clusterId", "projectName", "phase", "phaseUpdatedAt")

_SPEC_KINDS = "trainings|workspaces|distributed|inferences|distributed-inferences"
Table = list[tuple[str, re.Pattern[str]]]


def _table(*rows: tuple[str, str]) -> Table:
    return [(name, re.compile(pattern)) for name, pattern in rows]


_RUNAI = _table(
        ("clusters", r"/api/v1/clusters"),
        # Before "workload": `pods` is not a workload id.
        ("tenant-pods", r"/api/v1/workloads/pods"),
        ("nodes", r"/api/v1/nodes"),
        ("nodes", r"/api/v1/clusters/(?P<cluster>[^/]+)/nodes"),
        ("projects", r"/api/v1/org-unit/projects"),
        ("list", r"/api/v1/workloads"),
        ("count", r"/api/v1/workloads/count"),
        ("revisions", r"/api/v1/workloads/inferences/(?P<id>[^/]+)/revisions"),
        ("revision-part", r"/api/v1/workloads/inferences/revisions/(?P<rev>[^/]+)/(?P<part>pods|events|history)"),
        ("spec", rf"/api/v1/workloads/(?:{_SPEC_KINDS})/(?P<id>[^/]+)"),
        ("specV2", r"/api/v2/workloads/(?P<id>[^/]+)"),
        ("workload", r"/api/v1/workloads/(?P<id>[^/]+)"),
        ("part", r"/api/v1/workloads/(?P<id>[^/]+)/(?P<part>events|pods|history|metrics)"),
        ("podMetrics", r"/api/v1/workloads/(?P<id>[^/]+)/pods/(?P<pod>[^/]+)/metrics"),
)
_KUBE = _table(
        ("pods", r"/api/v1/namespaces/(?P<ns>[^/]+)/pods/(?P<name>[^/]+)"),
        ("pods/log", r"/api/v1/namespaces/(?P<ns>[^/]+)/pods/(?P<name>[^/]+)/log"),
        ("events", r"/api/v1/namespaces/(?P<ns>[^/]+)/events"),
        ("events", r"/api/v1/events"),
        ("nodes", r"/api/v1/nodes/(?P<name>[^/]+)"),
        ("pod-list", r"/api/v1/pods"),
        ("pod-list", r"/api/v1/namespaces/(?P<ns>[^/]+)/pods"),
)
# How often a read with no place in case@1 fails on replay: every time it is asked (retries included).
_UNRECORDED_TIMES = 1000
# Where a list endpoint's items are in its body.
_ITEMS = {"events": "events", "pods": "pods", "history": "records", "projects": "projects", "list": "workloads"}


def _route(table: Table, path: str) -> tuple[str, dict[str, str]] | None:
    for name, pattern in table:
        match = pattern.fullmatch(path)
        if match:
            return name, match.groupdict()
    return None


def _json(body: bytes) -> Any:
    """A body as JSON; unreadable also when an object in it gives one key different values (such a body is
    kept as a fault with its text, so the replay reads it as the diagnosis did)."""
    unique, data = decode_unique(body)
    if unique:
        return data
    try:
        data = json.loads(body.decode("utf-8"), object_pairs_hook=object_pairs)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _UNREADABLE
    return _UNREADABLE if first_duplicate(data) is not None else data


_UNREADABLE = object()


def _text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


def _merge(target: list[Any], items: list[Any]) -> None:
    """Append the items not already present (pages can overlap, reads can repeat)."""
    seen = {json.dumps(item, sort_keys=True) for item in target}
    for item in items:
        key = json.dumps(item, sort_keys=True)
        if key not in seen:
            seen.add(key)
            target.append(item)


def _pod_key(pod: Any) -> tuple[str, str] | None:
    meta = pod.get("metadata") if isinstance(pod, dict) else None
    if not isinstance(meta, dict):
        return None
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _merge_pods(target: list[Any], pods: list[Any]) -> None:
    """Pods by namespace and name: a pod read by name and listed again is one pod (the first answer kept)."""
    seen = {_pod_key(pod) for pod in target}
    for pod in pods:
        key = _pod_key(pod)
        if key is not None and key not in seen:
            seen.add(key)
            target.append(pod)


def _merge_series(target: list[dict[str, Any]], measurements: list[Any]) -> None:
    """Metric windows merged per (type, labels), each sample once by its timestamp, in time order."""
    for series in measurements:
        if not isinstance(series, dict) or not isinstance(series.get("type"), str):
            continue
        labels = series.get("labels")
        mine = next(
            (s for s in target if s["type"] == series["type"] and s.get("labels") == labels), None
        )
        if mine is None:
            mine = {"type": series["type"], "labels": labels, "values": []}
            target.append(mine)
        have = {v.get("timestamp") for v in mine["values"]}
        for value in series.get("values") or []:
            if isinstance(value, dict) and value.get("timestamp") not in have:
                have.add(value.get("timestamp"))
                mine["values"].append(value)
        mine["values"].sort(key=lambda v: str(v.get("timestamp")))


@dataclass
class BundleBuilder:
    captured_at: datetime
    kube: bool
    clusters: list[Any] | None = None
    projects: list[Any] = field(default_factory=list)
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    kubernetes: dict[str, list[Any]] = field(default_factory=lambda: {"pods": [], "events": [], "nodes": [],
                                                                      "logs": [], "forbidden": []})
    revisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    nodes: list[Any] = field(default_factory=list)  # Run:ai's nodes (the bundle's top-level `nodes`)
    faults: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reads: int = 0

    # -- entries -----------------------------------------------------------------------------------------
    def entry(self, workload_id: str) -> dict[str, Any]:
        return self.entries.setdefault(workload_id, {"workload": {"id": workload_id}})

    def _fault(self, exchange: Exchange) -> None:
        match = f"GET {exchange.path}"
        status = exchange.status if exchange.status is not None and exchange.complete else 0
        body = _text(exchange.body) if status else None
        last = self.faults[-1] if self.faults else None
        if last is not None and last["match"] == match and last["status"] == status and last.get("body") == body:
            last["times"] += 1
            return
        fault: dict[str, Any] = {"match": match, "status": status, "times": 1}
        if body is not None:
            fault["body"] = body
        if exchange.retry_after is not None:
            with contextlib.suppress(ValueError):  # an HTTP date is not replayed; the fault is
                fault["retryAfter"] = max(0.0, float(exchange.retry_after))
        if exchange.error:
            fault["recorded"] = exchange.error  # an added key: what the client saw (a reset replays it)
        self.faults.append(fault)

    def _unrecorded(self, exchange: Exchange, api: str) -> None:
        """An answer case@1 has no place for: noted, and replayed as a read that failed and says why."""
        why = f"{api} answer of GET {exchange.path} has no place in case@1 and was not kept"
        self.notes.append(f"{why}; the replay shows that read as failed")
        match = f"GET {exchange.path}"
        if any(f["match"] == match and f.get("recorded") == "not recorded" for f in self.faults):
            return
        message = f"not in this recording: the {why}"
        body = (
            {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
             "reason": "InternalError", "code": 500}
            if api == "a Kubernetes"
            else {"code": 500, "message": message}
        )
        self.faults.append(
            {"match": match, "status": 500, "times": _UNRECORDED_TIMES, "body": json.dumps(body),
             "recorded": "not recorded"}
        )

    # -- Run:ai ------------------------------------------------------------------------------------------
    def runai(self, exchange: Exchange) -> None:
        routed = _route(_RUNAI, exchange.path)
        if routed is None:
            self._unrecorded(exchange, "a Run:ai")
            return
        name, params = routed
        if name == "count":
            return  # counted again from the workloads on replay
        ok = exchange.status is not None and 200 <= exchange.status < 300 and exchange.complete
        body = _json(exchange.body) if ok else _UNREADABLE
        if not ok or not self._runai_answer(name, params, body, exchange):
            # Absent is how the server answers an unknown id or kind; anything else must be replayed as it came.
            absent = exchange.status == 404 and name in ("workload", "spec", "specV2")
            if not absent:
                self._fault(exchange)

    def _runai_answer(self, name: str, params: dict[str, str], body: Any, exchange: Exchange) -> bool:
        """Store a readable answer; False when its shape does not fit (it is then replayed as a fault)."""
        if name == "clusters":
            if not isinstance(body, list):
                return False
            self.clusters = self.clusters or []
            _merge(self.clusters, body)
            return True
        if name in ("tenant-pods", "nodes"):
            return self._fleet(name, body)
        items_key = _ITEMS.get(params.get("part", name))
        if name in ("list", "projects"):
            items = body.get(items_key) if isinstance(body, dict) else None
            if not isinstance(items, list):
                return False
            if name == "projects":
                _merge(self.projects, items)
                return True
            for item in items:
                wid = item.get("id") if isinstance(item, dict) else None
                # A workload's own read, when one was made, is fuller than its list entry.
                if isinstance(wid, str) and wid and wid not in self.entries:
                    self.entry(wid)["workload"] = item
            return True
        if name == "workload":
            if not isinstance(body, dict):
                return False
            self.entry(params["id"])["workload"] = body
            return True
        if name in ("spec", "specV2"):
            if not isinstance(body, dict):
                return False
            self.entry(params["id"])[name] = body
            return True
        if name == "part":
            return self._part(self.entry(params["id"]), params["part"], body)
        if name == "podMetrics":
            measurements = body.get("measurements") if isinstance(body, dict) else None
            if not isinstance(measurements, list | None):
                return False
            pods = self.entry(params["id"]).setdefault("podMetrics", {})
            _merge_series(pods.setdefault(params["pod"], []), measurements or [])
            return True
        if name == "revisions":
            items = body.get("revisions") if isinstance(body, dict) else body
            if not isinstance(items, list):
                return False
            listed = self.entry(params["id"]).setdefault("inferenceRevisions", [])
            for item in items:
                rid = item.get("id") if isinstance(item, dict) else None
                if isinstance(rid, str) and rid not in self.revisions:
                    self.revisions[rid] = {"revision": item}
                    listed.append(self.revisions[rid])
            return True
        if name == "revision-part":
            revision = self.revisions.get(params["rev"])
            return revision is not None and self._part(revision, params["part"], body)
        return False

    def _fleet(self, name: str, body: Any) -> bool:
        """The tenant-wide pod list: each pod in its workload's entry (a replay answers the list from there);
        the nodes: the bundle's `nodes`, each once by cluster and name."""
        items = body.get("pods" if name == "tenant-pods" else "nodes") if isinstance(body, dict) else None
        if not isinstance(items, list):
            return False
        if name == "nodes":
            known = {(n.get("clusterUuid"), n.get("name")) for n in self.nodes}
            for node in items:
                if isinstance(node, dict) and (node.get("clusterUuid"), node.get("name")) not in known:
                    known.add((node.get("clusterUuid"), node.get("name")))
                    self.nodes.append(node)
            return True
        for pod in items:
            wid = pod.get("workloadId") if isinstance(pod, dict) else None
            if isinstance(wid, str) and wid:
                entry = self.entry(wid)
                target = entry.get("pods")
                if not isinstance(target, list):
                    target = entry["pods"] = []
                _merge(target, [pod])
        return True

    @staticmethod
    def _part(entry: dict[str, Any], part: str, body: Any) -> bool:
        if part == "metrics":
            measurements = body.get("measurements") if isinstance(body, dict) else None
            if not isinstance(measurements, list | None):
                return False
            _merge_series(entry.setdefault("metrics", []), measurements or [])
            return True
        items = body.get(_ITEMS[part]) if isinstance(body, dict) else None
        if not isinstance(items, list):
            return False
        target = entry.get(part)
        if not isinstance(target, list):
            target = entry[part] = []
        _merge(target, items)
        return True

    # -- Kubernetes --------------------------------------------------------------------------------------
    def kube_answer(self, exchange: Exchange) -> None:
        routed = _route(_KUBE, exchange.path)
        if routed is None:
            self._unrecorded(exchange, "a Kubernetes")
            return
        resource, params = routed
        kube = self.kubernetes
        if resource == "pod-list":
            self._pod_list(exchange)
            return
        if exchange.status == 403 and exchange.complete:
            if resource not in kube["forbidden"]:
                kube["forbidden"].append(resource)
            return
        if exchange.status == 404 or (exchange.status == 400 and resource == "pods/log"):
            return  # absence: the simulated API server answers these the same way
        ok = exchange.status is not None and 200 <= exchange.status < 300
        if ok and resource == "pods/log":
            kube["logs"].append({
                "namespace": params["ns"],
                "pod": params["name"],
                "container": exchange.param("container") or "",
                "previous": (exchange.param("previous") or "").lower() == "true",
                "text": _text(exchange.body),
            })
            return
        body = _json(exchange.body) if ok and exchange.complete else _UNREADABLE
        if resource == "events" and isinstance(body, dict) and isinstance(body.get("items") or [], list):
            _merge(kube["events"], body.get("items") or [])
        elif resource == "pods" and isinstance(body, dict) and isinstance(body.get("metadata"), dict):
            _merge_pods(kube["pods"], [body])
        elif resource == "nodes" and isinstance(body, dict) and isinstance(body.get("metadata"), dict):
            _merge(kube[resource], [body])
        else:
            self._fault(exchange)

    def _pod_list(self, exchange: Exchange) -> None:
        ok = exchange.status is not None and 200 <= exchange.status < 300 and exchange.complete
        body = _json(exchange.body) if ok else _UNREADABLE
        items = body.get("items") if isinstance(body, dict) else None
        if not isinstance(items, list) or not all(_pod_key(item) is not None for item in items):
            self._fault(exchange)  # refused, failed or unreadable: replayed as it came
            return
        _merge_pods(self.kubernetes["pods"], items)
        meta = body.get("metadata")
        if isinstance(meta, dict) and meta.get("continue"):
            self.notes.append(
                f"GET {exchange.path} said more pods were left to list; the replay lists only the "
                f"{len(items)} read and does not say more were left"
            )

    # -- the bundle --------------------------------------------------------------------------------------
    def add(self, exchange: Exchange) -> None:
        self.reads += 1
        if exchange.api == "runai":
            self.runai(exchange)
        else:
            self.kube_answer(exchange)

    def build(self) -> dict[str, Any]:
        workloads = []
        for wid, entry in self.entries.items():
            missing = [k for k in REQUIRED_WORKLOAD_KEYS if not isinstance(entry["workload"].get(k), str)
                       or not entry["workload"].get(k)]
            if missing and set(entry["workload"]) == {"id"}:  # its own read gave no answer (a fault, if it failed)
                kept = [part for part in entry if part != "workload"]
                beside = f"; what was read beside it ({', '.join(kept)}) cannot be kept without it" if kept else ""
                self.notes.append(f"workload {wid} has no entry: its own read returned no workload{beside}")
                continue
            if missing:
                self.notes.append(
                    f"workload {wid} was left out: the API's answer has no {', '.join(missing)} (case@1 needs them)"
                )
                continue
            workloads.append(entry)
        bundle: dict[str, Any] = {
            "format": FORMAT,
            "capturedAt": self.captured_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        }
        if self.clusters is not None:
            bundle["clusters"] = self.clusters
        if self.projects:
            bundle["projects"] = self.projects
        bundle["workloads"] = workloads
        if self.kube:
            bundle["kubernetes"] = {k: v for k, v in self.kubernetes.items() if v}
        if self.faults:
            bundle["faults"] = self.faults
        if self.nodes:
            bundle["nodes"] = self.nodes
        return bundle


def build_bundle(exchanges: list[Exchange], *, captured_at: datetime, kube: bool) -> tuple[dict[str, Any], list[str]]:
    """The bundle, and notes on what could not be kept (never silently dropped)."""
    builder = BundleBuilder(captured_at, kube)
    for exchange in exchanges:
        builder.add(exchange)
    return builder.build(), builder.notes
