"""Out of memory: the kubelet's OOMKilled, the kernel's OOM kill seen only on the node, and a GPU OOM.

OOMKilled (normally with exit 137) is the seed's direct OOM signal. With cgroup v2 the kernel may kill one
process of the container; the only evidence is then a node event `OOMKilling: Memory cgroup out of memory:
Killed process N (python)`, attributed to the container by time and node. A CUDA/PyTorch/TensorFlow/JAX
out-of-memory is the application's own error (it usually exits 1): CRASH_APP_ERROR, noted as a GPU OOM.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, canonical_reason, rx

K = SignalKind

GPU_OOM_RE = rx(
    r"cuda out of memory|cuda error: out of memory|cublas_status_alloc_failed|cudnn_status_alloc_failed"
    r"|cudaErrorMemoryAllocation|torch\.(?:cuda\.)?OutOfMemoryError|(?<![\w.])OutOfMemoryError"
    r"|oom when allocating tensor|resource_exhausted: out of memory"
)
"""GPU out-of-memory wording (PyTorch, cuBLAS/cuDNN, TensorFlow, JAX); not java.lang.OutOfMemoryError."""

_OOM_KILLED_RE = rx(r"\boom[\s_-]?killed\b")
_NODE_OOM_RE = rx(
    r"memory cgroup out of memory|system oom encountered|out of memory: kill(?:ed)? process"
    r"|\bkilled process \d{1,10} \("
)
_KILLED_PROCESS_RE = rx(r"killed process (\d{1,10}) \(([^)\n]{1,64})\)")


def match(t: Text, out: Collector) -> None:
    if t.r in {"oomkilling", "systemoom"} or _NODE_OOM_RE.search(t.m):
        process = _KILLED_PROCESS_RE.search(t.m)
        out.add(
            K.NODE_OOM_KILLING,
            reason=canonical_reason(t.r) or "OOMKilling",
            resource="memory",
            note=f"process {process.group(2)} (pid {process.group(1)})" if process else None,
        )
    if t.r == "oomkilled" or _OOM_KILLED_RE.search(t.both):
        out.add(K.OOM_KILLED, reason="OOMKilled", exit_code=t.exit_code, container=t.container, resource="memory")
    if GPU_OOM_RE.search(t.m):
        out.add(K.GPU_OOM, container=t.container, resource="gpu-memory")


EXAMPLES = (
    example("OOMKilled", "Container main was OOM killed", K.OOM_KILLED),
    example(None, "Workload failed: pod whisper-ft-0-0 container main terminated (OOMKilled)", K.OOM_KILLED),
    example(
        None,
        "pod p-0 container trainer terminated (OOMKilled), exit code 137",
        K.OOM_KILLED,
        exit_code=137,
        container="trainer",
    ),
    example(
        "OOMKilling",
        "Memory cgroup out of memory: Killed process 4242 (python)",
        K.NODE_OOM_KILLING,
        note="process python (pid 4242)",
    ),
    example("SystemOOM", "System OOM encountered, victim process: python, pid: 4242", K.NODE_OOM_KILLING),
    example(None, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", K.GPU_OOM, resource="gpu-memory"),
    example(None, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB", K.GPU_OOM),
    example(
        None, "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor", K.GPU_OOM
    ),
    example(None, 'Exception in thread "main" java.lang.OutOfMemoryError: Java heap space', None),
)

FAMILY = Family(
    name="oom",
    kinds=frozenset({K.OOM_KILLED, K.NODE_OOM_KILLING, K.GPU_OOM}),
    match=match,
    examples=EXAMPLES,
    rows={K.OOM_KILLED: "oom-killed", K.NODE_OOM_KILLING: "node-oom-kill", K.GPU_OOM: "app-exit"},
)
