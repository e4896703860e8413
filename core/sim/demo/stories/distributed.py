"""Distributed training of 8 to 32 pods, where one pod fails and the others are torn down after it.

An 8-pod PyTorch job whose worker-5 is OOM-killed (its master has a smaller memory spec than its workers, and
the workload's memory series is the sum of all eight); a 16-pod MPI job whose launcher's mpirun reports that
rank 11 exited 1; a 32-pod job whose worker-17 lost its node, the other 31 then timing out in NCCL and exiting
1 ten minutes later; and a one-pod training whose failed pod was deleted beside a live replacement.
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
    memory_expectation,
    node,
    oom_message,
    ramp,
    running,
    taint,
    terminated,
)

# A few seconds, in the minutes-ago units stories use.
SECONDS = 1 / 60
# A day and two hours before the capture: older than the picker's first pages (which the app's snapshots
# show), like any failure investigated the next morning. Kubernetes events of that time have expired.
AGO = 26 * 60
NCCL_TIMEOUT = (
    "[rank{rank}]:[E1130 {clock} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=91202, OpType=ALLREDUCE, NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) "
    "ran for 600043 milliseconds before timing out.\n"
    "[rank{rank}]:[E1130 {clock} ProcessGroupNCCL.cpp:1413] [PG 0 Rank {rank}] Process group watchdog thread "
    "terminated with exception: [Rank {rank}] Watchdog caught collective operation timeout\n"
    "torch.distributed.DistBackendError: NCCL communicator was aborted on rank {rank}.\n"
)
TORCHRUN_SIGTERM = (
    "[2026-11-30 11:30:04,118] torch.distributed.elastic.agent.server.api: [WARNING] Received Signals.SIGTERM "
    "death signal, shutting down workers\n"
    "[2026-11-30 11:30:04,119] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 231 "
    "closing signal SIGTERM\n"
)


def pytorch_oom_cascade() -> Story:
    """8 pods; worker-5 OOM-killed first, the master and the six other workers SIGTERMed seconds later."""
    s = Story(
        "dist-oom-cascade",
        "gpt-neox-ft",
        "nlp",
        "Failed",
        phase_at=AGO + 30,
        created=AGO + 130,
        kind="Distributed",
        gpu=8,
        requested_pods=8,
        mem=("64Gi", "64Gi"),
        command="torchrun --nnodes=8 --nproc_per_node=8 finetune.py",
        args="--micro-batch-size 8 --seq-len 4096",
        submitted_by="priya@example.com",
        extra_spec={"distributedFramework": "PyTorch", "numWorkers": 7, "minReplicas": 8, "maxReplicas": 8},
        spec_top={
            "masterSpecSameAsWorker": False,
            "masterSpec": {
                "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                "command": "torchrun --nnodes=8 --nproc_per_node=8 finetune.py",
                "args": "--micro-batch-size 8 --seq-len 4096",
                "compute": {"cpuMemoryRequest": "32Gi", "cpuMemoryLimit": "32Gi", "gpuDevicesRequest": 8},
            },
        },
    )
    lifecycle(s, AGO + 120, AGO + 30, "Failed", "")
    master = s.add_pod(
        node="gpu-d-01",
        created=AGO + 125,
        k8s_phase="Error",
        updated=AGO + 30 - 5 * SECONDS,
        role="master",
        completed=AGO + 30 - 5 * SECONDS,
        mem=("32Gi", "32Gi"),
    )
    workers = [
        s.add_pod(
            node=f"gpu-d-{i + 2:02d}",
            created=AGO + 125,
            k8s_phase="OOMKilled" if i == 5 else "Error",
            updated=AGO + 30 if i == 5 else AGO + 30 - (4 + i % 3) * SECONDS,
            role="worker",
            index=i,
            completed=AGO + 30 if i == 5 else AGO + 30 - (4 + i % 3) * SECONDS,
        )
        for i in range(7)
    ]
    failed = workers[5]
    s.phase_message = oom_message(failed.name)
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    s.add_event(AGO + 30 - 0.5 * SECONDS, "OOMKilled", "Container main was OOM killed", pod=failed.name)
    for plan in [master, *workers]:
        if plan is failed:
            state = terminated("OOMKilled", 137, AGO + 119, AGO + 30)
            s.add_log(plan.name, "iteration 2210 | loss 1.884 | lr 2.0e-05\niteration 2220 | loss 1.879\n")
        else:
            state = terminated("Error", 143, AGO + 119, plan.completed or AGO + 30)
            s.add_log(plan.name, TORCHRUN_SIGTERM)
        s.add_kube_pod(plan, [cstatus("main", s.image, state)], phase="Failed")
        s.nodes.append(node(plan.node or ""))
    # Each pod's own series; the workload's series is their sum (Run:ai aggregates over the pods).
    per_pod = {p.name: flat(40 * GI, AGO + 118, AGO + 30.5, step_min=1) for p in [master, *workers]}
    per_pod[master.name] = flat(24 * GI, AGO + 118, AGO + 30.5, step_min=1)
    per_pod[failed.name] = ramp(38 * GI, 68_600_000_000, AGO + 118, AGO + 30.5, step_min=1)
    s.add_summed_series("CPU_MEMORY_USAGE_BYTES", per_pod)
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "8 pods: worker-5 OOMKilled first; master and 6 workers SIGTERMed (143) after it are consequences; its own "
        "series peaks at 68.6e9 B against the workers' 64Gi limit (the master's is 32Gi; the workload series is "
        "a sum of 8)",
        recurrence=1,
        lookback="7d",
        memory=memory_expectation("64Gi", "64Gi", 64 * GI, 64 * GI, 68_600_000_000),
        detail="first-failure:gpt-neox-ft-worker-5",
    )


MPIRUN_LOG = (
    "[1,11]<stderr>:Traceback (most recent call last):\n"
    '[1,11]<stderr>:  File "/workspace/train_hvd.py", line 142, in <module>\n'
    "[1,11]<stderr>:    batch = next(loader)\n"
    "[1,11]<stderr>:KeyError: 'label'\n"
    "--------------------------------------------------------------------------\n"
    "Primary job  terminated normally, but 1 process returned\n"
    "a non-zero exit code. Per user-direction, the job has been aborted.\n"
    "--------------------------------------------------------------------------\n"
    "--------------------------------------------------------------------------\n"
    "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
    "the job to be terminated. The first process to do so was:\n"
    "\n"
    "  Process name: [[51735,1],11]\n"
    "  Exit code:    1\n"
    "--------------------------------------------------------------------------\n"
)


def mpi_launcher_cascade() -> Story:
    """16 pods: the launcher's mpirun exits 1 because rank 11 did; the 15 workers are deleted after it."""
    s = Story(
        "mpi-launcher-cascade",
        "bert-hvd-16",
        "speech",
        "Failed",
        phase_at=AGO + 40,
        created=AGO + 95,
        kind="Distributed",
        gpu=8,
        requested_pods=16,
        mem=("96Gi", "96Gi"),
        command="mpirun -np 128 -bind-to none -map-by slot python train_hvd.py",
        submitted_by="lena@example.com",
        extra_spec={"distributedFramework": "MPI", "numWorkers": 15, "minReplicas": 16, "maxReplicas": 16},
    )
    lifecycle(s, AGO + 90, AGO + 40, "Failed", "")
    launcher = s.add_pod(
        node="gpu-d-10",
        created=AGO + 92,
        k8s_phase="Error",
        updated=AGO + 40,
        role="launcher",
        completed=AGO + 40,
        mem=("8Gi", "8Gi"),
    )
    s.phase_message = error_message(launcher.name, 1)
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    for i in range(15):
        s.add_pod(
            node=f"gpu-d-{11 + i}",
            created=AGO + 92,
            k8s_phase="Running",
            updated=AGO + 90,
            role="worker",
            index=i,
            deleted=AGO + 40 - 3 * SECONDS,
        )
    s.add_kube_pod(launcher, [cstatus("main", s.image, terminated("Error", 1, AGO + 90, AGO + 40))], phase="Failed")
    s.add_log(launcher.name, MPIRUN_LOG)
    s.nodes.append(node("gpu-d-10"))
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "16 pods: the launcher exits 1 first, its mpirun saying rank 11 returned 1 (KeyError); the 15 workers are "
        "deleted after it (consequences, not causes)",
        recurrence=1,
        lookback="7d",
        detail="first-failure:bert-hvd-16-launcher-0",
    )


def node_lost_cascade() -> Story:
    """32 pods: worker-17's node went NotReady; ten minutes later the 31 others timed out in NCCL and exited 1."""
    s = Story(
        "dist-node-lost-cascade",
        "llama-3-70b-pt",
        "research",
        "Failed",
        phase_at=AGO + 34,
        created=AGO + 200,
        kind="Distributed",
        gpu=8,
        requested_pods=32,
        mem=("512Gi", "512Gi"),
        command="torchrun --nnodes=32 --nproc_per_node=8 pretrain.py",
        submitted_by="dmitri@example.com",
        extra_spec={"distributedFramework": "PyTorch", "numWorkers": 31, "minReplicas": 32, "maxReplicas": 32},
    )
    # Run:ai's phase message names a pod that only ended after the first failure: the order says which came first.
    s.phase_message = error_message(s.pod_name(0, "master"), 1)
    lifecycle(s, AGO + 190, AGO + 34, "Failed", s.phase_message)
    lost = None
    for i in range(32):
        role, index = ("master", 0) if i == 0 else ("worker", i - 1)
        node_name = f"gpu-d-{40 + i}"
        if role == "worker" and index == 17:
            lost = s.add_pod(
                node=node_name,
                created=AGO + 195,
                k8s_phase="Unknown",
                updated=AGO + 45,
                role=role,
                index=index,
                completed=AGO + 40,
            )
            continue
        at = AGO + 35 - (i % 5) * SECONDS
        plan = s.add_pod(
            node=node_name, created=AGO + 195, k8s_phase="Error", updated=at, role=role, index=index, completed=at
        )
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", 1, AGO + 190, at))], phase="Failed")
        s.add_log(plan.name, NCCL_TIMEOUT.format(rank=i * 8, clock="11:25:00.120"))
        s.nodes.append(node(node_name))
    assert lost is not None
    s.add_event(AGO + 45, "NodeNotReady", "Node is not ready", type_="Warning", source="node-controller", pod=lost.name)
    s.add_event(
        AGO + 40,
        "TaintManagerEviction",
        f"Marking for deletion Pod {s.ns}/{lost.name}",
        type_="Normal",
        source="taint-eviction-controller",
        pod=lost.name,
    )
    s.add_kube_pod(
        lost,
        [cstatus("main", s.image, running(AGO + 190))],
        phase="Running",
        reason="NodeLost",
        message=f"Node gpu-d-58 which was running pod {lost.name} is unresponsive",
        conditions=[
            condition("PodScheduled", "True", AGO + 195),
            condition("Ready", "False", AGO + 45, "NodeNotReady"),
            condition(
                "DisruptionTarget",
                "True",
                AGO + 40,
                "DeletionByTaintManager",
                "Taint manager: deleting due to NoExecute taint",
            ),
        ],
        deletion=AGO + 40,
    )
    s.nodes.append(
        node(
            "gpu-d-58",
            ready="Unknown",
            ready_since=AGO + 45,
            taints=[taint("node.kubernetes.io/unreachable", added=AGO + 45)],
        )
    )
    return s.expect(
        "diagnosed",
        "NODE_FAILURE",
        "32 pods: worker-17's node gpu-d-58 went NotReady first; the 31 others exited 1 ten minutes later with NCCL "
        "watchdog timeouts: consequences, so not CRASH_APP_ERROR",
        recurrence=1,
        lookback="7d",
        detail="first-failure:llama-3-70b-pt-worker-17",
    )


def deleted_pod_first() -> Story:
    """One pod: the failed pod was deleted beside its Pending replacement; only the deleted one tells why."""
    s = Story(
        "deleted-pod-oom",
        "tts-vocoder",
        "speech",
        "Failed",
        phase_at=AGO + 22,
        created=AGO + 80,
        mem=("24Gi", "24Gi"),
        restart_policy="OnFailure",
        backoff_limit=1,
        command="python train_vocoder.py",
        submitted_by="kenji@example.com",
    )
    old = s.add_pod(
        node="gpu-d-80",
        created=AGO + 79,
        k8s_phase="OOMKilled",
        updated=AGO + 26,
        index=0,
        completed=AGO + 26,
        deleted=AGO + 25.5,
    )
    s.add_pod(node=None, created=AGO + 25.4, k8s_phase="Pending", updated=AGO + 25.4, index=1)
    s.phase_message = "Job has reached the specified backoff limit"
    s.add_phase(s.created, "Pending").add_phase(AGO + 75, "Running").add_phase(AGO + 22, "Failed", s.phase_message)
    s.add_pod_series(old, "CPU_MEMORY_USAGE_BYTES", ramp(10 * GI, 25_700_000_000, AGO + 74, AGO + 26.5, step_min=1))
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(10 * GI, 25_700_000_000, AGO + 74, AGO + 26.5, step_min=1))
    return s.expect(
        "diagnosed",
        "OOM_KILLED",
        "the live pod is a Pending replacement that shows nothing; the deleted pod (read with deleted=true) was "
        "OOMKilled",
        recurrence=1,
        lookback="7d",
        memory=memory_expectation("24Gi", "24Gi", 24 * GI, 24 * GI, 25_700_000_000),
    )


FAMILY = Family(
    "distributed",
    stories=(
        pytorch_oom_cascade,
        mpi_launcher_cascade,
        node_lost_cascade,
        deleted_pod_first,
    ),
)
