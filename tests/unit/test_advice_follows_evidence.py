"""Every recommendation follows from the evidence beside it (issue 11 item 13), exit-code notes depend on the
program that chose the code, and a fault under the workload puts the administrator first and never asks the
user to fix code."""

from __future__ import annotations

import pytest

from core.diagnosis.programs import exit_note, program_of
from core.diagnosis.recommend import AdviceContext, recommendations
from core.diagnosis.signals.node_pressure import eviction_usage
from core.models.report import Finding

GI = 1024**3


def _joined(ctx: AdviceContext) -> str:
    return "\n".join(recommendations(ctx))


def test_eviction_over_request_asks_for_the_measured_request() -> None:
    usage = eviction_usage(
        "The node was low on resource: memory. Threshold quantity: 100Mi, available: 81204Ki. Container main was "
        "using 61Gi, request is 16Gi, has larger consumption of memory."
    )
    advice = _joined(AdviceContext("NODE_FAILURE", eviction=usage, eviction_node_short=True, restart_policy="Never"))
    assert "at least 61Gi" in advice and "16Gi" in advice


def test_eviction_for_the_pods_own_storage_limit_asks_for_a_larger_limit_not_a_plain_rerun() -> None:
    ctx = AdviceContext("NODE_FAILURE", evicted_resource="ephemeral-storage", eviction_node_short=False)
    advice = _joined(ctx)
    assert "ephemeral-storage limit" in advice
    assert "Resubmit the workload: with restart policy" not in advice


def test_oom_with_a_measured_peak_names_it() -> None:
    advice = _joined(AdviceContext("OOM_KILLED", limit_bytes=32 * GI, peak_bytes=31 * GI))
    assert "31 GiB" in advice and "32 GiB" in advice


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("An error occurred (NoSuchBucket) when calling the ListObjectsV2 operation: The specified bucket does not "
         "exist", "bucket"),
        ("An error occurred (AccessDenied) when calling the GetObject operation: Access Denied", "credentials"),
        ("curl: (6) Could not resolve host: data.acme.internal", "resolved"),
        ("exec /opt/conda/bin/python: exec format error", "architecture"),
        ("bash: line 1: pyhton: command not found", "PATH"),
        ("ERROR: No matching distribution found for torch==9.9", "package version"),
        ("[rank3]:[E1130 11:25:00.412 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
         "timeout: WorkNCCL(SeqNum=18231, OpType=ALLREDUCE) ran for 600071 milliseconds before timing out.",
         "one rank never reached it"),
        ("torch.distributed.DistBackendError: [2] is setting up NCCL communicator and retrieving ncclUniqueId "
         "from [0] via c10d key-value store: ProcessGroupNCCL timed out", "network between the ranks"),
    ],
)
def test_a_tools_error_gets_the_advice_it_names(line: str, words: str) -> None:
    for category in ("CRASH_APP_ERROR", "INIT_FAILED"):
        advice = _joined(AdviceContext(category, log_line=line))
        assert words in advice, (category, advice)
        assert line in advice  # the line it rests on is quoted beside it
        assert "Fix the code" not in advice  # the line says what is wrong; no general blame of the code


def _finding(kind: str, explains: bool = True, node: str | None = "gpu-e-47") -> Finding:
    return Finding(kind=kind, node=node, text="the GPU has fallen off the bus (Xid 79)", source="kubectl get events",
                   explains=explains)  # type: ignore[arg-type]


@pytest.mark.parametrize("category", ["CRASH_APP_ERROR", "INIT_FAILED", "UNKNOWN", "NODE_FAILURE"])
def test_an_explaining_finding_leads_with_the_administrator_and_never_blames_the_code(category: str) -> None:
    ctx = AdviceContext(category, log_line="RuntimeError: CUDA error: unspecified launch failure",
                        findings=(_finding("gpu-hardware"),), unresolved_kill=True)
    advice = recommendations(ctx)
    assert advice[0].startswith("For the administrator: node gpu-e-47")
    assert "kubectl cordon gpu-e-47" in advice[0]
    joined = "\n".join(advice).lower()
    assert "fix the code" not in joined and "fix the init container" not in joined
    assert "do not rerun unchanged" not in joined
    assert any("resubmit" in line.lower() for line in advice[1:])


@pytest.mark.parametrize("explains", [True, False])
def test_without_tier_2_access_is_asked_for_only_when_nothing_explains_the_failure(explains: bool) -> None:
    ctx = AdviceContext("UNKNOWN", tier2_available=False, findings=(_finding("admission", explains=explains),))
    asked = any("Kubernetes access" in line for line in recommendations(ctx))
    assert asked is not explains


def test_a_finding_that_does_not_explain_comes_after_the_categorys_advice() -> None:
    ctx = AdviceContext("OOM_KILLED", limit_bytes=16 * GI, findings=(_finding("node-pressure", explains=False),))
    advice = recommendations(ctx)
    assert not advice[0].startswith("For the administrator")
    assert advice[-1].startswith("For the administrator")


def test_recurring_infrastructure_failure_asks_for_the_repair_not_a_code_fix() -> None:
    ctx = AdviceContext("CRASH_APP_ERROR", recurring_count=3, findings=(_finding("gpu-hardware"),))
    assert "administrator repair" in recommendations(ctx)[0]


@pytest.mark.parametrize(
    ("command", "args", "image", "program"),
    [
        (["sh", "-c", "set -e; aws s3 sync s3://acme/x /data"], None, "docker.io/amazon/aws-cli:2.17.0", "aws"),
        (None, None, "docker.io/amazon/aws-cli:2.17.0", "aws"),
        (["/usr/bin/python3.11", "train.py"], None, "nvcr.io/nvidia/pytorch:24.05-py3", "python"),
        ("torchrun --nproc-per-node 8 train.py", "", None, "python"),
        (["curl", "-fsSL", "https://x/y"], None, None, "curl"),
        (["bash", "-c", "pyhton train.py"], None, "nvcr.io/nvidia/pytorch:24.05-py3", None),
    ],
)
def test_what_a_container_runs(command: object, args: object, image: str | None, program: str | None) -> None:
    assert program_of(command, args, image) == program  # type: ignore[arg-type]


def test_exit_notes_depend_on_the_program() -> None:
    assert "S3 transfer" in exit_note(1, "aws")
    assert "uncaught exception" in exit_note(1, "python")
    assert "resolved" in exit_note(6, "curl")
    assert "fatal error" in exit_note(128, "git")
    # Undocumented codes and unknown programs fall back to the generic reading, which guesses no cause.
    generic = "generic application error: the program ended with a failure status"
    assert exit_note(1, None) == exit_note(1, "curl") == generic
    assert "CUDA" not in exit_note(1, "aws") and "out-of-memory" not in exit_note(1, None)
