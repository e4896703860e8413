"""Issue 31, point 4: name the probe that killed, quote its event, advise for that probe.

The kubelet's own words (`Unhealthy`: "Startup probe failed: ...", "Liveness probe failed: ...", "Readiness
probe failed: ..."; `Killing`: "Container c failed startup probe, will be restarted"), the probes as the pod spec
holds them (the API server's defaults filled in), and the killed instance's start and finish: a NIM service
killed by its startup probe while it was still downloading its model, a Triton server whose liveness probe gave
up after its readiness probe had long been failing, and an inference whose readiness probe never passed (it
never kills: the report says what did not).
"""

from __future__ import annotations

from core.sim.demo.kit import Json, Story, cstatus, node, terminated, waiting
from tests.engine.test_rule_cases import error_message

Case = tuple[list[Story], Json, Json]
NIM = "nvcr.io/nim/meta/llama-3.1-70b-instruct:1.3.3"
NIM_LOG = (
    "INFO 2026-11-30 11:49:05.120 ngc_profile.py:222] Running NIM without LoRA. Only looking for compatible "
    "profiles that do not support LoRA.\n"
    "INFO 2026-11-30 11:49:05.121 ngc_profile.py:224] Detected 1 compatible profile(s).\n"
    "INFO 2026-11-30 11:49:05.121 ngc_injector.py:152] Valid profile: 3bb4e8fe78e5037b05dd618cebb1053347325ad6a1e709e0"
    "eb18bb8558362ac5 (vllm-bf16-tp4) on GPUs [0, 1, 2, 3]\n"
    "INFO 2026-11-30 11:49:05.634 ngc_injector.py:245] Preparing model workspace. This step might download "
    "additional files to run the model.\n"
    "INFO 2026-11-30 11:51:40.210 ngc_injector.py:260] Downloading model-00011-of-00030.safetensors 46%\n"
    "INFO 2026-11-30 11:54:02.877 ngc_injector.py:260] Downloading model-00014-of-00030.safetensors 12%\n"
)


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _http_probe(path: str, period: int, threshold: int, delay: int = 0) -> Json:
    """A core/v1 Probe as the API server returns it (its defaults filled in)."""
    handler = {"httpGet": {"path": path, "port": 8000, "scheme": "HTTP"}}
    return {**handler, "initialDelaySeconds": delay, "periodSeconds": period, "failureThreshold": threshold,
            "timeoutSeconds": 1, "successThreshold": 1}


def case_nim_startup_probe_kill() -> Case:
    """A NIM service downloading 140 GB of weights; its startup probe allows 30 x 10 s = 5 min, so the kubelet
    restarts it after 5 min every time (exit 137), and the download starts over: CrashLoopBackOff."""
    s = Story("ff-probe-01", "llama-70b-nim", "genai", "Running", phase_at=95, created=100, kind="Inference", gpu=4,
              mem=("256Gi", "256Gi"), image=NIM, running_pods=1, command="/opt/nim/start_server.sh")
    pod = s.add_pod(node="gpu-w-40", created=99, k8s_phase="CrashLoopBackOff", updated=1, containers=["nim-llm"])
    s.add_phase(s.created, "Pending")
    s.add_phase(95, "Running")
    probe = ('Startup probe failed: Get "http://10.244.3.17:8000/v1/health/ready": dial tcp 10.244.3.17:8000: '
             "connect: connection refused")
    kill = "Container nim-llm failed startup probe, will be restarted"
    for at in (89.9, 70, 50, 30, 11.2):
        s.add_event(at, "Unhealthy", probe, pod=pod.name)
        s.add_event(at - 0.1, "Killing", kill, type_="Normal", pod=pod.name)
    s.add_kube_event(6.1, "Unhealthy", probe, pod=pod.name, count=30, first=11)
    s.add_kube_event(6, "Killing", kill, pod=pod.name, type_="Normal", count=2, first=11.1)
    backoff = f"back-off 2m40s restarting failed container=nim-llm pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("nim-llm", s.image, waiting("CrashLoopBackOff", backoff),
                                 last=terminated("Error", 137, 11.1, 6), restarts=9)], phase="Running")
    container = s.kube_pods[-1]["spec"]["containers"][0]
    container["startupProbe"] = _http_probe("/v1/health/ready", 10, 30)
    container["livenessProbe"] = _http_probe("/v1/health/live", 10, 3)
    container["readinessProbe"] = _http_probe("/v1/health/ready", 10, 3)
    s.add_log(pod.name, NIM_LOG, container="nim-llm", previous=True)
    s.nodes.append(node("gpu-w-40"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "evidence": ["failed startup probe, will be restarted"],
        "recommendations": ["startup probe killed the container", "failureThreshold 30 x periodSeconds 10 = 5 min",
                            "ran 5 min before the kill", "cache the model"],
        "noRecommendations": ["liveness probe killed", "Fix the code"],
        "reason": ["its startup probe failed", "failed startup probe"], "noReason": ["liveness"],
    }


def case_triton_liveness_after_readiness() -> Case:
    """Triton stopped answering under a request storm: its readiness probe failed for 20 min (503: taken out of
    service, not restarted), then its liveness probe (3 x 10 s) failed and the kubelet killed it. The liveness
    probe killed; the readiness failures corroborate."""
    s = Story("ff-probe-02", "triton-ranker", "recsys", "Running", phase_at=300, created=305, kind="Inference",
              image="nvcr.io/nvidia/tritonserver:24.08-py3", running_pods=1,
              command="tritonserver --model-repository=/models")
    pod = s.add_pod(node="gpu-w-41", created=304, k8s_phase="CrashLoopBackOff", updated=2)
    s.add_phase(s.created, "Pending")
    s.add_phase(300, "Running")
    ready = "Readiness probe failed: HTTP probe failed with statuscode: 503"
    live = ('Liveness probe failed: Get "http://10.244.9.4:8000/v2/health/live": context deadline exceeded '
            "(Client.Timeout exceeded while awaiting headers)")
    s.add_event(30, "Unhealthy", ready, pod=pod.name)
    s.add_event(10.5, "Unhealthy", live, pod=pod.name)
    s.add_event(10, "Killing", "Container main failed liveness probe, will be restarted", type_="Normal",
                pod=pod.name)
    s.add_kube_event(10.6, "Unhealthy", ready, pod=pod.name, count=118, first=30)
    s.add_kube_event(10.5, "Unhealthy", live, pod=pod.name, count=3, first=10.8)
    s.add_kube_event(10, "Killing", "Container main failed liveness probe, will be restarted", pod=pod.name,
                     type_="Normal")
    backoff = f"back-off 10s restarting failed container=main pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("CrashLoopBackOff", backoff),
                                 last=terminated("Error", 137, 299, 9.9), restarts=1)], phase="Running")
    container = s.kube_pods[-1]["spec"]["containers"][0]
    container["livenessProbe"] = _http_probe("/v2/health/live", 10, 3, delay=30)
    container["readinessProbe"] = _http_probe("/v2/health/ready", 10, 3)
    s.add_log(pod.name, "I1130 11:49:58.102311 1 grpc_server.cc:2466] Started GRPCInferenceService at 0.0.0.0:8001\n"
              "W1130 11:50:12.870021 1 pinned_memory_manager.cc:187] failed to allocate pinned system memory, "
              "falling back to non-pinned system memory\n", previous=True)
    s.nodes.append(node("gpu-w-41"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "evidence": ["failed liveness probe, will be restarted", "Readiness probe failed"],
        "recommendations": ["liveness probe killed the container after it stopped answering",
                            "initialDelaySeconds 30 + failureThreshold 3 x periodSeconds 10 = 1 min"],
        "noRecommendations": ["startup probe killed", "readiness probe was failing"],
        "reason": ["its liveness probe failed"], "noReason": ["startup", "readiness"],
    }


def case_readiness_never_passed() -> Case:
    """An inference whose server listened on 8080 while its readiness probe asked 8000: never ready, never
    restarted by the kubelet; the autoscaler gave up on the revision and ended its pod (SIGTERM, exit 143). What
    ended it is not read; the report says the readiness probe failed and that it does not kill."""
    s = Story("ff-probe-03", "bge-embed", "recsys", "Failed", phase_at=12, created=30, kind="Inference",
              image="ghcr.io/huggingface/text-embeddings-inference:1.5", command="text-embeddings-router")
    pod = s.add_pod(node="gpu-w-42", created=29, k8s_phase="Error", updated=12.5, completed=12.5)
    s.add_phase(s.created, "Pending")
    s.add_phase(28, "Running")
    ready = 'Readiness probe failed: Get "http://10.244.9.8:8000/health": dial tcp 10.244.9.8:8000: connect: ' \
            "connection refused"
    s.add_event(27, "Unhealthy", ready, pod=pod.name)
    s.phase_message = error_message(pod.name, 143)
    s.add_phase(12, "Failed", s.phase_message)
    s.add_kube_event(12.6, "Unhealthy", ready, pod=pod.name, count=93, first=27.5)
    s.add_kube_event(12.5, "Killing", "Stopping container main", pod=pod.name, type_="Normal")
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 143, 28, 12.5))], phase="Failed")
    s.add_log(pod.name, "2026-11-30T11:32:10.211Z  INFO text_embeddings_router: router/src/main.rs:140: Starting "
              "HTTP server: 0.0.0.0:8080\n2026-11-30T11:32:10.212Z  INFO text_embeddings_router::http::server: "
              "Ready\n")
    s.nodes.append(node("gpu-w-42"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "UNKNOWN",
        "evidence": ["Readiness probe failed"],
        "recommendations": ["readiness probe was failing", "never restarts it"],
        "noRecommendations": ["startup probe killed", "liveness probe killed"],
    }


CASES = {
    "probe-nim-startup-kill": case_nim_startup_probe_kill,
    "probe-triton-liveness-after-readiness": case_triton_liveness_after_readiness,
    "probe-readiness-never-passed": case_readiness_never_passed,
}
