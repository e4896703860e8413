"""Workloads submitted through the v2 API, and a name submitted again and again.

A PyTorchJob submitted as a Kubernetes manifest (`GET /api/v2/workloads/{id}` holds it; master and workers have
their own image and memory), whose worker-1 fails first; and `nightly-eval`, whose six earlier failed runs were
deleted (Run:ai frees a name only by deleting the workload) while a new submission runs now.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
    cstatus,
    error_message,
    lifecycle,
    node,
    running,
    terminated,
    v2_document,
)

SECONDS = 1 / 60
# Older than the picker's first pages (the app's snapshots show those): the failures of yesterday.
AGO = 26 * 60
IMAGE = "nvcr.io/nvidia/pytorch:24.10-py3"
TRACEBACK = (
    "[rank9]: Traceback (most recent call last):\n"
    '[rank9]:   File "/workspace/train.py", line 211, in <module>\n'
    "[rank9]:     loss = model(batch).loss\n"
    "[rank9]: RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
    "cuda:1 and cpu!\n"
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
    "============================================================\n"
    "train.py FAILED\n"
)
RENDEZVOUS = (
    "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n"
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection reset by peer\n"
)


def _container(role: str, memory: str, args: list[str]) -> dict[str, object]:
    return {
        "name": "pytorch",
        "image": IMAGE,
        "command": ["torchrun", "--nnodes=4", "--nproc_per_node=8", "train.py"],
        "args": args,
        "resources": {"requests": {"memory": memory}, "limits": {"memory": memory, "nvidia.com/gpu": 8}},
        "env": [
            {"name": "ROLE", "value": role},
            {"name": "WANDB_API_KEY", "valueFrom": {"secretKeyRef": {"name": "wandb", "key": "api-key"}}},
        ],
    }


def v2_pytorchjob() -> Story:
    s = Story(
        "v2-pytorchjob-crash",
        "mixtral-sft",
        "genai",
        "Failed",
        phase_at=AGO + 26,
        created=AGO + 70,
        kind="PyTorchJob",
        gpu=8,
        requested_pods=4,
        image=IMAGE,
        mem=("96Gi", "96Gi"),
        spec_present=False,
        submitted_by="sofia@example.com",
    )
    master = {"containers": [_container("master", "48Gi", ["--save-every", "500"])]}
    worker = {"containers": [_container("worker", "96Gi", [])]}
    manifest = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": s.name, "namespace": s.ns},
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": {"replicas": 1, "restartPolicy": "Never", "template": {"spec": master}},
                "Worker": {"replicas": 3, "restartPolicy": "Never", "template": {"spec": worker}},
            },
        },
    }
    s.spec_v2 = v2_document(s, manifest)
    lifecycle(s, AGO + 65, AGO + 26, "Failed", "")
    master = s.add_pod(
        node="gpu-v-01",
        created=AGO + 68,
        k8s_phase="Error",
        updated=AGO + 26 - 6 * SECONDS,
        role="master",
        completed=AGO + 26 - 6 * SECONDS,
        mem=("48Gi", "48Gi"),
        containers=["pytorch"],
    )
    failed = s.add_pod(
        node="gpu-v-03",
        created=AGO + 68,
        k8s_phase="Error",
        updated=AGO + 26,
        role="worker",
        index=1,
        completed=AGO + 26,
        containers=["pytorch"],
    )
    peers = [
        s.add_pod(
            node=f"gpu-v-0{2 + 2 * i}",
            created=AGO + 68,
            k8s_phase="Error",
            updated=AGO + 26 - 9 * SECONDS,
            role="worker",
            index=index,
            completed=AGO + 26 - 9 * SECONDS,
            containers=["pytorch"],
        )
        for i, index in enumerate((0, 2))
    ]
    s.phase_message = error_message(failed.name, 1, "pytorch")
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    s.add_kube_pod(failed, [cstatus("pytorch", IMAGE, terminated("Error", 1, AGO + 65, AGO + 26))], phase="Failed")
    s.add_log(failed.name, TRACEBACK, container="pytorch")
    s.add_kube_pod(
        master, [cstatus("pytorch", IMAGE, terminated("Error", 143, AGO + 65, AGO + 26 - 6 * SECONDS))], phase="Failed"
    )
    for plan in peers:
        s.add_kube_pod(
            plan,
            [cstatus("pytorch", IMAGE, terminated("Error", 1, AGO + 65, AGO + 26 - 9 * SECONDS, message=RENDEZVOUS))],
            phase="Failed",
        )
    for plan in [master, failed, *peers]:
        s.nodes.append(node(plan.node or ""))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "v2 PyTorchJob (spec from the manifest, master 48Gi / workers 96Gi): worker-1 exits 1 first with a "
        "RuntimeError; the master's SIGTERM and the other workers' rendezvous errors came after it",
        recurrence=1,
        lookback="7d",
        detail="first-failure:mixtral-sft-worker-1",
    )


def nightly_eval_runs() -> list[Story]:
    """Six failed runs of one name, each deleted so the name could be reused, and the live seventh."""
    out: list[Story] = []
    for n, days in enumerate((5, 4, 3, 2, 1, 0)):
        at = AGO + days * 1440
        s = Story(
            f"nightly-eval-{n}",
            "nightly-eval",
            "speech",
            "Failed",
            phase_at=at,
            created=at + 50,
            deleted_at=at - 30,
            command="python eval.py --suite nightly",
            submitted_by="ci-bot@example.com",
        )
        pod = s.add_pod(node="gpu-e-02", created=at + 49, k8s_phase="Error", updated=at, completed=at, deleted=at - 1)
        s.phase_message = error_message(pod.name, 2)
        lifecycle(s, at + 45, at, "Failed", s.phase_message)
        out.append(s)
    newest = out[-1]
    newest.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "lookup by name: the newest terminal run is a DELETED one (26 h ago), beside a live Running submission; "
        "its own recurrence is 1, and 5 other submissions of the name failed in the 7d lookback",
        key="nightly-eval-by-name",
        lookup="name",
        lookback="7d",
        recurrence=1,
    )
    newest.expectations[-1]["otherSubmissionsFailed"] = 5
    live = Story(
        "nightly-eval-live",
        "nightly-eval",
        "speech",
        "Running",
        phase_at=AGO - 60,
        created=AGO - 55,
        running_pods=1,
        command="python eval.py --suite nightly",
        submitted_by="ci-bot@example.com",
    )
    live.add_phase(live.created, "Pending").add_phase(AGO - 60, "Running")
    pod = live.add_pod(node="gpu-e-02", created=AGO - 56, k8s_phase="Running", updated=AGO - 60, index=1)
    live.add_kube_pod(pod, [cstatus("main", live.image, running(AGO - 60))], phase="Running")
    out.append(live)
    return out


FAMILY = Family(
    "third-party",
    stories=(
        v2_pytorchjob,
        nightly_eval_runs,
    ),
)
