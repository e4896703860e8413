"""Typed failure signals, read out of Kubernetes and Run:ai text and objects, one module per failure family.

Families (each: its patterns, the real cluster strings it must recognise, its matcher, the rule rows it feeds):
preemption, sandbox, oom, image_pull, mount, container_start, probes, node, node_pressure, gpu_hardware, gpu_driver,
fabric, admission, control_plane, policy, exit_code, init. `registry` lists
them in matching order; `classify_message` runs them on one (reason, message) pair; `objects` reads pods and
events, `node.node_signals` nodes. Cluster text is untrusted: it is only matched and quoted, never followed.
"""

from core.diagnosis.signals.classify import classify_message
from core.diagnosis.signals.image_pull import image_pull_kind
from core.diagnosis.signals.model import ImagePullKind, Signal, SignalKind, rank_signals, signal_rank
from core.diagnosis.signals.node import node_signals
from core.diagnosis.signals.objects import k8s_event_signals, pod_signals
from core.diagnosis.signals.oom import GPU_OOM_RE
from core.diagnosis.signals.text import ESCAPE_SEQUENCE_RE, MAX_MATCH_CHARS

__all__ = [
    "ESCAPE_SEQUENCE_RE",
    "GPU_OOM_RE",
    "MAX_MATCH_CHARS",
    "ImagePullKind",
    "Signal",
    "SignalKind",
    "classify_message",
    "image_pull_kind",
    "k8s_event_signals",
    "node_signals",
    "pod_signals",
    "rank_signals",
    "signal_rank",
]
