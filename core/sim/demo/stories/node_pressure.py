"""Faults under the workload, on the node: a kubelet eviction under disk pressure. The seed's category is
NODE_FAILURE; the `node-pressure` finding puts the administrator first, and the advice that follows from the
eviction's own measurement (the container wrote 112Gi to local disk with no ephemeral-storage request) goes to
the user.
"""

from __future__ import annotations

from core.sim.demo.kit import Family, Story, condition, cstatus, lifecycle, node, other_pod, terminated

DISK_NODE = "gpu-e-60"
EVICTION = (
    "The node was low on resource: ephemeral-storage. Threshold quantity: 47173848597, available: 45563208Ki. "
    "Container main was using 112Gi, request is 0, has larger consumption of ephemeral-storage."
)


def disk_pressure_eviction() -> Story:
    s = Story(
        "disk-pressure-evicted",
        "wav2vec-pretrain",
        "speech",
        "Failed",
        phase_at=24,
        created=140,
        command="python pretrain.py --cache-dir /tmp/cache",
        submitted_by="priya@example.com",
    )
    pod = s.add_pod(node=DISK_NODE, created=139, k8s_phase="Evicted", updated=24, completed=24)
    s.phase_message = f"Workload failed: pod {pod.name} was evicted"
    lifecycle(s, 135, 24, "Failed", s.phase_message)
    s.add_event(24.1, "Evicted", EVICTION, pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, terminated("Error", 137, 135, 24))],
        phase="Failed",
        reason="Evicted",
        message=EVICTION,
        conditions=[
            condition("DisruptionTarget", "True", 24.1, "TerminationByKubelet", "The node was low on resource: "
                      "ephemeral-storage."),
        ],
    )
    s.add_kube_event(24.1, "Evicted", EVICTION, pod=pod.name, host=DISK_NODE)
    s.nodes.append(node(DISK_NODE, disk_pressure=True, ready_since=25))
    s.add_node_event(25, DISK_NODE, "EvictionThresholdMet", "Attempting to reclaim ephemeral-storage")
    s.add_node_event(
        25,
        DISK_NODE,
        "FreeDiskSpaceFailed",
        "Failed to garbage collect required amount of images. Attempted to free 21474836480 bytes, but only found "
        "0 bytes eligible to free.",
    )
    s.kube_pods.append(
        other_pod(
            "tokenizer-batch-2b81-0",
            "runai-nlp",
            DISK_NODE,
            [cstatus("main", "python:3.11-slim", terminated("Error", 137, 60, 24.5))],
            phase="Failed",
            created=61,
            reason="Evicted",
            message="The node was low on resource: ephemeral-storage. Threshold quantity: 47173848597, available: "
            "45563208Ki.",
        )
    )
    return s.expect(
        "diagnosed",
        "NODE_FAILURE",
        "Evicted for node disk pressure (ephemeral-storage; DiskPressure, image GC failed): a node-pressure "
        "finding for the administrator, and the container's 112Gi of local disk with no request asks the user "
        "for an ephemeral-storage request; another pod on gpu-e-60 was evicted too",
        recurrence=1,
        findings=[{"kind": "node-pressure", "node": DISK_NODE, "explains": True}],
    )


FAMILY = Family("node-pressure", stories=(disk_pressure_eviction,))
