"""The NVIDIA driver's Xid numbers: what each means, and whether it says the GPU (or its link) is at fault or
the application made the GPU fault.

The kernel driver logs `NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.`; node problem
detectors copy such lines into node events and conditions, and some jobs print them. NVIDIA's Xid catalogue and
its Kubernetes device plugin treat 13, 31, 43, 45 and 68 as application errors (an illegal address, a channel
reset after it, the cleanup that follows): the GPU stays healthy, so they raise no finding. Every other Xid is
the GPU's, its memory's, its firmware's or its interconnect's, and is for the administrator. The descriptions
are our own short words for NVIDIA's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

APPLICATION_XIDS: frozenset[int] = frozenset({13, 31, 43, 45, 68})
# Informational only: a change of the recommended recovery action, not a fault of its own.
INFORMATIONAL_XIDS: frozenset[int] = frozenset({154})

DESCRIPTIONS: dict[int, str] = {
    8: "the GPU stopped processing (a timeout)",
    13: "graphics engine exception, usually an illegal memory access in the application",
    31: "GPU memory page fault, usually an illegal address in the application",
    32: "invalid or corrupted push buffer stream",
    38: "driver firmware error",
    43: "GPU stopped processing: a channel was reset after an application fault",
    44: "graphics engine fault during a context switch",
    45: "preemptive cleanup after earlier errors",
    48: "double-bit (uncorrectable) ECC error in GPU memory",
    61: "internal micro-controller breakpoint or warning",
    62: "internal micro-controller halt",
    63: "ECC page retirement or row remapping recorded: the GPU needs a reset to apply it",
    64: "ECC page retirement or row remapping failed",
    68: "video decoder exception",
    69: "graphics engine class error",
    74: "NVLink error",
    79: "the GPU has fallen off the bus (PCIe): the driver can no longer reach it",
    92: "high rate of single-bit (corrected) ECC errors",
    94: "contained uncorrectable ECC error: processes using that memory were stopped",
    95: "uncontained uncorrectable ECC error: every process on the GPU is affected",
    109: "context switch timeout",
    119: "GSP (GPU system processor) RPC timeout",
    120: "GSP (GPU system processor) error",
    121: "C2C (chip-to-chip) link error",
    140: "unrecovered ECC error",
    143: "GPU initialization failure",
    144: "NVLink error (SAW)",
    145: "NVLink error (RLW)",
    146: "NVLink error (TLW)",
    147: "NVLink error (TREX)",
    148: "NVLink error (NVLPW_CTRL)",
    149: "NVLink error (NETIR)",
    150: "NVLink error (MSE)",
    154: "the GPU's recommended recovery action changed",
}

# `NVRM: Xid (PCI:0000:3b:00): 79, ...`, `NVRM: Xid (0000:01:00): 3, ...`; node problem detectors' reasons such
# as `NvidiaXID79Error` or `XID 48`; the device plugin's `XidCriticalError: Xid=79 on Device=GPU-...`.
XID_LINE_RE = re.compile(
    r"\bXid\s{0,4}\((?:PCI:)?(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-9a-fA-F])?)\):\s{0,4}"
    r"(?P<xid>\d{1,3})\b",
    re.IGNORECASE,
)
XID_TOKEN_RE = re.compile(r"(?:\bxid|(?-i:XID))[\s_=:-]{0,3}(?P<xid>\d{1,3})(?!\d)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class XidEvent:
    xid: int
    pci: str | None  # the GPU's PCI address, when the line names it

    @property
    def application(self) -> bool:
        return self.xid in APPLICATION_XIDS or self.xid in INFORMATIONAL_XIDS

    @property
    def description(self) -> str:
        return DESCRIPTIONS.get(self.xid, "see NVIDIA's Xid catalogue")

    @property
    def label(self) -> str:
        return f"Xid {self.xid}"


def xid_in(text: str) -> XidEvent | None:
    """The Xid a text reports: the driver's own line first, else an Xid token (a detector's reason)."""
    line = XID_LINE_RE.search(text)
    if line is not None:
        return XidEvent(int(line["xid"]), line["pci"])
    token = XID_TOKEN_RE.search(text)
    if token is not None:
        return XidEvent(int(token["xid"]), None)
    return None
