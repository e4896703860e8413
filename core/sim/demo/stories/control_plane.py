"""Faults under the workload, in the control plane: a cluster (demo-edge) that stopped reporting to the Run:ai
control plane three hours ago. Its workload still shows Running there; the report routes it as Run:ai shows it,
and its `control-plane` finding says that what Run:ai shows may be stale and what to check instead.
"""

from __future__ import annotations

from core.sim.demo.kit import Family, Story


def stale_on_disconnected_cluster() -> Story:
    s = Story(
        "disconnected-cluster",
        "anomaly-detector",
        "edge-lab",
        "Running",
        phase_at=240,
        created=245,
        running_pods=1,
        command="python detect.py --stream rtsp://camera-12",
        submitted_by="kenji@example.com",
    )
    s.add_pod(node="edge-gpu-02", created=244, k8s_phase="Running", updated=240)
    s.add_phase(s.created, "Pending")
    s.add_phase(240, "Running")
    return s.expect(
        "running",
        None,
        "Run:ai still shows Running, but demo-edge has not reported since 09:02 (status Disconnected): routed as "
        "running, with a control-plane finding that the control plane's view may be stale",
        findings=[{"kind": "control-plane", "node": None, "explains": False}],
    )


FAMILY = Family("control-plane", stories=(stale_on_disconnected_cluster,))
