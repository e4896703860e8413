"""Step 2: what was submitted (spec) and what ran (pods), as cited evidence and the memory settings.

Configuration only corroborates: nothing here decides a category. Memory quantities are parsed exactly; a
malformed one is reported as such and never replaced by a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from core.diagnosis.memory import PLAUSIBLE_MEMORY
from core.diagnosis.observations import quote
from core.models.quantity import QuantityError, format_bytes, quantity_to_bytes
from core.models.report import EvidenceItem, MissingItem
from core.models.runai import ResourceSet, RunaiPod, Workload
from core.models.runai_spec import Compute, SubmittedSpec, WorkloadSpecDoc
from core.plural import plural
from core.safety.redact import redact_annotation
from core.safety.untrusted import clean

SPEC = "get_workload_spec"
PODS = "get_workload_pods"
STATUS = "get_workload_status"
SUBMIT_ANNOTATION = "runai-submit-command"


@dataclass
class MemorySetting:
    request_bytes: int | None = None
    limit_bytes: int | None = None
    source: str | None = None  # where the values came from, in report vocabulary
    origin: str | None = None  # which field, for the evidence text
    problems: list[MissingItem] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Bad:
    """One field holding a value that cannot be used: which (request or limit), where, the value, why."""

    what: str
    where: str
    value: str
    why: str  # "is not a Kubernetes quantity (...)" or "is not a usable amount of memory (...)"


def _bytes(value: object, what: str, where: str, problems: list[_Bad], most: int = PLAUSIBLE_MEMORY) -> int | None:
    """A memory quantity in bytes, or None with the reason in `problems`: not a quantity, a request or a limit of
    zero or less (an allocation below zero), or more than any machine holds. Such a value is never used."""
    if value is None:
        return None
    try:
        amount = quantity_to_bytes(value)  # type: ignore[arg-type]
    except QuantityError as exc:
        # The error says "'24Gx' is not a Kubernetes quantity: <why>": only the why is kept, said once below.
        reason = str(exc).split(" is not a Kubernetes quantity: ", 1)[-1]
        problems.append(_Bad(what, where, quote(value, 60), f"is not a Kubernetes quantity ({quote(reason, 160)})"))
        return None
    if amount < 0 or (amount == 0 and what != "allocation"):
        impossible = "below zero" if amount < 0 else "zero"
    elif amount > most:
        impossible = f"more than {format_bytes(most)}, more than any machine holds"
    else:
        return amount
    problems.append(_Bad(what, where, quote(value, 60), f"is not a usable amount of memory (it is {impossible})"))
    return None


def _merged(problems: list[_Bad]) -> list[MissingItem]:
    """One missing item per unusable value, naming every field that holds it (a request and a limit copied
    into the spec, the workload and each pod are one mistake, not eight)."""
    out: list[MissingItem] = []
    for value, why in dict.fromkeys((b.value, b.why) for b in problems):
        same = [b for b in problems if (b.value, b.why) == (value, why)]
        whats = " and ".join(dict.fromkeys(b.what for b in same))
        wheres = ", ".join(dict.fromkeys(b.where for b in same))
        malformed = why.startswith("is not a Kubernetes quantity")
        end = "it was not guessed" if malformed else "it was not used"
        out.append(
            MissingItem(what=f"CPU-memory {whats}", why=f"'{value}' {why}; it is in {wheres}; {end}", source=None)
        )
    return out


def _from_resources(
    resources: ResourceSet | None, where: str, source: str, problems: list[_Bad], most: int = PLAUSIBLE_MEMORY
) -> MemorySetting:
    setting = MemorySetting(source=source, origin=where)
    if resources is None or resources.cpu_memory is None:
        return setting
    memory = resources.cpu_memory
    setting.request_bytes = _bytes(memory.request, "request", f"{where}.cpuMemory.request", problems, most)
    setting.limit_bytes = _bytes(memory.limit, "limit", f"{where}.cpuMemory.limit", problems, most)
    return setting


def memory_setting(
    workload: Workload,
    pods: Sequence[RunaiPod],
    spec: WorkloadSpecDoc | None,
    *,
    pod: str | None = None,
    role: str | None = None,
) -> MemorySetting:
    """Request and limit, preferring the pods' requestedResources (the seed's source of the limit).

    With `pod` (a workload of several pods), that pod's own values, else its role's submitted spec, else the
    per-pod values of the workload: the limit that applies is the failing pod's, never the workload's total."""
    problems: list[_Bad] = []
    candidates: list[MemorySetting] = []
    chosen_pods = [p for p in pods if pod is None or quote(p.name, 120) == pod]
    for item in chosen_pods:
        candidates.append(
            _from_resources(item.requested_resources, f"pod {quote(item.name, 80)} requestedResources", PODS, problems)
        )
    submitted = spec.spec_for(role) if spec is not None else None
    compute = submitted.compute if submitted is not None else None
    role_origin = f"the {role} spec's compute" if role and spec is not None and spec.role_specs() else "spec.compute"
    if pod is not None and compute is not None:
        candidates.append(_from_compute(compute, role_origin, problems))
    candidates.append(_from_resources(workload.pods_requested_resources, "podsRequestedResources", STATUS, problems))
    if pod is None:
        total = PLAUSIBLE_MEMORY * max(1, len(pods))  # the workload's figures sum its pods'
        candidates.append(
            _from_resources(
                workload.workload_requested_resources, "workloadRequestedResources", STATUS, problems, total
            )
        )
        if compute is not None:
            candidates.append(_from_compute(compute, role_origin, problems))
    chosen = MemorySetting(problems=_merged(problems))
    for cand in candidates:
        if chosen.limit_bytes is None and cand.limit_bytes is not None:
            chosen.limit_bytes, chosen.source, chosen.origin = cand.limit_bytes, cand.source, cand.origin
            if cand.request_bytes is not None:
                chosen.request_bytes = cand.request_bytes
        if chosen.request_bytes is None and cand.request_bytes is not None:
            chosen.request_bytes = cand.request_bytes
            chosen.source = chosen.source or cand.source
            chosen.origin = chosen.origin or cand.origin
    return chosen


def _from_compute(compute: Compute, origin: str, problems: list[_Bad]) -> MemorySetting:
    where = f"{origin}." if origin == "spec.compute" else f"{origin} "
    return MemorySetting(
        request_bytes=_bytes(compute.cpu_memory_request, "request", f"{where}cpuMemoryRequest", problems),
        limit_bytes=_bytes(compute.cpu_memory_limit, "limit", f"{where}cpuMemoryLimit", problems),
        source=SPEC,
        origin=origin,
    )


def memory_text(request: int | None, limit: int | None) -> str:
    req = format_bytes(request) if request is not None else "not set"
    lim = format_bytes(limit) if limit is not None else "not set"
    text = f"memory request/limit: {req} / {lim}"
    if request is not None and limit is not None and request == limit:
        text += " (request equals limit)"
    return text


def _mounts(spec: SubmittedSpec) -> list[str]:
    storage = spec.storage
    if storage is None:
        return []
    out: list[str] = []
    for pvc in storage.pvc or ():
        out.append(f"PVC {quote(pvc.claim_name or pvc.name, 80)} at {quote(pvc.path, 120)}")
    for nfs in storage.nfs or ():
        out.append(f"NFS {quote(nfs.server, 80)}:{quote(nfs.path, 120)} at {quote(nfs.mount_path, 120)}")
    for s3 in storage.s3 or ():
        out.append(f"S3 bucket {quote(s3.bucket, 80)}")
    for git in storage.git or ():
        out.append(f"git {quote(git.repository, 160)}")
    for label, items in (
        ("hostPath", storage.host_path),
        ("configMap volume", storage.config_map_volume),
        ("secret volume", storage.secret_volume),
        ("data volume", storage.data_volume),
    ):
        if items:
            out.append(plural(len(items), label))
    return out


def spec_evidence(doc: WorkloadSpecDoc) -> list[EvidenceItem]:
    """The submitted spec's evidence; with replica roles that differ, image, command and memory per role."""
    spec = doc.spec
    roles = doc.role_specs()
    if spec is None and not roles:
        return []
    items: list[EvidenceItem] = []
    if doc.manifest_kind:
        items.append(
            EvidenceItem(text=f"Submitted through the v2 API as a {quote(doc.manifest_kind, 60)}", source=SPEC)
        )
    if roles:
        for role, submitted in roles.items():
            items += _submitted(submitted, f" ({quote(role, 30)})")
        if spec is not None and spec not in roles.values():
            items += [i for i in _submitted(spec, "") if i.signal not in ("image", "command", "memory-config")]
    elif spec is not None:
        items += _submitted(spec, "")
    return items


def _submitted(spec: SubmittedSpec, role: str) -> list[EvidenceItem]:
    items: list[EvidenceItem] = []

    def add(text: str, signal: str) -> None:
        items.append(EvidenceItem(text=text, source=SPEC, signal=signal))

    if spec.image:
        pull = f" (imagePullPolicy {quote(spec.image_pull_policy, 20)})" if spec.image_pull_policy else ""
        add(f"Submitted image{role}: {quote(spec.image, 300)}{pull}", "image")
    if spec.command or spec.args:
        command = " ".join(part for part in (spec.command, spec.args) if part)
        add(f"Submitted command{role}: {quote(command, 400)}", "command")
    submit = spec.annotation(SUBMIT_ANNOTATION)
    if submit:
        shown = clean(redact_annotation(SUBMIT_ANNOTATION, submit), max_len=400, one_line=True)
        add(f"{SUBMIT_ANNOTATION} annotation: {shown}", "submit-command")
    compute = spec.compute
    if compute is not None and (compute.cpu_memory_request is not None or compute.cpu_memory_limit is not None):
        req = quote(compute.cpu_memory_request, 30) if compute.cpu_memory_request is not None else "not set"
        lim = quote(compute.cpu_memory_limit, 30) if compute.cpu_memory_limit is not None else "not set"
        add(f"Submitted CPU memory request/limit{role}: {req} / {lim}", "memory-config")
    if spec.restart_policy:
        backoff = f", backoffLimit {spec.backoff_limit}" if spec.backoff_limit is not None else ""
        add(f"Restart policy{role}: {quote(spec.restart_policy, 30)}{backoff}", "restart-policy")
    mounts = _mounts(spec)
    if mounts:
        add("Data sources: " + "; ".join(mounts), "mounts")
    secrets = [env for env in spec.environment_variables or () if env.secret is not None]
    if secrets:
        names = ", ".join(
            f"{quote(env.name, 60)} from secret {quote(env.secret.name, 80)}" for env in secrets if env.secret
        )
        add(f"Environment from secrets (names only): {names}", "env-secrets")
    return items


def pod_evidence(pod: RunaiPod, memory: MemorySetting | None = None) -> EvidenceItem:
    parts = [f"Pod {quote(pod.name, 120)}"]
    if pod.node_name:
        parts.append(f"node {quote(pod.node_name, 120)}")
    parts.append(f"k8sPhase: {quote(pod.k8s_phase, 40) if pod.k8s_phase else 'not reported'}")
    if pod.deleted_at is not None:
        parts.append(f"deleted {pod.deleted_at.isoformat()}")
    problems: list[MissingItem] = []
    req = _from_resources(pod.requested_resources, "pod", PODS, problems)
    if req.request_bytes is not None or req.limit_bytes is not None:
        parts.append(memory_text(req.request_bytes, req.limit_bytes))
    alloc = pod.allocated_resources
    if alloc is not None and alloc.cpu_memory is not None:
        allocated = _bytes(alloc.cpu_memory, "allocation", "allocatedResources.cpuMemory", problems)
        if allocated is not None:
            parts.append(f"allocated memory {format_bytes(allocated)}")
    if pod.measurements:
        parts.append("measurements reported")
    return EvidenceItem(text="; ".join(parts), source=PODS, signal="pod")


def _negative_counts(resources: ResourceSet | None, where: str) -> list[tuple[str, object]]:
    if resources is None or resources.gpu is None:
        return []
    gpu = resources.gpu
    return [(f"{where}.gpu.{name}", value) for name, value in (("request", gpu.request), ("limit", gpu.limit))]


def count_problems(workload: Workload, pods: Sequence[RunaiPod], spec: WorkloadSpecDoc | None) -> list[MissingItem]:
    """A GPU count below zero wherever one is given (requested, allocated, submitted): not a number of GPUs, so
    it is named once per value with every field that holds it, and never used."""
    fields = [
        *_negative_counts(workload.pods_requested_resources, "podsRequestedResources"),
        *_negative_counts(workload.workload_requested_resources, "workloadRequestedResources"),
        ("allocatedResources.gpu", workload.allocated_resources.gpu if workload.allocated_resources else None),
    ]
    for pod in pods:
        name = f"pod {quote(pod.name, 80)}"
        fields += _negative_counts(pod.requested_resources, f"{name} requestedResources")
        fields.append(
            (f"{name} allocatedResources.gpu", pod.allocated_resources.gpu if pod.allocated_resources else None)
        )
    submitted = spec.spec if spec is not None else None
    compute = submitted.compute if submitted is not None else None
    if compute is not None:
        fields += [
            ("spec.compute.gpuDevicesRequest", compute.gpu_devices_request),
            ("spec.compute.gpuPortionRequest", compute.gpu_portion_request),
            ("spec.compute.gpuPortionLimit", compute.gpu_portion_limit),
        ]
    bad = [(where, value) for where, value in fields if isinstance(value, int | float) and value < 0]
    out: list[MissingItem] = []
    for value in dict.fromkeys(value for _, value in bad):
        wheres = ", ".join(where for where, v in bad if v == value)
        out.append(
            MissingItem(
                what="GPU count",
                why=f"'{value:g}' is below zero, not a number of GPUs; it is in {wheres}; it was not used",
                source=None,
            )
        )
    return out
