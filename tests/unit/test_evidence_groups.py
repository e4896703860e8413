"""One signal, all its sources (core/diagnosis/evidence_groups.py): the same message from several reads, and the
same container state from `get_workload_pods`, `kubectl describe pod` and the phase message that names it,
become one item naming every read; the decisive items come first; nothing read is lost; lines that only look
alike stay apart. The citations are the engine's own words for real cluster strings."""

from __future__ import annotations

from core.diagnosis.evidence_groups import merge_evidence
from core.diagnosis.observations import Observation
from core.diagnosis.report_builder import SOURCE_ORDER
from core.diagnosis.signals import Signal, SignalKind
from core.models.report import EvidenceItem

STATUS, HISTORY, EVENTS = "get_workload_status", "get_workload_history", "kubectl get events"
PODS, DESCRIBE, NODE = "get_workload_pods", "kubectl describe pod", "kubectl describe node"
PULL = (
    'Failed to pull image "registry.acme.io/vision/sam-finetune:1.4": rpc error: code = Unknown desc = failed to '
    'resolve reference "registry.acme.io/vision/sam-finetune:1.4": 401 Unauthorized'
)


def item(text: str, source: str, signal: str | None = None) -> EvidenceItem:
    return EvidenceItem(text=text, source=source, signal=signal)  # type: ignore[arg-type]


def merge(items: list[EvidenceItem], deciding: tuple[EvidenceItem, ...] = ()) -> list[EvidenceItem]:
    return merge_evidence(items, [(i.text, i.source) for i in deciding], SOURCE_ORDER)


def test_one_message_from_three_reads_is_one_item_with_its_count_and_every_read() -> None:
    status = item(f'Event reason: Failed; message: "{PULL}"; on Pod sam-finetune-0-0', STATUS, "IMAGE_PULL")
    history = item(f'History event reason: Failed; message: "{PULL}"; on Pod sam-finetune-0-0', HISTORY, "IMAGE_PULL")
    kube = item(f'Pod/sam-finetune-0-0 event Warning Failed x5: "{PULL}"', EVENTS, "IMAGE_PULL")
    spec = item("Submitted image: registry.acme.io/vision/sam-finetune:1.4", "get_workload_spec", "image")
    merged = merge([spec, kube, status, history], deciding=(status,))
    assert len(merged) == 2
    first = merged[0]
    assert first.decisive and first.source == STATUS
    assert first.sources == [STATUS, HISTORY, EVENTS], "the strongest read first, then by the seed's order"
    assert first.text.startswith(status.text) and "x5" in first.text, "the count stays on the line"
    assert {(r.source, r.text) for r in first.reads} == {(i.source, i.text) for i in (status, history, kube)}
    assert merged[1] == spec.model_copy(update={"sources": [spec.source]})


def test_two_events_of_one_read_stay_two_even_worded_alike() -> None:
    a = item('Event reason: BackOff; message: "Back-off pulling image"; on Pod p-0', STATUS)
    b = item('Event reason: Failed; message: "Back-off pulling image"; on Pod p-0', STATUS)
    assert len(merge([a, b])) == 2


def test_the_same_words_about_other_pods_are_not_one_signal() -> None:
    a = item('Event reason: OOMKilled; message: "Container main was OOM killed"; on Pod w-0', STATUS)
    b = item('History event reason: OOMKilled; message: "Container main was OOM killed"; on Pod w-1', HISTORY)
    assert len(merge([a, b])) == 2


def test_a_phase_message_joins_an_event_about_the_workload_but_not_one_about_a_pod() -> None:
    words = "Workload stopped: GPU idle time limit reached (GPUs idle for 2h)"
    phase = item(f'Phase: Stopped since 2026-11-30T09:55:00+00:00; phaseMessage: "{words}"', STATUS)
    workload = item(f'Event reason: IdleGpuTimeLimitReached; message: "{words}"; on Workspace nb', STATUS)
    pod = item(f'Event reason: Killing; message: "{words}"; on Pod nb-0-0', HISTORY)
    merged = merge([phase, workload, pod])
    assert len(merged) == 2
    assert "event IdleGpuTimeLimitReached on Workspace nb" in merged[0].text, "the event's reason stays"


def test_a_container_state_its_pod_line_and_the_phase_that_names_it_are_one_line() -> None:
    phase = item(
        'Phase: Failed since 2026-11-30T11:25:00+00:00; phaseMessage: "Workload failed: pod whisper-ft-0-0 '
        'container main terminated (OOMKilled)"',
        STATUS,
        "OOM_KILLED",
    )
    history = item(
        'Phase update Failed; phaseMessage: "Workload failed: pod whisper-ft-0-0 container main terminated '
        '(OOMKilled)"',
        HISTORY,
        "OOM_KILLED",
    )
    pod = item(
        "Pod whisper-ft-0-0; node gpu-node-a1; k8sPhase: OOMKilled; memory request/limit: 24 GiB / 24 GiB", PODS, "pod"
    )
    described = item(
        "Pod whisper-ft-0-0: Container main; OOMKilled (exit 137); exit 137: killed (SIGKILL)", DESCRIBE, "OOM_KILLED"
    )
    # The journal's order: the deciding lines first (strongest first), then the rest by source.
    merged = merge([described, phase, pod, history], deciding=(described, phase))
    assert len(merged) == 1
    line = merged[0]
    assert line.sources == [DESCRIBE, STATUS, PODS, HISTORY]
    assert line.text.startswith("Pod whisper-ft-0-0: Container main; OOMKilled (exit 137)")
    assert "node gpu-node-a1; k8sPhase: OOMKilled" in line.text and "phaseMessage:" in line.text
    assert line.text.count("phaseMessage") == 1, "the phase message is said once"


def test_a_state_that_differs_is_not_merged() -> None:
    pod = item("Pod w-0; node n-1; k8sPhase: Error", PODS, "pod")
    described = item("Pod w-0: Container main; OOMKilled (exit 137)", DESCRIBE, "OOM_KILLED")
    other_pod = item("Pod w-1: Container main; Error (exit 1)", DESCRIBE, "APP_EXIT")
    phase = item(
        'Phase: Failed since T; phaseMessage: "Workload failed: pod w-1 container main terminated '
        '(Error), exit code 143"',
        STATUS,
    )
    assert len(merge([pod, described, other_pod, phase])) == 4


def test_a_phase_message_joins_the_pod_line_when_no_container_was_described() -> None:
    pod = item("Pod w-0; node n-1; k8sPhase: Error", PODS, "pod")
    phase = item(
        'Phase: Failed since T; phaseMessage: "Workload failed: pod w-0 container main terminated '
        '(Error), exit code 1"',
        STATUS,
        "APP_EXIT",
    )
    merged = merge([phase, pod], deciding=(phase,))
    assert len(merged) == 1 and merged[0].sources == [STATUS, PODS]
    assert merged[0].text == f"{pod.text}; {phase.text}", "the pod's state leads, as when it is described"


def test_a_node_condition_and_its_event_are_one_signal_with_the_condition_named() -> None:
    xid = "NVRM: Xid (PCI:0000:9b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
    event = item(f'Node/gpu-e-47 event Warning NvidiaXID79Error: "{xid}"', EVENTS, "GPU_HARDWARE")
    cond = item(f"Node gpu-e-47: AcceleratedHardwareReady=False: {xid}", NODE, "GPU_HARDWARE")
    other = item(f"Node gpu-e-48: AcceleratedHardwareReady=False: {xid}", NODE, "GPU_HARDWARE")
    merged = merge([event, cond, other])
    assert len(merged) == 2
    assert merged[0].sources == [EVENTS, NODE] and "node condition AcceleratedHardwareReady=False" in merged[0].text


def test_a_quote_cut_shorter_by_one_read_is_the_same_message() -> None:
    whole = "x" * 700
    status = item(f'Event reason: Failed; message: "{whole[:600]}… [+100 chars]"; on Pod p', STATUS)
    kube = item(f'Pod/p event Warning Failed: "{whole[:500]}… [+200 chars]"', EVENTS)
    assert len(merge([status, kube])) == 1


def test_nothing_read_is_lost_and_decisive_items_come_first() -> None:
    lines = [
        item("Submitted command: python train.py", "get_workload_spec", "command"),
        item('Event reason: OOMKilled; message: "Container main was OOM killed"; on Pod p-0', STATUS, "OOM_KILLED"),
        item('History event reason: OOMKilled; message: "Container main was OOM killed"; on Pod p-0', HISTORY),
        item('Log line 3 of container main (previous instance): "Killed"', "kubectl logs --previous", "log-line"),
        item("Taint manager: deleting due to NoExecute taint", DESCRIBE, "DISRUPTION_TARGET"),
    ]
    merged = merge(lines, deciding=(lines[1],))
    assert merged[0].decisive and not any(m.decisive for m in merged[1:])
    kept = {(r.source, r.text) for m in merged for r in m.reads} | {(m.source, m.text) for m in merged if not m.reads}
    assert kept == {(i.source, i.text) for i in lines}


def test_a_workload_event_and_its_revision_event_are_one_signal() -> None:
    words = "Back-off restarting failed container main in pod llm-chat-00002-deployment-6d8f9c7b5-q7kzx_genai-prod"
    workload = item(f'Event reason: BackOff; message: "{words}"; on Pod llm-chat-00002-q7kzx', STATUS, "CRASH_LOOP")
    revision = item(f'Revision event reason: BackOff; message: "{words}"; on Pod llm-chat-00002-q7kzx', STATUS)
    history = item(f'Revision history event reason: BackOff; message: "{words}"; on Pod llm-chat-00002-q7kzx', HISTORY)
    merged = merge([workload, revision, history])
    assert len(merged) == 1 and merged[0].sources == [STATUS, HISTORY] and len(merged[0].reads) == 3


# -- a first failure found after its peers were cited (core/diagnosis/group_logs.py) ----------------------------
_EXIT_1 = "Container main; Error (exit 1); exit 1: generic application error: the program ended with a failure status"
_EXIT_134 = "Container main; Error (exit 134); exit 134: SIGABRT: the program aborted itself"


def _pod_line(pod: str, node: str) -> EvidenceItem:
    return item(f"Pod {pod}; node {node}; k8sPhase: Error; memory request/limit: 512 GiB / 512 GiB", PODS, "pod")


def test_a_container_state_cited_as_the_first_failure_and_again_as_a_peer_is_one_line() -> None:
    own = item(_EXIT_1, DESCRIBE, "APP_EXIT")  # the first failure's, its pod unnamed
    as_peer = item(f"Pod olmo-pt-worker-0: {_EXIT_1}", DESCRIBE, "APP_EXIT")  # the same, cited before it was first
    other = item(f"Pod olmo-pt-worker-1: {_EXIT_1}", DESCRIBE, "APP_EXIT")
    pods = [_pod_line("olmo-pt-worker-0", "gpu-m-02"), _pod_line("olmo-pt-worker-1", "gpu-m-03")]
    about = Observation(Signal(kind=SignalKind.APP_EXIT, detail="exit 1"), DESCRIBE, None, _EXIT_1, "olmo-pt-worker-0")
    merged = merge_evidence([as_peer, own, other, *pods], [(own.text, own.source)], SOURCE_ORDER, [about])
    worker_0 = [m for m in merged if "olmo-pt-worker-0" in m.text]
    assert len(worker_0) == 1 and worker_0[0].decisive, merged
    assert worker_0[0].text.count("Container main") == 1 and "gpu-m-02" in worker_0[0].text
    assert len([m for m in merged if "olmo-pt-worker-1" in m.text]) == 1, "a peer's own line stays its own"


def test_an_unnamed_state_that_is_one_peers_words_joins_that_peer_and_another_state_stays() -> None:
    orphan = item(_EXIT_1, DESCRIBE, "APP_EXIT")  # the earliest pod's, cited before the first failure changed
    named = item(f"Pod olmo-pt-master-0: {_EXIT_1}", DESCRIBE, "APP_EXIT")
    first = item(f"Pod olmo-pt-worker-0: {_EXIT_134}", DESCRIBE, "APP_EXIT")
    pods = [_pod_line("olmo-pt-master-0", "gpu-m-01"), _pod_line("olmo-pt-worker-0", "gpu-m-02")]
    merged = merge([orphan, named, first, *pods])
    assert len(merged) == 2, merged
    assert not any(m.text.startswith("Container main") for m in merged), "no state is left without its pod"
    # Two pods whose words these could be: the line stays as it was.
    twice = merge([orphan, named, item(f"Pod olmo-pt-worker-0: {_EXIT_1}", DESCRIBE), *pods])
    assert any(m.text == _EXIT_1 for m in twice), twice
