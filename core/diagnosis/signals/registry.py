"""The signal families, in the order their matchers run, and what the rule table reads from them.

Order matters where a family looks at what earlier ones found: a configuration error defers to a missing
Secret (mount before container-start), policy words count only when nothing stronger was found (the
infrastructure families before it), and an exit code joins the OOM or start error that explains it (exit-code
last). Init runs after all of them. The infrastructure families (node pressure, GPU hardware and driver, fabric,
admission, control plane) feed no rule row: they raise findings (core/diagnosis/infra.py).

A new family is a module (patterns, examples, matcher, the rule rows its kinds feed) and a line here; kinds it
introduces are added to SignalKind and placed in the strength order (core/diagnosis/signals/model.py).
"""

from __future__ import annotations

from core.diagnosis.signals import (
    admission,
    container_start,
    control_plane,
    exit_code,
    fabric,
    gpu_driver,
    gpu_hardware,
    image_pull,
    init,
    mount,
    node,
    node_pressure,
    oom,
    policy,
    preemption,
    probes,
    sandbox,
)
from core.diagnosis.signals.family import Family
from core.diagnosis.signals.model import SignalKind

FAMILIES: tuple[Family, ...] = (
    preemption.FAMILY,
    sandbox.FAMILY,
    oom.FAMILY,
    image_pull.FAMILY,
    mount.FAMILY,
    container_start.FAMILY,
    probes.FAMILY,
    node.FAMILY,
    node_pressure.FAMILY,
    gpu_hardware.FAMILY,
    gpu_driver.FAMILY,
    fabric.FAMILY,
    admission.FAMILY,
    control_plane.FAMILY,
    policy.FAMILY,
    exit_code.FAMILY,
    init.FAMILY,
)


def row_kinds(row: str) -> frozenset[SignalKind]:
    """Every kind, across the families, that feeds the rule row `row`."""
    return frozenset(kind for family in FAMILIES for kind, name in family.rows.items() if name == row)
