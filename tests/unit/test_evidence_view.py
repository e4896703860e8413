"""The evidence as a person reads it (core/report/evidence_view.py): decisive, then corroboration, then context;
many pods alike folded into one line per kind of pod; what was submitted on one line; about eight lines with
the rest counted, never dropped; and the line that says why, which `scan` and the picker lead with."""

from __future__ import annotations

from core.models.report import EvidenceItem, Memory, Recurrence, Report, WorkloadRef
from core.report.evidence_view import (
    CONTEXT,
    CORROBORATION,
    DECISIVE,
    SHORT_LINES,
    full_lines,
    name_range,
    short_view,
    tier_of,
)
from core.report.why import why_line

SPEC, PODS, DESCRIBE = "get_workload_spec", "get_workload_pods", "kubectl describe pod"


def item(text: str, source: str, signal: str | None = None, decisive: bool = False) -> EvidenceItem:
    return EvidenceItem(text=text, source=source, signal=signal, decisive=decisive)  # type: ignore[arg-type]


def report(evidence: list[EvidenceItem], category: str = "CRASH_APP_ERROR", memory: bool = False) -> Report:
    return Report(
        outcome="diagnosed",
        category=category,  # type: ignore[arg-type]
        workload=WorkloadRef(name="w", phase="Failed", project="p"),
        evidence=evidence,
        memory=Memory(limit_bytes=2**34) if memory else None,
        recurrence=Recurrence(count=1, lookback="24h"),
    )


SUBMITTED = [
    item("Submitted image: nvcr.io/nvidia/pytorch:24.05-py3 (imagePullPolicy IfNotPresent)", SPEC, "image"),
    item("Submitted command: torchrun --nnodes 16 pretrain.py", SPEC, "command"),
    item("Restart policy: Never, backoffLimit 0", SPEC, "restart-policy"),
]


def test_decisive_then_corroboration_then_context_whatever_the_report_order() -> None:
    memory = item("Submitted CPU memory request/limit: 24Gi / 24Gi", SPEC, "memory-config")
    peak = item("Peak CPU memory 23.7 GiB, 98.7% of the 24 GiB limit", "get_workload_metrics", "memory-peak")
    oom = item(
        'Event reason: OOMKilled; message: "Container main was OOM killed"',
        "get_workload_status",
        "OOM_KILLED",
        decisive=True,
    )
    r = report([*SUBMITTED, memory, oom, peak], category="OOM_KILLED", memory=True)
    assert [line.tier for line in full_lines(r)] == [DECISIVE, CORROBORATION, CORROBORATION, CONTEXT, CONTEXT, CONTEXT]
    assert full_lines(r)[0].text == oom.text
    # Memory corroborates an OOM; for a crash it is what was submitted.
    assert tier_of(memory, report([memory])) == CONTEXT


def test_what_was_submitted_is_one_line_in_the_short_view() -> None:
    r = report([item("Container main; Error (exit 1)", DESCRIBE, "APP_EXIT", decisive=True), *SUBMITTED])
    view = short_view(r)
    assert len(view.shown) == 2 and view.more == 0
    spec = view.shown[1]
    assert spec.sources == (SPEC,) and len(spec.items) == 3
    assert spec.text == (
        "Submitted image: nvcr.io/nvidia/pytorch:24.05-py3 (imagePullPolicy IfNotPresent); "
        "command: torchrun --nnodes 16 pretrain.py; restart policy: Never, backoffLimit 0"
    )


def test_pods_alike_fold_into_one_line_per_kind_of_pod_with_their_nodes() -> None:
    pods = [
        item(
            f"Pod llama-worker-{n}; node gpu-d-{41 + n:02d}; k8sPhase: Error; memory request/limit: 512 GiB / 512 GiB",
            PODS,
            "pod",
        )
        for n in range(7)
    ]
    master = item(
        "Pod llama-master-0; node gpu-d-40; k8sPhase: Error; memory request/limit: 512 GiB / 512 GiB", PODS, "pod"
    )
    sigterm = [
        item(
            f"Pod llama-worker-{n}: Container main; Error (exit 143); exit 143: terminated (SIGTERM)",
            DESCRIBE,
            "SIGTERMED",
        )
        for n in (8, 9, 11)
    ]
    view = short_view(report([master, *pods, *sigterm]))
    texts = [line.text for line in view.shown]
    assert texts == [
        master.text,
        "Pods llama-worker-0..6 (7 pods, on nodes gpu-d-41..47): k8sPhase: Error; memory request/limit: 512 GiB / "
        "512 GiB",
        "Pods llama-worker-{8..9,11} (3 pods): Container main; Error (exit 143); exit 143: terminated (SIGTERM)",
    ]
    assert sum(len(line.items) for line in view.shown) == 11, "a folded line stands for every pod it names"


def test_name_ranges_keep_their_zeros_and_list_what_does_not_range() -> None:
    assert name_range(["w-0", "w-1", "w-2"]) == "w-0..2"
    assert name_range(["w-0", "w-2", "w-3"]) == "w-{0,2..3}"
    assert name_range(["gpu-d-05", "gpu-d-07"]) == "gpu-d-{05,07}"
    assert name_range(["x-9", "x-010"]) == "x-9, x-010"
    assert name_range(["master-0", "worker-0"]) == "master-0, worker-0"


def test_context_past_about_eight_lines_is_counted_never_dropped() -> None:
    decisive = [item(f"Container c{n}; Error (exit 1)", DESCRIBE, "APP_EXIT", decisive=True) for n in range(3)]
    # Nine context lines that say different things (lines alike but for a time would fold into one).
    context = [item(f"Submission {'ABCDEFGHI'[n]} of the name was read", "list_workloads", "selection")
               for n in range(9)]
    r = report([*decisive, *context])
    view = short_view(r)
    assert len(view.shown) == SHORT_LINES and view.more == 3 + 9 - SHORT_LINES
    shown = {i.text for line in view.shown for i in line.items}
    hidden = {i.text for line in view.hidden for i in line.items}
    assert shown | hidden == {i.text for i in r.evidence} and not shown & hidden
    # The decisive lines are never cut, however many.
    many = report([item(f"Container c{n}; Error (exit 1)", DESCRIBE, "APP_EXIT", decisive=True) for n in range(15)])
    assert len(short_view(many).shown) == 15


def test_the_line_that_says_why() -> None:
    exit_line = item("Container main; Error (exit 1)", DESCRIBE, "APP_EXIT", decisive=True)
    log = item(
        "Log line 3 of container main (previous instance): \"ModuleNotFoundError: No module named 'feast'\"",
        "kubectl logs --previous",
        "log-line",
    )
    assert why_line(report([exit_line, log])) == (log.text, ("kubectl logs --previous",)), "the log says why"
    oom = item(
        'Event reason: OOMKilled; message: "Container main was OOM killed"',
        "get_workload_status",
        "OOM_KILLED",
        decisive=True,
    )
    assert why_line(report([log, oom], category="OOM_KILLED")) == (oom.text, ("get_workload_status",))
    assert why_line(report([])) is None
    # No decisive line (nothing decided the category): the caller says the reason instead.
    assert (
        why_line(report([item("Phase: Failed since 2026-11-30T12:00:00+00:00", "get_workload_status", "phase")]))
        is None
    )
