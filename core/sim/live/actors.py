"""The moving workloads of a live demo tenant: what each kind looks like at each stage of its life.

An `Actor` is one workload submitted at `start` seconds after the capture instant. Its kind fixes the moments
(seconds after its start) at which it changes (`stages`), and `snapshot(stage)` writes everything a tenant holds
about it at that stage with the demo kit: the Run:ai workload, its events, spec, pods and history, its metrics,
and the Kubernetes pod, events and logs. Every stage is written whole from the actor's own facts, so a
diagnosis made at any moment reads one coherent workload, as for a hand-shaped story.

The kinds, each a pattern a platform team sees every day:
- `crash-loop`: a training job whose container exits 1 on start; restarted every ten seconds (a Running
  workload in CrashLoopBackOff) until its back-off limit, then Failed (CRASH_APP_ERROR);
- `oom`: a training job whose memory climbs to its limit; the kubelet kills it (OOM_KILLED);
- `image-pull`: a workspace whose image tag does not exist; Pending in ImagePullBackOff (IMAGE_PULL_FAILED);
- `completes`: a job that starts, runs and completes (nothing to diagnose);
- `recovers`: an inference server that crashes once and comes back (needs attention for a while);
- `gpu-lost`: a training job running on a node whose GPU falls off the bus (Xid 79): Failed with a CUDA error
  and exit 1 minutes later, the node's GPU condition failing (core.sim.live.node_loss says which, and when).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from core.sim.demo.kit import (
    DEMO_CAPTURED_AT,
    GI,
    Story,
    condition,
    cstatus,
    error_message,
    flat,
    lifecycle,
    node,
    oom_message,
    ramp,
    running,
    terminated,
    waiting,
)

_CAPTURED = datetime.fromisoformat(DEMO_CAPTURED_AT.replace("Z", "+00:00"))
KINDS = ("crash-loop", "oom", "image-pull", "completes", "recovers")
# Seconds after its start at which each kind changes; the last is where it stays.
STAGES: dict[str, tuple[float, ...]] = {
    "crash-loop": (0, 5, 15, 25, 35, 45, 55, 65, 72),
    "oom": (0, 4, 26),
    "image-pull": (0, 4, 10, 30, 60, 120),
    "completes": (0, 5, 40),
    "recovers": (0, 3, 14, 32),
}
CRASH_LIMIT = 6  # the crash-loop's back-off limit: restarts before it is Failed
# The logs a crash-looping program leaves, each ending in the line that explains the exit.
CRASH_LOGS = (
    (
        "python train.py",
        "epoch 0 step 40 loss 3.104\nTraceback (most recent call last):\n"
        '  File "/workspace/train.py", line 143, in <module>\n    main()\n'
        '  File "/workspace/train.py", line 121, in main\n    batch = collate(samples)\n'
        "KeyError: 'input_ids'\n",
    ),
    (
        "python -m trainer.run",
        'Traceback (most recent call last):\n  File "<frozen runpy>", line 198, in _run_module_as_main\n'
        '  File "/app/trainer/model.py", line 9, in <module>\n    from flash_attn import flash_attn_func\n'
        "ModuleNotFoundError: No module named 'flash_attn'\n",
    ),
    (
        "python pretrain.py",
        "loading shards from /data/shards\nTraceback (most recent call last):\n"
        '  File "/workspace/pretrain.py", line 58, in <module>\n    ds = load(args.data)\n'
        "FileNotFoundError: [Errno 2] No such file or directory: '/data/shards/train-00000.parquet'\n",
    ),
    (
        "python finetune.py",
        'Traceback (most recent call last):\n  File "/workspace/finetune.py", line 211, in <module>\n'
        "    loss = criterion(logits, labels)\n"
        "ValueError: Expected input batch_size (32) to match target batch_size (16).\n",
    ),
)


@dataclass(frozen=True, slots=True)
class Actor:
    """One moving workload: its kind, when it is submitted (seconds after the capture instant), and its facts."""

    number: int
    kind: str
    start: float
    key: str
    name: str
    project: str
    node: str
    flavour: int
    timeline: tuple[float, ...] = ()  # its own stages, for a kind whose moments are not fixed (`gpu-lost`)

    @property
    def stages(self) -> tuple[float, ...]:
        return self.timeline or STAGES[self.kind]

    def stage_at(self, seconds: float) -> int | None:
        """The stage this actor is at `seconds` after the capture instant; None before it is submitted."""
        if seconds < self.start:
            return None
        lived = seconds - self.start
        return max(i for i, at in enumerate(self.stages) if at <= lived)

    def snapshot(self, stage: int) -> Story:
        """Everything the tenant holds about this workload at `stage`."""
        return _WRITERS[self.kind](self, stage)

    # -- time ------------------------------------------------------------------------------------------
    def ago(self, seconds_after_start: float) -> float:
        """The demo kit's "minutes before the capture" for a moment of this actor's life (negative: after it)."""
        return -(self.start + seconds_after_start) / 60.0

    def at(self, stage: int) -> float:
        return self.ago(self.stages[stage])


def _story(actor: Actor, phase: str, phase_stage: int, **fields: object) -> Story:
    s = Story(actor.key, actor.name, actor.project, phase, phase_at=actor.at(phase_stage), created=actor.ago(0),
              **fields)  # type: ignore[arg-type]
    s.add_phase(s.created, "Pending")
    s.nodes.append(node(actor.node))
    return s


def _scheduled(s: Story, actor: Actor, pod: str) -> None:
    s.add_event(actor.ago(0.5), "Scheduled", f"Successfully assigned {s.ns}/{pod} to {actor.node}", type_="Normal",
                source="kai-scheduler", pod=pod)


def _crash_loop(actor: Actor, stage: int) -> Story:
    command, log = CRASH_LOGS[actor.flavour % len(CRASH_LOGS)]
    failed = stage == len(actor.stages) - 1
    crashes = 0 if stage < 2 else min(stage - 1, CRASH_LIMIT)
    phase = "Pending" if stage == 0 else "Failed" if failed else "Running"
    s = _story(actor, phase, 0 if stage == 0 else stage if failed else 1, command=command,
               restart_policy="OnFailure", backoff_limit=CRASH_LIMIT, mem=("32Gi", "32Gi"),
               submitted_by="priya@example.com", running_pods=1 if phase == "Running" else 0)
    end = actor.stages[stage]
    k8s = "Pending" if stage == 0 else "Error" if failed else "CrashLoopBackOff" if crashes else "Running"
    pod = s.add_pod(node=actor.node, created=actor.ago(0.5), k8s_phase=k8s, updated=actor.ago(end),
                    completed=actor.ago(end) if failed else None)
    _scheduled(s, actor, pod.name)
    if stage >= 1:
        s.add_phase(actor.at(1), "Running")
    for k in range(1, crashes + 1):
        at = actor.at(1 + k)
        msg = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
        s.add_event(at, "BackOff", msg, pod=pod.name)
    backoff = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
    if crashes:
        s.add_kube_event(actor.at(1 + crashes), "BackOff", backoff, pod=pod.name, host=actor.node, count=crashes,
                         first=actor.at(2))
    if stage == 0:
        state, last, kube_phase = waiting("ContainerCreating"), None, "Pending"
    elif failed:
        s.phase_message = error_message(pod.name, 1)
        s.add_phase(actor.at(stage), "Failed", s.phase_message)
        state, last, kube_phase = terminated("Error", 1, actor.ago(end - 2), actor.ago(end)), None, "Failed"
        s.add_log(pod.name, log)
    elif crashes:
        s.conditions = [condition("Available", "False", actor.at(2), "CrashLoopBackOff",
                                  f"container main in pod {pod.name} is waiting: CrashLoopBackOff")]
        crashed = actor.stages[1 + crashes]
        state = waiting("CrashLoopBackOff", backoff.replace("Back-off", f"back-off {10 * 2 ** (crashes - 1)}s"))
        last, kube_phase = terminated("Error", 1, actor.ago(crashed - 3), actor.ago(crashed)), "Running"
    else:
        state, last, kube_phase = running(actor.ago(5)), None, "Running"
    if crashes and not failed:
        s.add_log(pod.name, log, previous=True)
    s.add_kube_pod(pod, [cstatus("main", s.image, state, last=last, restarts=crashes)], phase=kube_phase)
    return s


def _oom(actor: Actor, stage: int) -> Story:
    failed = stage == 2
    limit = (16, 24, 32, 48)[actor.flavour % 4] * GI
    mem = f"{limit // GI}Gi"
    s = _story(actor, ("Pending", "Running", "Failed")[stage], stage, mem=(mem, mem),
               command="torchrun --nproc_per_node=1 finetune.py", args="--batch-size 32 --seq-len 8192",
               submitted_by="marco@example.com", running_pods=1 if stage == 1 else 0)
    end = actor.stages[stage]
    k8s = ("Pending", "Running", "OOMKilled")[stage]
    pod = s.add_pod(node=actor.node, created=actor.ago(0.5), k8s_phase=k8s, updated=actor.ago(end),
                    completed=actor.ago(end) if failed else None)
    _scheduled(s, actor, pod.name)
    if stage >= 1:
        s.add_phase(actor.at(1), "Running")
        # The kill comes at the limit: the last samples reach just under it (cgroup usage cannot pass its limit).
        top = limit - limit // 200 if failed else limit * 2 // 3
        s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(3 * GI, top, actor.at(1), actor.ago(end - 0.5), step_min=5 / 60))
        s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(limit, actor.at(1), actor.ago(end - 0.5), step_min=5 / 60))
    if failed:
        s.phase_message = oom_message(pod.name)
        s.add_phase(actor.at(2), "Failed", s.phase_message)
        s.add_event(actor.ago(end + 0.1), "OOMKilled", "Container main was OOM killed", pod=pod.name)
        state, kube_phase = terminated("OOMKilled", 137, actor.at(1), actor.at(2)), "Failed"
        s.add_log(pod.name, f"step 900 loss 1.41 mem {limit / GI * 0.97:.1f}GiB\n")
    elif stage == 1:
        state, kube_phase = running(actor.at(1)), "Running"
    else:
        state, kube_phase = waiting("ContainerCreating"), "Pending"
    s.add_kube_pod(pod, [cstatus("main", s.image, state)], phase=kube_phase)
    return s


def _image_pull(actor: Actor, stage: int) -> Story:
    model = actor.name.split("-")[0]
    image = f"nvcr.io/acme/{model}-notebook:v{actor.flavour % 5 + 2}.{actor.number % 7}"
    s = _story(actor, "Pending", 0, image=image, kind="Workspace", mem=("16Gi", "16Gi"), command="jupyter lab",
               submitted_by="sofia@example.com")
    pod = s.add_pod(node=actor.node, created=actor.ago(0.5), k8s_phase="ContainerCreating" if stage == 0 else
                    "ImagePullBackOff", updated=actor.ago(actor.stages[stage]))
    _scheduled(s, actor, pod.name)
    error = (f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack image '
             f'"{image}": failed to resolve reference "{image}": {image}: not found')
    if stage == 0:
        state = waiting("ContainerCreating")
    else:
        pulls = stage  # each stage is one more failed pull
        s.add_event(actor.at(1), "Failed", error, pod=pod.name)
        s.add_event(actor.ago(4.05), "Failed", "Error: ErrImagePull", pod=pod.name)
        first = actor.ago(6)
        s.add_kube_event(actor.at(stage), "Failed", error, pod=pod.name, host=actor.node, count=pulls,
                         first=actor.at(1))
        if stage >= 2:
            s.add_event(actor.at(2), "BackOff", f'Back-off pulling image "{image}"', type_="Normal", pod=pod.name)
            s.add_kube_event(actor.at(stage), "BackOff", f'Back-off pulling image "{image}"', pod=pod.name,
                             type_="Normal", host=actor.node, count=4 * (stage - 1), first=first)
        state = waiting("ImagePullBackOff", f'Back-off pulling image "{image}": ErrImagePull: {error}')
    s.add_kube_pod(pod, [cstatus("main", image, state)], phase="Pending", conditions=[
        condition("PodScheduled", "True", actor.ago(0.5)),
        condition("Ready", "False", actor.ago(0.5), "ContainersNotReady", "containers with unready status: [main]"),
    ])
    return s


def _completes(actor: Actor, stage: int) -> Story:
    done = stage == 2
    s = _story(actor, ("Pending", "Running", "Completed")[stage], stage, command="python evaluate.py",
               running_pods=1 if stage == 1 else 0, submitted_by="svc-pipeline@example.com",
               completed_at=actor.at(2) if done else None)
    end = actor.stages[stage]
    pod = s.add_pod(node=actor.node, created=actor.ago(0.5), k8s_phase=("Pending", "Running", "Succeeded")[stage],
                    updated=actor.ago(end), completed=actor.ago(end) if done else None)
    _scheduled(s, actor, pod.name)
    if stage >= 1:
        s.add_phase(actor.at(1), "Running")
    if done:
        s.add_phase(actor.at(2), "Completed")
        state, phase = terminated("Completed", 0, actor.at(1), actor.at(2)), "Succeeded"
    else:
        state, phase = (running(actor.at(1)), "Running") if stage == 1 else (waiting("ContainerCreating"), "Pending")
    s.add_kube_pod(pod, [cstatus("main", s.image, state)], phase=phase)
    return s


def _recovers(actor: Actor, stage: int) -> Story:
    s = _story(actor, "Pending" if stage == 0 else "Running", 0 if stage == 0 else 1, kind="Inference",
               command="python -m vllm.entrypoints.openai.api_server", image="vllm/vllm-openai:v0.6.4",
               mem=("24Gi", "24Gi"), running_pods=0 if stage == 0 else 1, submitted_by="lena@example.com")
    end = actor.stages[stage]
    k8s = ("Pending", "Running", "CrashLoopBackOff", "Running")[stage]
    pod = s.add_pod(node=actor.node, created=actor.ago(0.5), k8s_phase=k8s, updated=actor.ago(end))
    _scheduled(s, actor, pod.name)
    restarts = 1 if stage >= 2 else 0
    last = terminated("Error", 1, actor.at(1), actor.at(2)) if restarts else None
    if stage >= 1:
        s.add_phase(actor.at(1), "Running")
    if stage >= 2:
        msg = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
        s.add_event(actor.at(2), "BackOff", msg, pod=pod.name)
        s.add_kube_event(actor.at(2), "BackOff", msg, pod=pod.name, host=actor.node, count=1, first=actor.at(2))
        # vLLM stamps its lines with the moment they were written: the crash's own, not a fixed clock.
        crashed = _CAPTURED + timedelta(seconds=actor.start + actor.stages[2])
        stamp = crashed.strftime("%m-%d %H:%M:%S")
        s.add_log(pod.name, f"ERROR {stamp} engine.py:389] RuntimeError: Engine loop has died\n", previous=True)
    if stage == 2:
        s.conditions = [condition("Available", "False", actor.at(2), "CrashLoopBackOff",
                                  f"container main in pod {pod.name} is waiting: CrashLoopBackOff")]
        state = waiting("CrashLoopBackOff", "back-off 10s restarting failed container")
    elif stage == 3:
        s.conditions = [condition("Available", "True", actor.at(3))]
        state = running(actor.at(3))
    else:
        state = running(actor.at(1)) if stage == 1 else waiting("ContainerCreating")
    s.add_kube_pod(pod, [cstatus("main", s.image, state, last=last, restarts=restarts)],
                   phase="Pending" if stage == 0 else "Running")
    return s


XID_LINE = "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
_CUDA_ERRORS = ("unspecified launch failure", "unknown error")


def _gpu_lost(actor: Actor, stage: int) -> Story:
    failed = stage == 2
    ran = actor.ago(30)  # Running half a minute after it was submitted
    end = actor.at(2) if failed else None
    s = Story(actor.key, actor.name, actor.project, "Failed" if failed else "Running",
              phase_at=end if end is not None else ran, created=actor.ago(0), command="python pretrain.py",
              submitted_by="priya@example.com", gpu=1, running_pods=0 if failed else 1)
    pod = s.add_pod(node=actor.node, created=actor.ago(10), k8s_phase="Error" if failed else "Running",
                    updated=end if end is not None else ran, completed=end)
    _scheduled(s, actor, pod.name)
    lost = actor.at(1)
    health = condition("AcceleratedHardwareReady", "False", lost, "NvidiaXID79Error", XID_LINE) if stage else None
    s.nodes.append(node(actor.node, extra_conditions=[health] if health else None))
    if end is not None:
        s.phase_message = error_message(pod.name, 1)
        lifecycle(s, ran, end, "Failed", s.phase_message)
        state, phase = terminated("Error", 1, ran, end), "Failed"
        error = _CUDA_ERRORS[actor.flavour % len(_CUDA_ERRORS)]
        s.add_log(pod.name, f"step {actor.flavour * 7 + 100} loss 1.{actor.flavour % 97:02d}\n"
                            f"RuntimeError: CUDA error: {error}\n"
                            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n")
    else:
        s.add_phase(s.created, "Pending")
        s.add_phase(ran, "Running")
        state, phase = running(ran), "Running"
    s.add_kube_pod(pod, [cstatus("main", s.image, state)], phase=phase)
    return s


_WRITERS = {
    "crash-loop": _crash_loop,
    "oom": _oom,
    "image-pull": _image_pull,
    "completes": _completes,
    "recovers": _recovers,
    "gpu-lost": _gpu_lost,
}
