"""The network fabric between GPU nodes: InfiniBand / RoCE completion errors, EFA (libfabric) errors, and
NCCL's socket transport failing, as NCCL writes them in a job's log.

Real wording: `NCCL WARN NET/IB : Got completion from peer 10.0.0.7<44206> with status=12 opcode=129
len=65536 vendor err 129 (Recv)` (status 12: the transport retry counter was exceeded), the older `... with
error 4, opcode 32564, len 32564, vendor err 81 (Send)`, aws-ofi-nccl's `NCCL WARN NET/OFI Request ...
completed with error. RC: 20.`, and `socketProgress: Connection closed by remote peer` / `Call to recv from ...
failed : Connection reset by peer`.

The same lines appear on every pod of a job once one of them dies: its peers lose their connections and their
collectives time out. So a signal here becomes a `network-fabric` finding only on the pod that failed first
(core/diagnosis/infra.py decides); on a pod torn down after a peer's death it is a cascade victim's noise. An
NCCL watchdog timeout is never a fabric signal: it says a collective stalled, not why.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, rx

K = SignalKind

# ibv_wc_status values NCCL reports as `status=N` (or `error N`), in our words.
IB_STATUS: dict[int, str] = {
    1: "local length error",
    2: "local QP operation error",
    4: "local protection error",
    5: "work request flushed",
    9: "remote invalid request",
    10: "remote access error",
    11: "remote operation error",
    12: "transport retry counter exceeded (the peer's HCA stopped answering)",
    13: "RNR retry counter exceeded",
}
_IB_COMPLETION_RE = rx(r"NET/IB\w{0,6}\s?: Got completion from peer \S{1,80} with (?:status=|error )(\d{1,3})")
_IB_OTHER_RE = rx(
    r"NET/IB\w{0,6}\s?: .{0,120}(?:failed|error)|\bibv_\w{1,40}\b.{0,80}(?:failed|error)"
    r"|IBV_WC_\w{1,40}_ERR|transport retry counter exceeded"
)
_OFI_RE = rx(r"NET/OFI .{0,200}(?:completed with error|RC: -?\d{1,4}|failed)|efa:\w{1,20}:.{0,80}<warn>.{0,40}err:")
_SOCKET_RE = rx(
    r"NET/Socket\s?: .{0,120}(?:failed|error)"
    r"|socketProgress(?:Opt)?: (?:Call to (?:recv|send) .{0,120} failed|Connection closed by remote peer)"
    r"|\bNet : (?:Call to (?:recv|send) .{0,120} failed|Connection closed by remote peer)"
)
_WATCHDOG_RE = rx(r"watchdog caught collective operation timeout|collective operation timeout")


# Words one of the patterns needs: text without any of them is not read further.
_WORDS = ("net/", "net :", "socketprogress", "ibv_", "retry counter", "efa:")


def match(t: Text, out: Collector) -> None:
    m = t.m
    if not any(word in t.low for word in _WORDS) or _WATCHDOG_RE.search(m):
        return
    completion = _IB_COMPLETION_RE.search(m)
    if completion is not None:
        status = int(completion.group(1))
        says = IB_STATUS.get(status, "completion error")
        out.add(K.NETWORK_FABRIC, reason="NET/IB", note=f"InfiniBand/RoCE status {status}: {says}")
    elif _IB_OTHER_RE.search(m):
        out.add(K.NETWORK_FABRIC, reason="NET/IB", note="InfiniBand/RoCE transport error")
    elif _OFI_RE.search(m):
        out.add(K.NETWORK_FABRIC, reason="NET/OFI", note="EFA (libfabric) transport error")
    elif _SOCKET_RE.search(m):
        out.add(
            K.NETWORK_FABRIC,
            reason="NET/Socket",
            note="NCCL socket transport error",
            ambiguous=True,  # also what a peer's death looks like
        )


EXAMPLES = (
    example(
        None,
        "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
        "172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid "
        "::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221",
        K.NETWORK_FABRIC,
        reason="NET/IB",
        note="InfiniBand/RoCE status 12: transport retry counter exceeded (the peer's HCA stopped answering)",
    ),
    example(
        None,
        "H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
        "fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, vendor err 81 (Send)",
        K.NETWORK_FABRIC,
    ),
    example(
        None,
        "nccl-tests-worker-1:35:89 [5] ofi_process_cq:1039 NCCL WARN NET/OFI Request 0x7fbb944701b8 completed with "
        "error. RC: 20. Error: unknown error. Completed length: 0",
        K.NETWORK_FABRIC,
        reason="NET/OFI",
    ),
    example(
        None,
        "gpu004:2200689:2200706 [3] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer "
        "gpu004.ds-a4-r02.abc.com<55693>",
        K.NETWORK_FABRIC,
        ambiguous=True,
    ),
    example(
        None,
        "socketProgressOpt: Call to recv from 10.44.137.149<33759> failed : Connection reset by peer",
        K.NETWORK_FABRIC,
        reason="NET/Socket",
    ),
    # A collective that timed out, and a rendezvous that could not connect, say nothing about the fabric.
    example(
        None,
        "[rank3]:[E1130 11:25:00.412 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=18231, OpType=ALLREDUCE) ran for 600071 milliseconds before timing out.",
        None,
    ),
    example(None, "torch.distributed.DistNetworkError: Connection reset by peer", None),
    example(None, "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB eth0:10.0.0.7<0>", None),
)

FAMILY = Family(
    name="fabric",
    kinds=frozenset({K.NETWORK_FABRIC}),
    match=match,
    examples=EXAMPLES,
)
