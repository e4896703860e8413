"""Faults under the workload, on the GPU: an Xid 79 (a GPU fallen off the bus) on one node of a 16-pod job, and
a driver/library mismatch after a driver upgrade that left its node without a reboot.

The seed's category stays what the container's end says (a non-zero exit is CRASH_APP_ERROR); the report's
`gpu-hardware` / `gpu-driver-runtime` finding says it is the administrator's to fix, names the node, and lists
the other pods that failed on it.
"""

from __future__ import annotations

from core.sim.demo.kit import (
    Family,
    Story,
    condition,
    cstatus,
    error_message,
    lifecycle,
    node,
    other_pod,
    terminated,
)

XID_NODE = "gpu-e-47"
XID_LINE = "NVRM: Xid (PCI:0000:9b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
# What a PyTorch rank prints when its GPU disappears mid-step: a CUDA error above a C++ frame dump.
XID_RANK_LOG = (
    "[rank54]: step 4120 loss 1.734 lr 1.2e-4\n"
    "[rank54]: RuntimeError: CUDA error: unspecified launch failure\n"
    "[rank54]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace "
    "below might be incorrect.\n"
    "[rank54]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call "
    "first):\n"
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f3f0c4b0897 in "
    "/usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)\n"
    "frame #1: c10::detail::torchCheckFail(char const*, char const*, unsigned int, std::string const&) + 0x64 "
    "(0x7f3f0c460b25 in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)\n"
    "frame #2: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 "
    "(0x7f3f0c588718 in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10_cuda.so)\n"
)
VICTIM_LOG = (
    "[rank{rank}]:[E1130 11:31:55.104 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=88211, OpType=ALLREDUCE, NumelIn=524288000, Timeout(ms)=600000) ran for 600113 "
    "milliseconds before timing out.\n"
    "[rank{rank}]: misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
    "gpu-e-47.ml.internal<51022>\n"
)
DRIVER_NODE = "gpu-w-12"
HOOK_ERROR = (
    "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: "
    "unable to start container process: error during container init: error running hook #0: error running hook: "
    "exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\n"
    "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown"
)


def xid79_sixteen_pods() -> Story:
    s = Story(
        "xid79-16pod",
        "llama-405b-pretrain",
        "research",
        "Failed",
        phase_at=33,
        created=220,
        kind="Distributed",
        gpu=8,
        requested_pods=16,
        mem=("1536Gi", "1536Gi"),
        command="torchrun --nnodes 16 --nproc-per-node 8 pretrain.py",
        submitted_by="dmitri@example.com",
        extra_spec={"distributedFramework": "PyTorch", "numWorkers": 15, "minReplicas": 16, "maxReplicas": 16},
    )
    lifecycle(s, 210, 33, "Failed", "")
    for index in range(16):
        role, idx = ("master", 0) if index == 0 else ("worker", index - 1)
        node_name = f"gpu-e-{40 + index}"
        first = node_name == XID_NODE
        # The rank on the lost GPU ends first; the launcher then stops the other fifteen (SIGTERM, 143).
        end = 33.6 if first else 33.0
        plan = s.add_pod(
            node=node_name,
            created=217.9 if first else 218,
            k8s_phase="Error",
            updated=end,
            role=role,
            index=idx,
            completed=end,
        )
        code = 1 if first else 143
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", code, 210, end))], phase="Failed")
        s.add_log(plan.name, XID_RANK_LOG if first else VICTIM_LOG.format(rank=index * 8))
        conditions = (
            [condition("AcceleratedHardwareReady", "False", 33.7, "NvidiaXID79Error", XID_LINE)] if first else None
        )
        s.nodes.append(node(node_name, extra_conditions=conditions))
        if first:
            s.phase_message = error_message(plan.name, 1)
            s.add_node_event(33.7, node_name, "NvidiaXID79Error", XID_LINE, component="kernel-monitor")
            # Another team's evaluation job on the same node died with it.
            s.kube_pods.append(
                other_pod(
                    "eval-harness-7f9c2-0",
                    "runai-nlp",
                    node_name,
                    [
                        cstatus(
                            "main",
                            "nvcr.io/nvidia/pytorch:24.05-py3",
                            terminated("Error", 1, 90, 33.6, "RuntimeError: CUDA error: unknown error"),
                        )
                    ],
                    phase="Failed",
                    created=91,
                )
            )
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "worker-6 on gpu-e-47 exited 1 with a CUDA error above a frame dump (the seed's exit rule), while the "
        "node reports Xid 79 (GPU fallen off the bus): a gpu-hardware finding explains it; the other 15 pods "
        "were stopped after it (143) and another team's pod on gpu-e-47 failed at the same time",
        recurrence=1,
        detail="xid79",
        findings=[{"kind": "gpu-hardware", "node": XID_NODE, "explains": True}],
    )


def driver_mismatch_after_upgrade() -> Story:
    s = Story(
        "driver-mismatch",
        "sam2-finetune",
        "genai",
        "Failed",
        phase_at=27,
        created=31,
        command="python finetune_sam2.py",
        submitted_by="sofia@example.com",
    )
    pod = s.add_pod(node=DRIVER_NODE, created=30.5, k8s_phase="Error", updated=27, completed=27)
    s.phase_message = error_message(pod.name, 128)
    lifecycle(s, 29, 27, "Failed", s.phase_message)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, terminated("StartError", 128, 27, 27, HOOK_ERROR))],
        phase="Failed",
    )
    s.add_kube_event(27, "Failed", f"Error: {HOOK_ERROR}", pod=pod.name, host=DRIVER_NODE)
    s.nodes.append(node(DRIVER_NODE))
    # A notebook on the same node failed the same way when it restarted.
    s.kube_pods.append(
        other_pod(
            "notebook-lena-0",
            "runai-recsys",
            DRIVER_NODE,
            [cstatus("jupyter", "jupyter/pytorch-notebook:2026-10", terminated("StartError", 128, 40, 40, HOOK_ERROR))],
            phase="Failed",
            created=41,
        )
    )
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "StartError exit 128 from the NVIDIA container hook: 'driver/library version mismatch' after a driver "
        "upgrade on gpu-w-12 without a reboot: a gpu-driver-runtime finding explains it, and a notebook on the "
        "same node failed the same way",
        recurrence=1,
        detail="driver-mismatch",
        findings=[{"kind": "gpu-driver-runtime", "node": DRIVER_NODE, "explains": True}],
    )


FAMILY = Family("gpu-faults", stories=(xid79_sixteen_pods, driver_mismatch_after_upgrade))
