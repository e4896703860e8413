"""The pods of a workload in the order they ended: the first failure, and the pods torn down after it.

In a gang-scheduled job one pod fails (an OOM kill, a crash, a lost node) and the launcher, the operator or the
framework then ends the others: SIGTERM or SIGKILL (exit 143 / 137), NCCL watchdog timeouts, "connection reset
by peer", a closed rendezvous, torchrun's ChildFailedError, mpirun's "primary job terminated normally, but 1
process returned a non-zero exit code". Those later terminations are consequences. So the order is built from
every time a read gives (a container's `finishedAt`, the pod's `completedAt`, the time of a failure event about
the pod), and the verdict is taken from the first failure only (`cause_observations`).

Timestamps have a granularity of a second and reach the control plane with some lag, so pods that ended within
`SIMULTANEOUS` of the earliest are compared by what they show: a cause of the pod's own that is not a bare exit
(an OOM kill, a lost node, a failed pull) comes before an exit code, and a plain exit before one that shows a
peer's loss. A pod that was only killed (SIGTERM/SIGKILL) or deleted while running is never taken for the first
failure when a pod with a cause of its own failed in the same episode: something outside it ended it.

When the earliest pod of that group shows no cause of its own (a plain exit, its log unread, empty or silent),
the logs of the others are read as well, within a bound (core/diagnosis/group_logs.py), and the order is made
again with what they show: a rank's collective timeout then outranks the plain exit seconds before it.

Every pod is listed at the time recorded for it, in time order, so a consequence recorded a few seconds before
the first failure (the clocks and the lags differ) is listed before it and said to be so. When the first
failure shows a cause of its own, the category follows it: the workload-level evidence that names no pod is
cited, and decides nothing.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.diagnosis.exit_codes import exit_code_meaning
from core.diagnosis.observations import Observation, quote
from core.diagnosis.pod_ends import HEALTHY_PHASES, PodEnd, Window, gather, pod_key
from core.diagnosis.signals import SignalKind, signal_rank
from core.diagnosis.signals.registry import FAMILIES
from core.models.kube import K8sPod
from core.models.report import PodTerminationEntry
from core.models.runai import RunaiPod

__all__ = ["HEALTHY_PHASES", "pod_key"]

K = SignalKind
SIMULTANEOUS = timedelta(seconds=10)
# The teardown signs that say a rank's collective timed out waiting (the rank it waited for hung).
COLLECTIVE_TIMEOUT_SIGNS = frozenset({"NCCL watchdog timeout", "Gloo collective timeout"})
# What only says the pod was ended from outside: never a cause of its own.
KILL_KINDS = frozenset({K.SIGKILLED, K.SIGTERMED})
# The kinds that decide a category (a rule row) and the GPU out-of-memory the app raises: a pod's own cause.
CAUSE_KINDS = frozenset(kind for family in FAMILIES for kind in family.rows) | {K.GPU_OOM}

# Lines a pod writes or shows when a peer failed first; matched case-insensitively, bounded patterns only.
_TEARDOWN_PATTERNS: tuple[tuple[str, str], ...] = (
    ("NCCL watchdog timeout",
     r"watchdog caught collective operation timeout|ProcessGroupNCCL[^\n]{0,200}time(?:d )?out"),
    ("Gloo collective timeout",
     r"gloo[^\n]{0,200}timed out (?:waiting|after)|ProcessGroupGloo[^\n]{0,200}time(?:d )?out"),
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
)
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
    K.LIVENESS_KILL: "killed after a probe failed",
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
    replaced_by: str | None = None  # a live pod of the same name that is not this one (its replacement)

    @property
    def consequence(self) -> bool:
        return not self.first


@dataclass(frozen=True, slots=True)
class TerminationOrder:
    """The failed pods of the episode being diagnosed, in the order they ended (by the time recorded for each);
    one of them is the first failure."""

    entries: tuple[PodTermination, ...] = ()
    # The pods compared with the first failure by what they showed (it among them): those that ended within
    # SIMULTANEOUS of the earliest, killed and deleted ones left out unless every pod was.
    group: frozenset[str] = frozenset()

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
    """The known pod names the text holds as whole words (one pass over the text, whatever the pod count); a
    name may follow its namespace and a dot, as the training operators write it (`Pod: ns.name exited ...`)."""
    found: set[str] = set()
    for token in _NAME_TOKEN_RE.findall(text):
        token = token.rstrip(".")
        if token in known:
            found.add(token)
            continue
        parts = token.split(".")
        found.update(tail for i in range(1, len(parts)) if (tail := ".".join(parts[i:])) in known)
    return found


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


def _about(obs: Observation, first: PodTermination) -> bool:
    """Whether an observation is the first failure's own: about its pod, or about its node and no pod."""
    if obs.pod is not None:
        return obs.pod == first.pod
    return obs.node is not None and first.node is not None and pod_key(obs.node) == first.node


def cause_observations(observations: Sequence[Observation], order: TerminationOrder) -> list[Observation]:
    """What the verdict may rest on: without a cascade, everything; with one, nothing the later pods showed, and
    when the first failure shows a cause of its own, only what it (and its node) showed plus the workload's
    evidence that cannot decide a category (a finding's, a weak sign's)."""
    first = order.first
    if not order.cascade or first is None:
        return list(observations)
    later = order.names() - {first.pod}
    kept = [obs for obs in observations if obs.pod is None or obs.pod not in later]
    if not any(obs.kind in CAUSE_KINDS and _about(obs, first) for obs in kept):
        return kept
    return [obs for obs in kept if _about(obs, first) or obs.kind not in CAUSE_KINDS]


# -- the order ------------------------------------------------------------------------------------------------
def _natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """`worker-2` before `worker-10`."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", name) if part)


def _failed(item: PodEnd) -> bool:
    phase = (item.k8s_phase or "").lower()
    phase_failed = phase not in HEALTHY_PHASES
    signalled = any(o.kind not in {K.NODE_PRESSURE, K.PREEMPTED, K.READINESS_FAILED} for o in item.observations)
    torn_down = item.deleted and phase not in {"succeeded", "completed"}  # deleted before it could finish
    return bool(item.times) and (phase_failed or signalled or item.failed_container or torn_down)


def _kinds(item: PodEnd) -> list[SignalKind]:
    return sorted({o.kind for o in item.observations}, key=signal_rank)


def _how(item: PodEnd, kinds: Sequence[SignalKind], signs: Sequence[str]) -> tuple[str, int | None]:
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


def _signs(item: PodEnd, kinds: Sequence[SignalKind]) -> tuple[str, ...]:
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


def _only_ended_from_outside(item: PodEnd, kinds: Sequence[SignalKind]) -> bool:
    """Killed or deleted with no cause of its own: what ended it came from outside."""
    if any(k in CAUSE_KINDS for k in kinds):
        return False
    codes = {c for c in item.exit_codes if c != 0}
    killed = bool(set(kinds) & KILL_KINDS) or (bool(codes) and codes <= {137, 143})
    return killed or (item.deleted and not item.failed_container)


@dataclass(frozen=True, slots=True)
class _Facts:
    kinds: list[SignalKind]
    at: datetime
    where: str
    signs: tuple[str, ...]
    outside: bool

    def strength(self) -> tuple[bool, int, int]:
        """Lower is a likelier first failure: a cause other than a bare exit, then a collective's timeout, then a
        plain exit, then an exit beside a peer's loss (a reset connection, a closed rendezvous); within each, the
        seed's signal order.

        A collective times out only after its whole timeout (minutes) spent waiting on a rank that hung, so a
        plain exit seconds from it is that hang's teardown (a rank whose own timeout was not read, or one ended
        by the launcher), not a crash that caused it: a crash makes its peers' collectives fail at once, with
        an aborted communicator or a reset connection, never with a timeout."""
        causes = [k for k in self.kinds if k in CAUSE_KINDS]
        timed_out = any(s in COLLECTIVE_TIMEOUT_SIGNS for s in self.signs)
        peer_lost = any(s not in ("SIGTERM", "SIGKILL") for s in self.signs)
        tier = 0 if any(k is not K.APP_EXIT for k in causes) else (1 if timed_out else (3 if peer_lost else 2))
        rank = min((signal_rank(k) for k in causes), default=len(CAUSE_KINDS) + 100)
        return not causes, tier, rank


def order_terminations(
    pods: Sequence[RunaiPod],
    observations: Sequence[Observation],
    *,
    k8s_pods: Mapping[str, K8sPod] | None = None,
    texts: Mapping[str, Sequence[str]] | None = None,
    window: Window = (None, None),
    workload_name: str | None = None,
) -> TerminationOrder:
    """The failed pods of the episode in `window` (start exclusive), in the order they ended, the first failure
    marked.

    `observations` should already be attributed to pods (`attribute`); `k8s_pods` are the pods Tier 2
    described, by name; `texts` more lines per pod (its log's explaining line) to look for teardown signs in.
    """
    gathered = gather(pods, observations, k8s_pods or {}, texts or {}, window)
    failed = [item for item in gathered.values() if _failed(item)]
    if not failed:
        return NO_ORDER
    facts: dict[str, _Facts] = {}
    for item in failed:
        kinds = _kinds(item)
        at, where = min(item.times, key=lambda pair: pair[0])
        facts[item.name] = _Facts(kinds, at, where, _signs(item, kinds), _only_ended_from_outside(item, kinds))
    pool = [item for item in failed if not facts[item.name].outside] or failed
    earliest = min(facts[item.name].at for item in pool)
    group = [item for item in pool if facts[item.name].at - earliest <= SIMULTANEOUS]
    first = min(group, key=lambda i: (*facts[i.name].strength(), facts[i.name].at, _natural(i.name))).name
    ordered = sorted(failed, key=lambda i: (facts[i.name].at, i.name != first, _natural(i.name)))
    entries: list[PodTermination] = []
    for item in ordered:
        fact = facts[item.name]
        how, code = _how(item, fact.kinds, fact.signs)
        entries.append(
            PodTermination(
                pod=item.name,
                role=pod_role(item.name, workload_name),
                node=quote(item.node, 120) if item.node else None,
                at=fact.at,
                how=how,
                first=item.name == first,
                teardown=fact.signs,
                deleted=item.deleted,
                time_source=fact.where,
                pod_id=item.pod_id,
                exit_code=code,
                kinds=tuple(fact.kinds),
                replaced_by=item.replaced_by,
            )
        )
    return TerminationOrder(tuple(entries), frozenset(item.name for item in group))
