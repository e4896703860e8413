"""Faults under the workload, at admission: a policy webhook refuses every pod the job controller tries to create,
so the workload waits in Pending with no pod at all. It is routed out as `pending`, and the reason names the
webhook and its message instead of a scheduling wait.
"""

from __future__ import annotations

from core.sim.demo.kit import Family, Story

DENIAL = (
    'Error creating: admission webhook "validate.kyverno.svc-fail" denied the request: resource '
    "Pod/runai-vision/dinov2-linear-probe-0-0 was blocked due to the following policies: require-gpu-product: "
    "check-gpu-label: validation error: GPU pods must select an approved GPU product with "
    "nodeSelector nvidia.com/gpu.product. rule check-gpu-label failed at path /spec/nodeSelector/"
)


def webhook_denial() -> Story:
    s = Story(
        "webhook-denied",
        "dinov2-linear-probe",
        "vision",
        "Pending",
        phase_at=12,
        created=12,
        command="python linear_probe.py",
        submitted_by="marco@example.com",
    )
    s.add_phase(s.created, "Pending")
    for at in (11.9, 11.5, 10.7, 9.1, 5.9):  # the job controller retries with back-off
        s.add_event(
            at,
            "FailedCreate",
            DENIAL,
            source="job-controller",
            kind="Job",
            obj_name=s.name,
        )
    return s.expect(
        "pending",
        None,
        "Pending with no pod: the job controller's FailedCreate says admission webhook validate.kyverno.svc-fail "
        "denied the pod; the route-out names the webhook and its message, and an admission finding explains it",
        findings=[{"kind": "admission", "node": None, "explains": True}],
    )


FAMILY = Family("admission", stories=(webhook_denial,))
