"""The probe that killed: which one (startup or liveness), its event, what it allows, how long the container ran.

A startup probe gives the container `initialDelaySeconds + failureThreshold x periodSeconds` to report started,
then the kubelet restarts it; a model server that is still downloading or loading its weights is killed at that
mark, whatever it was doing. A liveness probe kills a container that stopped answering after it started. The
pod spec holds the probe's settings (the API server fills in the defaults: period 10 s, threshold 3), and the
container's last terminated instance how long it ran, so the report can set the one against the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.diagnosis.observations import Observation, quote
from core.diagnosis.signals import SignalKind
from core.models.kube import K8sPod
from core.plural import duration

# The API server's defaults for a probe's fields (core/v1 Probe).
_DEFAULTS = {"initialDelaySeconds": 0, "periodSeconds": 10, "failureThreshold": 3, "timeoutSeconds": 1}
_FIELD_NAMES = {"startup": "startupProbe", "liveness": "livenessProbe", "readiness": "readinessProbe"}


@dataclass(frozen=True, slots=True)
class ProbeKill:
    """The probe that killed a container, and what the pod says about it (None: not read)."""

    probe: str  # "startup" or "liveness"
    container: str | None
    failure_threshold: int | None = None
    period_seconds: int | None = None
    initial_delay: int | None = None
    ran_seconds: int | None = None  # how long the killed instance ran

    @property
    def allows_seconds(self) -> int | None:
        if self.failure_threshold is None or self.period_seconds is None:
            return None
        return (self.initial_delay or 0) + self.failure_threshold * self.period_seconds

    def budget_text(self) -> str | None:
        """`failureThreshold 30 x periodSeconds 10 = 300 s`, with the initial delay when there is one."""
        allows = self.allows_seconds
        if allows is None:
            return None
        delay = f"initialDelaySeconds {self.initial_delay} + " if self.initial_delay else ""
        return (
            f"{delay}failureThreshold {self.failure_threshold} x periodSeconds {self.period_seconds} = "
            f"{duration(allows)}"
        )


def killing_probe(deciding: Sequence[Observation]) -> tuple[str, str | None] | None:
    """The probe the deciding signals name (a kill first, then a failing probe) and its container."""
    kills = [o for o in deciding if o.kind is SignalKind.LIVENESS_KILL and o.signal.probe]
    kills.sort(key=lambda o: o.signal.note is not None)  # the kubelet's own "will be restarted" first
    if not kills:
        return None
    top = kills[0].signal
    return top.probe or "liveness", top.container


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**7 else None


def _settings(pod: K8sPod | None, container: str | None, probe: str) -> Mapping[str, Any] | None:
    """The probe's settings on the pod's container (the one named, else the only one that has the probe)."""
    spec = pod.spec if pod is not None else None
    found: list[Mapping[str, Any]] = []
    for c in (spec.containers if spec is not None else None) or ():
        raw = (c.model_extra or {}).get(_FIELD_NAMES[probe])
        if isinstance(raw, dict) and (container is None or c.name == container):
            found.append(raw)
    return found[0] if len(found) == 1 else None


def _ran(pod: K8sPod | None, container: str | None) -> int | None:
    """How long the container's last ended instance ran (its last state, else its state)."""
    status = pod.status if pod is not None else None
    for cs in (status.container_statuses if status is not None else None) or ():
        if container is not None and cs.name != container:
            continue
        for state in (cs.last_state, cs.state):
            term = state.terminated if state is not None else None
            if term is not None and term.started_at is not None and term.finished_at is not None:
                seconds = int((term.finished_at - term.started_at).total_seconds())
                return seconds if seconds >= 0 else None
    return None


def probe_kill(deciding: Sequence[Observation], pod: K8sPod | None) -> ProbeKill | None:
    """The probe that killed, with its settings and the run it ended, when a probe decided the verdict."""
    named = killing_probe(deciding)
    if named is None:
        return None
    probe, container = named
    raw = _settings(pod, container, probe)
    if raw is None:
        return ProbeKill(probe, container, ran_seconds=_ran(pod, container))
    values = {key: _number(raw.get(key, default)) for key, default in _DEFAULTS.items()}
    return ProbeKill(
        probe, container, values["failureThreshold"], values["periodSeconds"], values["initialDelaySeconds"],
        _ran(pod, container),
    )


def readiness_line(observations: Sequence[Observation]) -> str | None:
    """A readiness probe's failure, quoted, when one was read (it never kills: worth saying so)."""
    found = next((o for o in observations if o.kind is SignalKind.READINESS_FAILED), None)
    return quote(found.signal.detail, 200) if found is not None else None


def probe_advice(kill: ProbeKill) -> str:
    """The advice for the probe that killed, with its settings and the run it ended where they were read."""
    budget = kill.budget_text()
    ran = f"; the container ran {duration(kill.ran_seconds)} before the kill" if kill.ran_seconds is not None else ""
    allows = f" (it allows {budget}{ran})" if budget else (f" ({ran[2:]})" if ran else "")
    if kill.probe == "startup":
        return (
            f"The startup probe killed the container before it reported started{allows}. A server still "
            "downloading or loading its model needs longer: set the startupProbe's failureThreshold x periodSeconds "
            "above the time the load takes, or cache the model (a PVC or a node-local cache mounted into the "
            "container) so start-up is short. A longer liveness probe does not help: it starts only once the "
            "startup probe has passed."
        )
    return (
        f"The liveness probe killed the container after it stopped answering{allows}: find out why it stopped "
        "(a long step that blocks the server, a deadlock, an overloaded node), or give the probe a longer "
        "timeoutSeconds or failureThreshold. A slow start belongs to a startup probe, not to a longer liveness "
        "delay."
    )


def readiness_advice(line: str) -> str:
    return (
        f'The readiness probe was failing ("{line}"): it takes the pod out of service and never restarts it, so '
        "it did not end the container; a server that never becomes ready is usually still loading, or listens on "
        "another port or path than the probe asks."
    )
