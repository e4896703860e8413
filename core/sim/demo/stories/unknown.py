"""UNKNOWN: an exit 137 that nothing explains, and a failure that left no signal at all."""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Family,
    Story,
    error_message,
    flat,
    lifecycle,
)


def unknown_137() -> Story:
    s = Story(
        "unknown-137",
        "embed-bulk",
        "genai",
        "Failed",
        phase_at=3 * 1440,
        created=3 * 1440 + 300,
        command="python embed.py",
        args="--shards 512",
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(
        node="gpu-w-02",
        created=3 * 1440 + 298,
        k8s_phase="Error",
        updated=3 * 1440,
        completed=3 * 1440,
        deleted=3 * 1440 - 30,
    )
    s.phase_message = error_message(pod.name, 137)
    lifecycle(s, 3 * 1440 + 295, 3 * 1440, "Failed", s.phase_message)
    s.add_series("CPU_MEMORY_USAGE_BYTES", flat(9 * GI, 3 * 1440 + 60, 3 * 1440 + 1, step_min=1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(32 * GI, 3 * 1440 + 60, 3 * 1440 + 1, step_min=1))
    return s.expect(
        "diagnosed",
        "UNKNOWN",
        "exit 137 without OOMKilled; usage 9Gi of 32Gi; pod deleted, events expired (3d): nothing explains the SIGKILL",
        recurrence=1,
        lookback="7d",
    )


def unknown_no_signals() -> Story:
    s = Story(
        "unknown-no-signals",
        "ctr-baseline",
        "recsys",
        "Failed",
        phase_at=360,
        created=420,
        command="python baseline.py",
        submitted_by="lena@example.com",
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(400, "Running")
    s.add_phase(360, "Failed", "")
    return s.expect(
        "diagnosed",
        "UNKNOWN",
        "Failed with empty phaseMessage, no events, no pods, no metrics, no Kubernetes objects",
        recurrence=1,
    )


FAMILY = Family(
    "unknown",
    stories=(
        unknown_137,
        unknown_no_signals,
    ),
)
