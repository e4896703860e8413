"""Admission: the API server refused to create the workload's pods, so none ever ran. The job controller (or
Run:ai's) reports it as a `FailedCreate` event, and Run:ai may repeat it in the workload's conditions or phase
message.

Real wording (kube-apiserver): `Error creating: admission webhook "validate.kyverno.svc-fail" denied the request:
...`, `Error creating: Internal error occurred: failed calling webhook "mutate.example.com": failed to call
webhook: Post "https://...": context deadline exceeded` (a fail-closed webhook that did not answer),
`Error creating: pods "train-0-0" is forbidden: exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu=8,
used: requests.nvidia.com/gpu=0, limited: requests.nvidia.com/gpu=4` (a ResourceQuota), `... is forbidden:
maximum memory usage per Container is 16Gi, but limit is 32Gi` (a LimitRange) and `... violates PodSecurity
"restricted:latest": ...`. An `admission` finding for the administrator, naming the webhook, quota or policy.
Run:ai's own scheduling quota (`NonPreemptibleOverQuota`) is a resource wait, not an admission denial.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, rx

K = SignalKind

_WEBHOOK_DENIED_RE = rx(r'admission webhook "([^"\n]{1,253})" denied the request')
_WEBHOOK_FAILED_RE = rx(r'failed calling webhook "([^"\n]{1,253})"')
_QUOTA_RE = rx(r"exceeded quota: ([a-z0-9][-a-z0-9.]{0,252})")
_LIMIT_RANGE_RE = rx(r"(?:maximum|minimum) [a-z-]{1,40} usage per (?:Container|Pod|PersistentVolumeClaim) is")
_POD_SECURITY_RE = rx(r'violates PodSecurity "([^"\n]{1,80})"')


def match(t: Text, out: Collector) -> None:
    m = t.m
    if (hook := _WEBHOOK_DENIED_RE.search(m)) is not None:
        out.add(K.ADMISSION_DENIED, reason="webhook", resource=hook.group(1), note="an admission webhook denied it")
    elif (hook := _WEBHOOK_FAILED_RE.search(m)) is not None:
        out.add(
            K.ADMISSION_DENIED,
            reason="webhook",
            resource=hook.group(1),
            note="an admission webhook could not be called, and it fails closed",
        )
    elif (quota := _QUOTA_RE.search(m)) is not None:
        out.add(K.ADMISSION_DENIED, reason="ResourceQuota", resource=quota.group(1), note="a ResourceQuota is full")
    elif _LIMIT_RANGE_RE.search(m):
        out.add(K.ADMISSION_DENIED, reason="LimitRange", note="a LimitRange refused the requested resources")
    elif (policy := _POD_SECURITY_RE.search(m)) is not None:
        out.add(K.ADMISSION_DENIED, reason="PodSecurity", resource=policy.group(1), note="Pod Security admission")


EXAMPLES = (
    example(
        "FailedCreate",
        'Error creating: admission webhook "validate.kyverno.svc-fail" denied the request: resource Pod/runai-nlp/'
        "train-0-0 was blocked due to the following policies: require-team-label: check-team: validation error: "
        "label 'team' is required",
        K.ADMISSION_DENIED,
        resource="validate.kyverno.svc-fail",
    ),
    example(
        "FailedCreate",
        'Error creating: Internal error occurred: failed calling webhook "mutate.gpu-policy.example.com": failed '
        'to call webhook: Post "https://gpu-policy.kube-system.svc:443/mutate?timeout=10s": context deadline '
        "exceeded",
        K.ADMISSION_DENIED,
        resource="mutate.gpu-policy.example.com",
    ),
    example(
        "FailedCreate",
        'Error creating: pods "train-0-0" is forbidden: exceeded quota: gpu-quota, requested: '
        "requests.nvidia.com/gpu=8, used: requests.nvidia.com/gpu=0, limited: requests.nvidia.com/gpu=4",
        K.ADMISSION_DENIED,
        reason="ResourceQuota",
        resource="gpu-quota",
    ),
    example(
        "FailedCreate",
        'Error creating: pods "train-0-0" is forbidden: maximum memory usage per Container is 16Gi, but limit is '
        "32Gi",
        K.ADMISSION_DENIED,
        reason="LimitRange",
    ),
    example(
        "FailedCreate",
        'Error creating: pods "train-0-0" is forbidden: violates PodSecurity "restricted:latest": '
        "allowPrivilegeEscalation != false",
        K.ADMISSION_DENIED,
        resource="restricted:latest",
    ),
    # Run:ai's scheduling quota and the scheduler's words are waits, not denials.
    example(
        None,
        "Non-preemptible workload requests 16 GPUs, project recsys quota is 8",
        None,
    ),
    example(
        "FailedScheduling",
        "0/12 nodes are available: 12 Insufficient nvidia.com/gpu. preemption: 0/12 nodes are available",
        None,
    ),
)

FAMILY = Family(
    name="admission",
    kinds=frozenset({K.ADMISSION_DENIED}),
    match=match,
    examples=EXAMPLES,
)
