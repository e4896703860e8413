"""The off-spec tenant: stories whose data a real 2.24 control plane does not send, kept apart from the demo.

The demo tenant is what a real tenant could answer (tests/contract holds it to Run:ai's own SDK). These stories
keep testing what the readers do with data the API's enums and patterns refuse, as the seed and older or
damaged tenants can still produce it:
- `suspended`: the phase `Suspended`, which the seed names and the 2.24 phase enum does not hold;
- `malformed-quantity`: the memory quantity `24Gx`, which the API's quantity pattern refuses.
They are served from their own bundle (`core.sim.demo.build.build_offspec_bundle`), named as off-spec.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Family,
    Story,
    oom_message,
    ramp,
)


def suspended() -> Story:
    s = Story(
        "suspended",
        "long-pretrain",
        "nlp",
        "Suspended",
        phase_at=600,
        created=5000,
        desired_phase="Suspended",
        k8s_phase="Suspended",
        submitted_by="priya@example.com",
    )
    s.phase_message = "Workload suspended"
    s.add_phase(s.created, "Pending")
    s.add_phase(4990, "Running")
    s.add_phase(600, "Suspended", s.phase_message)
    return s.expect("suspended", None, "phase Suspended: paused, out of scope")


def malformed_quantity() -> Story:
    s = Story(
        "malformed-quantity",
        "gemma-ft",
        "genai",
        "Failed",
        phase_at=30,
        created=95,
        mem=("24Gx", "24Gx"),
        command="python finetune_gemma.py",
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(node="gpu-w-04", created=94, k8s_phase="OOMKilled", updated=30, completed=30, deleted=29)
    s.phase_message = oom_message(pod.name)
    s.add_phase(s.created, "Pending").add_phase(92, "Running").add_phase(30, "Failed", s.phase_message)
    s.add_event(30.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(8 * GI, 25_600_000_000, 90, 30.5))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "OOMKilled; the recorded memory request/limit '24Gx' is not a valid "
        "quantity: report it as unreadable, never guess 24Gi",
        recurrence=1,
        memory={
            "request": "24Gx",
            "limit": "24Gx",
            "requestBytes": None,
            "limitBytes": None,
            "peakBytes": 25_600_000_000,
        },
    )


FAMILY = Family("off-spec", stories=(suspended, malformed_quantity))
