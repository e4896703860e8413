"""A node that kills workloads across projects: at 21:58 last night a GPU of gpu-e-23 fell off the bus (Xid 79)
and seven workloads of four projects that were running on it ended within six minutes, each with a CUDA error
and exit 1. Earlier that day the node ran three workloads to completion and one that ran out of its own memory,
so the Nodes view has a real denominator: 8 of 11 workloads failed there, 7 of them with the same cause.

Each victim alone is what `diagnose` already knows (a non-zero exit is CRASH_APP_ERROR; the node's Xid 79
condition is a gpu-hardware finding that explains it); together they are what `runai-triage nodes` ranks first.
The node is still Ready and not cordoned: nobody has acted yet, so the incident report says what to do.

The routine workloads were drawn before this family existed, so its phase changes keep clear of theirs instead
(core.sim.demo.build checks it).
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
    condition,
    cstatus,
    error_message,
    lifecycle,
    node,
    oom_message,
    terminated,
)

STORM_NODE = "gpu-e-23"
XID_AT = 842.0  # minutes before the capture: 21:58 the evening before
XID_LINE = "NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
_CONDITION = condition("AcceleratedHardwareReady", "False", XID_AT - 0.1, "NvidiaXID79Error", XID_LINE)


def storm_node() -> dict[str, object]:
    """gpu-e-23 as the API server shows it now: Ready, schedulable, with the GPU health condition failing."""
    return node(STORM_NODE, extra_conditions=[_CONDITION])


def _cuda_log(step: int, error: str) -> str:
    return (
        f"step {step} loss 1.{step % 97:02d}\n"
        f"RuntimeError: CUDA error: {error}\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    )


# (key, name, project, kind, submitted by, minutes running before the Xid, minutes from the Xid to its end,
# the CUDA error its process printed)
_VICTIMS = (
    ("storm-llama-sft", "qwen-sft-14b", "nlp", "Training", "priya@example.com", 300, 0.4,
     "unspecified launch failure"),
    ("storm-vit-pretrain", "vit-h14-pretrain", "vision", "Training", "marco@example.com", 520, 0.7,
     "unspecified launch failure"),
    ("storm-whisper-ft", "whisper-large-ft", "speech", "Training", "kenji@example.com", 95, 1.1, "unknown error"),
    ("storm-moe-ablation", "moe-router-ablation", "research", "Training", "dmitri@example.com", 180, 1.6,
     "unspecified launch failure"),
    ("storm-nlp-notebook", "eval-notebook-priya", "nlp", "Workspace", "priya@example.com", 60, 2.3, "unknown error"),
    ("storm-detr-sweep", "detr-sweep-lr3", "vision", "Training", "sofia@example.com", 45, 3.9, "unknown error"),
    ("storm-ssm-ft", "ssm-mamba-ft", "research", "Training", "lena@example.com", 240, 5.8,
     "unspecified launch failure"),
)


def _victim(index: int) -> Story:
    key, name, project, kind, who, ran, after, error = _VICTIMS[index]
    end = XID_AT - after
    start = XID_AT + ran
    s = Story(key, name, project, "Failed", phase_at=end, created=start + 2, kind=kind, submitted_by=who,
              command="python train.py" if kind == "Training" else "jupyter lab", gpu=1)
    pod = s.add_pod(node=STORM_NODE, created=start + 1.5, k8s_phase="Error", updated=end, completed=end)
    s.phase_message = error_message(pod.name, 1)
    lifecycle(s, start, end, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 1, start, end))], phase="Failed")
    s.add_log(pod.name, _cuda_log(1000 + index * 311, error))
    # The node's Xid event expired hours ago (Kubernetes keeps events for an hour); its condition stays.
    s.nodes.append(storm_node())
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        f"exit 1 with a CUDA error ({error}) on {STORM_NODE}, whose GPU fell off the bus (Xid 79) "
        f"{after:g} minutes before: a gpu-hardware finding explains it, and the other pods that failed on the "
        "node are listed",
        recurrence=1,
        detail="xid79",
        findings=[{"kind": "gpu-hardware", "node": STORM_NODE, "explains": True}],
    )


def storm_victims() -> list[Story]:
    return [_victim(i) for i in range(len(_VICTIMS))]


def earlier_oom() -> Story:
    """Earlier that day on the same node, a workload that outgrew its own memory: a failure, not the node's."""
    s = Story("storm-node-oom", "t5-distill-4", "nlp", "Failed", phase_at=1180, created=1260, mem=("24Gi", "24Gi"),
              command="python distill.py", submitted_by="omar@example.com")
    pod = s.add_pod(node=STORM_NODE, created=1259, k8s_phase="OOMKilled", updated=1180, completed=1180)
    s.phase_message = oom_message(pod.name)
    lifecycle(s, 1255, 1180, "Failed", s.phase_message)
    s.add_event(1180.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 1255, 1180))], phase="Failed")
    s.nodes.append(storm_node())
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "pod OOMKilled, exit 137, on gpu-e-23 hours before its GPU failed: its own memory, not the node's",
        recurrence=1,
    )


def completed_before() -> list[Story]:
    """Three workloads that ran to completion on the node the same day (the rest of its denominator)."""
    out: list[Story] = []
    for key, name, project, created, done in (
        ("storm-node-ok-1", "ner-eval-nightly", "nlp", 1400, 1310),
        ("storm-node-ok-2", "resnet50-bench-a", "vision", 1150, 1020),
        ("storm-node-ok-3", "hubert-eval-12", "speech", 1000, 905),
    ):
        s = Story(key, name, project, "Completed", phase_at=done, created=created, completed_at=done,
                  submitted_by="svc-pipeline@example.com", command="python eval.py")
        s.add_pod(node=STORM_NODE, created=created - 0.5, k8s_phase="Succeeded", updated=done, completed=done)
        lifecycle(s, created - 1, done, "Completed", "")
        out.append(s)
    return out


FAMILY = Family("node-storm", stories=(storm_victims, earlier_oom, completed_before))
