"""The Kubernetes core/v1 reads the tool uses, shaped like kube-apiserver's answers for the real client."""

from __future__ import annotations

import re
from typing import Any

from core.sim.exchange import Route, RouteContext, SimResponse, json_response, kube_status
from core.sim.filtering import query_get

SIM_USER = "system:serviceaccount:runai-triage:reader"

# fieldSelector keys the events resource supports in kube-apiserver (the ones this tool uses, and a few more).
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "involvedObject.name": ("involvedObject", "name"),
    "involvedObject.namespace": ("involvedObject", "namespace"),
    "involvedObject.kind": ("involvedObject", "kind"),
    "involvedObject.uid": ("involvedObject", "uid"),
    "involvedObject.apiVersion": ("involvedObject", "apiVersion"),
    "involvedObject.fieldPath": ("involvedObject", "fieldPath"),
    "involvedObject.resourceVersion": ("involvedObject", "resourceVersion"),
    "metadata.name": ("metadata", "name"),
    "metadata.namespace": ("metadata", "namespace"),
    "reason": ("reason",),
    "type": ("type",),
    "source": ("source", "component"),
    "reportingComponent": ("reportingComponent",),
}
# fieldSelector keys kube-apiserver supports on pods (the one this tool uses, and a few more).
POD_FIELDS: dict[str, tuple[str, ...]] = {
    "spec.nodeName": ("spec", "nodeName"),
    "spec.schedulerName": ("spec", "schedulerName"),
    "spec.restartPolicy": ("spec", "restartPolicy"),
    "status.phase": ("status", "phase"),
    "metadata.name": ("metadata", "name"),
    "metadata.namespace": ("metadata", "namespace"),
}
_SELECTOR_ITEM = re.compile(r"^([A-Za-z][A-Za-z0-9_.]*)(!=|==|=)(.*)$")
# A log's lines as the kubelet counts them for `tailLines`: by `\n` alone (a progress meter's `\r` redraws stay
# inside their line).
_LOG_LINE_RE = re.compile(r"[^\n]*\n|[^\n]+$")


def _kube(ctx: RouteContext) -> dict[str, Any] | None:
    return ctx.bundle.kubernetes


def _no_kube() -> SimResponse:
    # A bundle without `kubernetes` models a tool that has no Kubernetes access: nothing there to find.
    return kube_status(404, "NotFound", "the server could not find the requested resource")


def _forbidden(kube: dict[str, Any], resource: str) -> bool:
    return resource in (kube.get("forbidden") or [])


def _forbidden_response(resource: str, verb: str, name: str | None, namespace: str | None) -> SimResponse:
    plural = resource.split("/")[0]
    subject = f'{plural} "{name}"' if name else plural
    scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    who = f'User "{SIM_USER}"'
    message = f'{subject} is forbidden: {who} cannot {verb} resource "{resource}" in API group "" {scope}'
    details: dict[str, str] = {"kind": plural}
    if name:
        details = {"name": name, "kind": plural}
    return kube_status(403, "Forbidden", message, details)


def _not_found(kind: str, name: str) -> SimResponse:
    return kube_status(404, "NotFound", f'{kind} "{name}" not found', {"name": name, "kind": kind})


def _find_pod(kube: dict[str, Any], namespace: str, name: str) -> dict[str, Any] | None:
    for pod in kube.get("pods") or []:
        meta = pod.get("metadata") or {}
        if meta.get("namespace") == namespace and meta.get("name") == name:
            return pod
    return None


def read_pod(ctx: RouteContext) -> SimResponse:
    kube = _kube(ctx)
    if kube is None:
        return _no_kube()
    ns, name = ctx.params["ns"], ctx.params["name"]
    if _forbidden(kube, "pods"):
        return _forbidden_response("pods", "get", name, ns)
    pod = _find_pod(kube, ns, name)
    if pod is None:
        return _not_found("pods", name)
    return json_response(200, pod)


def _container_names(pod: dict[str, Any]) -> tuple[list[str], list[str]]:
    spec = pod.get("spec") or {}
    main = [str(c.get("name")) for c in spec.get("containers") or [] if isinstance(c, dict)]
    init = [str(c.get("name")) for c in spec.get("initContainers") or [] if isinstance(c, dict)]
    return main, init


def _waiting_reason(pod: dict[str, Any], container: str) -> str | None:
    status = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses"):
        for cs in status.get(key) or []:
            if isinstance(cs, dict) and cs.get("name") == container:
                waiting = (cs.get("state") or {}).get("waiting")
                if isinstance(waiting, dict):
                    return str(waiting.get("reason") or "ContainerCreating")
    return None


def _non_negative_int(text: str | None, name: str) -> int | SimResponse | None:
    if text in (None, ""):
        return None
    try:
        value = int(text)
    except ValueError:
        return kube_status(400, "BadRequest", f'{name}: invalid value "{text}": must be an integer')
    if value < 0 or (name == "limitBytes" and value == 0):
        return kube_status(400, "BadRequest", f"{name}: Invalid value: {value}: must be greater than 0")
    return value


def read_pod_log(ctx: RouteContext) -> SimResponse:
    kube = _kube(ctx)
    if kube is None:
        return _no_kube()
    ns, name = ctx.params["ns"], ctx.params["name"]
    if _forbidden(kube, "pods/log"):
        return _forbidden_response("pods/log", "get", name, ns)
    pod = _find_pod(kube, ns, name)
    if pod is None:
        return _not_found("pods", name)
    main, init = _container_names(pod)
    container = query_get(ctx.query, "container")
    if not container:
        if len(main) == 1:
            container = main[0]
        else:
            choices = " ".join(main)
            message = f"a container name must be specified for pod {name}, choose one of: [{choices}]"
            if init:
                message += f" or one of the init containers: [{' '.join(init)}]"
            return kube_status(400, "BadRequest", message)
    if container not in main and container not in init:
        return kube_status(400, "BadRequest", f"container {container} is not valid for pod {name}")
    previous = (query_get(ctx.query, "previous") or "").lower() in ("true", "1")
    tail = _non_negative_int(query_get(ctx.query, "tailLines"), "tailLines")
    if isinstance(tail, SimResponse):
        return tail
    limit = _non_negative_int(query_get(ctx.query, "limitBytes"), "limitBytes")
    if isinstance(limit, SimResponse):
        return limit
    text: str | None = None
    for log in kube.get("logs") or []:
        if (
            log.get("namespace") == ns
            and log.get("pod") == name
            and log.get("container") == container
            and bool(log.get("previous", False)) == previous
        ):
            text = str(log.get("text", ""))
            break
    if text is None:
        if previous:
            return kube_status(
                400, "BadRequest", f'previous terminated container "{container}" in pod "{name}" not found'
            )
        waiting = _waiting_reason(pod, container)
        if waiting is not None:
            return kube_status(
                400, "BadRequest", f'container "{container}" in pod "{name}" is waiting to start: {waiting}'
            )
        text = ""
    if tail is not None:
        lines = _LOG_LINE_RE.findall(text)
        text = "".join(lines[-tail:]) if tail else ""
    data = text.encode("utf-8")
    if limit is not None:
        data = data[:limit]
    return SimResponse(200, {"Content-Type": "text/plain"}, data)


def parse_field_selector(
    text: str, fields: dict[str, tuple[str, ...]] = EVENT_FIELDS
) -> list[tuple[tuple[str, ...], bool, str]] | str:
    """(path, equal?, value) triples; a string is the error message for a malformed selector."""
    out: list[tuple[tuple[str, ...], bool, str]] = []
    if not text.strip():
        return out
    for item in text.split(","):
        m = _SELECTOR_ITEM.match(item.strip())
        if m is None:
            return f'invalid field selector: "{item}": expected <field>=<value> or <field>!=<value>'
        key, op, value = m.groups()
        if key not in fields:
            return f'"{key}" is not a known field selector: only "{", ".join(sorted(fields))}"'
        out.append((fields[key], op != "!=", value))
    return out


def _lookup(obj: dict[str, Any], path: tuple[str, ...]) -> str:
    cur: Any = obj
    for part in path:
        cur = cur.get(part) if isinstance(cur, dict) else None
    return "" if cur is None else str(cur)


def _events(ctx: RouteContext, namespace: str | None) -> SimResponse:
    kube = _kube(ctx)
    if kube is None:
        return _no_kube()
    if _forbidden(kube, "events"):
        return _forbidden_response("events", "list", None, namespace)
    selector = parse_field_selector(query_get(ctx.query, "fieldSelector") or "")
    if isinstance(selector, str):
        return kube_status(400, "BadRequest", selector)
    items = []
    for event in kube.get("events") or []:
        if namespace is not None and _lookup(event, ("metadata", "namespace")) != namespace:
            continue
        if all((_lookup(event, path) == value) == equal for path, equal, value in selector):
            items.append(event)
    return json_response(
        200, {"kind": "EventList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": items}
    )


def list_namespaced_events(ctx: RouteContext) -> SimResponse:
    return _events(ctx, ctx.params["ns"])


def list_all_events(ctx: RouteContext) -> SimResponse:
    return _events(ctx, None)


def list_all_pods(ctx: RouteContext) -> SimResponse:
    """`GET /api/v1/pods` (list_pod_for_all_namespaces): fieldSelector on the pod fields above, `limit` with a
    `continue` token when more are held (the token is not honoured: this tool reads one page)."""
    kube = _kube(ctx)
    if kube is None:
        return _no_kube()
    if _forbidden(kube, "pods"):
        return _forbidden_response("pods", "list", None, None)
    selector = parse_field_selector(query_get(ctx.query, "fieldSelector") or "", POD_FIELDS)
    if isinstance(selector, str):
        return kube_status(400, "BadRequest", selector)
    limit = _non_negative_int(query_get(ctx.query, "limit"), "limit")
    if isinstance(limit, SimResponse):
        return limit
    items = [
        pod
        for pod in kube.get("pods") or []
        if all((_lookup(pod, path) == value) == equal for path, equal, value in selector)
    ]
    metadata: dict[str, Any] = {"resourceVersion": "1"}
    if limit and len(items) > limit:
        items = items[:limit]
        metadata["continue"] = "simulated-continue-token"
    return json_response(200, {"kind": "PodList", "apiVersion": "v1", "metadata": metadata, "items": items})


def read_node(ctx: RouteContext) -> SimResponse:
    kube = _kube(ctx)
    if kube is None:
        return _no_kube()
    name = ctx.params["name"]
    if _forbidden(kube, "nodes"):
        return _forbidden_response("nodes", "get", name, None)
    for node in kube.get("nodes") or []:
        if (node.get("metadata") or {}).get("name") == name:
            return json_response(200, node)
    return _not_found("nodes", name)


KUBE_ROUTES: list[Route] = [
    Route("/api/v1/namespaces/{ns}/pods/{name}", read_pod),
    Route("/api/v1/namespaces/{ns}/pods/{name}/log", read_pod_log),
    Route("/api/v1/namespaces/{ns}/events", list_namespaced_events),
    Route("/api/v1/events", list_all_events),
    Route("/api/v1/pods", list_all_pods),
    Route("/api/v1/nodes/{name}", read_node),
]
