"""The engine's event classification is cached by what an event says, not by the object it is about: a watch that
diagnoses a new pod every poll must not add a cache entry per pod (issue 32, point 10), and each citation still
names its own pod."""

from __future__ import annotations

from core.diagnosis.observations import _classified_event, classified_event
from core.models.runai import WorkloadEvent


def event(pod: str) -> WorkloadEvent:
    return WorkloadEvent.model_validate({
        "reason": "OOMKilled", "message": "Container main was OOM killed", "source": "kubelet",
        "involvedObject": {"kind": "Pod", "name": pod},
    })


def test_the_same_message_about_many_pods_is_one_cache_entry() -> None:
    _classified_event.cache_clear()
    cited = [classified_event(event(f"job-{n}-0-0")) for n in range(50)]
    assert _classified_event.cache_info().currsize == 1
    for n, (signals, text, pod, node) in enumerate(cited):
        assert signals and pod == f"job-{n}-0-0" and node is None
        assert text == f'Event reason: OOMKilled; message: "Container main was OOM killed"; on Pod job-{n}-0-0'
