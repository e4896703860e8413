"""Issue 23, class 4: crash loops dated from their last crash, not from "Running since".

Real time shapes: workloads Running for hours or days, restart counts in the hundreds and thousands, the
kubelet's back-off event aggregated over the whole loop (`count`, `firstTimestamp`, `lastTimestamp`; or the
events.k8s.io shape, `eventTime` and `series`), Run:ai events over more than one page. The last crash is
seconds, minutes or hours old; only a failure older than the API server's one hour may have lost its events.
"""

from __future__ import annotations

from core.sim.demo.kit import GI, Json, Story, cstatus, node, running, terminated, ts, waiting

Case = tuple[list[Story], Json, Json]
S = 1 / 60
JUPYTER = (
    "[I 2026-11-30 11:59:27.512 ServerApp] jupyter_lsp | extension was successfully linked.\n"
    "[I 2026-11-30 11:59:27.519 ServerApp] jupyter_server_terminals | extension was successfully linked.\n"
    "[W 2026-11-30 11:59:27.521 LabApp] 'token' has moved from NotebookApp to ServerApp. This config will be "
    "passed to ServerApp. Be sure to update your config before our next release.\n"
    "[I 2026-11-30 11:59:27.530 ServerApp] Writing Jupyter server cookie secret to "
    "/home/jovyan/.local/share/jupyter/runtime/jupyter_cookie_secret\n"
    "[C 2026-11-30 11:59:28.871 ServerApp] Bad config encountered during initialization: No such directory: "
    "''/home/jovyan/work/proj-rapids''\n"
)
VLLM_BF16 = (
    "INFO 11-30 11:52:40 api_server.py:585] vLLM API server version 0.6.4.post1\n"
    "INFO 11-30 11:52:40 api_server.py:586] args: Namespace(host=None, port=8000, model='Qwen/Qwen2.5-7B-Instruct', "
    "dtype='auto', max_model_len=8192, gpu_memory_utilization=0.9)\n"
    "INFO 11-30 11:52:40 api_server.py:175] Multiprocessing frontend to use ipc:///tmp/3b2c1a for IPC Path.\n"
    "INFO 11-30 11:52:40 api_server.py:194] Started engine process with PID 77\n"
    "Process SpawnProcess-1:\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap\n'
    "    self.run()\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 390, in '
    "run_mp_engine\n"
    "    engine = MQLLMEngine.from_engine_args(engine_args=engine_args,\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 470, in '
    "_check_if_gpu_supports_dtype\n"
    "    raise ValueError(\n"
    "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has "
    "compute capability 7.5. You can use float16 instead by explicitly setting the`dtype` flag in CLI, for example: "
    "--dtype=half.\n"
    "Traceback (most recent call last):\n"
    '  File "/usr/local/bin/vllm", line 8, in <module>\n'
    "    sys.exit(main())\n"
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py", line 219, in '
    "build_async_engine_client_from_engine_args\n"
    "    raise RuntimeError(\n"
    "RuntimeError: Engine process failed to start. See stack trace for the root cause.\n"
)
TRAIN_NAN = (
    "2026-11-30 08:58:40,102 - trainer - INFO - step 18000 loss 0.412\n"
    "2026-11-30 08:59:02,877 - trainer - INFO - step 18050 loss nan\n"
    "Traceback (most recent call last):\n"
    '  File "/workspace/train.py", line 302, in <module>\n'
    "    trainer.fit()\n"
    '  File "/workspace/trainer.py", line 118, in fit\n'
    "    raise FloatingPointError(f'loss is {loss} at step {step}')\n"
    "FloatingPointError: loss is nan at step 18050\n"
)


def _req(s: Story) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id}


def _run_ai_back_offs(s: Story, pod: str, pod_id: str, newest: float, oldest: float, count: int) -> None:
    """Run:ai's events of a crash loop: one back-off event per restart, from `oldest` to `newest` minutes ago."""
    step = (oldest - newest) / max(count - 1, 1)
    message = f"Back-off restarting failed container main in pod {pod}_{s.ns}({pod_id})"
    for i in range(count):
        s.add_event(round(newest + i * step, 2), "BackOff", message, pod=pod, obj_uid=pod_id)


def _expects(category: str, *, restarts: int, last: str, since: str, more: list[str] | None = None) -> Json:
    return {
        "outcome": "diagnosed", "category": category, "recurrence": 1,
        "evidence": [f"restarted {restarts} times", f"last crash {last}", f"crash-looping for {since}",
                     *(more or [])],
        "noText": ["expired", "older than the 24h lookback"],
    }


def case_crash_loop_jupyter_seconds() -> Case:
    """A Jupyter workspace up since 21:40 yesterday, restarted 172 times; its last crash was 31 s ago. Run:ai
    kept 600 back-off events (two pages of the events list); its node has no events (nothing wrong with it)."""
    s = Story("ff-loop-01", "rapids-lab", "research", "Running", phase_at=14 * 60 + 20, created=14 * 60 + 22,
              kind="Workspace", image="nvcr.io/nvidia/rapidsai/notebooks:24.10-cuda12.5-py3.11",
              command="start-notebook.py", args="--ServerApp.root_dir=/home/jovyan/work/proj-rapids",
              running_pods=1, mem=("64Gi", "64Gi"), restart_policy="Always")
    s.add_phase(s.created, "Pending").add_phase(s.phase_at, "Running")
    pod = s.add_pod(node="gpu-l-04", created=s.created - 0.1, k8s_phase="CrashLoopBackOff", updated=0.5)
    _run_ai_back_offs(s, pod.name, pod.uid, 0.3, 14 * 60 + 18, 600)
    back_off = f"back-off 5m0s restarting failed container=main pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("CrashLoopBackOff", back_off),
                                 terminated("Error", 1, 33 * S, 31 * S), restarts=172)], phase="Running")
    s.add_kube_event(0.3, "BackOff", f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})",
                     pod=pod.name, count=3850, first=14 * 60 + 18)
    s.add_log(pod.name, JUPYTER, previous=True)
    s.nodes.append(node("gpu-l-04"))
    expect = _expects("CRASH_APP_ERROR", restarts=172, last="2026-11-30T11:59:29", since="14 h 18 min",
                      more=["Bad config encountered during initialization"])
    return [s], _req(s), expect


def case_crash_loop_vllm_minutes() -> Case:
    """A vLLM inference, its pod restarted 1,450 times over three days; the last crash 7 minutes ago. The
    kubelet's back-off event has the events.k8s.io shape: `eventTime` (the first) and `series`."""
    s = Story("ff-loop-02", "qwen-serve", "genai", "Degraded", phase_at=3 * 24 * 60, created=3 * 24 * 60 + 5,
              kind="Inference", image="vllm/vllm-openai:v0.6.4.post1", command="vllm serve Qwen/Qwen2.5-7B-Instruct",
              running_pods=1, requested_pods=2, mem=("24Gi", "24Gi"))
    s.add_phase(s.created, "Pending").add_phase(s.phase_at, "Degraded", "1/2 replicas available")
    good = s.add_pod(node="gpu-t4-01", created=s.created - 1, k8s_phase="Running", updated=s.phase_at, index=0)
    s.add_kube_pod(good, [cstatus("main", s.image, running(s.phase_at))], phase="Running")
    pod = s.add_pod(node="gpu-t4-02", created=s.created - 1, k8s_phase="CrashLoopBackOff", updated=2, index=1)
    _run_ai_back_offs(s, pod.name, pod.uid, 2, 23 * 60, 280)
    back_off = f"back-off 5m0s restarting failed container=main pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("CrashLoopBackOff", back_off),
                                 terminated("Error", 1, 7.6, 7), restarts=1450)], phase="Running")
    event = s.add_kube_event(0.7, "BackOff", f"Back-off restarting failed container main in pod {pod.name}",
                             pod=pod.name, first=3 * 24 * 60 - 2)
    event.update(count=None, firstTimestamp=None, lastTimestamp=None,
                 series={"count": 1449, "lastObservedTime": ts(0.7)[:-1] + ".214000Z"},
                 reportingComponent="kubelet", reportingInstance="gpu-t4-02", action="Backoff")
    event["eventTime"] = ts(3 * 24 * 60 - 2)[:-1] + ".000000Z"
    s.add_log(pod.name, VLLM_BF16, previous=True)
    s.nodes += [node("gpu-t4-01", gpu="Tesla-T4"), node("gpu-t4-02", gpu="Tesla-T4")]
    expect = _expects("CRASH_APP_ERROR", restarts=1450, last="2026-11-30T11:53:00", since="2 d 23 h",
                      more=["Bfloat16 is only supported"])
    expect["noEvidence"] = ["Engine process failed to start"]
    expect["recommendations"] = ["Bfloat16"]
    return [s], _req(s), expect


def case_crash_loop_oom_eight_days() -> Case:
    """An embedding server OOM-killed at every start for eight days (2,310 restarts); its last kill 3 minutes
    ago. The lookback is the default 24 h: the loop is older, its last crash is not."""
    s = Story("ff-loop-03", "bge-embedder", "recsys", "Running", phase_at=8 * 24 * 60, created=8 * 24 * 60 + 3,
              kind="Workspace", image="ghcr.io/huggingface/text-embeddings-inference:1.5",
              command="text-embeddings-router --model-id BAAI/bge-large-en-v1.5", running_pods=1, mem=("2Gi", "2Gi"),
              restart_policy="Always")
    s.add_phase(s.created, "Pending").add_phase(s.phase_at, "Running")
    pod = s.add_pod(node="cpu-m-07", created=s.created - 0.5, k8s_phase="CrashLoopBackOff", updated=2.5)
    _run_ai_back_offs(s, pod.name, pod.uid, 2.5, 23 * 60, 290)
    for at in (3, 8.5, 14):
        s.add_event(at, "OOMKilled", "Container main was OOM killed", pod=pod.name, obj_uid=pod.uid)
    back_off = f"back-off 5m0s restarting failed container=main pod={pod.name}_{s.ns}({pod.uid})"
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("CrashLoopBackOff", back_off),
                                 terminated("OOMKilled", 137, 3.4, 3), restarts=2310)], phase="Running")
    s.add_kube_event(1, "BackOff", f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})",
                     pod=pod.name, count=2309, first=8 * 24 * 60 - 1)
    s.nodes.append(node("cpu-m-07", gpu="none"))
    expect = _expects("OOM_KILLED", restarts=2310, last="2026-11-30T11:57:00", since="7 d 23 h")
    expect["memory"] = {"limitBytes": 2 * GI}
    return [s], _req(s), expect


def case_crash_loop_hours_apart() -> Case:
    """A training that crashes after three hours of work each time (6 restarts since yesterday): its last crash
    is 3 h old, so its Kubernetes events have expired, and the report says so."""
    s = Story("ff-loop-04", "moe-pretrain", "research", "Running", phase_at=20 * 60, created=20 * 60 + 4,
              running_pods=1, mem=("128Gi", "128Gi"), restart_policy="OnFailure", backoff_limit=10,
              command="python train.py")
    s.add_phase(s.created, "Pending").add_phase(s.phase_at, "Running")
    pod = s.add_pod(node="gpu-m-12", created=s.created - 1, k8s_phase="Running", updated=180)
    for at in (180, 365, 551, 736, 922, 1108):
        s.add_event(at - 0.2, "BackOff", f"Back-off restarting failed container main in pod {pod.name}_{s.ns}"
                    f"({pod.uid})", pod=pod.name, obj_uid=pod.uid)
    s.add_kube_pod(pod, [cstatus("main", s.image, running(179.8), terminated("Error", 1, 365, 180), restarts=6)],
                   phase="Running")
    s.add_log(pod.name, TRAIN_NAN, previous=True)
    s.nodes.append(node("gpu-m-12"))
    return [s], _req(s), {
        "outcome": "diagnosed", "category": "CRASH_APP_ERROR", "recurrence": 1,
        "evidence": ["restarted 6 times", "last crash 2026-11-30T09:00:00", "FloatingPointError"],
        "missing": ["have likely expired"],
    }


CASES = {
    "crash-loop-jupyter-seconds": case_crash_loop_jupyter_seconds,
    "crash-loop-vllm-minutes": case_crash_loop_vllm_minutes,
    "crash-loop-oom-eight-days": case_crash_loop_oom_eight_days,
    "crash-loop-hours-apart": case_crash_loop_hours_apart,
}
