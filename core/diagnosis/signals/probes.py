"""Probes and restart loops: the probe that killed (startup or liveness), a readiness probe failing, and
CrashLoopBackOff.

The kubelet restarts a container whose startup or liveness probe fails `failureThreshold` times in a row
(`Killing`: "Container main failed startup probe, will be restarted"; exit 137 after the grace period): one of
the explanations the seed requires before an exit 137 may be classified, and the app's or its probe's to fix
(CRASH_APP_ERROR). Which probe it was matters, for the fix differs: a startup probe kills a server still loading
(its `failureThreshold x periodSeconds` is shorter than the start-up), a liveness probe one that stopped answering.
A readiness probe never kills: it takes the pod out of service, so it only corroborates (READINESS_FAILED).
Each signal carries its probe (`probe`). CrashLoopBackOff says the container keeps dying; what killed it comes
from elsewhere (its last state, the log), so it confirms a failure but decides nothing alone.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, canonical_reason, rx

K = SignalKind
# The kubelet's prober: "<Probe> probe failed: ..." or "... errored: ..." (Unhealthy), and its kill (Killing).
_FAILED_RE = rx(r"\b(liveness|startup|readiness) probe (?:failed|errored)\b")
_KILLED_RE = rx(r"\bfailed (liveness|startup) probe\b")
_RESTARTED_RE = rx(r"will be restarted")
_CRASH_LOOP_RE = rx(r"back-off restarting failed container|\bcrashloopbackoff\b")
_NOTES = {
    "liveness": None,
    "startup": "startup probe: it restarts the container until the app reports started",
}
_FAILING_NOTE = "probe failing; the kubelet kills the container after failureThreshold"


def match(t: Text, out: Collector) -> None:
    r, m = t.r, t.m
    killed = _KILLED_RE.search(m)
    failed = _FAILED_RE.search(m) if r == "unhealthy" else None
    probe = (killed or failed).group(1).lower() if (killed or failed) else None
    if probe in ("liveness", "startup"):
        restarted = killed is not None and bool(_RESTARTED_RE.search(m))
        out.add(
            K.LIVENESS_KILL,
            reason=canonical_reason(r),
            container=t.container,
            probe=probe,
            note=_NOTES[probe] if restarted else _FAILING_NOTE,
        )
    elif probe == "readiness":
        out.add(
            K.READINESS_FAILED,
            reason=canonical_reason(r),
            container=t.container,
            probe=probe,
            note="readiness probe: the pod is taken out of service, never restarted",
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
        note=_FAILING_NOTE,
        probe="liveness",
    ),
    example(
        "Killing",
        "Container main failed liveness probe, will be restarted",
        K.LIVENESS_KILL,
        note=None,
        probe="liveness",
    ),
    example(
        "Unhealthy", "Startup probe failed: HTTP probe failed with statuscode: 500", K.LIVENESS_KILL, probe="startup"
    ),
    example(
        "Killing",
        "Container nim-llm failed startup probe, will be restarted",
        K.LIVENESS_KILL,
        probe="startup",
        container="nim-llm",
        note=_NOTES["startup"],
    ),
    example(
        "Unhealthy",
        'Startup probe failed: Get "http://10.244.3.17:8000/v1/health/ready": dial tcp 10.244.3.17:8000: '
        "connect: connection refused",
        K.LIVENESS_KILL,
        probe="startup",
    ),
    example(
        "Unhealthy",
        "Liveness probe errored: rpc error: code = DeadlineExceeded desc = context deadline exceeded",
        K.LIVENESS_KILL,
        probe="liveness",
    ),
    example("BackOff", "Back-off restarting failed container main in pod train-0-0_runai-nlp(0a1b)", K.CRASH_LOOP),
    example("CrashLoopBackOff", "back-off 5m0s restarting failed container=main pod=train-0-0", K.CRASH_LOOP),
    example(
        "Unhealthy",
        "Readiness probe failed: HTTP probe failed with statuscode: 503",
        K.READINESS_FAILED,
        probe="readiness",
    ),
    example("Killing", "Stopping container main", None),
    example("ProbeWarning", "Readiness probe warning: Probe terminated redirects", None),
)

FAMILY = Family(
    name="probes",
    kinds=frozenset({K.LIVENESS_KILL, K.CRASH_LOOP, K.READINESS_FAILED}),
    match=match,
    examples=EXAMPLES,
    rows={K.LIVENESS_KILL: "liveness-kill"},
)
