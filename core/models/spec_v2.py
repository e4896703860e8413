"""The v2 workload document (`GET /api/v2/workloads/{id}`) read as a submitted spec, one per replica role.

Workloads submitted through the v2 API (PyTorchJob, MPIJob, RayCluster, Deployment, LeaderWorkerSet, NIM and
other registered kinds, `sourceApi: WorkloadsV2`) keep what was submitted as a Kubernetes manifest:
`{"workload": {"metadata", "desiredPhase", "workloadManifest", "rawManifest"}, "syncInfo"}`. The image, command
and resources sit in the pod templates inside it (`spec.template`, `spec.pytorchReplicaSpecs.Master.template`,
`spec.mpiReplicaSpecs.Launcher.template`, `spec.headGroupSpec.template`, `spec.leaderWorkerTemplate.
leaderTemplate`, ...). Rather than know every operator, the manifest is walked (bounded) for pod templates,
each named by the key that holds it: that key is the replica role.
"""

from __future__ import annotations

import re
from typing import Any

from core.models.runai_spec import Compute, EnvVar, NameValue, SecretRef, SubmittedSpec, WorkloadSpecDoc

MAX_DEPTH = 12
MAX_TEMPLATES = 32
# Keys that hold a template without naming a role.
_NOT_A_ROLE = frozenset({"template", "spec", "workloadmanifest", "rawmanifest", "workload", "podtemplate"})
_ROLE_SUFFIX_RE = re.compile(r"(?:template|groupspecs?|replicaspecs?|specs?)$")
# Which role's spec stands for the workload when one must: the coordinating pod first.
MAIN_ROLES = ("master", "launcher", "leader", "head", "chief", "driver", "server")


def is_v2_document(body: object) -> bool:
    return isinstance(body, dict) and isinstance(body.get("workload"), dict)


def _role(keys: list[str]) -> str | None:
    for key in reversed(keys):
        lowered = key.lower()
        if lowered in _NOT_A_ROLE or lowered.isdigit():
            continue
        role = _ROLE_SUFFIX_RE.sub("", lowered) or lowered
        return role if role not in _NOT_A_ROLE else None
    return None


def _templates(node: Any, keys: list[str], depth: int, out: list[tuple[str | None, dict[str, Any], Any]]) -> None:
    """Every pod template (a dict whose `spec` holds `containers`) with its role and the replica spec around it."""
    if depth > MAX_DEPTH or len(out) >= MAX_TEMPLATES:
        return
    if isinstance(node, dict):
        spec = node.get("spec")
        if isinstance(spec, dict) and isinstance(spec.get("containers"), list):
            out.append((_role(keys[:-1] if keys and keys[-1].lower() == "template" else keys), node, keys))
            return
        for key, value in node.items():
            if isinstance(value, dict | list) and isinstance(key, str):
                _templates(value, [*keys, key], depth + 1, out)
    elif isinstance(node, list):
        for index, value in enumerate(node[:MAX_TEMPLATES]):
            _templates(value, [*keys, str(index)], depth + 1, out)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _words(value: Any) -> str | None:
    if isinstance(value, list):
        parts = [str(v) for v in value if isinstance(v, str | int | float)]
        return " ".join(parts) if parts else None
    return value if isinstance(value, str) else None


def _quantity(resources: Any, kind: str, name: str) -> Any:
    values = resources.get(kind) if isinstance(resources, dict) else None
    value = values.get(name) if isinstance(values, dict) else None
    return value if isinstance(value, str | int | float) and not isinstance(value, bool) else None


def _env(items: Any) -> list[EnvVar]:
    out: list[EnvVar] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        source = item.get("valueFrom") if isinstance(item.get("valueFrom"), dict) else {}
        secret = source.get("secretKeyRef") if isinstance(source.get("secretKeyRef"), dict) else None
        out.append(
            EnvVar(
                name=item["name"],
                value=item.get("value") if isinstance(item.get("value"), str) else None,
                secret=SecretRef(name=secret.get("name"), key=secret.get("key")) if secret else None,
            )
        )
    return out


def _annotations(*sources: Any) -> list[NameValue]:
    out: list[NameValue] = []
    for source in sources:
        if isinstance(source, dict):
            out += [NameValue(name=k, value=v) for k, v in source.items() if isinstance(k, str) and isinstance(v, str)]
    return out


def _container_spec(
    container: dict[str, Any], pod_spec: dict[str, Any], restart: Any, notes: list[Any]
) -> SubmittedSpec:
    resources = container.get("resources")
    gpu = _quantity(resources, "limits", "nvidia.com/gpu")
    try:
        gpu_count = float(gpu) if gpu is not None else None
    except ValueError:
        gpu_count = None
    policy = pod_spec.get("restartPolicy") if isinstance(pod_spec.get("restartPolicy"), str) else restart
    return SubmittedSpec(
        image=_text(container.get("image")),
        image_pull_policy=_text(container.get("imagePullPolicy")),
        command=_words(container.get("command")),
        args=_words(container.get("args")),
        environment_variables=_env(container.get("env")),
        compute=Compute(
            cpu_memory_request=_quantity(resources, "requests", "memory"),
            cpu_memory_limit=_quantity(resources, "limits", "memory"),
            gpu_devices_request=gpu_count,
        ),
        restart_policy=policy if isinstance(policy, str) else None,
        annotations=_annotations(*notes),
    )


def _nim_spec(spec: dict[str, Any], notes: list[Any]) -> SubmittedSpec | None:
    """NIM services name their image as `{repository, tag}` and their resources at the top of `spec`."""
    image = spec.get("image")
    if not isinstance(image, dict) or not isinstance(image.get("repository"), str):
        return None
    tag = image.get("tag") if isinstance(image.get("tag"), str) else None
    container = {"image": image["repository"] + (f":{tag}" if tag else ""), "resources": spec.get("resources"),
                 "env": spec.get("env"), "command": spec.get("command"), "args": spec.get("args")}
    return _container_spec(container, {}, None, notes)


def spec_from_v2(body: dict[str, Any]) -> WorkloadSpecDoc:
    """The v2 document as a `WorkloadSpecDoc`: `roles` holds each replica role's spec, `spec` the main one's."""
    workload = body.get("workload") if isinstance(body.get("workload"), dict) else {}
    meta = workload.get("metadata") if isinstance(workload.get("metadata"), dict) else {}
    manifest = workload.get("workloadManifest")
    if not isinstance(manifest, dict) or not manifest:
        manifest = workload.get("rawManifest") if isinstance(workload.get("rawManifest"), dict) else {}
    manifest_meta = manifest.get("metadata") if isinstance(manifest.get("metadata"), dict) else {}
    notes = [meta.get("annotations"), manifest_meta.get("annotations")]
    roles: dict[str, SubmittedSpec] = {}
    found: list[tuple[str | None, dict[str, Any], Any]] = []
    _templates(manifest, [], 0, found)
    for role, template, _ in found:
        pod_spec = template["spec"]
        containers = [c for c in pod_spec["containers"] if isinstance(c, dict)]
        if not containers:
            continue
        template_meta = template.get("metadata") if isinstance(template.get("metadata"), dict) else {}
        name = role or "main"
        if name not in roles:
            roles[name] = _container_spec(containers[0], pod_spec, None, [*notes, template_meta.get("annotations")])
    if not roles and isinstance(manifest.get("spec"), dict):
        nim = _nim_spec(manifest["spec"], notes)
        if nim is not None:
            roles["main"] = nim
    main = next((roles[r] for r in MAIN_ROLES if r in roles), next(iter(roles.values()), None))
    sync = body.get("syncInfo") if isinstance(body.get("syncInfo"), dict) else {}
    return WorkloadSpecDoc.model_validate(
        {
            "name": meta.get("name") if isinstance(meta.get("name"), str) else manifest_meta.get("name"),
            "workloadId": meta.get("id") or meta.get("workloadId"),
            "projectId": meta.get("projectId"),
            "clusterId": meta.get("clusterId"),
            "createdBy": meta.get("createdBy"),
            "desiredPhase": workload.get("desiredPhase"),
            "spec": main.model_dump(by_alias=True, exclude_none=True) if main is not None else None,
            "roles": {k: v.model_dump(by_alias=True, exclude_none=True) for k, v in roles.items()} or None,
            "manifestKind": manifest.get("kind") if isinstance(manifest.get("kind"), str) else None,
            "syncStatus": sync.get("status") if isinstance(sync.get("status"), str) else None,
        }
    )
