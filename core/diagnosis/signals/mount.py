"""Data sources: a PVC, Secret or ConfigMap the pod cannot mount (the seed's DATASOURCE_MOUNT_FAILED).

`FailedMount`, `FailedAttachVolume` (a Multi-Attach error), `FailedMapVolume`, and the volume plugin's wording.
A missing Secret or ConfigMap (`secret "s" not found`, `couldn't find key K in Secret ns/s`) counts whether it
is mounted as a volume or referenced from env (CreateContainerConfigError): the seed's category covers "PVC or
secret mount failure", the pod cannot start either way, and the same owner fixes it. `pod has unbound immediate
PersistentVolumeClaims` is a scheduling message, but it names a missing PVC, so it counts, with a note; no
other FailedScheduling text does.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, canonical_reason, rx

K = SignalKind
_REASONS = frozenset({"failedmount", "failedattachvolume", "failedmapvolume"})
_TRIGGER_RE = rx(
    r"mountvolume\.\w{1,32} failed|unable to (?:attach or )?mount volumes|multi-attach error"
    r"|attachvolume\.attach failed|persistentvolumeclaim \"[^\"\n]{1,253}\" not found"
    r"|unbound immediate persistentvolumeclaims|mapvolume\.\w{1,32} failed"
)
_MISSING_OBJECT_RE = rx(r"\b(configmap|secret|persistentvolumeclaim)s? \"([^\"\n]{1,253})\" not found")
_MISSING_KEY_RE = rx(r"couldn't find key (\S{1,253}) in (Secret|ConfigMap) ([\w./-]{1,507})")
_VOLUME_NAME_RE = rx(r"\bvolume \"([^\"\n]{1,253})\"")
_UNMOUNTED_RE = rx(r"unmounted volumes=\[([^\]\n]{0,1024})\]")
_UNBOUND_PVC_RE = rx(r"unbound immediate persistentvolumeclaims")
_TIMEOUT_RE = rx(r"timed out waiting for the condition|context deadline exceeded")


def match(t: Text, out: Collector) -> None:
    m = t.m
    missing = _MISSING_OBJECT_RE.search(m)
    missing_key = _MISSING_KEY_RE.search(m)
    triggered = t.r in _REASONS or bool(_TRIGGER_RE.search(m))
    if not (triggered or missing or missing_key):
        return
    resource: str | None = None
    note: str | None = None
    if missing_key:
        resource = f"{missing_key.group(2).lower()}/{missing_key.group(3)}"
        note = f"key {missing_key.group(1)} is missing from it"
    elif missing:
        resource = f"{missing.group(1).lower()}/{missing.group(2)}"
    elif (unmounted := _UNMOUNTED_RE.search(m)) is not None:
        names = ",".join(unmounted.group(1).split())
        resource = f"volumes/{names}" if names else None
    elif (volume := _VOLUME_NAME_RE.search(m)) is not None:
        resource = f"volume/{volume.group(1)}"
    if _UNBOUND_PVC_RE.search(m):
        note = "reported at scheduling: a PersistentVolumeClaim is missing or not bound"
    elif _TIMEOUT_RE.search(m):
        note = "timed out waiting for the volumes to attach or mount"
    elif missing and not triggered:
        # Not a volume event: a Secret/ConfigMap referenced from env (CreateContainerConfigError).
        note = "a Secret/ConfigMap the container references is missing"
    out.add(K.MOUNT_FAILED, reason=canonical_reason(t.r), resource=resource, note=note)


EXAMPLES = (
    example(
        "FailedMount",
        'MountVolume.SetUp failed for volume "cfg" : configmap "train-cfg" not found',
        K.MOUNT_FAILED,
        resource="configmap/train-cfg",
    ),
    example(
        "FailedMount",
        'MountVolume.SetUp failed for volume "creds" : secret "s3-creds" not found',
        K.MOUNT_FAILED,
        resource="secret/s3-creds",
    ),
    example(
        "FailedMount",
        'MountVolume.SetUp failed for volume "data" : persistentvolumeclaim "datasets" not found',
        K.MOUNT_FAILED,
        resource="persistentvolumeclaim/datasets",
    ),
    example(
        "FailedMount",
        "Unable to attach or mount volumes: unmounted volumes=[data cache], unattached volumes=[data "
        "cache kube-api-access-x]: timed out waiting for the condition",
        K.MOUNT_FAILED,
        resource="volumes/data,cache",
        note="timed out waiting for the volumes to attach or mount",
    ),
    example(
        "FailedMount",
        "Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data]: "
        "context deadline exceeded",
        K.MOUNT_FAILED,
    ),
    example(
        "FailedAttachVolume",
        'Multi-Attach error for volume "pvc-1234" Volume is already exclusively attached to '
        "one node and can't be attached to another",
        K.MOUNT_FAILED,
        resource="volume/pvc-1234",
    ),
    example("FailedScheduling", 'persistentvolumeclaim "datasets" not found', K.MOUNT_FAILED),
    example(
        "FailedScheduling",
        "0/4 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
        "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
        K.MOUNT_FAILED,
        note="reported at scheduling: a PersistentVolumeClaim is missing or not bound",
    ),
    example(
        "CreateContainerConfigError",
        "couldn't find key HF_TOKEN in Secret runai-nlp/hf",
        K.MOUNT_FAILED,
        resource="secret/runai-nlp/hf",
        note="key HF_TOKEN is missing from it",
    ),
    example(
        "Failed",
        'Error: secret "hf-token" not found',
        K.MOUNT_FAILED,
        note="a Secret/ConfigMap the container references is missing",
    ),
    example("Failed", 'Error: configmap "env-cfg" not found', K.MOUNT_FAILED),
    example("SuccessfulAttachVolume", 'AttachVolume.Attach succeeded for volume "pvc-1"', None),
)

FAMILY = Family(
    name="mount",
    kinds=frozenset({K.MOUNT_FAILED}),
    match=match,
    examples=EXAMPLES,
    rows={K.MOUNT_FAILED: "mount-failed"},
)
