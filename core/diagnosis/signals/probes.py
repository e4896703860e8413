"""Probes and restart loops: a liveness (or startup) probe kill, and CrashLoopBackOff.

A liveness-probe kill is the kubelet's SIGKILL after the app stopped answering: one of the explanations the
seed requires before an exit 137 may be classified, and the app's to fix (CRASH_APP_ERROR). A startup probe
restarts the container the same way. A readiness probe never kills. CrashLoopBackOff says the container keeps
dying; what killed it comes from elsewhere (its last state, the log), so it confirms a failure but decides
nothing alone.
"""

from __future__ import annotations

import re

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, canonical_reason, rx

K = SignalKind
_LIVENESS_RE = rx(r"liveness probe failed|failed liveness probe")
_STARTUP_PROBE_RE = rx(r"startup probe failed|failed startup probe")
_CRASH_LOOP_RE = rx(r"back-off restarting failed container|\bcrashloopbackoff\b")


def match(t: Text, out: Collector) -> None:
    r, m = t.r, t.m
    if (r == "unhealthy" and _LIVENESS_RE.search(m)) or re.search(r"failed liveness probe", m, re.IGNORECASE):
        killed = bool(re.search(r"will be restarted", m, re.IGNORECASE))
        out.add(
            K.LIVENESS_KILL,
            reason=canonical_reason(r),
            container=t.container,
            note=None if killed else "probe failing; the kubelet kills the container after failureThreshold",
        )
    elif (r == "unhealthy" and _STARTUP_PROBE_RE.search(m)) or re.search(r"failed startup probe", m, re.I):
        out.add(
            K.LIVENESS_KILL,
            reason=canonical_reason(r),
            container=t.container,
            note="startup probe, not liveness: the kubelet restarts the container the same way",
        )
    if r == "crashloopbackoff" or _CRASH_LOOP_RE.search(m):
        out.add(
            K.CRASH_LOOP,
            reason="CrashLoopBackOff" if r in {"crashloopbackoff", ""} else canonical_reason(r),
            container=t.container,
        )


EXAMPLES = (
    example(
        "Unhealthy",
        'Liveness probe failed: Get "http://10.0.0.5:8080/healthz": dial tcp 10.0.0.5:8080: connect: '
        "connection refused",
        K.LIVENESS_KILL,
        note="probe failing; the kubelet kills the container after failureThreshold",
    ),
    example("Killing", "Container main failed liveness probe, will be restarted", K.LIVENESS_KILL, note=None),
    example("Unhealthy", "Startup probe failed: HTTP probe failed with statuscode: 500", K.LIVENESS_KILL),
    example("BackOff", "Back-off restarting failed container main in pod train-0-0_runai-nlp(0a1b)", K.CRASH_LOOP),
    example("CrashLoopBackOff", "back-off 5m0s restarting failed container=main pod=train-0-0", K.CRASH_LOOP),
    example("Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", None),
    example("Killing", "Stopping container main", None),
)

FAMILY = Family(
    name="probes",
    kinds=frozenset({K.LIVENESS_KILL, K.CRASH_LOOP}),
    match=match,
    examples=EXAMPLES,
    rows={K.LIVENESS_KILL: "liveness-kill"},
)
