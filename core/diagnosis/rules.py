"""Step 5: the classification table. One verdict from the strongest direct signal, audit-able row by row.

The rows are in the seed's order of signal strength ("Apply the strongest direct signal"); the first row whose
trigger is present decides. Where the seed is silent we placed a row and say why:

1. OOMKilled from the kubelet or runtime                       -> OOM_KILLED
2. ImagePullBackOff / ErrImagePull / a failed pull             -> IMAGE_PULL_FAILED
3. an init container exited non-zero (or crash-loops)          -> INIT_FAILED
4. FailedMount / FailedAttachVolume / a missing PVC or secret  -> DATASOURCE_MOUNT_FAILED
5. the kernel's OOM kill in the container's memory cgroup, seen only on the node (cgroup v2 kills one
   process; the container then exits with whatever the app makes of it), in the failure window -> OOM_KILLED.
   Placed above the app's exit because the app's error is the consequence, not the cause.
6. a non-zero main-container exit without a system signal (including exit 128 start errors and a GPU
   out-of-memory in the log, which the application raised itself) -> CRASH_APP_ERROR
7. a liveness- or startup-probe kill (SIGKILL from the kubelet: the app stopped answering, or had not started
   in the time the startup probe allows) -> CRASH_APP_ERROR:
   one of the explanations the seed requires before a 137 may be classified
8. eviction, node lost / NotReady, drain, a non-preemption DisruptionTarget -> NODE_FAILURE
9. idle timeout, maximum duration (or activeDeadlineSeconds), manual stop -> SCHEDULING_POLICY_TERMINATED
Nothing else decides. In particular an exit 137 (or 143) with none of the rows above stays UNKNOWN: the seed
keeps it unresolved until history, events or node conditions explain it. Preemption is not a row: it routes
the workload out before classification (see the orchestrator).

Each row names its category and the seed's words; which signal kinds fire it is declared by the signal
families (each family's `rows`, collected by core/diagnosis/signals/registry.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.diagnosis.observations import Observation
from core.diagnosis.signals import SignalKind
from core.diagnosis.signals.registry import row_kinds


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    category: str
    kinds: frozenset[SignalKind]
    trigger: str  # the seed's words for what fires the row
    accepts: Callable[[Observation], bool] = lambda _obs: True


def _main_container(obs: Observation) -> bool:
    return not obs.signal.init


def _row(name: str, category: str, trigger: str, accepts: Callable[[Observation], bool] | None = None) -> Rule:
    """A row whose kinds are those the signal families say feed it (core/diagnosis/signals/registry.py)."""
    return Rule(name, category, row_kinds(name), trigger, accepts or (lambda _obs: True))


RULES: tuple[Rule, ...] = (
    _row("oom-killed", "OOM_KILLED", "Kubelet OOMKilled, normally with exit 137"),
    _row("image-pull", "IMAGE_PULL_FAILED", "ImagePullBackOff or ErrImagePull"),
    _row("init-failed", "INIT_FAILED", "an init container failed before the main container started"),
    _row("mount-failed", "DATASOURCE_MOUNT_FAILED", "FailedMount or an equivalent PVC/secret mount error"),
    _row(
        "node-oom-kill",
        "OOM_KILLED",
        "the kernel OOM-killed a process of the container's memory cgroup (node event OOMKilling)",
    ),
    _row("app-exit", "CRASH_APP_ERROR", "non-zero main-container exit without a system signal", _main_container),
    _row("liveness-kill", "CRASH_APP_ERROR", "the kubelet killed the container: its liveness or startup probe failed"),
    _row("node-failure", "NODE_FAILURE", "node NotReady, lost, drained or evicting: not preemption"),
    _row("policy", "SCHEDULING_POLICY_TERMINATED", "idle timeout, maximum duration or manual stop"),
)

UNRESOLVED_KILL_KINDS = frozenset({SignalKind.SIGKILLED, SignalKind.SIGTERMED})


@dataclass(frozen=True, slots=True)
class Verdict:
    category: str
    rule: Rule | None
    deciding: tuple[Observation, ...]  # the observations that fired the rule, newest first
    unresolved_kill: bool  # an exit 137/143 nothing explained


def classify(observations: Sequence[Observation]) -> Verdict:
    for rule in RULES:
        hits = [obs for obs in observations if obs.kind in rule.kinds and rule.accepts(obs)]
        if hits:
            hits.sort(key=lambda o: (o.at is not None, o.at), reverse=True)
            return Verdict(rule.category, rule, tuple(hits), unresolved_kill=False)
    kills = tuple(obs for obs in observations if obs.kind in UNRESOLVED_KILL_KINDS)
    return Verdict("UNKNOWN", None, kills, unresolved_kill=bool(kills))


def is_preempted(observations: Sequence[Observation]) -> list[Observation]:
    return [obs for obs in observations if obs.kind is SignalKind.PREEMPTED]
