"""CRASH_APP_ERROR: the application's own exit, with the log line that explains it (a traceback, a usage
error, a typo in the command, an image for another CPU, a CUDA OOM, an NCCL timeout on one worker of four), a
live crash loop, and two crashes in one run that count twice.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    GI,
    Family,
    Story,
    condition,
    cstatus,
    error_message,
    flat,
    lifecycle,
    node,
    ramp,
    terminated,
    waiting,
)

TRACE_KEYERROR = (
    "epoch 0 step 120 loss 2.913\n"
    "Traceback (most recent call last):\n"
    '  File "/workspace/summarize.py", line 211, in <module>\n'
    "    main()\n"
    '  File "/workspace/summarize.py", line 188, in main\n'
    '    labels = batch["labels"].to(device)\n'
    "KeyError: 'labels'\n"
)


def _crash(
    key: str,
    name: str,
    project: str,
    node_name: str,
    start: float,
    end: float,
    code: int,
    log: str,
    *,
    command: str = "python train.py",
    args: str = "",
    kube: bool = True,
    reason: str = "Error",
    kind: str = "Training",
    submitted_by: str = "alice@example.com",
    mem: tuple[str | None, str | None] = ("32Gi", "32Gi"),
    image: str | None = None,
) -> Story:
    s = Story(
        key,
        name,
        project,
        "Failed",
        phase_at=end,
        created=start + 3,
        command=command,
        args=args,
        kind=kind,
        submitted_by=submitted_by,
        mem=mem,
    )
    if image is not None:
        s.image = image
    pod = s.add_pod(
        node=node_name,
        created=start + 2,
        k8s_phase="Error",
        updated=end,
        completed=end,
        deleted=None if kube else end - 1,
    )
    s.phase_message = error_message(pod.name, code)
    lifecycle(s, start, end, "Failed", s.phase_message)
    if kube:
        s.add_kube_pod(pod, [cstatus("main", s.image, terminated(reason, code, start, end))], phase="Failed")
        s.add_log(pod.name, log)
        s.nodes.append(node(node_name))
    return s


def crash_traceback() -> Story:
    s = _crash(
        "crash-traceback",
        "t5-summarize",
        "nlp",
        "gpu-e-01",
        55,
        15,
        1,
        TRACE_KEYERROR,
        command="python /workspace/summarize.py",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 1, no system signal; log: KeyError: 'labels' in summarize.py line 188",
        recurrence=1,
    )


def crash_argparse() -> Story:
    log = (
        "usage: pretrain.py [-h] [--lr LR] [--epochs EPOCHS] [--schedule {linear,cosine}]\n"
        "pretrain.py: error: unrecognized arguments: --lr-schedule cosine\n"
    )
    s = _crash(
        "crash-argparse",
        "vit-pretrain",
        "vision",
        "gpu-e-08",
        51,
        50.5,
        2,
        log,
        command="python pretrain.py",
        args="--lr 3e-4 --lr-schedule cosine",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 2 (usage error); log: 'error: unrecognized arguments: --lr-schedule cosine'",
        recurrence=1,
    )


def crash_command_not_found() -> Story:
    s = _crash(
        "crash-127",
        "tacotron-ft",
        "speech",
        "gpu-e-07",
        301,
        300.9,
        127,
        "bash: line 1: pyhton: command not found\n",
        command="bash -c 'pyhton train_tts.py'",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 127: 'pyhton: command not found' (typo in the command); events long expired",
        recurrence=1,
    )


def crash_exec_format() -> Story:
    s = _crash(
        "crash-exec-format",
        "jetson-export",
        "robotics",
        "gpu-w-01",
        42,
        41.9,
        1,
        "exec /opt/conda/bin/python: exec format error\n",
        command="python export_trt.py",
        submitted_by="kenji@example.com",
        image="harbor.robotics.lab/edge/jetson-export:arm64",
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 1 with 'exec format error': an arm64 image on an amd64 node",
        recurrence=1,
    )


def crash_cuda_oom() -> Story:
    log = (
        "[rank0]: step 12 loss 1.83\n"
        "Traceback (most recent call last):\n"
        '  File "/app/sft.py", line 301, in <module>\n'
        "    trainer.train()\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
        "of 79.10 GiB of which 1.12 GiB is free. Process 2231 has 77.97 GiB memory in use. Of the allocated "
        "memory 74.20 GiB is allocated by PyTorch, and 2.61 GiB is reserved by PyTorch but unallocated.\n"
    )
    s = _crash(
        "crash-cuda-oom",
        "mixtral-sft",
        "genai",
        "gpu-w-06",
        48,
        33,
        1,
        log,
        command="python /app/sft.py",
        args="--micro-batch 8",
        mem=("96Gi", "96Gi"),
    )
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(14 * GI, 21 * GI, 46, 33.5))
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(96 * GI, 46, 33.5))
    s.add_series("GPU_MEMORY_USAGE_BYTES", ramp(60 * GI, 83_700_000_000, 46, 33.5))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "exit 1 with 'CUDA out of memory' in the log: a GPU OOM in the app, not a kubelet OOMKilled; "
        "CPU memory 21Gi of 96Gi",
        recurrence=1,
        detail="gpu-oom",
    )


def crash_nccl() -> Story:
    s = Story(
        "crash-nccl",
        "llama-70b-dist",
        "research",
        "Failed",
        phase_at=35,
        created=160,
        kind="Distributed",
        gpu=8,
        requested_pods=4,
        mem=("512Gi", "512Gi"),
        command="torchrun train_70b.py",
        submitted_by="dmitri@example.com",
        extra_spec={"distributedFramework": "PyTorch", "numWorkers": 3, "minReplicas": 4, "maxReplicas": 4},
    )
    lifecycle(s, 150, 35, "Failed", "")
    nccl = (
        "[rank3]:[E1130 11:25:00.412 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=18231, OpType=ALLREDUCE, NumelIn=262144000, "
        "NumelOut=262144000, Timeout(ms)=600000) ran for 600071 milliseconds before timing out.\n"
        "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 3.\n"
    )
    roles = [
        ("master", 0, "gpu-e-13"),
        ("worker", 0, "gpu-e-14"),
        ("worker", 1, "gpu-e-15"),
        ("worker", 2, "gpu-e-16"),
    ]
    for role, idx, node_name in roles:
        failed = role == "worker" and idx == 2
        plan = s.add_pod(node=node_name, created=158, k8s_phase="Error", updated=35, role=role, index=idx, completed=35)
        code, why = (1, "Error") if failed else (143, "Error")
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated(why, code, 150, 35))], phase="Failed")
        s.add_log(plan.name, nccl if failed else "[rank0] step 18231 waiting for collective\n")
        s.nodes.append(node(node_name))
    s.phase_message = error_message(s.pod_name(2, "worker"), 1)
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "worker-2 exit 1 with an NCCL watchdog timeout (DistBackendError); the others got SIGTERM (143) after it",
        recurrence=1,
        detail="nccl-timeout",
    )


def crash_running_crashloop() -> Story:
    s = Story(
        "crash-running-crashloop",
        "feature-svc",
        "recsys",
        "Running",
        phase_at=300,
        created=305,
        kind="Inference",
        mem=("8Gi", "8Gi"),
        gpu=0.25,
        command="python -m feature_svc.serve",
        running_pods=1,
        submitted_by="lena@example.com",
    )
    pod = s.add_pod(node="gpu-w-08", created=304, k8s_phase="CrashLoopBackOff", updated=2)
    s.add_phase(s.created, "Pending")
    s.add_phase(300, "Running")
    msg = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_event(40, "BackOff", msg, pod=pod.name)
    s.conditions = [
        condition(
            "Available",
            "False",
            40,
            "CrashLoopBackOff",
            "container main in pod feature-svc-0-0 is waiting: CrashLoopBackOff",
        )
    ]
    s.add_kube_pod(
        pod,
        [
            cstatus(
                "main",
                s.image,
                waiting("CrashLoopBackOff", msg.replace("Back-off", "back-off 5m0s")),
                last=terminated("Error", 1, 3, 2.9),
                restarts=7,
            )
        ],
        phase="Running",
    )
    s.add_kube_event(2, "BackOff", msg, pod=pod.name, host="gpu-w-08", count=31, first=40)
    s.add_log(
        pod.name,
        'Traceback (most recent call last):\n  File "<frozen runpy>", line 198, in '
        "_run_module_as_main\nModuleNotFoundError: No module named 'feast'\n",
        previous=True,
    )
    s.nodes.append(node("gpu-w-08"))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "Running but container main in CrashLoopBackOff (7 restarts, last exit 1); previous log: ModuleNotFoundError",
        recurrence=None,
        intent="active",
    )


def crash_recurring() -> Story:
    s = Story(
        "crash-recurring",
        "diffusion-ft",
        "genai",
        "Failed",
        phase_at=50,
        created=900,
        restart_policy="OnFailure",
        backoff_limit=1,
        command="python finetune_diffusion.py",
        submitted_by="sofia@example.com",
    )
    s.add_phase(s.created, "Pending")
    s.add_phase(895, "Running")
    first = s.add_pod(node="gpu-w-04", created=898, k8s_phase="Error", updated=610, completed=610, deleted=609)
    s.add_phase(610, "Failed", error_message(first.name, 1))
    s.add_phase(607, "Running", f"pod {s.pod_name(1)} restarted by the job controller (OnFailure)")
    s.add_event(
        610.05,
        "BackOff",
        f"Back-off restarting failed container main in pod {first.name}_{s.ns}",
        pod=first.name,
        in_events=False,
    )
    last = s.add_pod(node="gpu-w-04", created=608, k8s_phase="Error", updated=50, completed=50, index=1)
    s.phase_message = error_message(last.name, 1)
    s.add_phase(50, "Failed", s.phase_message)
    s.add_event(
        50.05,
        "BackOff",
        f"Back-off restarting failed container main in pod {last.name}_{s.ns}",
        pod=last.name,
    )
    s.add_kube_pod(last, [cstatus("main", s.image, terminated("Error", 1, 606, 50))], phase="Failed")
    s.add_log(
        last.name,
        'Traceback (most recent call last):\n  File "/app/finetune_diffusion.py", line 77, in '
        "<module>\nFileNotFoundError: [Errno 2] No such file or directory: '/data/captions.jsonl'\n",
    )
    s.nodes.append(node("gpu-w-04"))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "two exit-1 terminations 10h and 50min ago (phase update + event each): recurring, count 2",
        recurrence=2,
    )


FAMILY = Family(
    "crash",
    stories=(
        crash_traceback,
        crash_argparse,
        crash_command_not_found,
        crash_exec_format,
        crash_cuda_oom,
        crash_nccl,
        crash_running_crashloop,
        crash_recurring,
    ),
)
