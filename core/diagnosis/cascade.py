"""The pods of a workload in the order they ended: the first failure, and the pods torn down after it.

In a gang-scheduled job one pod fails (an OOM kill, a crash, a lost node) and the launcher, the operator or the
framework then ends the others: SIGTERM or SIGKILL (exit 143 / 137), NCCL watchdog timeouts, "connection reset
by peer", a closed rendezvous, torchrun's ChildFailedError, mpirun's "primary job terminated normally, but 1
process returned a non-zero exit code". Those later terminations are consequences. So the order is built from
every time a read gives (a container's `finishedAt`, the pod's `completedAt`, the time of a failure event about
the pod), and the verdict is taken from the first failure only (`cause_observations`).

Timestamps have a granularity of a second and reach the control plane with some lag, so pods that ended within
`SIMULTANEOUS` of the earliest are compared by what they show: a pod's own cause (OOMKilled, a non-zero exit)
comes before a pod that was only killed or deleted. A pod that was only killed (SIGTERM/SIGKILL) or deleted
while running is never taken for the first failure when a pod with a cause of its own failed in the same
episode: something outside it ended it, and the peer's failure is what the evidence shows.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis.exit_codes import exit_code_meaning
from core.diagnosis.observations import Observation, quote
from core.diagnosis.signals import SignalKind, signal_rank
from core.diagnosis.signals.registry import FAMILIES
from core.models.kube import K8sPod
from core.models.report import PodTerminationEntry
from core.models.runai import RunaiPod

K = SignalKind
SIMULTANEOUS = timedelta(seconds=10)
# Phases of a pod that has not failed (Run:ai's k8sPhase carries kubectl-style strings as well).
HEALTHY_PHASES = frozenset(
    {"running", "succeeded", "completed", "pending", "containercreating", "podinitializing", "terminating", ""}
)
# What only says the pod was ended from outside: never a cause of its own.
KILL_KINDS = frozenset({K.SIGKILLED, K.SIGTERMED})
WEAK_KINDS = frozenset({K.CONTAINER_ERROR, K.CRASH_LOOP, K.NODE_PRESSURE, K.DISRUPTION_TARGET, K.PREEMPTED})
# The kinds that decide a category (a rule row) and the GPU out-of-memory the app raises: a pod's own cause.
CAUSE_KINDS = frozenset(kind for family in FAMILIES for kind in family.rows) | {K.GPU_OOM}

# Lines a pod writes or shows when a peer failed first; matched case-insensitively, bounded patterns only.
_TEARDOWN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("NCCL watchdog timeout",
     r"watchdog caught collective operation timeout|ProcessGroupNCCL[^\n]{0,200}time(?:d )?out"),
    ("NCCL communicator aborted",
     r"NCCL communicator was aborted|ncclRemoteError|remote process exited or there was a network error"),
    ("connection reset by peer", r"connection reset by peer|ECONNRESET"),
    ("connection closed by peer", r"connection closed by peer|peer closed the connection"),
    ("rendezvous closed",
     r"Rendezvous(?:Closed|Timeout|Connection)Error|rendezvous[^\n]{0,80}(?:closed|timed? ?out|failed)"),
    ("ChildFailedError", r"ChildFailedError"),
    ("agent received SIGTERM",
     r"Received Signals?\.SIGTERM death signal|Sending process \d{1,10} closing signal SIGTERM"),
    ("mpirun: another process failed",
     r"primary job\s{1,4}terminated normally, but \d{1,6} process(?:es)? returned"
     r"|mpirun (?:noticed|detected) that (?:one or more )?process"),
    ("MPI daemon lost",
     r"ORTE (?:has lost communication|daemon has unexpectedly failed)"
     r"|BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"),
    ("Horovod peer exited", r"Horovod detected that one or more processes exited"),
)  # fmt: skip
_TEARDOWN_RES = tuple((label, re.compile(pattern, re.IGNORECASE)) for label, pattern in _TEARDOWN_PATTERNS)
# How much of one text is searched for those lines (a log line or an event message; never a whole log).
_SCAN_CHARS = 4096

_ROLE_WORDS = ("master", "worker", "launcher", "leader", "head", "chief", "ps", "evaluator", "driver", "executor")
_ROLE_RE = re.compile(r"(?:^|-)(" + "|".join(_ROLE_WORDS) + r")(?=-|$)", re.IGNORECASE)

_HOW: dict[SignalKind, str] = {
    K.OOM_KILLED: "OOMKilled",
    K.NODE_OOM_KILLING: "kernel OOM kill on the node",
    K.GPU_OOM: "CUDA out of memory",
    K.IMAGE_PULL: "image pull failed",
    K.INIT_FAILED: "init container failed",
    K.MOUNT_FAILED: "volume mount failed",
    K.CREATE_CONTAINER_CONFIG_ERROR: "container configuration error",
    K.START_ERROR: "container could not start",
    K.APP_EXIT: "exited with an error",
    K.LIVENESS_KILL: "killed after its liveness probe failed",
    K.EVICTED: "evicted",
    K.NODE_LOST: "its node was lost",
    K.NODE_NOT_READY: "its node went NotReady",
    K.NODE_DRAIN: "its node was drained",
    K.DISRUPTION_TARGET: "disrupted",
    K.DEADLINE_EXCEEDED: "active deadline exceeded",
    K.POLICY_IDLE_TIMEOUT: "stopped by the idle-time limit",
    K.POLICY_MAX_DURATION: "stopped by the duration limit",
    K.MANUAL_STOP: "stopped",
    K.CRASH_LOOP: "CrashLoopBackOff",
    K.SIGTERMED: "SIGTERM",
    K.SIGKILLED: "SIGKILL",
    K.NODE_PRESSURE: "node under pressure",
    K.CONTAINER_ERROR: "Error",
    K.PREEMPTED: "preempted",
}


@dataclass(frozen=True, slots=True)
class PodTermination:
    """One pod's end: which pod, its role and node, when, how; `first` for the failure the verdict rests on.

    Every text here is cleaned (`pod` as `pod_key` makes it, the same key observations carry)."""

    pod: str
    role: str | None
    node: str | None
    at: datetime | None
    how: str  # "OOMKilled (exit 137)", "SIGTERM (exit 143); NCCL watchdog timeout", "deleted while running"
    first: bool
    # The signs of a pod ended because a peer failed (a kill signal, a lost peer, a deletion); empty when none.
    teardown: tuple[str, ...] = ()
    deleted: bool = False
    time_source: str | None = None  # "container finishedAt", "pod completedAt", "event", ...
    pod_id: str | None = None  # the Run:ai pod id (the per-pod metrics endpoint takes it)
    exit_code: int | None = None
    kinds: tuple[SignalKind, ...] = ()  # its signals, strongest first

    @property
    def consequence(self) -> bool:
        return not self.first


@dataclass(frozen=True, slots=True)
class TerminationOrder:
    """The failed pods of the episode being diagnosed, the first failure first, then in the order they ended."""

    entries: tuple[PodTermination, ...] = ()

    @property
    def first(self) -> PodTermination | None:
        return next((e for e in self.entries if e.first), None)

    @property
    def cascade(self) -> bool:
        """Several pods failed and one is known to be first: the others are consequences, not causes."""
        return len(self.entries) > 1 and self.first is not None

    def names(self) -> set[str]:
        return {e.pod for e in self.entries}


NO_ORDER = TerminationOrder()


def entry_of(item: PodTermination) -> PodTerminationEntry:
    """The report's entry for one pod's end."""
    return PodTerminationEntry(
        pod=item.pod,
        role=item.role,
        node=item.node,
        at=item.at,
        how=item.how,
        first=item.first,
        consequence=item.consequence,
        teardown=list(item.teardown),
        deleted=item.deleted,
        time_source=item.time_source,
    )


# -- who is who -----------------------------------------------------------------------------------------------
def pod_role(pod: str, workload: str | None = None) -> str | None:
    """The pod's role from its name (`x-master-0`, `x-worker-3`, `x-launcher-abcde`, `x-leader-0`), else None."""
    rest = pod[len(workload) :] if workload and pod.startswith(workload) else pod
    match = _ROLE_RE.search(rest)
    return match.group(1).lower() if match else None


def teardown_signs(texts: Iterable[str]) -> tuple[str, ...]:
    """Which teardown lines the texts show (each label once, in the table's order)."""
    found: set[str] = set()
    for text in texts:
        part = text[:_SCAN_CHARS] if isinstance(text, str) else ""
        for label, pattern in _TEARDOWN_RES:
            if label not in found and pattern.search(part):
                found.add(label)
    return tuple(label for label, _ in _TEARDOWN_PATTERNS if label in found)


_NAME_TOKEN_RE = re.compile(r"[A-Za-z0-9][-A-Za-z0-9._]{0,252}")


def _named_in(text: str, known: set[str]) -> set[str]:
    """The known pod names the text holds as whole words (one pass over the text, whatever the pod count)."""
    return {token.rstrip(".") for token in _NAME_TOKEN_RE.findall(text)} & known


def attribute(observations: Sequence[Observation], names: Iterable[str]) -> list[Observation]:
    """Each observation with the pod it is about: its own, else the one known pod its text names."""
    known = {n for n in names if n}
    out: list[Observation] = []
    for obs in observations:
        if obs.pod is None and known:
            named = _named_in(obs.text, known)
            if len(named) == 1:
                obs = dataclasses.replace(obs, pod=next(iter(named)))
        out.append(obs)
    return out


def cause_observations(observations: Sequence[Observation], order: TerminationOrder) -> list[Observation]:
    """What the verdict may rest on: without a cascade, everything; with one, nothing the later pods showed."""
    first = order.first
    if not order.cascade or first is None:
        return list(observations)
    later = order.names() - {first.pod}
    return [obs for obs in observations if obs.pod is None or obs.pod not in later]


# -- the order ------------------------------------------------------------------------------------------------
@dataclass
class _Pod:
    name: str
    pod_id: str | None = None
    node: str | None = None
    k8s_phase: str | None = None
    deleted: bool = False
    times: list[tuple[datetime, str]] = dataclasses.field(default_factory=list)
    observations: list[Observation] = dataclasses.field(default_factory=list)
    texts: list[str] = dataclasses.field(default_factory=list)
    exit_codes: list[int] = dataclasses.field(default_factory=list)
    failed_container: bool = False


def pod_key(name: object) -> str:
    """A pod's name as every part of the diagnosis compares it: cleaned where it enters, like all cluster text."""
    return quote(name, 120)


def _natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """`worker-2` before `worker-10`."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", name) if part)


def _inside(at: datetime | None, window: tuple[datetime | None, datetime | None]) -> bool:
    start, end = window
    if at is None:
        return False
    return (start is None or at > start) and (end is None or at <= end)


def _k8s_terminations(pod: K8sPod) -> list[tuple[datetime | None, int | None, str, str]]:
    """Each terminated container instance the pod still shows: (finishedAt, exit code, reason, message)."""
    status = pod.status
    out: list[tuple[datetime | None, int | None, str, str]] = []
    if status is None:
        return out
    for cs in (status.init_container_statuses or []) + (status.container_statuses or []):
        for state in (cs.state, cs.last_state):
            term = state.terminated if state is not None else None
            if term is None:
                continue
            code = term.exit_code if term.exit_code is not None else (128 + term.signal if term.signal else None)
            reason = term.reason if isinstance(term.reason, str) else ""
            message = term.message if isinstance(term.message, str) else ""
            out.append((term.finished_at, code, reason, message))
    return out


def _gather(
    pods: Sequence[RunaiPod],
    observations: Sequence[Observation],
    k8s_pods: Mapping[str, K8sPod],
    texts: Mapping[str, Sequence[str]],
    window: tuple[datetime | None, datetime | None],
) -> dict[str, _Pod]:
    found: dict[str, _Pod] = {}
    for pod in pods:
        if not pod.name:
            continue
        key = pod_key(pod.name)
        item = found.setdefault(key, _Pod(key))
        item.pod_id = item.pod_id or pod.id
        item.node = item.node or pod.node_name
        item.deleted = item.deleted or pod.deleted_at is not None
        phase = (pod.k8s_phase or "").strip()
        failing = phase.lower() not in HEALTHY_PHASES
        item.k8s_phase = phase or item.k8s_phase
        if pod.completed_at is not None and failing:
            item.times.append((pod.completed_at, "pod completedAt"))
        if failing and pod.k8s_phase_updated_at is not None:
            item.times.append((pod.k8s_phase_updated_at, "pod k8sPhaseUpdatedAt"))
        if pod.deleted_at is not None and not failing:
            item.times.append((pod.deleted_at, "pod deletedAt"))
    for obs in observations:
        if obs.pod is None or obs.kind is K.PREEMPTED:
            continue
        item = found.setdefault(obs.pod, _Pod(obs.pod))
        item.observations.append(obs)
        item.texts.append(obs.signal.detail)
        if obs.signal.exit_code is not None:
            item.exit_codes.append(obs.signal.exit_code)
        if obs.at is not None and obs.kind not in WEAK_KINDS:
            item.times.append((obs.at, obs.source))
    for name, k8s in k8s_pods.items():
        key = pod_key(name)
        item = found.setdefault(key, _Pod(key))
        if k8s.spec is not None and k8s.spec.node_name:
            item.node = item.node or k8s.spec.node_name
        for finished, code, reason, message in _k8s_terminations(k8s):
            if (code in (None, 0)) and reason.lower() in ("", "completed"):
                continue
            item.failed_container = True
            if code is not None:
                item.exit_codes.append(code)
            if message:
                item.texts.append(message)
            if finished is not None:
                item.times.append((finished, "container finishedAt"))
    for name, lines in texts.items():
        if pod_key(name) in found:
            found[pod_key(name)].texts.extend(lines)
    for item in found.values():
        item.times = [(at, where) for at, where in item.times if _inside(at, window)]
    return found


def _failed(item: _Pod) -> bool:
    phase = (item.k8s_phase or "").lower()
    phase_failed = phase not in HEALTHY_PHASES
    signalled = any(o.kind not in {K.NODE_PRESSURE, K.PREEMPTED} for o in item.observations)
    torn_down = item.deleted and phase not in {"succeeded", "completed"}  # deleted before it could finish
    return bool(item.times) and (phase_failed or signalled or item.failed_container or torn_down)


def _kinds(item: _Pod) -> list[SignalKind]:
    return sorted({o.kind for o in item.observations}, key=signal_rank)


def _how(item: _Pod, kinds: Sequence[SignalKind], signs: Sequence[str]) -> tuple[str, int | None]:
    code = next((c for c in item.exit_codes if c not in (0,)), None)
    if kinds:
        head = _HOW.get(kinds[0], kinds[0].value)
    elif code is not None:
        meaning = exit_code_meaning(code)
        head = meaning.signal_name if meaning.is_system_signal and meaning.signal_name else "exited with an error"
    elif item.deleted:
        head = "deleted while running" if (item.k8s_phase or "").lower() in HEALTHY_PHASES else "deleted"
    else:
        head = quote(item.k8s_phase, 40) if item.k8s_phase else "ended"
    if code is not None:
        head += f" (exit {code})"
    extra = [s for s in signs if s not in ("SIGTERM", "SIGKILL", "deleted while running")]
    return head + (f"; {', '.join(extra)}" if extra else ""), code


def _signs(item: _Pod, kinds: Sequence[SignalKind]) -> tuple[str, ...]:
    signs: list[str] = []
    codes = set(item.exit_codes)
    own_cause = any(k in CAUSE_KINDS and k is not K.APP_EXIT for k in kinds)
    if not own_cause:
        if K.SIGTERMED in kinds or 143 in codes:
            signs.append("SIGTERM")
        if K.SIGKILLED in kinds or 137 in codes:
            signs.append("SIGKILL")
    if item.deleted and not kinds and not item.failed_container:
        signs.append("deleted while running")
    signs += teardown_signs(item.texts)
    return tuple(dict.fromkeys(signs))


def _only_ended_from_outside(item: _Pod, kinds: Sequence[SignalKind]) -> bool:
    """Killed or deleted with no cause of its own: what ended it came from outside."""
    if any(k in CAUSE_KINDS for k in kinds):
        return False
    codes = {c for c in item.exit_codes if c != 0}
    killed = bool(set(kinds) & KILL_KINDS) or (bool(codes) and codes <= {137, 143})
    return killed or (item.deleted and not item.failed_container)


def order_terminations(
    pods: Sequence[RunaiPod],
    observations: Sequence[Observation],
    *,
    k8s_pods: Mapping[str, K8sPod] | None = None,
    texts: Mapping[str, Sequence[str]] | None = None,
    window: tuple[datetime | None, datetime | None] = (None, None),
    workload_name: str | None = None,
) -> TerminationOrder:
    """The failed pods of the episode in `window` (start exclusive), in the order they ended, first failure first.

    `observations` should already be attributed to pods (`attribute`); `k8s_pods` are the pods Tier 2
    described, by name; `texts` more lines per pod (its log's explaining line) to look for teardown signs in.
    """
    gathered = _gather(pods, observations, k8s_pods or {}, texts or {}, window)
    failed = [item for item in gathered.values() if _failed(item)]
    if not failed:
        return NO_ORDER
    facts = {}
    for item in failed:
        kinds = _kinds(item)
        at, where = min(item.times, key=lambda pair: pair[0])
        facts[item.name] = (kinds, at, where, _signs(item, kinds), _only_ended_from_outside(item, kinds))
    pool = [item for item in failed if not facts[item.name][4]] or failed
    earliest = min(facts[item.name][1] for item in pool)
    group = [item for item in pool if facts[item.name][1] - earliest <= SIMULTANEOUS]

    def strength(item: _Pod) -> tuple[int, int, int, datetime, str]:
        kinds, at, _, signs, _ = facts[item.name]
        causes = [k for k in kinds if k in CAUSE_KINDS]
        rank = min((signal_rank(k) for k in causes), default=len(CAUSE_KINDS) + 100)
        return (len([s for s in signs if s not in ("SIGTERM", "SIGKILL")]) > 0, not causes, rank, at, item.name)

    first = min(group, key=strength).name
    rest = sorted((i for i in failed if i.name != first), key=lambda i: (facts[i.name][1], _natural(i.name)))
    entries: list[PodTermination] = []
    for item in [gathered[first], *rest]:
        kinds, at, where, signs, _ = facts[item.name]
        how, code = _how(item, kinds, signs)
        entries.append(
            PodTermination(
                pod=item.name,
                role=pod_role(item.name, workload_name),
                node=quote(item.node, 120) if item.node else None,
                at=at,
                how=how,
                first=item.name == first,
                teardown=signs,
                deleted=item.deleted,
                time_source=where,
                pod_id=item.pod_id,
                exit_code=code,
                kinds=tuple(kinds),
            )
        )
    return TerminationOrder(tuple(entries))
