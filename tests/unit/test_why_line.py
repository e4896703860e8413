"""The one line that says why (core/report/why.py, issue 34 point 5): an OOM by its measured peak against the
limit, a long wrapped message by its cause first, on the messages kubelets and containerd really send."""

from __future__ import annotations

import pytest

from core.models.report import EvidenceItem, Memory, Recurrence, Report, WorkloadRef
from core.report.why import clauses, tail_first, why_line

GIB = 2**30


def item(text: str, source: str, signal: str | None = None, decisive: bool = False) -> EvidenceItem:
    return EvidenceItem(text=text, source=source, signal=signal, decisive=decisive)  # type: ignore[arg-type]


def report(evidence: list[EvidenceItem], category: str, memory: Memory | None = None) -> Report:
    return Report(
        outcome="diagnosed",
        category=category,  # type: ignore[arg-type]
        workload=WorkloadRef(name="w", phase="Failed", project="p"),
        evidence=evidence,
        memory=memory,
        recurrence=Recurrence(count=1, lookback="24h"),
    )


POD_LINE = item(
    "Pod llama-ft-7b-0-0: Container main; OOMKilled (exit 137); exit 137: killed (SIGKILL) from outside the "
    "program; the code alone does not say by whom; node gpu-e-03; k8sPhase: OOMKilled; memory request/limit: "
    '48 GiB / 48 GiB (request equals limit); phaseMessage: "Workload failed"',
    "kubectl describe pod", "OOM_KILLED", decisive=True,
)


def test_an_oom_says_its_peak_against_the_limit_not_a_pod_line_cut_before_the_numbers() -> None:
    peak = 51_400_000_000
    memory = Memory(limit_bytes=48 * GIB, peak_bytes=peak, samples=300, pod="elastic-rl-worker-1")
    text, sources = why_line(report([POD_LINE], "OOM_KILLED", memory)) or ("", ())
    assert text == "OOM-killed (pod elastic-rl-worker-1): peak 47.9 GiB = 99.7% of the 48 GiB limit"
    assert sources == ("kubectl describe pod", "get_workload_metrics")
    # No peak measured: said so, never a number.
    text, _ = why_line(report([POD_LINE], "OOM_KILLED", Memory(limit_bytes=16 * GIB))) or ("", ())
    assert text.startswith("OOM-killed at its 16 GiB limit; no peak was measured"), text
    # No limit known: the decisive line.
    assert why_line(report([POD_LINE], "OOM_KILLED", None)) == (POD_LINE.text, ("kubectl describe pod",))


NOT_FOUND = (
    'Pod/bert-serve-0-0 event Warning Failed x5: "Failed to pull image "nvcr.io/acme/bert-serve:v2.3.1": rpc '
    'error: code = NotFound desc = failed to pull and unpack image "nvcr.io/acme/bert-serve:v2.3.1": failed to '
    'resolve reference "nvcr.io/acme/bert-serve:v2.3.1": nvcr.io/acme/bert-serve:v2.3.1: not found"'
)
NO_SUCH_HOST = (
    'Pod/asr-stream-0-0 event Warning Failed x5: "Failed to pull image "registry.internal.acme.io/speech/asr-'
    'stream:2026.11": rpc error: code = Unknown desc = failed to pull and unpack image "registry.internal.acme.io'
    '/speech/asr-stream:2026.11": failed to resolve reference "registry.internal.acme.io/speech/asr-stream:2026.'
    '11": failed to do request: Head "https://registry.internal.acme.io/v2/speech/asr-stream/manifests/2026.11":'
    ' dial tcp: lookup registry.internal.acme.io on 10.96.0.10:53: no such host"'
)
UNAUTHORIZED = (
    'Event reason: Failed; message: "Failed to pull image "registry.acme.io/vision/sam:1.4": rpc error: code = '
    'Unknown desc = failed to pull and unpack image "registry.acme.io/vision/sam:1.4": failed to resolve '
    'reference "registry.acme.io/vision/sam:1.4": pull access denied, repository does not exist or may require '
    'authorization: authorization failed: 401 Unauthorized"; on Pod sam-0-0'
)


@pytest.mark.parametrize(
    ("line", "starts"),
    [
        (NOT_FOUND, "…nvcr.io/acme/bert-serve:v2.3.1: not found ("),
        (NO_SUCH_HOST, "…lookup registry.internal.acme.io on 10.96.0.10:53: no such host ("),
        (UNAUTHORIZED, "…authorization failed: 401 Unauthorized ("),
    ],
)
def test_an_image_pull_says_the_messages_tail_first(line: str, starts: str) -> None:
    said = tail_first(line)
    assert said.startswith(starts), said
    # What was tried and which event said it follow, in brackets: nothing the line said about where is lost.
    assert 'Failed to pull image "' in said
    assert ("x5" in said) == ("x5" in line) and ("on Pod sam-0-0" in said) == ("on Pod sam-0-0" in line)
    text, sources = why_line(report([item(line, "kubectl get events", "IMAGE_PULL", True)], "IMAGE_PULL_FAILED"))
    assert text == said and sources == ("kubectl get events",)


def test_a_short_message_reads_whole() -> None:
    mount = ('Pod/wav2vec-pt-0-0 event Warning FailedMount x9: "MountVolume.SetUp failed for volume "corpus" : '
             'persistentvolumeclaim "speech-corpus-v3" not found"')
    assert tail_first(mount) == mount
    # Prose in sentences is not a chain of wrapped errors, however many colons it has.
    evicted = ('Event reason: Evicted; message: "The node was low on resource: ephemeral-storage. Threshold quantity: '
               '47173848597, available: 45563208Ki. Container main was using 112Gi, request is 0, has larger '
               'consumption of ephemeral-storage."; on Pod wav2vec-pretrain-0-0')
    assert tail_first(evicted) == evicted


def test_clauses_split_where_go_wraps_never_inside_a_quoted_name_or_a_url() -> None:
    assert clauses('a "x:1": Head "https://h/v2": dial tcp: lookup h: no such host') == [
        'a "x:1"', 'Head "https://h/v2"', "dial tcp", "lookup h", "no such host"
    ]
