"""DATASOURCE_MOUNT_FAILED: a missing PVC, a missing secret, a volume attached elsewhere (Multi-Attach), and a
mount that timed out so long ago that only the Run:ai history still tells it.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
    cstatus,
    node,
    waiting,
)


def _mount_story(
    key: str, name: str, project: str, node_name: str, at: float, reason: str, message: str, storage: dict
) -> Story:
    s = Story(key, name, project, "Pending", phase_at=at + 1, created=at + 1.5, storage=storage)
    pod = s.add_pod(node=node_name, created=at + 1.2, k8s_phase="ContainerCreating", updated=at + 1)
    s.add_phase(s.created, "Pending")
    s.add_event(at, reason, message, pod=pod.name)
    s.add_kube_event(0.8, reason, message, pod=pod.name, host=node_name, count=9, first=at)
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("ContainerCreating"))], phase="Pending")
    s.nodes.append(node(node_name))
    return s


def mount_pvc_missing() -> Story:
    s = _mount_story(
        "mount-pvc-missing",
        "wav2vec-pt",
        "speech",
        "gpu-e-06",
        22,
        "FailedMount",
        'MountVolume.SetUp failed for volume "corpus" : persistentvolumeclaim "speech-corpus-v3" not found',
        {
            "pvc": [
                {
                    "name": "corpus",
                    "claimName": "speech-corpus-v3",
                    "path": "/data",
                    "existingPvc": True,
                    "readOnly": True,
                }
            ]
        },
    )
    return s.expect(
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        'FailedMount: persistentvolumeclaim "speech-corpus-v3" not found',
        recurrence=1,
        intent="active",
    )


def mount_secret_missing() -> Story:
    s = _mount_story(
        "mount-secret-missing",
        "llm-judge",
        "genai",
        "gpu-w-04",
        14,
        "FailedMount",
        'MountVolume.SetUp failed for volume "hf-creds" : secret "hf-cache-creds" not found',
        {
            "pvc": [],
            "secretVolume": [{"name": "hf-creds", "secret": "hf-cache-creds", "mountPath": "/secrets/hf"}],
        },
    )
    return s.expect(
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        'FailedMount: secret "hf-cache-creds" not found',
        recurrence=1,
        intent="active",
    )


def mount_multi_attach() -> Story:
    s = _mount_story(
        "mount-multi-attach",
        "nav-train",
        "robotics",
        "gpu-w-09",
        35,
        "FailedAttachVolume",
        'Multi-Attach error for volume "pvc-6f1c2a9e-0b7d-4c1e-9f3a-2d5b8e7c4a10" Volume is already '
        "exclusively attached to one node and can't be attached to another",
        {
            "pvc": [
                {
                    "name": "maps",
                    "claimName": "nav-maps",
                    "path": "/maps",
                    "existingPvc": True,
                    "readOnly": False,
                }
            ]
        },
    )
    return s.expect(
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        "FailedAttachVolume Multi-Attach error: RWO volume still attached to another node",
        recurrence=1,
        intent="active",
    )


def mount_timeout() -> Story:
    # Old enough that Kubernetes forgot it: only Run:ai history tells the story.
    s = Story(
        "mount-timeout",
        "two-tower",
        "recsys",
        "Failed",
        phase_at=190,
        created=212,
        storage={
            "pvc": [
                {
                    "name": "train-data",
                    "claimName": "ctr-logs-nfs",
                    "path": "/data",
                    "existingPvc": True,
                    "readOnly": True,
                }
            ]
        },
        submitted_by="lena@example.com",
    )
    pod = s.add_pod(
        node="gpu-w-08", created=211, k8s_phase="ContainerCreating", updated=190, completed=190, deleted=189
    )
    s.add_phase(s.created, "Pending")
    msg = (
        "Unable to attach or mount volumes: unmounted volumes=[train-data], unattached volumes=[train-data "
        "kube-api-access-8xk2p]: timed out waiting for the condition"
    )
    for at in (209, 207, 205, 203, 201, 199, 197, 195, 193):
        s.add_event(at, "FailedMount", msg, pod=pod.name, in_events=(at == 193))
    s.phase_message = f"Workload failed: pod {pod.name} did not start within 20m (volume mount timed out)"
    s.add_phase(190, "Failed", s.phase_message)
    return s.expect(
        "diagnosed",
        "DATASOURCE_MOUNT_FAILED",
        "repeated FailedMount 'timed out waiting for the condition' then Failed; one termination "
        "(repeated events of one pod are one occurrence); Kubernetes events expired",
        recurrence=1,
    )


FAMILY = Family(
    "mount",
    stories=(
        mount_pvc_missing,
        mount_secret_missing,
        mount_multi_attach,
        mount_timeout,
    ),
)
