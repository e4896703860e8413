"""GPU hardware: an Xid the GPU is to blame for, an uncorrectable ECC (double-bit) error, a failed row remap, a
GPU fallen off the bus or lost, an NVLink error. Evidence appears in a log tail (the CUDA runtime's
`CUDA error: uncorrectable ECC error encountered`, or kernel lines a job or a detector copied), a container's
termination message, the device plugin's words in a pod status, node events and node conditions set by node
problem detectors.

None of this decides a category (the seed's taxonomy does): it raises a `gpu-hardware` finding for the
administrator. An Xid the application itself causes (13, 31, 43, 45, 68: see signals/xid.py) is not the
GPU's fault, and a CUDA out-of-memory is the application's too: neither gives a signal here.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, rx
from core.diagnosis.signals.xid import xid_in

K = SignalKind

# (pattern, what it says): the first that matches names the fault.
_FAULTS = (
    (rx(r"fallen off the bus"), "the GPU has fallen off the bus"),
    (rx(r"\bGPU is lost\b"), "the GPU is lost: the driver can no longer reach it"),
    (rx(r"uncorrectable ECC error|ECCUncorrectable|\bECC_UNCORRECTABLE\b"), "uncorrectable ECC error in GPU memory"),
    (rx(r"double[\s-]bit (?:ECC )?error|\(DBE\)"), "double-bit (uncorrectable) ECC error in GPU memory"),
    (rx(r"row[\s-]remap(?:ping|per)? (?:failure|failed|error)"), "GPU memory row remapping failed"),
    (rx(r"uncorrectable NVLink error|NVLink: fatal error|NvlinkUncorrectable"), "NVLink error"),
    (
        rx(r"Unable to determine the device handle for GPU\s?\S{1,40}: (?:Unknown Error|GPU is lost)"),
        "nvidia-smi cannot reach the GPU",
    ),
)


# Words one of the patterns needs: text without any of them is not read further.
_WORDS = ("xid", "bus", "gpu", "ecc", "dbe", "double", "remap", "nvlink", "device handle")


def match(t: Text, out: Collector) -> None:
    if not any(word in t.low for word in _WORDS):
        return
    xid = xid_in(t.both)
    if xid is not None:
        if not xid.application:
            out.add(
                K.GPU_HARDWARE,
                reason=xid.label,
                note=xid.description,
                resource=f"PCI:{xid.pci}" if xid.pci else None,
            )
        return
    for pattern, says in _FAULTS:
        if pattern.search(t.both):
            out.add(K.GPU_HARDWARE, reason=None, note=says)
            return


EXAMPLES = (
    example(
        None,
        "NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
        K.GPU_HARDWARE,
        reason="Xid 79",
        resource="PCI:0000:a1:00",
    ),
    example(
        None,
        "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to "
        "activate.",
        K.GPU_HARDWARE,
        reason="Xid 63",
    ),
    example(
        None,
        "NVRM: Xid (PCI:0000:b1:00): 48, pid=2211, name=python, An uncorrectable double bit error (DBE) has been "
        "detected on GPU in the framebuffer at partition 0, subpartition 0.",
        K.GPU_HARDWARE,
        reason="Xid 48",
    ),
    example(None, "XID 64 Dynamic Page Retirement: Fatal error, unable to retire page (0x1234)", K.GPU_HARDWARE),
    example(None, "RuntimeError: CUDA error: uncorrectable ECC error encountered", K.GPU_HARDWARE),
    example(
        None,
        "  what():  [PG 0 Rank 3] Process group watchdog thread terminated with exception: CUDA error: "
        "uncorrectable ECC error encountered",
        K.GPU_HARDWARE,
    ),
    example(
        "UnexpectedAdmissionError",
        "Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with err: rpc error: code = "
        "Unknown desc = Unable to retrieve list of available devices: error creating nvml.Device 5: nvml: GPU is "
        "lost, which is unexpected",
        K.GPU_HARDWARE,
    ),
    example(
        None,
        "Unable to determine the device handle for GPU 0000:C1:00.0: GPU is lost.  Reboot the system to recover "
        "this GPU",
        K.GPU_HARDWARE,
    ),
    example("NvidiaXID74Error", "NVLink error detected on GPU 3", K.GPU_HARDWARE, reason="Xid 74"),
    # The application's own GPU faults and a GPU out-of-memory are not the hardware's.
    example(
        None,
        "NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=python, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): "
        "Out Of Range Address",
        None,
    ),
    example(None, "NVRM: Xid (PCI:0000:3b:00): 31, pid=4242, name=python, Ch 00000008, intr 00000000. MMU Fault", None),
    example(None, "RuntimeError: CUDA error: an illegal memory access was encountered", None),
    example(None, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", K.GPU_OOM),
)

FAMILY = Family(
    name="gpu-hardware",
    kinds=frozenset({K.GPU_HARDWARE}),
    match=match,
    examples=EXAMPLES,
)
