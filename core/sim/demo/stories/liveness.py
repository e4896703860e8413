"""CRASH_APP_ERROR through a liveness probe: the kubelet killed a serving container (exit 137) because its
health check timed out, which is not an OOM.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Family,
    Story,
    cstatus,
    flat,
    node,
    terminated,
    waiting,
)


def liveness_kill() -> Story:
    s = Story(
        "liveness-kill",
        "vllm-serve",
        "genai",
        "Running",
        phase_at=200,
        created=210,
        kind="Inference",
        mem=("64Gi", "64Gi"),
        command="vllm serve /models/llama-3-70b",
        running_pods=1,
        image="vllm/vllm-openai:v0.6.4",
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(node="gpu-w-07", created=209, k8s_phase="CrashLoopBackOff", updated=3)
    s.add_phase(s.created, "Pending")
    s.add_phase(200, "Running")
    probe = (
        'Liveness probe failed: Get "http://10.244.7.31:8000/health": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)"
    )
    kill = "Container main failed liveness probe, will be restarted"
    s.add_event(25, "Unhealthy", probe, pod=pod.name)
    s.add_event(24.5, "Killing", kill, type_="Normal", pod=pod.name)
    s.add_kube_event(5, "Unhealthy", probe, pod=pod.name, host="gpu-w-07", count=15, first=25)
    s.add_kube_event(4.5, "Killing", kill, pod=pod.name, type_="Normal", host="gpu-w-07", count=5, first=24.5)
    backoff = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_kube_event(3, "BackOff", backoff, pod=pod.name, host="gpu-w-07", count=4, first=20)
    s.add_kube_pod(
        pod,
        [
            cstatus(
                "main",
                s.image,
                waiting("CrashLoopBackOff", backoff),
                last=terminated("Error", 137, 9, 4.5),
                restarts=5,
            )
        ],
        phase="Running",
    )
    s.add_log(pod.name, "INFO Loading model weights took 412.3s\nINFO Capturing CUDA graphs...\n", previous=True)
    s.add_series("CPU_MEMORY_USAGE_BYTES", flat(22 * GI, 60, 1))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(64 * GI, 60, 1))
    s.nodes.append(node("gpu-w-07"))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 137 explained by Unhealthy 'Liveness probe failed' + Killing 'failed liveness probe': "
        "not OOM (22Gi of 64Gi); the app/probe config is the user's to fix",
        recurrence=None,
        intent="active",
        detail="liveness-probe",
    )


FAMILY = Family(
    "liveness",
    stories=(liveness_kill,),
)
