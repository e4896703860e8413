"""Init containers: a failure before the main container starts is INIT_FAILED (the seed's "non-zero
init-container exit").

kubectl writes an init container's state as `Init:<Reason>`, `Init:ExitCode:N` or `Init:Signal:N`; a message
may say "init container". This family matches nothing itself: it marks the text as an init container's, and
turns what the other families found into INIT_FAILED (keeping the exit code and reason), except OOM, image
pull and the system signals SIGKILL/SIGTERM, which keep their own kind with ``init=True``: they say what
killed it, and a system kill is not the init script's fault.
"""

from __future__ import annotations

from dataclasses import replace

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import Signal, SignalKind

K = SignalKind
CONVERTED: frozenset[SignalKind] = frozenset(
    {K.APP_EXIT, K.CONTAINER_ERROR, K.CRASH_LOOP, K.START_ERROR, K.CREATE_CONTAINER_CONFIG_ERROR}
)


def convert(signals: list[Signal], reason: str) -> list[Signal]:
    """An init container's failure is INIT_FAILED; each kind stays once (the first found wins)."""
    converted = [
        replace(item, kind=K.INIT_FAILED, reason=item.reason or reason or None, init=True)
        if item.kind in CONVERTED
        else item
        for item in signals
    ]
    seen: set[SignalKind] = set()
    unique: list[Signal] = []
    for item in converted:
        if item.kind not in seen:
            seen.add(item.kind)
            unique.append(item)
    return unique


EXAMPLES = (
    example("Init:Error", None, K.INIT_FAILED, reason="Error", init=True),
    example("Init:ExitCode:2", None, K.INIT_FAILED, exit_code=2),
    example("Init:CrashLoopBackOff", "back-off 40s restarting failed container=fetch-data", K.INIT_FAILED),
    example(None, "init container fetch-data exited with code 1", K.INIT_FAILED, exit_code=1),
    example("Init:OOMKilled", None, K.OOM_KILLED, init=True),
    example("Init:ImagePullBackOff", None, K.IMAGE_PULL, init=True),
    example("Init:Signal:9", None, K.SIGKILLED, exit_code=137, init=True),
)

FAMILY = Family(
    name="init",
    kinds=frozenset({K.INIT_FAILED}),
    match=None,
    examples=EXAMPLES,
    rows={K.INIT_FAILED: "init-failed"},
)
