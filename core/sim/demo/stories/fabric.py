"""Faults under the workload, in the network fabric: an InfiniBand completion error on the pod of a 4-pod job that
failed first, beside the three pods torn down after it (whose own NCCL timeouts and closed sockets are a cascade
victim's noise, not a fabric finding).
"""

from __future__ import annotations

from core.sim.demo.kit import Family, Story, cstatus, error_message, lifecycle, node, terminated

IB_NODE = "gpu-w-14"
IB_LOG = (
    "[rank8]: step 2210 loss 2.018\n"
    "gpu-w-14:412:988 [0] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 10.42.3.17<44206> with "
    "status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid ::ffff:10.42.7.21 remoteGids::ffff:10.42.3.17\n"
    "gpu-w-14:412:988 [0] NCCL INFO transport/net.cc:1298 -> 6\n"
    "[rank8]: Traceback (most recent call last):\n"
    '[rank8]:   File "/app/train_moe.py", line 412, in <module>\n'
    "[rank8]:     loss.backward()\n"
    "[rank8]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
    "remote process exited or there was a network error, NCCL version 2.21.5\n"
)
VICTIM_LOG = (
    "[rank{rank}]:[E1130 11:41:10.220 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective "
    "operation timeout: WorkNCCL(SeqNum=3310, OpType=ALLTOALL_BASE, Timeout(ms)=600000) ran for 600041 "
    "milliseconds before timing out.\n"
    "gpu-w-1{idx}:77:91 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
    "gpu-w-14.ml.internal<55693>\n"
)


def ib_first_failure() -> Story:
    s = Story(
        "ib-first-failure",
        "moe-8x7b-dist",
        "recsys",
        "Failed",
        phase_at=18,
        created=130,
        kind="Distributed",
        gpu=8,
        requested_pods=4,
        mem=("512Gi", "512Gi"),
        command="torchrun --nnodes 4 --nproc-per-node 8 train_moe.py",
        submitted_by="lena@example.com",
        extra_spec={"distributedFramework": "PyTorch", "numWorkers": 3, "minReplicas": 4, "maxReplicas": 4},
    )
    lifecycle(s, 120, 18, "Failed", "")
    for index, (role, idx) in enumerate((("master", 0), ("worker", 0), ("worker", 1), ("worker", 2))):
        node_name = f"gpu-w-{13 + index}"
        first = node_name == IB_NODE
        end = 18.4 if first else 18.0
        plan = s.add_pod(
            node=node_name, created=127.9 if first else 128, k8s_phase="Error", updated=end, role=role, index=idx,
            completed=end,
        )
        code = 1 if first else 143
        s.add_kube_pod(plan, [cstatus("main", s.image, terminated("Error", code, 120, end))], phase="Failed")
        s.add_log(plan.name, IB_LOG if first else VICTIM_LOG.format(rank=index * 8, idx=3 + index))
        s.nodes.append(node(node_name))
        if first:
            s.phase_message = error_message(plan.name, 1)
    s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"] = s.phase_message
    return s.expect(
        "diagnosed",
        "CRASH_APP_ERROR",
        "worker-0 on gpu-w-14 failed first (exit 1) after an InfiniBand completion error (status 12, transport "
        "retry counter exceeded): a network-fabric finding explains it; the other three pods' NCCL timeouts and "
        "closed sockets came after it and raise no finding",
        recurrence=1,
        detail="ib",
        findings=[{"kind": "network-fabric", "node": IB_NODE, "explains": True}],
    )


FAMILY = Family("fabric", stories=(ib_first_failure,))
