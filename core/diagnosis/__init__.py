"""The diagnosis: the seed's workflow (engine, orchestrator, steps/), signal families (signals/), the rule table,
and the pieces they share: exit-code meanings, kubectl's STATUS, the explaining log line. See ARCHITECTURE.md."""

from core.diagnosis.exit_codes import ExitMeaning, exit_code_meaning
from core.diagnosis.kubectl_status import kubectl_status
from core.diagnosis.log_scan import LogFinding, LogKind, explaining_line
from core.diagnosis.signals import (
    ImagePullKind,
    Signal,
    SignalKind,
    classify_message,
    k8s_event_signals,
    node_signals,
    pod_signals,
    rank_signals,
    signal_rank,
)

__all__ = [
    "ExitMeaning",
    "ImagePullKind",
    "LogFinding",
    "LogKind",
    "Signal",
    "SignalKind",
    "classify_message",
    "exit_code_meaning",
    "explaining_line",
    "k8s_event_signals",
    "kubectl_status",
    "node_signals",
    "pod_signals",
    "rank_signals",
    "signal_rank",
]
