"""Inference with several pods: a distributed inference (leader and workers, each role with its own spec), an
inference whose failing revision only its own feeds show, and two Degraded workloads (one crash-looping, one
merely short of a replica).
"""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Family,
    Story,
    condition,
    cstatus,
    flat,
    kube_event,
    memory_expectation,
    node,
    ramp,
    revision_json,
    revision_pod_json,
    running,
    terminated,
    ts,
    uid,
    waiting,
)

VLLM = "vllm/vllm-openai:v0.6.3"
OLD_IMAGE = "registry.example.com/ml/chat-assistant:v2.3.0"
# Older than the picker's first pages (the app's snapshots show those): degraded or failed since yesterday.
AGO = 26 * 60


def distributed_inference_leader_oom() -> Story:
    """Degraded: the leader crash-loops after OOM kills; its limit is the leader spec's 96Gi, not the workers'."""
    s = Story(
        "di-leader-oom",
        "llama-405b-serve",
        "genai",
        "Degraded",
        phase_at=AGO + 50,
        created=AGO + 240,
        kind="DistributedInference",
        gpu=8,
        requested_pods=3,
        running_pods=2,
        image=VLLM,
        mem=("64Gi", "64Gi"),
        command="python3 -m vllm.entrypoints.openai.api_server",
        submitted_by="sofia@example.com",
        extra_spec={
            "leader": {
                "image": VLLM,
                "command": "python3 -m vllm.entrypoints.openai.api_server",
                "args": "--tensor-parallel-size 8 --pipeline-parallel-size 3",
                "compute": {"cpuMemoryRequest": "96Gi", "cpuMemoryLimit": "96Gi", "gpuDevicesRequest": 8},
            },
            "worker": {
                "image": VLLM,
                "command": "ray start --block",
                "compute": {"cpuMemoryRequest": "64Gi", "cpuMemoryLimit": "64Gi", "gpuDevicesRequest": 8},
            },
            "workers": 2,
        },
    )
    s.add_phase(s.created, "Pending").add_phase(AGO + 230, "Running").add_phase(
        AGO + 50, "Degraded", "1/3 pods not ready"
    )
    # The Run:ai pods carry no requestedResources here: the limit that applies comes from the role's spec.
    leader = s.add_pod(
        node="gpu-s-01",
        created=AGO + 235,
        k8s_phase="CrashLoopBackOff",
        updated=4,
        role="leader",
        reports_resources=False,
        mem=("96Gi", "96Gi"),
    )
    workers = [
        s.add_pod(
            node=f"gpu-s-0{i + 1}",
            created=AGO + 235,
            k8s_phase="Running",
            updated=AGO + 230,
            role="worker",
            index=i,
            reports_resources=False,
        )
        for i in (1, 2)
    ]
    back_off = f"Back-off restarting failed container main in pod {leader.name}_{s.ns}({leader.uid})"
    s.add_event(4, "BackOff", back_off, pod=leader.name)
    s.add_event(5, "OOMKilled", "Container main was OOM killed", pod=leader.name)
    s.add_kube_pod(
        leader,
        [
            cstatus(
                "main",
                s.image,
                waiting("CrashLoopBackOff", back_off.replace("Back-off", "back-off 5m0s")),
                last=terminated("OOMKilled", 137, 9, 5),
                restarts=6,
            )
        ],
        phase="Running",
    )
    s.add_kube_event(4, "BackOff", back_off, pod=leader.name, host="gpu-s-01", count=22, first=48)
    for plan in workers:
        s.add_kube_pod(plan, [cstatus("main", s.image, running(AGO + 230))], phase="Running")
        s.nodes.append(node(plan.node or ""))
    s.nodes.append(node("gpu-s-01"))
    s.add_log(leader.name, "INFO 11:55:01 model_runner.py:1025] Loading model weights took 231.4 GB\n")
    per_pod = {leader.name: ramp(60 * GI, 102_900_000_000, 48, 5.5, step_min=0.5)}
    per_pod.update({p.name: flat(52 * GI, 48, 5.5, step_min=0.5) for p in workers})
    s.add_summed_series("CPU_MEMORY_USAGE_BYTES", per_pod)
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "Degraded with a confirmed crash loop: the leader's container was OOMKilled; its own series peaks at "
        "102.9e9 B against the leader spec's 96Gi (the workers' spec says 64Gi; the pods report none)",
        recurrence=1,
        memory=memory_expectation("96Gi", "96Gi", 96 * GI, 96 * GI, 102_900_000_000),
    )


def _revision(s: Story, number: int, phase: str, created: float) -> dict[str, object]:
    image = s.image if number > 1 else OLD_IMAGE
    name = f"{s.name}-{number:05d}"
    return revision_json(s, uid("revision", s.key, str(number)), name, phase, created, image)


def inference_failing_revision() -> Story:
    """The new revision cannot pull its image; the workload's own pods are the old revision's, healthy."""
    s = Story(
        "inference-revision-pull",
        "chat-assistant",
        "nlp",
        "Failed",
        phase_at=AGO + 15,
        created=3000,
        kind="Inference",
        image="registry.example.com/ml/chat-assistant:v2.4.1",
        mem=("16Gi", "16Gi"),
        command="python -m serve",
        submitted_by="bob@example.com",
    )
    s.add_phase(s.created, "Pending").add_phase(2990, "Running")
    s.phase_message = f"Revision {s.name}-00002 failed to become ready"
    s.add_phase(AGO + 15, "Failed", s.phase_message)
    old_pod = s.add_pod(node="gpu-s-10", created=2995, k8s_phase="Running", updated=2990, index=0)
    s.add_kube_pod(old_pod, [cstatus("main", OLD_IMAGE, running(2990))], phase="Running")
    s.nodes.append(node("gpu-s-10"))
    new_image = "registry.example.com/ml/chat-assistant:v2.4.1"
    pull = (
        f'Failed to pull image "{new_image}": rpc error: code = NotFound desc = failed to pull and unpack image '
        f'"{new_image}": failed to resolve reference "{new_image}": {new_image}: not found'
    )
    rev2 = _revision(s, 2, "Failed", AGO + 25)
    pod_name = f"{s.name}-00002-deployment-7c9f6d5b8-x2lqp"
    pod_uid = uid("pod", s.key, pod_name)
    revision_pod = revision_pod_json(s, pod_name, AGO + 24.5, AGO + 23, "ImagePullBackOff", "gpu-s-11")
    event = {
        "id": uid("event", s.key, "pull"),
        "createdAt": ts(AGO + 24),
        "type": "Warning",
        "clusterId": s.cluster,
        "reason": "Failed",
        "message": pull,
        "source": "kubelet",
        "involvedObject": {"uid": pod_uid, "kind": "Pod", "name": pod_name, "namespace": s.ns},
    }
    s.inference_revisions = [
        {"revision": _revision(s, 1, "Running", 3000)},
        {
            "revision": rev2,
            "pods": [revision_pod],
            "events": [event],
            "history": [
                {
                    "meta": {"creationTimestamp": ts(AGO + 25), "type": "PhaseUpdate"},
                    "spec": {"phaseUpdate": {"phase": "Creating", "phaseMessage": ""}},
                },
                {"meta": {"creationTimestamp": ts(AGO + 24), "type": "Event"}, "spec": {"event": event}},
            ],
        },
    ]
    s.kube_pods.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": pod_name, "namespace": s.ns, "uid": pod_uid, "creationTimestamp": ts(AGO + 24.5)},
            "spec": {"nodeName": "gpu-s-11", "containers": [{"name": "main", "image": new_image}]},
            "status": {
                "phase": "Pending",
                "conditions": [condition("PodScheduled", "True", AGO + 24.5)],
                "containerStatuses": [
                    cstatus("main", new_image, waiting("ImagePullBackOff", f'Back-off pulling image "{new_image}"'))
                ],
            },
        }
    )
    s.kube_events.append(
        kube_event(
            s.key,
            at=14,
            reason="Failed",
            message=pull,
            kind="Pod",
            name=pod_name,
            namespace=s.ns,
            obj_uid=pod_uid,
            host="gpu-s-11",
            count=300,
            first=AGO + 24,
        )
    )
    s.nodes.append(node("gpu-s-11"))
    return s.expect(
        "diagnosed",
        "IMAGE_PULL_FAILED",
        "the workload's own pods are the old revision's (Running) and its events are silent; revision 00002's "
        "pods, events and history show the tag is not found",
        recurrence=1,
        lookback="7d",
        detail="not-found",
    )


def degraded_without_crash() -> Story:
    """Degraded because a replica waits for a GPU: nothing crashed, so it is routed out like Running."""
    s = Story(
        "degraded-no-crash",
        "embed-api",
        "recsys",
        "Degraded",
        phase_at=AGO + 12,
        created=AGO + 900,
        kind="Inference",
        requested_pods=2,
        running_pods=1,
        mem=("8Gi", "8Gi"),
        command="python -m embed.serve",
        submitted_by="lena@example.com",
    )
    s.add_phase(s.created, "Pending").add_phase(AGO + 890, "Running").add_phase(
        AGO + 12, "Degraded", "1/2 replicas available"
    )
    up = s.add_pod(node="gpu-w-20", created=AGO + 895, k8s_phase="Running", updated=AGO + 890, index=0)
    s.add_pod(node=None, created=AGO + 12, k8s_phase="Pending", updated=AGO + 12, index=1)
    s.add_kube_pod(up, [cstatus("main", s.image, running(AGO + 890))], phase="Running")
    s.nodes.append(node("gpu-w-20"))
    s.add_event(
        AGO + 11,
        "Unschedulable",
        "0/9 nodes are available: 9 Insufficient nvidia.com/gpu.",
        type_="Warning",
        source="runai-scheduler",
        kind="PodGroup",
        obj_name=f"pg-{s.name}-1",
    )
    return s.expect(
        "running",
        None,
        "Degraded like Running: one replica waits for a GPU, nothing confirms a crash loop; ask whether a past run "
        "was meant",
    )


FAMILY = Family(
    "serving",
    stories=(
        distributed_inference_leader_oom,
        inference_failing_revision,
        degraded_without_crash,
    ),
)
