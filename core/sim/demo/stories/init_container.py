"""INIT_FAILED: an init container that exited non-zero before the main one started, and one stuck in a
crash loop while the workload is still Pending.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
    condition,
    cstatus,
    node,
    terminated,
    waiting,
)


def init_exit() -> Story:
    s = Story(
        "init-exit",
        "rag-index",
        "nlp",
        "Failed",
        phase_at=30,
        created=34,
        mem=("8Gi", "8Gi"),
        gpu=0.5,
        command="python build_index.py",
        submitted_by="priya@example.com",
    )
    pod = s.add_pod(
        node="gpu-e-02", created=33.5, k8s_phase="Init:Error", updated=30, completed=30, containers=["main"]
    )
    s.phase_message = f"Workload failed: pod {pod.name} init container fetch-corpus terminated (Error), exit code 1"
    s.add_phase(s.created, "Pending")
    s.add_phase(33, "Initializing")
    s.add_phase(30, "Failed", s.phase_message)
    s.add_event(33.2, "Started", "Started container fetch-corpus", type_="Normal", pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, waiting("PodInitializing"))],
        phase="Failed",
        init_containers=["fetch-corpus"],
        init_statuses=[cstatus("fetch-corpus", "docker.io/amazon/aws-cli:2.17.0", terminated("Error", 1, 33.2, 30))],
    )
    s.add_kube_event(33.2, "Started", "Started container fetch-corpus", pod=pod.name, type_="Normal", host="gpu-e-02")
    s.add_log(
        pod.name,
        "download failed: s3://acme-nlp-corpora/wiki-2026-11/shard-000.parquet to "
        "/data/shard-000.parquet An error occurred (NoSuchBucket) when calling the GetObject operation: "
        "The specified bucket does not exist\n",
        container="fetch-corpus",
    )
    s.nodes.append(node("gpu-e-02"))
    return s.expect(
        "diagnosed",
        "INIT_FAILED",
        "init container fetch-corpus terminated Error exit 1 (Init:Error) before main started; log: NoSuchBucket",
        recurrence=1,
    )


def init_crashloop() -> Story:
    s = Story(
        "init-crashloop",
        "clip-eval",
        "vision",
        "Pending",
        phase_at=18,
        created=18.5,
        mem=("16Gi", "16Gi"),
        command="python eval_clip.py",
        submitted_by="marco@example.com",
        # A restarting init container needs a policy that restarts: under Never the pod would have failed.
        restart_policy="OnFailure",
    )
    pod = s.add_pod(node="gpu-e-04", created=18, k8s_phase="Init:CrashLoopBackOff", updated=1)
    s.add_phase(s.created, "Pending")
    msg = f"Back-off restarting failed container fetch-weights in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_event(16, "BackOff", msg, pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, waiting("PodInitializing"))],
        phase="Pending",
        init_containers=["fetch-weights"],
        init_statuses=[
            cstatus(
                "fetch-weights",
                "docker.io/amazon/aws-cli:2.17.0",
                waiting("CrashLoopBackOff", msg.replace("Back-off", "back-off 2m40s")),
                last=terminated("Error", 2, 4, 3.9),
                restarts=5,
            )
        ],
        conditions=[
            condition(
                "Initialized",
                "False",
                18,
                "ContainersNotInitialized",
                "containers with incomplete status: [fetch-weights]",
            ),
            condition("PodScheduled", "True", 18),
        ],
    )
    s.add_kube_event(1, "BackOff", msg, pod=pod.name, host="gpu-e-04", count=21, first=16)
    s.add_log(
        pod.name,
        "aws: error: the following arguments are required: --bucket\n",
        container="fetch-weights",
        previous=True,
    )
    s.nodes.append(node("gpu-e-04"))
    return s.expect(
        "diagnosed",
        "INIT_FAILED",
        "Pending with init container fetch-weights in Init:CrashLoopBackOff (last exit 2, 5 restarts)",
        recurrence=1,
        intent="active",
    )


FAMILY = Family(
    "init-container",
    stories=(
        init_exit,
        init_crashloop,
    ),
)
