"""Step 5, next actions: advice per category, in our own words, following the seed's per-category guidance.

Every piece of advice follows from the evidence beside it: an eviction that measured the container's use over
its request asks for a larger request, not for a plain rerun; a tool's error in the log asks for what that
error names (recommend_cli.py); a fault under the workload puts the administrator first and never asks the user
to fix code (recommend_infra.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.diagnosis import recommend_infra
from core.diagnosis.probe_kill import ProbeKill, probe_advice, readiness_advice
from core.diagnosis.recommend_cli import advice_for_line
from core.diagnosis.signals import ImagePullKind
from core.diagnosis.signals.node_pressure import EvictionUsage
from core.models.quantity import format_bytes
from core.models.report import Finding


@dataclass(frozen=True, slots=True)
class AdviceContext:
    category: str
    limit_bytes: int | None = None
    peak_bytes: int | None = None
    pull_kind: ImagePullKind | None = None
    pull_ambiguous: bool = False
    image: str | None = None
    restart_policy: str | None = None
    node: str | None = None
    policy: str | None = None  # "idle timeout", "maximum duration", "manual stop"
    log_line: str | None = None
    gpu_oom: bool = False
    probe: ProbeKill | None = None  # the startup or liveness probe that killed the container
    readiness: str | None = None  # a readiness probe's failure, quoted (it never kills)
    stuck: bool = False  # a pod held on its node before it started (a Pending workload's node failure)
    sandbox: str | None = None  # what the node's runtime said when it could not create the pod's sandbox
    recurring_count: int = 0
    lookback: str = "24h"
    mount_resource: str | None = None
    unresolved_kill: bool = False
    kill_codes: tuple[int, ...] = ()  # the exit codes of the unexplained kill (137 SIGKILL, 143 SIGTERM)
    tier2_available: bool = True
    findings: tuple[Finding, ...] = field(default=())
    # An eviction: what the kubelet measured, and whether the node ran short (else the pod's own limit).
    eviction: EvictionUsage | None = None
    eviction_node_short: bool = False
    evicted_resource: str | None = None
    init_log_line: str | None = None  # the explaining line when it is an init container's
    # What could not be read (the missing items' `what`), and where the workload's pods ran: an UNKNOWN
    # verdict's advice says what to read next, and who can.
    gaps: tuple[str, ...] = ()
    namespace: str | None = None
    exits_zero: bool = False  # a crash loop whose container keeps exiting 0 under a policy that restarts it


def _explained(ctx: AdviceContext) -> bool:
    return any(f.explains for f in ctx.findings)


def _oom(ctx: AdviceContext) -> list[str]:
    limit = format_bytes(ctx.limit_bytes) if ctx.limit_bytes else None
    if limit and ctx.peak_bytes:
        first = (
            f"Raise the {limit} memory limit well above the {format_bytes(ctx.peak_bytes)} measured before the "
            "kill (the samples can miss the last spike), after checking what makes it grow."
        )
    elif limit:
        first = (
            f"Measure the job's real memory need, then set the limit above the {limit} it has now with room to "
            "spare."
        )
    else:
        first = "Measure the job's real memory need, then set a CPU-memory limit with room to spare above it."
    return [
        first,
        "Look for what grows: batch size, data-loader workers and prefetch, caches kept in host memory; "
        "gradient checkpointing or a smaller batch cut the peak.",
        "If the limit already fits the job, ask the administrator whether the node itself ran short of memory.",
    ]


_PULL_ADVICE: dict[ImagePullKind, str] = {
    ImagePullKind.NOT_FOUND: "The registry has no such image or tag: check the repository name and tag "
    "(or digest) the workload asks for and push or correct it.",
    ImagePullKind.INVALID_NAME: "The image reference is not valid: fix its spelling (registry/repository:tag).",
    ImagePullKind.AUTHORIZATION: "The registry refused the pull: give the project a pull secret with read "
    "access to that repository, or check that the existing secret is current.",
    ImagePullKind.NETWORK: "The node could not reach the registry: check DNS and network access from the "
    "cluster to the registry host (a proxy or firewall rule is a common cause).",
    ImagePullKind.TLS: "The registry's TLS certificate is not trusted by the node: install the registry's CA "
    "on the nodes or use a registry with a publicly trusted certificate.",
    ImagePullKind.RATE_LIMIT: "The registry is rate-limiting pulls: wait and retry, pull with an authenticated "
    "account, or mirror the image into a registry the cluster owns.",
    ImagePullKind.NEVER_PULL: "imagePullPolicy is Never and the image is not on the node: allow pulls or "
    "pre-load the image.",
}


def _image(ctx: AdviceContext) -> list[str]:
    kind = ctx.pull_kind or ImagePullKind.UNKNOWN_PULL
    advice = _PULL_ADVICE.get(kind)
    if advice is None:
        return [
            "The pull failed without saying why in the evidence we could read: look at the kubelet's pull "
            "message (kubectl describe pod) before changing the image or the credentials."
        ]
    out = [advice]
    if kind is ImagePullKind.AUTHORIZATION and ctx.pull_ambiguous:
        out.append(
            "Registries answer the same way for an image that does not exist: confirm the name and tag "
            "before changing credentials."
        )
    return out


def _crash(ctx: AdviceContext) -> list[str]:
    out: list[str] = []
    specific = advice_for_line(ctx.log_line)
    if specific:
        out.append(specific)
    if ctx.gpu_oom:
        out.append(
            "The application ran out of GPU memory (not host memory): lower the batch size or sequence length, "
            "use mixed precision or gradient checkpointing, or request a GPU with more memory."
        )
    elif ctx.probe is not None:
        out.append(probe_advice(ctx.probe))
        if ctx.log_line and not specific:  # what it was doing, not a failure it reports
            out.append(f'Its log up to the kill: "{ctx.log_line}".')
        return out
    elif ctx.readiness:
        out.append(readiness_advice(ctx.readiness))
    if ctx.log_line and specific:
        out.append(f'The log line that says so: "{ctx.log_line}".')
    elif ctx.log_line:
        out.append(f'Fix the code or configuration behind the failing log line: "{ctx.log_line}".')
    else:
        out.append(
            "Fix the code or configuration that makes the main container exit non-zero; its previous log "
            "is the place to start."
        )
    return out


def _eviction(ctx: AdviceContext) -> list[str]:
    """What an eviction's own measurements ask of the workload."""
    usage, resource = ctx.eviction, ctx.evicted_resource or "the resource"
    if usage is not None:
        return [
            f"Container {usage.container} was using {usage.used} of {usage.resource} against a request of "
            f"{usage.request} when the node ran short, and the kubelet evicts the pods furthest over their request "
            f"first: raise its {usage.resource} request (and limit) to at least {usage.used} before resubmitting."
        ]
    if not ctx.eviction_node_short and "storage" in resource:
        return [
            "The pod wrote more to its local disk than its ephemeral-storage limit allows: raise that limit, or "
            "write large files (checkpoints, caches, datasets) to a mounted volume instead."
        ]
    return []


def _stuck(ctx: AdviceContext) -> list[str]:
    """A pod held on its node before it could start: the node's runtime could not make its sandbox, or the node
    went NotReady under it. It stays there until the node is repaired or the pod is deleted."""
    node = f"node {ctx.node}" if ctx.node else "its node"
    cordon = f" (kubectl cordon {ctx.node})" if ctx.node else ""
    what = (
        f"{node} could not create the pod's sandbox: {ctx.sandbox}"
        if ctx.sandbox
        else f"{node} went NotReady under the pod before it started"
    )
    check = (
        "the runtime there (containerd or CRI-O running, its socket answering: crictl info) and, for a network "
        "error, the network plugin's pod on that node"
        if ctx.sandbox
        else "the node's kubelet and runtime, and why it stopped reporting"
    )
    return [
        f"For the administrator: {what}. Check {check}; cordon the node{cordon} until it is healthy.",
        "The pod stays bound to that node until the node recovers or the pod is deleted (resubmit, or stop and "
        "start the workload, once the node is cordoned): nothing in the workload needs to change.",
    ]


def _node(ctx: AdviceContext) -> list[str]:
    if ctx.stuck and not _explained(ctx):
        return _stuck(ctx)
    node = f" {ctx.node}" if ctx.node else ""
    own = _eviction(ctx)
    if (ctx.restart_policy or "").lower() == "onfailure":
        first = (
            "The restart policy is OnFailure, so a retry can land on a healthy node: rerun it once the node"
            f"{node} is healthy or cordoned."
        )
    else:
        first = (
            f"Resubmit the workload: with restart policy {ctx.restart_policy or 'unknown'} it will not be "
            "retried on another node by itself."
        )
    if _explained(ctx):  # the administrator's part and the resubmission lead already
        return own
    if own and not ctx.eviction_node_short:
        return own
    return [*own, first, f"Report the node{node} to the infrastructure team with the times in this report."]


def _policy(ctx: AdviceContext) -> list[str]:
    what = ctx.policy or "a scheduling policy"
    return [
        f"The workload was ended by {what}. If that was intended, nothing is broken.",
        "If it was not, ask the administrator to review the project's scheduling rules (idle-GPU and duration "
        "limits), or plan the job to fit them (checkpoint and resume).",
    ]


def _mount(ctx: AdviceContext) -> list[str]:
    what = f" ({ctx.mount_resource})" if ctx.mount_resource else ""
    return [
        f"A volume or secret the workload needs could not be provided{what}: check that it exists in the "
        "workload's namespace and is bound, and that no other node holds an exclusive attachment.",
        "Storage problems are for the storage administrator once the names are confirmed right.",
    ]


def _init(ctx: AdviceContext) -> list[str]:
    line = f' Its log says: "{ctx.log_line}".' if ctx.log_line else ""
    specific = advice_for_line(ctx.log_line)
    if specific:
        return [f"The init container failed, so the main container never started. {specific}{line}"]
    return [f"Fix the init container's script or configuration; the main container never started.{line}"]


def _exits_zero(ctx: AdviceContext) -> list[str]:
    """A container that ends with exit 0 and is started again: its program stops when it should keep running."""
    said = (
        f' Its log says: "{ctx.log_line}".'
        if ctx.log_line
        else " Its previous log (kubectl logs --previous) is where the program says why it stopped."
    )
    specific = advice_for_line(ctx.log_line)
    return [
        "The container's program ends on its own (exit 0) and its pod's restart policy starts it again, so it never "
        f"stays up.{said}",
        *([specific] if specific else []),
        "A program that is meant to run once and end belongs in a training workload, not in one whose pods are "
        "restarted when they end.",
    ]


def _unknown(ctx: AdviceContext) -> list[str]:
    if ctx.exits_zero:
        return _exits_zero(ctx)
    out = []
    if ctx.unresolved_kill and 143 in ctx.kill_codes:
        out.append(
            "The container was asked to stop (SIGTERM, exit 143) and nothing we could read says by whom: look "
            "for a deletion, a drain, an eviction or a job controller ending its pods around the failure."
        )
    if ctx.unresolved_kill and (137 in ctx.kill_codes or not ctx.kill_codes):
        out.append(
            "The container was killed (SIGKILL, exit 137) and nothing we could read says why: check the node's "
            "events and kernel log around the failure for an OOM kill, a probe or an eviction."
        )
    if not ctx.tier2_available and not _explained(ctx):
        out.append(
            "Give runai-triage read-only Kubernetes access (see the README) so the pod, its previous log "
            "and its events can be read; Run:ai data alone did not identify the cause."
        )
    if ctx.readiness:
        out.append(readiness_advice(ctx.readiness))
    if not _explained(ctx):
        out.append(_read_next(ctx))
        out.append("Do not rerun unchanged until the cause is known.")
    return out


def _read_next(ctx: AdviceContext) -> str:
    """What to read next for a cause nothing read showed, and who can read it."""
    where = f" in namespace {ctx.namespace}" if ctx.namespace else ""
    reads = []
    if any(g.startswith(("pods", "pod ", "Kubernetes evidence", "container log", "log of")) for g in ctx.gaps):
        reads.append(
            f"the pod's last state and log, if it still exists (kubectl describe pod and kubectl logs --previous"
            f"{where}: anyone who can read that namespace; Kubernetes keeps events about an hour)"
        )
    if any(g.startswith(("events", "workload events", "some workload events")) for g in ctx.gaps):
        reads.append("the workload's events in the Run:ai UI (its project's users can)")
    reads.append("the application's own logs or tracking kept outside the cluster (the submitter)")
    reads.append("the node's kernel and kubelet logs around the failure (the cluster administrator)")
    return "Nothing read names the cause; read next " + "; ".join(reads) + "."


_BY_CATEGORY = {
    "OOM_KILLED": _oom,
    "IMAGE_PULL_FAILED": _image,
    "CRASH_APP_ERROR": _crash,
    "NODE_FAILURE": _node,
    "SCHEDULING_POLICY_TERMINATED": _policy,
    "DATASOURCE_MOUNT_FAILED": _mount,
    "INIT_FAILED": _init,
    "UNKNOWN": _unknown,
}


# When a fault under the workload explains the failure, these categories' own advice would send the user to
# their code or script: it is left out.
_USER_CODE_ADVICE = frozenset({"CRASH_APP_ERROR", "INIT_FAILED"})


def recommendations(ctx: AdviceContext) -> list[str]:
    lead, resubmit = recommend_infra.leading(ctx.findings, ctx.restart_policy)
    own = [] if lead and ctx.category in _USER_CODE_ADVICE else list(_BY_CATEGORY[ctx.category](ctx))
    out = lead + own + resubmit + recommend_infra.trailing(ctx.findings)
    if ctx.recurring_count >= 2 and ctx.category not in {"UNKNOWN", "SCHEDULING_POLICY_TERMINATED"}:
        fix = (
            "have the administrator repair what the findings name before running it again"
            if lead
            else "make a lasting fix before running it again; an unchanged rerun is likely to fail again"
        )
        out.insert(0, f"This failed the same way {ctx.recurring_count} times in the last {ctx.lookback}: {fix}.")
    return out
