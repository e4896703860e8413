"""Observations: a classified signal together with where it was read, when, and the evidence text to cite.

Everything a rule or the report sees passes through here, so this is where cluster text is cleaned: the
Signal keeps the raw detail for matching, the Observation carries only redacted, sanitised text.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from core.diagnosis.signals import Signal, SignalKind, classify_message
from core.models.history_compact import CompactEvent
from core.models.runai import Condition, RunaiPod, WorkloadEvent
from core.safety.untrusted import clean

# Evidence quotes are short: enough to recognise the message, not a dump of it.
QUOTE_LEN = 600


def quote(text: object, limit: int = QUOTE_LEN) -> str:
    return clean(text, max_len=limit, one_line=True)


@dataclass(frozen=True, slots=True)
class Observation:
    signal: Signal
    source: str
    at: datetime | None
    text: str
    # The pod (cleaned) and node the evidence is about, when the read says (a finding names its node; a fabric
    # error counts only on the pod that failed first).
    pod: str | None = None
    node: str | None = None

    @property
    def kind(self) -> SignalKind:
        return self.signal.kind


@functools.lru_cache(maxsize=8192)
def _classified_event(
    reason: str | None, message: str | None, origin: str | None, kind: str | None, prefix: str
) -> tuple[tuple[Signal, ...], str]:
    # A long history repeats the same few messages (back-off events by the thousand): classify and clean each
    # distinct one once. The object's name is not part of the key: every pod has its own, and a key with it
    # would fill the cache with one entry per pod a watch ever diagnosed.
    signals = tuple(classify_message(reason, message, source=origin, kind=kind))
    parts = [f"{prefix} reason: {quote(reason, 80) if reason else '(no reason)'}"]
    if message:
        parts.append(f'message: "{quote(message)}"')
    return signals, "; ".join(parts)


@functools.lru_cache(maxsize=256)
def _about(kind: str | None, name: str | None) -> tuple[str, str | None, str | None]:
    """The citation's "on Pod x" ending, and the pod (cleaned) or node the event is about; a small cache of its
    own, for the thousands of events one pod's history repeats."""
    if not (kind and name):
        return "", None, name if kind == "Node" else None
    pod = quote(name, 120) if kind == "Pod" else None
    node = name if kind == "Node" else None
    return f"; on {quote(kind, 40)} {quote(name, 120)}", pod, node


@functools.lru_cache(maxsize=8192)
def _classified_phase(phase: str | None, message: str, label: str) -> tuple[tuple[Signal, ...], str]:
    signals = tuple(classify_message(None, message))
    return signals, f'{label} {quote(phase, 40) if phase else "(unknown)"}; phaseMessage: "{quote(message)}"'


def _text_or_none(value: object) -> str | None:
    # Only strings are cached keys: a hostile non-string value must not reach the lru_cache.
    return value if isinstance(value, str) else None


def classified_event(
    event: WorkloadEvent | CompactEvent, prefix: str = "Event"
) -> tuple[tuple[Signal, ...], str, str | None, str | None]:
    """The event's signals, its citation text, and the pod (cleaned) and node it is about; the same answer for
    every event with the same reason, message, origin and object (computed once per distinct one)."""
    obj = event.involved_object
    kind, name = (obj.kind, obj.name) if obj else (None, None)
    # The model types these fields `str | None`, so they are valid cache keys as they are.
    signals, text = _classified_event(event.reason, event.message, event.source, kind, prefix)
    about, pod, node = _about(kind, name)
    return signals, text + about, pod, node


def from_event(event: WorkloadEvent, source: str, *, prefix: str = "Event") -> list[Observation]:
    """The event's signals as observations, each citing the event."""
    signals, text, pod, node = classified_event(event, prefix)
    return [Observation(sig, source, event.created_at, text, pod, node) for sig in signals]


def from_phase_message(
    phase: str | None,
    message: str | None,
    source: str,
    at: datetime | None,
    *,
    label: str = "Phase",
    text: str | None = None,
) -> list[Observation]:
    """Signals in a phaseMessage; `text` replaces the default citation (so one line is not cited twice)."""
    if not message or not isinstance(message, str):
        return []
    signals, default_text = _classified_phase(_text_or_none(phase), message, label)
    if not signals:
        return []
    text = text or default_text
    return [Observation(sig, source, at, text) for sig in signals]


def from_conditions(conditions: Iterable[Condition] | None, source: str) -> list[Observation]:
    found: list[Observation] = []
    for cond in conditions or ():
        if not (cond.reason or cond.message):
            continue
        signals = classify_message(cond.reason, cond.message)
        if not signals:
            continue
        text = f"Condition {quote(cond.type, 60)}={quote(cond.status, 10)}"
        if cond.reason:
            text += f"; reason: {quote(cond.reason, 80)}"
        if cond.message:
            text += f'; message: "{quote(cond.message)}"'
        found.extend(Observation(sig, source, cond.last_transition_time, text) for sig in signals)
    return found


def from_runai_pod(pod: RunaiPod, source: str) -> list[Observation]:
    if not pod.k8s_phase:
        return []
    signals = classify_message(pod.k8s_phase, None)
    text = f"Pod {quote(pod.name, 120)} k8sPhase: {quote(pod.k8s_phase, 60)}"
    if pod.node_name:
        text += f" on node {quote(pod.node_name, 120)}"
    at = pod.k8s_phase_updated_at or pod.completed_at or pod.updated_at
    name = quote(pod.name, 120) if pod.name else None
    return [Observation(sig, source, at, text, name, pod.node_name) for sig in signals]
