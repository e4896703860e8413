"""Logs whose stamps carry no year: vLLM's `ERROR 11-30 11:41:07 async_llm_engine.py:65] ` and glog's
`E1130 11:31:41.502119 1 model_lifecycle.cc:638] ` (Triton, TensorFlow, JAX, PyTorch's C++). The run of the
container instance that wrote the log (its pod status) gives them their year; when it cannot, they are not read
as times and the report says why.

1. A vLLM server still running after its inference failed: the lines it wrote after the failure are left out,
   so the line cited is the engine's CUDA out-of-memory before it, not a request refused after it.
2. Triton logging in local time (Asia/Kolkata, +05:30): its glog stamps fall hours after the container's end
   whatever the year; they are not read as times, and the line cited is the same.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from core.sim.demo.kit import Json, Story, condition, cstatus, node, running, terminated, waiting
from tests.engine.ff_log_cases import TRITON
from tests.engine.ff_terminal_cases import at

Case = tuple[list[Story], Json, Json]
KOLKATA = timezone(timedelta(hours=5, minutes=30))


def vllm(moment: datetime) -> str:
    """vLLM's stamp: month-day and time, no year, no zone (the container's clock, UTC here)."""
    return moment.strftime("%m-%d %H:%M:%S")


def glog_local(moment: datetime) -> str:
    """glog's month, day and time of `moment` on a clock set to India's time."""
    return moment.astimezone(KOLKATA).strftime("%m%d %H:%M:%S")


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def dead_engine(failed: datetime) -> str:
    """vLLM 0.5's OpenAI server: the engine's background loop dies of a CUDA out-of-memory nine minutes before the
    workload failed; the HTTP server stays up and refuses each request after that (`AsyncEngineDeadError`)."""
    oom, first, second = failed - timedelta(minutes=9), failed + timedelta(minutes=2), failed + timedelta(minutes=6)
    engine = f"ERROR {vllm(oom)} async_llm_engine.py:65] "
    return (
        f"INFO {vllm(failed - timedelta(hours=3))} api_server.py:339] vLLM API server version 0.5.5\n"
        f"INFO {vllm(failed - timedelta(hours=3))} api_server.py:340] args: Namespace(host=None, port=8000, "
        "model='meta-llama/Meta-Llama-3.1-70B-Instruct', tensor_parallel_size=4, max_model_len=65536, "
        "gpu_memory_utilization=0.95)\n"
        f"INFO {vllm(oom - timedelta(seconds=3))} metrics.py:351] Avg prompt throughput: 10873.2 tokens/s, Avg "
        "generation throughput: 61.4 tokens/s, Running: 14 reqs, Swapped: 0 reqs, Pending: 3 reqs, GPU KV cache "
        "usage: 99.1%, CPU KV cache usage: 0.0%.\n"
        f"{engine}Engine background task failed\n"
        f"{engine}Traceback (most recent call last):\n"
        f'{engine}  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 55, in '
        "_log_task_completion\n"
        f"{engine}    return_value = task.result()\n"
        f'{engine}  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 1386, in '
        "execute_model\n"
        f"{engine}    hidden_or_intermediate_states = model_executable(\n"
        f"{engine}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a total "
        "capacity of 79.15 GiB of which 1.27 GiB is free. Process 2214 has 77.87 GiB memory in use.\n"
        f"INFO {vllm(first)} logger.py:36] Received request chat-5f0c2e7a: prompt: '<|begin_of_text|>...', "
        "params: SamplingParams(n=1, temperature=0.7, max_tokens=2048), lora_request: None.\n"
        "ERROR:    Exception in ASGI application\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.10/dist-packages/uvicorn/protocols/http/httptools_impl.py", line 401, in '
        "run_asgi\n"
        "    result = await app(  # type: ignore[func-returns-value]\n"
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 669, in add_request\n'
        "    raise AsyncEngineDeadError(\n"
        "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.\n"
        'INFO:     10.244.3.17:51234 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error\n'
        f"INFO {vllm(second)} logger.py:36] Received request chat-a81d3b90: prompt: '<|begin_of_text|>...', "
        "params: SamplingParams(n=1, temperature=0.2, max_tokens=512), lora_request: None.\n"
        "ERROR:    Exception in ASGI application\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 669, in add_request\n'
        "    raise AsyncEngineDeadError(\n"
        "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has errored already.\n"
        'INFO:     10.244.3.17:51388 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error\n'
    )


def case_vllm_lines_after_the_failure() -> Case:
    """llama-70b-chat's engine died of a CUDA out-of-memory at 11:41; its server kept answering (500) and its
    readiness probe failing, and the inference failed at 11:50. Its container never restarted and still runs:
    the log read is the current instance's, read against the failure, and what it wrote after 11:50 is left
    out."""
    s = Story("ff-stamp-01", "llama-70b-chat", "genai", "Failed", phase_at=10, created=200, kind="Inference",
              image="vllm/vllm-openai:v0.5.5", gpu=4, mem=("320Gi", "320Gi"),
              command="vllm serve meta-llama/Meta-Llama-3.1-70B-Instruct --tensor-parallel-size 4")
    pod = s.add_pod(node="gpu-h-07", created=195, k8s_phase="Running", updated=10)
    s.add_phase(s.created, "Pending").add_phase(190, "Running")
    ready = 'Readiness probe failed: HTTP probe failed with statuscode: 500'
    s.phase_message = f"Workload failed: pod {pod.name} has not been ready for 9 min"
    s.add_phase(10, "Failed", s.phase_message)
    s.add_kube_event(10.2, "Unhealthy", ready, pod=pod.name, count=52, first=18.8)
    s.add_kube_pod(pod, [cstatus("main", s.image, running(190))], phase="Running",
                   conditions=[condition("Ready", "False", 18.8, "ContainersNotReady",
                                         "containers with unready status: [main]")])
    s.add_log(pod.name, dead_engine(at(10)))
    s.nodes.append(node("gpu-h-07"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["torch.OutOfMemoryError: CUDA out of memory"],
        "noEvidence": ["Background loop has errored already"],
        "notes": ["16 lines read later than the failure", "left out, as written after it"],
        "recommendations": ["ran out of GPU memory", "torch.OutOfMemoryError"],
    }


def case_triton_local_time_not_read() -> Case:
    """triton-rerank in a crash loop, its Triton writing glog stamps in India's time (+05:30): every stamp of the
    previous instance's log reads 5 h 30 min after it ended, whatever the year. None is read as a time; the line
    cited is Triton's own account of the model it could not load, as with stamps in UTC."""
    end = at(4.3)
    log = TRITON.replace("1130 11:31:40", glog_local(end - timedelta(seconds=2))).replace(
        "1130 11:31:41", glog_local(end - timedelta(seconds=1))
    )
    s = Story("ff-stamp-02", "triton-rerank-ist", "recsys", "Running", phase_at=3 * 60, created=3 * 60 + 4,
              kind="Inference", image="nvcr.io/nvidia/tritonserver:24.10-py3", running_pods=1,
              command="tritonserver --model-repository=/models", env=[{"name": "TZ", "value": "Asia/Kolkata"}])
    s.add_phase(s.created, "Pending").add_phase(s.phase_at, "Running")
    pod = s.add_pod(node="gpu-w-33", created=s.created - 0.5, k8s_phase="CrashLoopBackOff", updated=4.3)
    s.add_event(4.1, "BackOff", f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})",
                pod=pod.name, obj_uid=pod.uid)
    back_off = f"back-off 5m0s restarting failed container=main pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("CrashLoopBackOff", back_off),
                                 terminated("Error", 1, 4.3 + 1.2 / 60, 4.3), restarts=41)], phase="Running",
                   env=[{"name": "TZ", "value": "Asia/Kolkata"}])
    s.add_log(pod.name, log, previous=True)
    s.nodes.append(node("gpu-w-33"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR",
        "evidence": ["failed to load 'reranker' version 1", "9 stamps without a year (month and day only) were not "
                     "read as times: they fall outside the container's run", "likely keeps local time"],
        "noEvidence": ["later than the container's end"],
    }


CASES = {
    "log-vllm-lines-after-the-failure": case_vllm_lines_after_the_failure,
    "log-triton-local-time-not-read": case_triton_local_time_not_read,
}
