"""Issue 23, class 5: the log line that explains a crash, in the log shapes of the servers users run.

Each server writes its own prefix (tornado's `[C 2026-11-30 11:57:28.871 ServerApp]`, uvicorn's padded
`ERROR:    `, gunicorn's `[date +0000] [pid] [ERROR]`, Triton's glog `E1130 ...]`, Ray's `-- ` and `(pid=...)`
prefixes) and ends with a line that only reports that it gave up or points to the stack trace ("Application
startup failed", "Worker failed to boot", "failed to load all models", "See stack trace for the root cause").
The root error above it is the line that says what to fix.
"""

from __future__ import annotations

from core.sim.demo.kit import Json, Story, cstatus, node, terminated
from tests.engine.test_rule_cases import lifecycle

Case = tuple[list[Story], Json, Json]

UVICORN = (
    "INFO:     Started server process [1]\n"
    "INFO:     Waiting for application startup.\n"
    "ERROR:    Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.11/site-packages/starlette/routing.py", line 732, in lifespan\n'
    "    async with self.lifespan_context(app) as maybe_state:\n"
    '  File "/usr/local/lib/python3.11/contextlib.py", line 210, in __aenter__\n'
    "    return await anext(self.gen)\n"
    '  File "/app/main.py", line 21, in lifespan\n'
    '    model = load_model(os.environ["MODEL_PATH"])\n'
    '  File "<frozen os>", line 679, in __getitem__\n'
    "KeyError: 'MODEL_PATH'\n"
    "\n"
    "ERROR:    Application startup failed. Exiting.\n"
)
GUNICORN = (
    "[2026-11-30 11:31:58 +0000] [1] [INFO] Starting gunicorn 22.0.0\n"
    "[2026-11-30 11:31:58 +0000] [1] [INFO] Listening at: http://0.0.0.0:8080 (1)\n"
    "[2026-11-30 11:31:58 +0000] [1] [INFO] Using worker: uvicorn.workers.UvicornWorker\n"
    "[2026-11-30 11:31:58 +0000] [7] [INFO] Booting worker with pid: 7\n"
    "[2026-11-30 11:32:01 +0000] [7] [ERROR] Exception in worker process\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.11/site-packages/gunicorn/arbiter.py", line 609, in spawn_worker\n'
    "    worker.init_process()\n"
    '  File "/app/app.py", line 5, in <module>\n'
    "    from rankers.cross_encoder import Ranker\n"
    "ModuleNotFoundError: No module named 'rankers'\n"
    "[2026-11-30 11:32:01 +0000] [7] [INFO] Worker exiting (pid: 7)\n"
    "[2026-11-30 11:32:01 +0000] [1] [ERROR] Worker (pid:7) exited with code 3\n"
    "[2026-11-30 11:32:01 +0000] [1] [ERROR] Shutting down: Master\n"
    "[2026-11-30 11:32:01 +0000] [1] [ERROR] Reason: Worker failed to boot.\n"
)
TRITON = (
    "I1130 11:31:40.100206 1 pinned_memory_manager.cc:277] Pinned memory pool is created at '0x7f4a18000000' with "
    "size 268435456\n"
    "I1130 11:31:40.101901 1 cuda_memory_manager.cc:107] CUDA memory pool is created on device 0 with size 67108864\n"
    "I1130 11:31:40.412111 1 model_lifecycle.cc:469] loading: reranker:1\n"
    "E1130 11:31:41.502119 1 model_lifecycle.cc:638] failed to load 'reranker' version 1: Invalid argument: model "
    "'reranker', tensor 'input_ids': the model expects 2 dimensions (shape [-1,-1]) but the model configuration "
    "specifies 3 dimensions (shape [-1,-1,-1])\n"
    "I1130 11:31:41.502201 1 model_lifecycle.cc:773] failed to load 'reranker'\n"
    "I1130 11:31:41.502310 1 server.cc:604]\n"
    "+----------+---------+-----------------------------------------------------------------------------------+\n"
    "| Model    | Version | Status                                                                            |\n"
    "+----------+---------+-----------------------------------------------------------------------------------+\n"
    "| reranker | 1       | UNAVAILABLE: Invalid argument: model 'reranker', tensor 'input_ids': the model ... |\n"
    "+----------+---------+-----------------------------------------------------------------------------------+\n"
    "I1130 11:31:41.601020 1 server.cc:307] Waiting for in-flight requests to complete.\n"
    "I1130 11:31:41.601031 1 server.cc:323] Timeout 30: Found 0 model versions that have in-flight inferences\n"
    "I1130 11:31:41.601118 1 server.cc:338] All models are stopped, unloading models\n"
    "error: creating server: Internal - failed to load all models\n"
)
RAY = (
    "2026-11-30 11:31:10,118\tINFO worker.py:1821 -- Started a local Ray instance. View the dashboard at "
    "127.0.0.1:8265\n"
    "(TrainWorker pid=4121, ip=10.233.64.17) Setting up process group for: env:// [rank=0, world_size=4]\n"
    "2026-11-30 11:32:02,412\tERROR tune_controller.py:1331 -- Trial task failed for trial TorchTrainer_5c2a1_00000\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.11/site-packages/ray/air/execution/_internal/event_manager.py", line 110, in '
    "resolve_future\n"
    "    result = ray.get(future)\n"
    '  File "/usr/local/lib/python3.11/site-packages/ray/_private/worker.py", line 2753, in get\n'
    "    values, debugger_breakpoint = worker.get_objects(object_refs, timeout=timeout)\n"
    "ray.exceptions.RayTaskError(ValueError): ray::_Inner.train() (pid=4121, ip=10.233.64.17, "
    "actor_id=7a1c0b3e2f5d4c6b8a9e0f1d02000000, repr=TorchTrainer)\n"
    '  File "/usr/local/lib/python3.11/site-packages/ray/train/_internal/utils.py", line 57, in check_for_failure\n'
    "    ray.get(object_ref)\n"
    '  File "/app/train_fn.py", line 64, in train_loop_per_worker\n'
    "    loss = criterion(logits, labels)\n"
    "ValueError: Expected input batch_size (64) to match target batch_size (32).\n"
    "2026-11-30 11:32:02,530\tERROR tune.py:1037 -- Trials did not complete: [TorchTrainer_5c2a1_00000]\n"
)


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _failed_with_log(key: str, name: str, log: str, *, kind: str, image: str, command: str, code: int) -> Story:
    s = Story(key, name, "recsys", "Failed", phase_at=27.5, created=40, kind=kind, image=image, command=command)
    pod = s.add_pod(node="gpu-w-31", created=39, k8s_phase="Error", updated=27.8, completed=27.8)
    s.phase_message = f"Workload failed: pod {pod.name} container main terminated (Error), exit code {code}"
    lifecycle(s, 33, 27.5, "Failed", s.phase_message)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", code, 33, 27.8))], phase="Failed")
    s.add_log(pod.name, log)
    s.nodes.append(node("gpu-w-31"))
    return s


# key, name, log, kind, image, command, exit code, the root line's words, the words of the line that gave up
SERVERS: dict[str, tuple[str, str, str, str, str, str, int, str, str]] = {
    "log-uvicorn-lifespan": ("ff-log-01", "ranker-api", UVICORN, "Inference", "ghcr.io/acme/ranker:2.3",
                             "uvicorn main:app --host 0.0.0.0", 3, "KeyError: 'MODEL_PATH'",
                             "Application startup failed"),
    "log-gunicorn-worker-boot": ("ff-log-02", "rerank-svc", GUNICORN, "Inference", "ghcr.io/acme/rerank:1.9",
                                 "gunicorn -k uvicorn.workers.UvicornWorker app:app", 3, "No module named 'rankers'",
                                 "Worker failed to boot"),
    "log-triton-model-load": ("ff-log-03", "triton-rerank", TRITON, "Inference",
                              "nvcr.io/nvidia/tritonserver:24.10-py3", "tritonserver --model-repository=/models", 1,
                              "failed to load 'reranker' version 1", "failed to load all models"),
    "log-ray-task-error": ("ff-log-04", "ray-ranker-train", RAY, "Training", "rayproject/ray-ml:2.38.0-gpu",
                           "python driver.py", 1, "Expected input batch_size (64) to match", "RayTaskError"),
}


def server_case(name: str) -> Case:
    key, workload, log, kind, image, command, code, root, wrapper = SERVERS[name]
    s = _failed_with_log(key, workload, log, kind=kind, image=image, command=command, code=code)
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": [root], "noEvidence": [wrapper], "recommendations": [root],
    }


CASES = {name: (lambda name=name: server_case(name)) for name in SERVERS}
