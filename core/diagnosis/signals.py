"""Typed failure signals, and the classifiers that read them out of Kubernetes and Run:ai text and objects.

One classifier, ``classify_message``, reads every free-text source the same way: Run:ai events and history
events, a workload ``phaseMessage``, Kubernetes pod and node events, and pod status reason/message. The
object extractors (``pod_signals``, ``node_signals``, ``k8s_event_signals``) turn the typed Kubernetes models
into the same ``Signal`` values, so the verdict engine ranks one kind of thing.

Cluster text is untrusted. These functions only match and quote it: nothing is evaluated or followed, and the
``detail`` kept on a signal is raw (the caller sanitises and redacts before display).

Decisions worth knowing:
- A missing Secret or ConfigMap (``secret "s" not found``, ``couldn't find key K in Secret ns/s``), whether
  from a volume (FailedMount) or from env (CreateContainerConfigError), is ``MOUNT_FAILED``: the seed's
  DATASOURCE_MOUNT_FAILED covers "PVC or secret mount failure", the pod cannot start in both cases and the
  same owner fixes it. Other CreateContainerConfigError/CreateContainerError messages stay
  ``CREATE_CONTAINER_CONFIG_ERROR``.
- ``pod has unbound immediate PersistentVolumeClaims`` is a scheduling message, but it names a missing PVC,
  so it is ``MOUNT_FAILED`` with a note; every other FailedScheduling text gives no signal here.
- Image pull kind precedence, first match wins: NEVER_PULL, INVALID_NAME (decided before any registry call),
  RATE_LIMIT (a 429 body often also talks about authenticating), AUTHORIZATION, NOT_FOUND, TLS, NETWORK, and
  UNKNOWN_PULL when nothing more specific is said. Docker Hub's "pull access denied, repository does not
  exist or may require authorization" is AUTHORIZATION with ``ambiguous=True``: a wrong name reads the same.
- Preemption: reason ``Evict`` (the KAI/Run:ai scheduler's reason), ``Preempted``/``Preempting``,
  DisruptionTarget ``PreemptionByScheduler``, or the words preempt(ed|ion|ing), reclaim(ed), consolidation.
  Not preemption: preemptible/non-preemptible/NonPreemptibleOverQuota, negated wording ("will not be
  preempted", "No preemption victims found"), FailedScheduling texts (the default scheduler prefixes them
  with "preemption:"), the kubelet's "Attempting to reclaim memory" (node pressure), a PV "reclaim policy",
  and Karpenter node consolidation (a drain).
- Init containers: a failure of an init container becomes ``INIT_FAILED`` (keeping its exit code and reason),
  except OOM, image pull and the system signals SIGKILL/SIGTERM, which keep their own kind with
  ``init=True``: they say what killed it, and a system kill is not the init script's fault.
- Scheduling-policy wording is unverified, so idle/duration/manual-stop words are matched broadly, but only
  when no stronger failure signal was found in the same text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any

from core.diagnosis.exit_codes import SIGNAL_NUMBERS, exit_code_meaning
from core.models.kube import (
    ContainerState,
    ContainerStatus,
    K8sEvent,
    K8sNode,
    K8sPod,
)
from core.safety.untrusted import redacted


class SignalKind(StrEnum):
    OOM_KILLED = "OOM_KILLED"
    NODE_OOM_KILLING = "NODE_OOM_KILLING"
    GPU_OOM = "GPU_OOM"
    IMAGE_PULL = "IMAGE_PULL"
    INIT_FAILED = "INIT_FAILED"
    MOUNT_FAILED = "MOUNT_FAILED"
    APP_EXIT = "APP_EXIT"
    SIGKILLED = "SIGKILLED"
    # The seed's "exit 137 without OOMKilled": the same signal until something else explains the kill.
    EXIT_137_UNEXPLAINED = "SIGKILLED"
    SIGTERMED = "SIGTERMED"
    LIVENESS_KILL = "LIVENESS_KILL"
    EVICTED = "EVICTED"
    NODE_LOST = "NODE_LOST"
    NODE_NOT_READY = "NODE_NOT_READY"
    NODE_DRAIN = "NODE_DRAIN"
    NODE_PRESSURE = "NODE_PRESSURE"
    DISRUPTION_TARGET = "DISRUPTION_TARGET"
    PREEMPTED = "PREEMPTED"
    POLICY_IDLE_TIMEOUT = "POLICY_IDLE_TIMEOUT"
    POLICY_MAX_DURATION = "POLICY_MAX_DURATION"
    MANUAL_STOP = "MANUAL_STOP"
    CRASH_LOOP = "CRASH_LOOP"
    DEADLINE_EXCEEDED = "DEADLINE_EXCEEDED"
    CREATE_CONTAINER_CONFIG_ERROR = "CREATE_CONTAINER_CONFIG_ERROR"
    START_ERROR = "START_ERROR"
    # Reason "Error" with no exit code: a failed container whose cause still needs status, history or logs.
    CONTAINER_ERROR = "CONTAINER_ERROR"


class ImagePullKind(StrEnum):
    NOT_FOUND = "NOT_FOUND"
    AUTHORIZATION = "AUTHORIZATION"
    NETWORK = "NETWORK"
    TLS = "TLS"
    RATE_LIMIT = "RATE_LIMIT"
    INVALID_NAME = "INVALID_NAME"
    NEVER_PULL = "NEVER_PULL"
    UNKNOWN_PULL = "UNKNOWN_PULL"


@dataclass(frozen=True)
class Signal:
    """One piece of failure evidence. ``detail`` is raw quoted text: sanitise and redact before showing it."""

    kind: SignalKind
    detail: str
    exit_code: int | None = None
    reason: str | None = None
    pull_kind: ImagePullKind | None = None
    container: str | None = None
    init: bool = False
    at: datetime | None = None
    # What ran out (Evicted, node pressure), or which PVC/Secret/ConfigMap/volume/image is involved.
    resource: str | None = None
    # A caveat for the reader, e.g. why an image-pull classification may be wrong.
    note: str | None = None
    # True when the same text is known to fit more than one cause (see ImagePullKind.AUTHORIZATION).
    ambiguous: bool = False
    # Where it came from (event source component, "containerStatuses", "node.conditions", ...).
    source: str | None = None
    # How many times an event says it happened (de-duplicated Kubernetes events).
    count: int | None = None
    # Who stopped the workload, for MANUAL_STOP.
    actor: str | None = None


# The seed's "strongest direct signal" order; preemption first because it routes the case elsewhere.
_RANK: tuple[SignalKind, ...] = (
    SignalKind.PREEMPTED,
    SignalKind.OOM_KILLED,
    SignalKind.IMAGE_PULL,
    SignalKind.INIT_FAILED,
    SignalKind.MOUNT_FAILED,
    SignalKind.CREATE_CONTAINER_CONFIG_ERROR,
    SignalKind.START_ERROR,
    SignalKind.GPU_OOM,
    SignalKind.APP_EXIT,
    SignalKind.NODE_OOM_KILLING,
    SignalKind.LIVENESS_KILL,
    SignalKind.EVICTED,
    SignalKind.NODE_LOST,
    SignalKind.NODE_NOT_READY,
    SignalKind.NODE_DRAIN,
    SignalKind.DISRUPTION_TARGET,
    SignalKind.DEADLINE_EXCEEDED,
    SignalKind.POLICY_IDLE_TIMEOUT,
    SignalKind.POLICY_MAX_DURATION,
    SignalKind.MANUAL_STOP,
    SignalKind.CRASH_LOOP,
    SignalKind.SIGTERMED,
    SignalKind.SIGKILLED,
    SignalKind.NODE_PRESSURE,
    SignalKind.CONTAINER_ERROR,
)
_RANK_INDEX: dict[SignalKind, int] = {kind: index for index, kind in enumerate(_RANK)}


def signal_rank(kind: SignalKind) -> int:
    """Position in the seed's strongest-signal order (0 = strongest)."""
    return _RANK_INDEX.get(kind, len(_RANK))


def rank_signals(signals: Iterable[Signal]) -> list[Signal]:
    """Signals strongest first; ties keep their input order."""
    return sorted(signals, key=lambda item: signal_rank(item.kind))


# ---------------------------------------------------------------------------------------------------------
# Text preparation

# Bound on how much of one message is matched: real event messages are about 1 KiB; this keeps a hostile
# megabyte string from costing more than a bounded scan. The detail quotes less still.
MAX_MATCH_CHARS = 65_536
MAX_DETAIL_CHARS = 400

ESCAPE_SEQUENCE_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?|\x9b[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]"
)
"""Terminal escape sequences (CSI such as ANSI colours, OSC, lone ESC codes): removed before matching."""


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return value if isinstance(value, str) else str(value)


def _for_matching(value: Any) -> str:
    """Text with escape sequences and invisible format characters removed, so they cannot hide a word."""
    text = _as_text(value)[:MAX_MATCH_CHARS]
    text = ESCAPE_SEQUENCE_RE.sub("", text)
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf" and ch not in "\u2028\u2029")


def _detail(reason: str, message: str) -> str:
    text = message.strip() or reason.strip()
    if len(text) > MAX_DETAIL_CHARS:
        text = redacted(text)  # cut only redacted text: a cut through a credential would show part of it
    if len(text) > MAX_DETAIL_CHARS:
        return f"{text[:MAX_DETAIL_CHARS]}... ({len(text)} chars)"
    return text


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# ---------------------------------------------------------------------------------------------------------
# Patterns. All are bounded (no nested or unbounded wildcards), so matching stays linear on long input.

GPU_OOM_RE = _rx(
    r"cuda out of memory|cuda error: out of memory|cublas_status_alloc_failed|cudnn_status_alloc_failed"
    r"|cudaErrorMemoryAllocation|torch\.(?:cuda\.)?OutOfMemoryError|(?<![\w.])OutOfMemoryError"
    r"|oom when allocating tensor|resource_exhausted: out of memory"
)
"""GPU out-of-memory wording (PyTorch, cuBLAS/cuDNN, TensorFlow, JAX); not java.lang.OutOfMemoryError."""

_OOM_KILLED_RE = _rx(r"\boom[\s_-]?killed\b")
_NODE_OOM_RE = _rx(
    r"memory cgroup out of memory|system oom encountered|out of memory: kill(?:ed)? process"
    r"|\bkilled process \d{1,10} \("
)
_KILLED_PROCESS_RE = _rx(r"killed process (\d{1,10}) \(([^)\n]{1,64})\)")
_CONTAINER_NAME_RE = re.compile(r"\b[Cc]ontainer\s+\"?([a-z0-9](?:[-a-z0-9.]{0,61}[a-z0-9])?)\"?")
_NOT_A_CONTAINER_NAME = frozenset(
    {
        "image",
        "with",
        "has",
        "is",
        "was",
        "in",
        "for",
        "name",
        "process",
        "runtime",
        "create",
        "creation",
        "config",
        "failed",
        "status",
        "the",
        "a",
        "to",
        "of",
        "that",
        "and",
        "not",
        "id",
        "will",
        "exited",
    }
)
_EXIT_CODE_RE = _rx(r"\bexit(?:ed)?(?:\s+with)?[\s_-]{0,3}(?:code|status)\b[\s:=]{0,3}\(?(-?\d{1,5})\b")
_KUBECTL_CODE_RE = re.compile(r"\b(ExitCode|Signal):(-?\d{1,5})\b")
_INIT_TOKEN_RE = re.compile(r"\bInit:([A-Za-z]+)")
_INIT_CONTAINER_RE = _rx(r"\binit[\s-]?container")

_PULL_REASONS = frozenset(
    {
        "errimagepull",
        "imagepullbackoff",
        "invalidimagename",
        "errimageneverpull",
        "registryunavailable",
        "imageinspecterror",
        "errimageinspect",
    }
)
_PULL_TRIGGER_RE = _rx(
    r"failed to pull (?:and unpack )?image|back-off pulling image|\berrimagepull\b|\bimagepullbackoff\b"
    r"|\binvalidimagename\b|\berrimageneverpull\b|pull access denied|couldn't parse image reference"
    r"|failed to apply default image tag|is not present with pull policy of never|failed to resolve reference"
    r"|\bregistryunavailable\b"
)
_IMAGE_NAME_RE = _rx(r"\bimage \"([^\"\n]{1,512})\"")
_PULL_KIND_PATTERNS: tuple[tuple[ImagePullKind, re.Pattern[str]], ...] = (
    (ImagePullKind.NEVER_PULL, _rx(r"errimageneverpull|is not present with pull policy of never")),
    (
        ImagePullKind.INVALID_NAME,
        _rx(
            r"invalidimagename|invalid reference format|couldn't parse image reference"
            r"|failed to apply default image tag"
        ),
    ),
    (ImagePullKind.RATE_LIMIT, _rx(r"\b429\b|too many requests|toomanyrequests|(?:pull )?rate limit")),
    (
        ImagePullKind.AUTHORIZATION,
        _rx(
            r"pull access denied|may require authorization|\bunauthorized\b|authentication required"
            r"|requested access to the resource is denied|\bforbidden\b|insufficient_scope"
            r"|no basic auth credentials|authorization failed|failed to authorize|\bdenied:"
            r"|status(?: code)?:? 40[13]\b"
        ),
    ),
    (
        ImagePullKind.NOT_FOUND,
        _rx(
            r"manifest unknown|manifest for \S{1,512} not found|: not found\b|not found: manifest"
            r"|\bname unknown\b|404 not found|repository does not exist"
        ),
    ),
    (
        ImagePullKind.TLS,
        _rx(
            r"x509:|tls: failed to verify|certificate signed by unknown authority|certificate has expired"
            r"|certificate is not valid"
        ),
    ),
    (
        ImagePullKind.NETWORK,
        _rx(
            r"i/o timeout|no such host|connection refused|tls handshake timeout|dial tcp|connection reset"
            r"|network is unreachable|server misbehaving|temporary failure in name resolution"
            r"|registryunavailable|context deadline exceeded|503 service unavailable|502 bad gateway"
        ),
    ),
)
_PULL_AMBIGUOUS_RE = _rx(r"pull access denied|repository does not exist|may require authorization")

_MOUNT_REASONS = frozenset({"failedmount", "failedattachvolume", "failedmapvolume"})
_MOUNT_TRIGGER_RE = _rx(
    r"mountvolume\.\w{1,32} failed|unable to (?:attach or )?mount volumes|multi-attach error"
    r"|attachvolume\.attach failed|persistentvolumeclaim \"[^\"\n]{1,253}\" not found"
    r"|unbound immediate persistentvolumeclaims|mapvolume\.\w{1,32} failed"
)
_MISSING_OBJECT_RE = _rx(r"\b(configmap|secret|persistentvolumeclaim)s? \"([^\"\n]{1,253})\" not found")
_MISSING_KEY_RE = _rx(r"couldn't find key (\S{1,253}) in (Secret|ConfigMap) ([\w./-]{1,507})")
_VOLUME_NAME_RE = _rx(r"\bvolume \"([^\"\n]{1,253})\"")
_UNMOUNTED_RE = _rx(r"unmounted volumes=\[([^\]\n]{0,1024})\]")
_UNBOUND_PVC_RE = _rx(r"unbound immediate persistentvolumeclaims")
_MOUNT_TIMEOUT_RE = _rx(r"timed out waiting for the condition|context deadline exceeded")

_START_REASONS = frozenset({"starterror", "containercannotrun", "runcontainererror"})
_START_TRIGGER_RE = _rx(
    r"executable file not found in \$path|failed to create containerd task|oci runtime (?:create|exec) failed"
    r"|runc create failed|unable to start container process"
)
_CONFIG_REASONS = frozenset({"createcontainerconfigerror", "createcontainererror"})

_LIVENESS_RE = _rx(r"liveness probe failed|failed liveness probe")
_STARTUP_PROBE_RE = _rx(r"startup probe failed|failed startup probe")
_CRASH_LOOP_RE = _rx(r"back-off restarting failed container|\bcrashloopbackoff\b")

_EVICTION_RE = _rx(
    r"the node was low on resource|has larger consumption of|ephemeral local storage usage exceeds"
    r"|usage of emptydir volume \"[^\"\n]{0,253}\" exceeds|the node had condition: \["
)
_LOW_ON_RE = _rx(r"low on resource: ([a-z][a-z0-9-]{0,63}(?:[./][a-z0-9-]{1,63}){0,3})")
_LARGER_CONSUMPTION_RE = _rx(r"larger consumption of ([a-z][a-z0-9-]{0,63})")
_HAD_CONDITION_RE = _rx(r"had condition: \[([A-Za-z, ]{1,128})\]")

_NODE_LOST_RE = _rx(r"which was running pod \S{1,512} is unresponsive")
_NODE_NOT_READY_RE = _rx(r"status is now: nodenotready|\bnode is not ready\b")
_NODE_NOT_SCHED_RE = _rx(r"status is now: nodenotschedulable")
_DRAIN_RE = _rx(
    r"\bcordon(?:ed|ing)?\b|\bnode\b.{0,40}\bdrain(?:ed|ing)?\b|\bdrain(?:ed|ing)?\b.{0,40}\bnode\b"
    r"|disrupting node"
)
_NODE_PRESSURE_EVENTS: dict[str, str] = {
    "nodehasinsufficientmemory": "memory",
    "nodehasdiskpressure": "ephemeral-storage",
    "nodehasinsufficientpid": "pids",
}
_PRESSURE_STATUS_RE = _rx(
    r"status is now: (nodehasinsufficientmemory|nodehasdiskpressure|nodehasinsufficientpid)"
)
_RECLAIM_RESOURCE_RE = _rx(r"attempting to reclaim ([a-z][a-z0-9-]{0,63})")

_PREEMPT_RE = _rx(r"(?<![\w-])pre-?empt(?:ed|ion|ing|s|or)?(?![\w-])")
_RECLAIM_RE = _rx(r"(?<![\w-])reclaim(?:ed|ing|s)?(?![\w-])")
_CONSOLIDATION_RE = _rx(r"(?<![\w-])consolidat(?:ion|ed|ing|es|e)(?![\w-])")
_NEGATION_BEFORE_RE = _rx(r"\b(?:not|never|cannot|can't|won't|no|without|isn't)\s+(?:be\s+|been\s+|get\s+)?$")
_NEGATION_AFTER_RE = _rx(r"^\s*(?:is\s+not|isn't|was\s+not|wasn't)\s+(?:helpful|possible|needed|allowed)")
_SCHEDULING_TEXT_RE = _rx(r"\b\d{1,6}/\d{1,6} nodes are available")
_NODE_RECLAIM_CONTEXT_RE = _rx(r"attempting to reclaim|reclaim\s+polic")
_KARPENTER_RE = _rx(r"karpenter|disrupting node")

_PREEMPT_REASONS = frozenset(
    {"evict", "preempted", "preempting", "preemptionbyscheduler", "preemptionbykubescheduler"}
)
_DISRUPTION_REASONS = frozenset(
    {
        "terminationbykubelet",
        "evictionbyevictionapi",
        "deletionbytaintmanager",
        "deletionbypodgc",
        "taintmanagereviction",
    }
)
_DEADLINE_RE = _rx(r"active (?:on the node )?longer than (?:the )?specified deadline")

_IDLE_RE = _rx(r"\bidle\b|idle[\s_-]?(?:gpu|time|timeout|duration)|maxidle")
_DURATION_RE = _rx(
    r"duration[\s_-]?limit|time[\s_-]?limit"
    r"|max(?:imum)?[\s_-]?(?:run[\s_-]?)?(?:duration|run[\s_-]?time|runtime)"
    r"|jobtimelimit|exceeded (?:its|the) (?:maximum |allowed )?(?:run[\s-]?time|runtime|duration)"
    r"|run[\s-]?time limit"
)
_MANUAL_RE = _rx(
    r"manually stopped|stopped manually|desired[\s_-]?phase[\s\"':=]{0,4}stopped|stop(?:ped)? requested by"
    r"|user requested (?:a )?stop"
)
_STOPPED_BY_RE = _rx(r"\bstop(?:ped)?(?: requested)? by (?:the )?(?:user )?[\"']?([^\s\"',;()]{1,128})")
_SYSTEM_ACTORS = frozenset(
    {
        "scheduler",
        "kai-scheduler",
        "runai-scheduler",
        "system",
        "policy",
        "rule",
        "controller",
        "kubelet",
        "the",
        "a",
        "an",
        "timeout",
        "idle",
        "preemption",
        "admin-policy",
        "scheduling",
    }
)


def _negated(text: str, start: int, end: int) -> bool:
    return bool(
        _NEGATION_BEFORE_RE.search(text[max(0, start - 30) : start])
        or _NEGATION_AFTER_RE.search(text[end : end + 40])
    )


def _first_unnegated(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    for match in pattern.finditer(text):
        if not _negated(text, match.start(), match.end()):
            return match
    return None


def _container_in(message: str) -> str | None:
    for match in _CONTAINER_NAME_RE.finditer(message):
        name = match.group(1)
        if name.lower() not in _NOT_A_CONTAINER_NAME:
            return name
    return None


def _exit_code_in(message: str) -> int | None:
    match = _EXIT_CODE_RE.search(message)
    if match:
        return int(match.group(1))
    token = _KUBECTL_CODE_RE.search(message)
    if token is None:
        return None
    number = int(token.group(2))
    return number if token.group(1) == "ExitCode" else 128 + number


def image_pull_kind(message: str) -> tuple[ImagePullKind, bool]:
    """The pull failure kind a registry/kubelet message shows, and whether that reading is ambiguous."""
    text = _for_matching(message)
    for kind, pattern in _PULL_KIND_PATTERNS:
        if pattern.search(text):
            ambiguous = kind is ImagePullKind.AUTHORIZATION and bool(_PULL_AMBIGUOUS_RE.search(text))
            return kind, ambiguous
    return ImagePullKind.UNKNOWN_PULL, False


_PULL_NOTES: dict[ImagePullKind, str] = {
    ImagePullKind.AUTHORIZATION: "the registry refused the credentials (or none were sent)",
    ImagePullKind.RATE_LIMIT: "registry rate limit: retry later or pull with an authenticated account",
    ImagePullKind.UNKNOWN_PULL: "the message does not say why the pull failed",
}
_AMBIGUOUS_PULL_NOTE = (
    "ambiguous: the registry answers the same for a private image without the right pull secret and for an "
    "image name or repository that does not exist"
)


class _Collector:
    """Accumulates at most one signal per kind, in the order found."""

    def __init__(self, detail: str, source: str | None, init: bool) -> None:
        self.detail = detail
        self.source = source
        self.init = init
        self.items: dict[SignalKind, Signal] = {}

    def add(self, kind: SignalKind, **fields: Any) -> None:
        if kind in self.items:
            return
        fields.setdefault("init", self.init)
        fields.setdefault("source", self.source)
        self.items[kind] = Signal(kind=kind, detail=self.detail, **fields)

    def has_any(self, kinds: Iterable[SignalKind]) -> bool:
        return any(kind in self.items for kind in kinds)


_STRONG_KINDS: frozenset[SignalKind] = frozenset(
    {
        SignalKind.OOM_KILLED,
        SignalKind.NODE_OOM_KILLING,
        SignalKind.GPU_OOM,
        SignalKind.IMAGE_PULL,
        SignalKind.MOUNT_FAILED,
        SignalKind.START_ERROR,
        SignalKind.CREATE_CONTAINER_CONFIG_ERROR,
        SignalKind.LIVENESS_KILL,
        SignalKind.EVICTED,
        SignalKind.NODE_LOST,
        SignalKind.NODE_NOT_READY,
        SignalKind.NODE_DRAIN,
        SignalKind.PREEMPTED,
        SignalKind.DEADLINE_EXCEEDED,
        SignalKind.CRASH_LOOP,
    }
)
_INIT_CONVERTED: frozenset[SignalKind] = frozenset(
    {
        SignalKind.APP_EXIT,
        SignalKind.CONTAINER_ERROR,
        SignalKind.CRASH_LOOP,
        SignalKind.START_ERROR,
        SignalKind.CREATE_CONTAINER_CONFIG_ERROR,
    }
)


def classify_message(
    reason: str | None,
    message: str | None,
    *,
    source: str | None = None,
    kind: str | None = None,
) -> list[Signal]:
    """Every failure signal one (reason, message) pair shows, at most one per kind, strongest first.

    ``source`` is the reporting component (e.g. "kubelet", "kai-scheduler"); ``kind`` is the involved object's
    kind ("Pod", "Node", "PodGroup"). Routine texts ("Started container", "Pulled image", "Successfully
    assigned", "kubelet has sufficient memory available") give an empty list.
    """
    raw_reason = _as_text(reason)
    raw_message = _as_text(message)
    r_text = _for_matching(raw_reason).strip()
    m = _for_matching(raw_message)
    src = _for_matching(source).strip().lower() or None
    obj_kind = _for_matching(kind).strip().lower() or None

    init = False
    code_from_reason: int | None = None
    if r_text.startswith("Init:"):
        init = True
        r_text = r_text[len("Init:") :]
    token = _KUBECTL_CODE_RE.fullmatch(r_text)
    if token is not None:
        number = int(token.group(2))
        code_from_reason = number if token.group(1) == "ExitCode" else 128 + number
    init_in_message = _INIT_TOKEN_RE.search(m)
    if init_in_message or _INIT_CONTAINER_RE.search(m):
        init = True
    r = r_text.lower()
    both = f"{r_text} {m}"

    out = _Collector(_detail(raw_reason, raw_message), source if src else None, init)
    exit_code = code_from_reason if code_from_reason is not None else _exit_code_in(m)
    container = _container_in(m)
    scheduling_text = r == "failedscheduling" or bool(_SCHEDULING_TEXT_RE.search(m))

    _match_preemption(out, r, m, src, obj_kind, scheduling_text, container)
    _match_memory(out, r, m, both, exit_code, container)
    _match_image_pull(out, r, m, container)
    _match_mount(out, r, m)
    _match_start_and_config(out, r, m, container)
    _match_probes_and_loops(out, r, m, container)
    _match_eviction_and_node(out, r, m, scheduling_text)
    _match_policy(out, r, m)
    _match_exit(out, r_text, exit_code, container)

    signals = list(out.items.values())
    if init:
        signals = [
            replace(item, kind=SignalKind.INIT_FAILED, reason=item.reason or r_text or None, init=True)
            if item.kind in _INIT_CONVERTED
            else item
            for item in signals
        ]
        signals = _unique_kinds(signals)
    return rank_signals(signals)


def _unique_kinds(signals: list[Signal]) -> list[Signal]:
    seen: set[SignalKind] = set()
    unique: list[Signal] = []
    for item in signals:
        if item.kind not in seen:
            seen.add(item.kind)
            unique.append(item)
    return unique


def _match_preemption(
    out: _Collector,
    r: str,
    m: str,
    src: str | None,
    obj_kind: str | None,
    scheduling_text: bool,
    container: str | None,
) -> None:
    if r in _PREEMPT_REASONS:
        # A kubelet "Evict" with eviction wording is the kubelet's own eviction, handled below.
        kubelet_eviction = r == "evict" and (src == "kubelet" or bool(_EVICTION_RE.search(m)))
        if not kubelet_eviction:
            out.add(SignalKind.PREEMPTED, reason=_canonical_reason(r))
            return
    if scheduling_text:
        return
    if _first_unnegated(_PREEMPT_RE, m):
        out.add(SignalKind.PREEMPTED, container=container)
        return
    if (
        obj_kind != "persistentvolume"
        and not _NODE_RECLAIM_CONTEXT_RE.search(m)
        and _first_unnegated(_RECLAIM_RE, m)
    ):
        out.add(SignalKind.PREEMPTED, container=container, note="quota reclaim")
        return
    karpenter = bool(_KARPENTER_RE.search(m)) or (src is not None and "karpenter" in src)
    if not karpenter and _first_unnegated(_CONSOLIDATION_RE, m):
        out.add(SignalKind.PREEMPTED, container=container, note="resource consolidation (bin packing)")


def _match_memory(
    out: _Collector, r: str, m: str, both: str, exit_code: int | None, container: str | None
) -> None:
    if r in {"oomkilling", "systemoom"} or _NODE_OOM_RE.search(m):
        process = _KILLED_PROCESS_RE.search(m)
        out.add(
            SignalKind.NODE_OOM_KILLING,
            reason=_canonical_reason(r) or "OOMKilling",
            resource="memory",
            note=f"process {process.group(2)} (pid {process.group(1)})" if process else None,
        )
    if r == "oomkilled" or _OOM_KILLED_RE.search(both):
        out.add(
            SignalKind.OOM_KILLED,
            reason="OOMKilled",
            exit_code=exit_code,
            container=container,
            resource="memory",
        )
    if GPU_OOM_RE.search(m):
        out.add(SignalKind.GPU_OOM, container=container, resource="gpu-memory")


def _match_image_pull(out: _Collector, r: str, m: str, container: str | None) -> None:
    if not (r in _PULL_REASONS or _PULL_TRIGGER_RE.search(m)):
        return
    pull_kind, ambiguous = image_pull_kind(f"{r} {m}")
    image = _IMAGE_NAME_RE.search(m)
    note = _AMBIGUOUS_PULL_NOTE if ambiguous else _PULL_NOTES.get(pull_kind)
    out.add(
        SignalKind.IMAGE_PULL,
        pull_kind=pull_kind,
        ambiguous=ambiguous,
        reason=_canonical_reason(r),
        resource=image.group(1) if image else None,
        container=container,
        note=note,
    )


_CANONICAL_REASONS: dict[str, str] = {
    name.lower(): name
    for name in (
        "ErrImagePull",
        "ImagePullBackOff",
        "InvalidImageName",
        "ErrImageNeverPull",
        "RegistryUnavailable",
        "BackOff",
        "Failed",
        "FailedMount",
        "FailedAttachVolume",
        "FailedMapVolume",
        "FailedScheduling",
        "CreateContainerConfigError",
        "CreateContainerError",
        "StartError",
        "ContainerCannotRun",
        "RunContainerError",
        "Unhealthy",
        "Killing",
        "CrashLoopBackOff",
        "Evicted",
        "NodeLost",
        "NodeNotReady",
        "NodeNotSchedulable",
        "Rebooted",
        "RemovingNode",
        "DeadlineExceeded",
        "Error",
        "OOMKilled",
        "EvictionThresholdMet",
        "NodeHasInsufficientMemory",
        "NodeHasDiskPressure",
        "NodeHasInsufficientPID",
        "Completed",
        "ImageInspectError",
        "ErrImageInspect",
        "OOMKilling",
        "SystemOOM",
        "Evict",
        "Preempted",
        "Preempting",
        "PreemptionByScheduler",
        "PreemptionByKubeScheduler",
        "TerminationByKubelet",
        "EvictionByEvictionAPI",
        "DeletionByTaintManager",
        "DeletionByPodGC",
        "TaintManagerEviction",
    )
}


def _canonical_reason(r: str) -> str | None:
    if not r:
        return None
    return _CANONICAL_REASONS.get(r, r)


def _match_mount(out: _Collector, r: str, m: str) -> None:
    missing = _MISSING_OBJECT_RE.search(m)
    missing_key = _MISSING_KEY_RE.search(m)
    triggered = r in _MOUNT_REASONS or bool(_MOUNT_TRIGGER_RE.search(m))
    if not (triggered or missing or missing_key):
        return
    resource: str | None = None
    note: str | None = None
    if missing_key:
        resource = f"{missing_key.group(2).lower()}/{missing_key.group(3)}"
        note = f"key {missing_key.group(1)} is missing from it"
    elif missing:
        resource = f"{missing.group(1).lower()}/{missing.group(2)}"
    elif (unmounted := _UNMOUNTED_RE.search(m)) is not None:
        names = ",".join(unmounted.group(1).split())
        resource = f"volumes/{names}" if names else None
    elif (volume := _VOLUME_NAME_RE.search(m)) is not None:
        resource = f"volume/{volume.group(1)}"
    if _UNBOUND_PVC_RE.search(m):
        note = "reported at scheduling: a PersistentVolumeClaim is missing or not bound"
    elif _MOUNT_TIMEOUT_RE.search(m):
        note = "timed out waiting for the volumes to attach or mount"
    elif missing and not triggered:
        # Not a volume event: a Secret/ConfigMap referenced from env (CreateContainerConfigError).
        note = "a Secret/ConfigMap the container references is missing"
    out.add(SignalKind.MOUNT_FAILED, reason=_canonical_reason(r), resource=resource, note=note)


def _match_start_and_config(out: _Collector, r: str, m: str, container: str | None) -> None:
    if r in _START_REASONS or _START_TRIGGER_RE.search(m):
        out.add(
            SignalKind.START_ERROR,
            exit_code=128,
            reason=_canonical_reason(r) or "StartError",
            container=container,
        )
    if r in _CONFIG_REASONS and SignalKind.MOUNT_FAILED not in out.items:
        out.add(SignalKind.CREATE_CONTAINER_CONFIG_ERROR, reason=_canonical_reason(r), container=container)


def _match_probes_and_loops(out: _Collector, r: str, m: str, container: str | None) -> None:
    if (r == "unhealthy" and _LIVENESS_RE.search(m)) or re.search(r"failed liveness probe", m, re.IGNORECASE):
        killed = bool(re.search(r"will be restarted", m, re.IGNORECASE))
        out.add(
            SignalKind.LIVENESS_KILL,
            reason=_canonical_reason(r),
            container=container,
            note=None if killed else "probe failing; the kubelet kills the container after failureThreshold",
        )
    elif (r == "unhealthy" and _STARTUP_PROBE_RE.search(m)) or re.search(r"failed startup probe", m, re.I):
        out.add(
            SignalKind.LIVENESS_KILL,
            reason=_canonical_reason(r),
            container=container,
            note="startup probe, not liveness: the kubelet restarts the container the same way",
        )
    if r == "crashloopbackoff" or _CRASH_LOOP_RE.search(m):
        out.add(
            SignalKind.CRASH_LOOP,
            reason="CrashLoopBackOff" if r in {"crashloopbackoff", ""} else _canonical_reason(r),
            container=container,
        )


def _match_eviction_and_node(out: _Collector, r: str, m: str, scheduling_text: bool) -> None:
    if r == "evicted" or _EVICTION_RE.search(m):
        low = _LOW_ON_RE.search(m) or _LARGER_CONSUMPTION_RE.search(m)
        resource = low.group(1) if low else None
        if resource is None and re.search(r"ephemeral local storage|emptydir volume", m, re.IGNORECASE):
            resource = "ephemeral-storage"
        if resource is None and (had := _HAD_CONDITION_RE.search(m)) is not None:
            resource = had.group(1).strip()
        out.add(SignalKind.EVICTED, reason="Evicted", resource=resource)
    if scheduling_text:
        return
    if r == "nodelost" or _NODE_LOST_RE.search(m):
        out.add(SignalKind.NODE_LOST, reason="NodeLost")
    if r == "removingnode":
        out.add(SignalKind.NODE_LOST, reason="RemovingNode", note="the node was removed from the cluster")
    if r == "nodenotready" or _NODE_NOT_READY_RE.search(m):
        out.add(SignalKind.NODE_NOT_READY, reason="NodeNotReady")
    if r == "rebooted":
        out.add(
            SignalKind.NODE_NOT_READY, reason="Rebooted", note="the node rebooted; its containers restarted"
        )
    if r == "nodenotschedulable" or _NODE_NOT_SCHED_RE.search(m) or _DRAIN_RE.search(m):
        out.add(SignalKind.NODE_DRAIN, reason=_canonical_reason(r))
    pressure = _PRESSURE_STATUS_RE.search(m)
    reclaim = _RECLAIM_RESOURCE_RE.search(m)
    if r in _NODE_PRESSURE_EVENTS:
        out.add(SignalKind.NODE_PRESSURE, reason=_canonical_reason(r), resource=_NODE_PRESSURE_EVENTS[r])
    elif pressure is not None:
        key = pressure.group(1).lower()
        out.add(SignalKind.NODE_PRESSURE, reason=_canonical_reason(key), resource=_NODE_PRESSURE_EVENTS[key])
    elif r == "evictionthresholdmet" or reclaim is not None:
        out.add(
            SignalKind.NODE_PRESSURE,
            reason=_canonical_reason(r),
            resource=reclaim.group(1) if reclaim else None,
        )
    if r in _DISRUPTION_REASONS:
        out.add(SignalKind.DISRUPTION_TARGET, reason=_canonical_reason(r))
    if r == "deadlineexceeded" or _DEADLINE_RE.search(m):
        out.add(SignalKind.DEADLINE_EXCEEDED, reason="DeadlineExceeded")


def _match_policy(out: _Collector, r: str, m: str) -> None:
    if out.has_any(_STRONG_KINDS):
        return
    if _IDLE_RE.search(m) or _IDLE_RE.search(r):
        out.add(SignalKind.POLICY_IDLE_TIMEOUT, reason=r or None)
    if _DURATION_RE.search(m) or _DURATION_RE.search(r):
        out.add(SignalKind.POLICY_MAX_DURATION, reason=r or None)
    if out.has_any({SignalKind.POLICY_IDLE_TIMEOUT, SignalKind.POLICY_MAX_DURATION}):
        return
    actor_match = _STOPPED_BY_RE.search(m)
    actor = actor_match.group(1).rstrip(".:") if actor_match else None
    if actor is not None and actor.lower() in _SYSTEM_ACTORS:
        actor = None
    if _MANUAL_RE.search(m) or actor is not None:
        out.add(SignalKind.MANUAL_STOP, reason=r or None, actor=actor)


def _match_exit(out: _Collector, r_text: str, exit_code: int | None, container: str | None) -> None:
    # Exit codes that another signal already explains are attached to it, not repeated as their own signal.
    if out.has_any({SignalKind.OOM_KILLED, SignalKind.START_ERROR}):
        return
    if exit_code is not None and exit_code != 0:
        meaning = exit_code_meaning(exit_code)
        if meaning.signal == SIGNAL_NUMBERS["SIGKILL"]:
            out.add(SignalKind.SIGKILLED, exit_code=exit_code, container=container, reason=r_text or None)
        elif meaning.signal == SIGNAL_NUMBERS["SIGTERM"]:
            out.add(SignalKind.SIGTERMED, exit_code=exit_code, container=container, reason=r_text or None)
        else:
            out.add(
                SignalKind.APP_EXIT,
                exit_code=exit_code,
                container=container,
                reason=r_text or meaning.signal_name,
            )
        return
    if r_text.lower() == "error":
        out.add(SignalKind.CONTAINER_ERROR, reason="Error", container=container)


# ---------------------------------------------------------------------------------------------------------
# Object-level extractors

_TERMINATED_SOURCE = "containerStatuses"
_INIT_SOURCE = "initContainerStatuses"


def _restartable_init_names(pod: K8sPod) -> set[str]:
    """Sidecar init containers (restartPolicy Always): they run for the pod's whole life, like main ones."""
    names: set[str] = set()
    for container in (pod.spec.init_containers if pod.spec else None) or []:
        extra = container.model_extra or {}
        if extra.get("restartPolicy") == "Always" and container.name:
            names.add(container.name)
    return names


def _terminated_signals(
    status: ContainerStatus, state: ContainerState | None, *, init: bool, previous: bool, src: str
) -> list[Signal]:
    if state is None or state.terminated is None:
        return []
    term = state.terminated
    reason = _as_text(term.reason).strip()
    message = _as_text(term.message)
    code = term.exit_code
    if code is None and term.signal:
        code = 128 + term.signal
    where = f"{src}[{status.name}].{'lastState' if previous else 'state'}.terminated"
    head = f"{reason or 'terminated'}" + (f" (exit {code})" if code is not None else "")
    detail = _detail("", f"{head}: {message.strip()}" if message.strip() else head)
    base: dict[str, Any] = {
        "detail": detail,
        "exit_code": code,
        "reason": reason or None,
        "container": status.name,
        "init": init,
        "at": term.finished_at,
        "source": where,
    }
    lowered = reason.lower()
    signals: list[Signal] = []
    if lowered == "oomkilled":
        signals.append(Signal(kind=SignalKind.OOM_KILLED, resource="memory", **base))
    elif lowered in _START_REASONS:
        signals.append(Signal(kind=SignalKind.INIT_FAILED if init else SignalKind.START_ERROR, **base))
    elif code is not None and code != 0:
        meaning = exit_code_meaning(code)
        if meaning.is_system_signal:
            kind = (
                SignalKind.SIGKILLED if meaning.signal == SIGNAL_NUMBERS["SIGKILL"] else SignalKind.SIGTERMED
            )
        else:
            kind = SignalKind.INIT_FAILED if init else SignalKind.APP_EXIT
        signals.append(Signal(kind=kind, note=meaning.meaning, **base))
    elif code is None and lowered and lowered != "completed":
        signals.append(Signal(kind=SignalKind.INIT_FAILED if init else SignalKind.CONTAINER_ERROR, **base))
    if message.strip() and lowered != "oomkilled":
        # The termination message may be the app's own last words (terminationMessagePath): classify it too.
        for extra in classify_message(None, message, source=where):
            if extra.kind in {SignalKind.GPU_OOM, SignalKind.OOM_KILLED}:
                signals.append(replace(extra, container=status.name, init=init, at=term.finished_at))
    return signals


def _waiting_signals(status: ContainerStatus, *, init: bool, src: str) -> list[Signal]:
    state = status.state
    if state is None or state.waiting is None:
        return []
    waiting = state.waiting
    reason = _as_text(waiting.reason).strip()
    if not reason or reason.lower() in {"containercreating", "podinitializing"}:
        return []
    where = f"{src}[{status.name}].state.waiting"
    found = classify_message(("Init:" if init else "") + reason, waiting.message, source=where)
    signals: list[Signal] = []
    for item in found:
        update: dict[str, Any] = {"container": status.name, "init": init, "source": where}
        if item.kind in {SignalKind.CRASH_LOOP, SignalKind.INIT_FAILED} and status.restart_count is not None:
            update["count"] = status.restart_count
        signals.append(replace(item, **update))
    return signals


def _container_signals(status: ContainerStatus, *, init: bool, src: str) -> list[Signal]:
    signals = _waiting_signals(status, init=init, src=src)
    signals += _terminated_signals(status, status.state, init=init, previous=False, src=src)
    signals += _terminated_signals(status, status.last_state, init=init, previous=True, src=src)
    return signals


def pod_signals(pod: K8sPod) -> list[Signal]:
    """Signals from one Kubernetes pod: container and init-container states, pod reason and conditions.

    All signals are kept (one container can show a CrashLoopBackOff now and the OOMKilled that caused it in
    ``lastState``), strongest first.
    """
    status = pod.status
    if status is None:
        return []
    signals: list[Signal] = []
    sidecars = _restartable_init_names(pod)
    for item in status.init_container_statuses or []:
        signals += _container_signals(item, init=item.name not in sidecars, src=_INIT_SOURCE)
    for item in status.container_statuses or []:
        signals += _container_signals(item, init=False, src=_TERMINATED_SOURCE)
    if status.reason or status.message:
        for found in classify_message(status.reason, status.message, source="pod.status", kind="Pod"):
            signals.append(found)
    for condition in status.conditions or []:
        if condition.type == "DisruptionTarget" and _as_text(condition.status) == "True":
            reason = _as_text(condition.reason).strip()
            kind = (
                SignalKind.PREEMPTED
                if reason.lower() in {"preemptionbyscheduler", "preemptionbykubescheduler"}
                else SignalKind.DISRUPTION_TARGET
            )
            signals.append(
                Signal(
                    kind=kind,
                    detail=_detail(reason, _as_text(condition.message)),
                    reason=reason or None,
                    at=condition.last_transition_time,
                    source="pod.status.conditions[DisruptionTarget]",
                )
            )
    return rank_signals(signals)


_NODE_TAINTS = {"node.kubernetes.io/not-ready": "NotReady", "node.kubernetes.io/unreachable": "Unreachable"}
_PRESSURE_RESOURCES = {"MemoryPressure": "memory", "DiskPressure": "ephemeral-storage", "PIDPressure": "pids"}


def node_signals(node: K8sNode) -> list[Signal]:
    """Signals from one Kubernetes node: Ready condition, pressure conditions, NoExecute taints, cordon."""
    signals: list[Signal] = []
    for condition in (node.status.conditions if node.status else None) or []:
        status = _as_text(condition.status)
        detail = _detail(_as_text(condition.reason), _as_text(condition.message))
        if condition.type == "Ready" and status in {"False", "Unknown"}:
            signals.append(
                Signal(
                    kind=SignalKind.NODE_NOT_READY,
                    detail=detail or f"Ready={status}",
                    reason=condition.reason or f"Ready={status}",
                    at=condition.last_transition_time,
                    source="node.status.conditions[Ready]",
                    note="the kubelet stopped reporting" if status == "Unknown" else None,
                )
            )
        elif condition.type in _PRESSURE_RESOURCES and status == "True":
            signals.append(
                Signal(
                    kind=SignalKind.NODE_PRESSURE,
                    detail=detail or f"{condition.type}=True",
                    reason=condition.reason or condition.type,
                    resource=_PRESSURE_RESOURCES[condition.type],
                    at=condition.last_transition_time,
                    source=f"node.status.conditions[{condition.type}]",
                )
            )
    for taint in (node.spec.taints if node.spec else None) or []:
        if taint.key in _NODE_TAINTS and taint.effect == "NoExecute":
            signals.append(
                Signal(
                    kind=SignalKind.NODE_NOT_READY,
                    detail=f"taint {taint.key}:NoExecute",
                    reason=_NODE_TAINTS[taint.key],
                    at=taint.time_added,
                    source="node.spec.taints",
                    note="pods without a matching toleration are evicted (after 300 s by default)",
                )
            )
    if node.spec is not None and node.spec.unschedulable:
        signals.append(
            Signal(
                kind=SignalKind.NODE_DRAIN,
                detail="spec.unschedulable: true (cordoned)",
                reason="Unschedulable",
                source="node.spec.unschedulable",
            )
        )
    return rank_signals(signals)


def k8s_event_signals(event: K8sEvent) -> list[Signal]:
    """Signals from one Kubernetes event, with its occurrence count and last time."""
    involved = event.involved_object
    component = event.source.component if event.source else None
    source = component or event.reporting_component
    at = (
        (event.series.last_observed_time if event.series else None)
        or event.last_timestamp
        or event.event_time
        or event.first_timestamp
    )
    found = classify_message(
        event.reason, event.message, source=source, kind=involved.kind if involved else None
    )
    return [replace(item, at=at, count=event.occurrences, source=source) for item in found]
