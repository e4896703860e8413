"""The GPU software stack under the workload: the NVIDIA kernel driver, its user-space libraries (NVML), the
container toolkit's prestart hook, and the device plugin that hands GPUs to pods.

Real wording: `Failed to initialize NVML: Driver/library version mismatch` (a driver upgraded under running
libraries, until the node reboots), `nvidia-container-cli: initialization error: nvml error: driver not loaded`
(in a StartError's message or a kubelet `Failed` event), `NVIDIA-SMI has failed because it couldn't communicate
with the NVIDIA driver`, `CUDA driver version is insufficient for CUDA runtime version` (the node's driver is
older than the image's CUDA), and a pod refused by the kubelet with reason `UnexpectedAdmissionError`:
`Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, Available: 0,
which is unexpected` (the device plugin lost its GPUs). A `gpu-driver-runtime` finding for the administrator;
no category. "no CUDA-capable device is detected" is left alone: a pod that asked for no GPU says it too.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, rx

K = SignalKind

_FAULTS = (
    (rx(r"driver/library version mismatch"), "NVIDIA driver/library version mismatch (the driver changed under it)"),
    (
        rx(r"nvidia-container-cli(?:\.real)?: [a-z ]{0,40}error"),
        "the NVIDIA container toolkit could not set up the GPU",
    ),
    (
        rx(r"failed to initialize NVML|\bnvml error"),
        "NVML (the NVIDIA management library) could not be initialised",
    ),
    (
        rx(r"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"),
        "nvidia-smi cannot talk to the NVIDIA driver",
    ),
    (
        rx(r"CUDA driver version is insufficient|cudaErrorInsufficientDriver|unsupported display driver / cuda driver"),
        "the node's NVIDIA driver is older than the CUDA version the image needs",
    ),
    (rx(r"\bdriver not loaded\b|NVIDIA kernel module (?:is )?not loaded"), "the NVIDIA kernel driver is not loaded"),
)
# The kubelet's device-manager refusal; only a GPU device's is this family's.
_ALLOCATE_RE = rx(
    r"allocate failed due to .{0,300}(?:nvidia\.com/|nvml|device plugin)|no healthy devices present"
    r"|(?:device plugin|nvidia-device-plugin).{0,80}(?:unhealthy|not registered|failed)"
)


# Words one of the patterns needs: text without any of them is not read further.
_WORDS = ("nvml", "nvidia", "driver", "allocate", "device plugin", "devices present", "unexpectedadmission")


def match(t: Text, out: Collector) -> None:
    if not any(word in t.low for word in _WORDS):
        return
    for pattern, says in _FAULTS:
        if pattern.search(t.both):
            out.add(K.GPU_DRIVER, reason=t.reason or None, note=says)
            return
    if _ALLOCATE_RE.search(t.m) or (t.r == "unexpectedadmissionerror" and "gpu" in t.m.lower()):
        out.add(K.GPU_DRIVER, reason=t.reason or None, note="the GPU device plugin could not allocate the GPUs")


EXAMPLES = (
    example(None, "Failed to initialize NVML: Driver/library version mismatch", K.GPU_DRIVER),
    example(
        "StartError",
        "failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create "
        "failed: unable to start container process: error during container init: error running hook #0: error "
        "running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: "
        "initialization error: nvml error: driver not loaded: unknown",
        K.START_ERROR,
    ),
    example(
        None,
        "stderr: nvidia-container-cli: initialization error: driver rpc error: failed to process request: unknown.",
        K.GPU_DRIVER,
    ),
    example(
        None,
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
        "NVIDIA driver is installed and running.",
        K.GPU_DRIVER,
    ),
    example(
        None,
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
        "driver ... CUDA driver version is insufficient for CUDA runtime version",
        K.GPU_DRIVER,
    ),
    example(
        "UnexpectedAdmissionError",
        "Pod Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 1, "
        "Available: 0, which is unexpected",
        K.GPU_DRIVER,
    ),
    example(
        "UnexpectedAdmissionError",
        "Allocate failed due to rpc error: code = Unavailable desc = error reading from server: EOF, which is "
        "unexpected",
        None,
    ),
    # A pod that asked for no GPU, a version banner, and a device plugin that merely restarted are not proof.
    example(None, "RuntimeError: No CUDA GPUs are available", None),
    example(None, "NVML library version: 550.90.07", None),
    example(None, "CUDA error: no CUDA-capable device is detected", None),
)

FAMILY = Family(
    name="gpu-driver",
    kinds=frozenset({K.GPU_DRIVER}),
    match=match,
    examples=EXAMPLES,
)
