"""`classify_message`: every failure signal one (reason, message) pair shows, from every family.

One classifier reads every free-text source the same way: Run:ai events and history events, a workload
`phaseMessage`, Kubernetes pod and node events, and pod status reason/message.
"""

from __future__ import annotations

from core.diagnosis.signals import init
from core.diagnosis.signals.model import Signal, rank_signals
from core.diagnosis.signals.registry import FAMILIES
from core.diagnosis.signals.text import Collector, as_text, detail, prepare


def classify_message(
    reason: str | None,
    message: str | None,
    *,
    source: str | None = None,
    kind: str | None = None,
) -> list[Signal]:
    """Every failure signal one (reason, message) pair shows, at most one per kind, strongest first.

    ``source`` is the reporting component (e.g. "kubelet", "kai-scheduler"); ``kind`` is the involved object's
    kind ("Pod", "Node", "PodGroup"). Routine texts ("Started container", "Pulled image", "Successfully
    assigned", "kubelet has sufficient memory available") give an empty list.
    """
    text = prepare(reason, message, source, kind)
    out = Collector(detail(as_text(reason), as_text(message)), source if text.src else None, text.init)
    for family in FAMILIES:
        if family.match is not None:
            family.match(text, out)
    signals = list(out.items.values())
    if text.init:
        signals = init.convert(signals, text.reason)
    return rank_signals(signals)
