"""The command line's part in delivering a watch's failures: its words and its streams, wired to the deliveries.

Where each failure goes, and what each destination already has, is core.notify.deliveries (keyed opaquely); a
failure as the deliveries take it is core.triage.watched, rendered by core.triage.entry_render and, for a storm,
core.triage.chat_storm. What is said here is the command line's: the command a post names to print the whole
report (or a node's incident report, for a storm), the webhooks as the start line names them, and stdout and
stderr.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Sequence
from typing import TextIO

from core.notify.deliveries import Deliveries, PostTarget
from core.notify.ledger import Ledger
from core.notify.state_file import StateFile
from core.notify.storms import Grouping
from core.notify.webhook import where
from core.triage.chat_storm import storm_text
from core.triage.storm_cause import Cause
from tui.commands.headless import say, write_out
from tui.commands.start import StartOptions


def deliveries_for(
    ledger: Ledger,
    state: StateFile | None,
    out: TextIO,
    err: TextIO,
    prog: str,
    *,
    grouping: Grouping | None = None,
    wall: Callable[[], float] = time.time,
) -> Deliveries:
    """The deliveries of one watch: printing to `out`, saying to `err` as `prog`, storms written for chats."""
    return Deliveries(ledger, state, lambda text: write_out(out, text), lambda text: say(err, f"{prog}: {text}"),
                      storm_text, grouping if grouping is not None else Grouping(), wall)


def _tenant_words(options: StartOptions) -> list[str]:
    tenant = {"demo": ["--demo"], "case": ["--case", str(options.case_path)]}.get(options.mode)
    if tenant is None:
        tenant = ["--base-url", options.base_url] if options.base_url else []
    return tenant


def _live_demo(options: StartOptions) -> bool:
    return options.mode == "demo" and options.live is not None


def diagnose_command(options: StartOptions, cluster_id: str, workload_id: str, lookback: str) -> str:
    """The command that prints the whole report of one workload, for the chat message's last line."""
    if _live_demo(options):
        return "the watch's own output (a live demo cannot be read again by another command)"
    extra = [] if lookback == "24h" else ["--lookback", lookback]
    words = ["runai-triage", "diagnose", *_tenant_words(options), "--cluster-id", cluster_id,
             "--workload-id", workload_id, *extra]
    return shlex.join(words)


def storm_command(options: StartOptions, cluster_id: str, cause: Cause, first: str) -> str:
    """What a storm's first post says to run: a node's incident report (`nodes --node`), else the whole report
    of its first failure (`first`, the command diagnose_command wrote)."""
    if cause.kind != "node" or _live_demo(options):
        return first
    return shlex.join(["runai-triage", "nodes", *_tenant_words(options), "--cluster-id", cluster_id,
                       "--node", cause.subject, "--format", "markdown"])


def describe_targets(targets: Sequence[PostTarget]) -> str:
    parts = []
    for t in targets:
        how = t.dialect if t.said else f"{t.dialect} (its host does not say; --post-format to choose)"
        parts.append(f"{where(t.url)} as {how}")
    return ", ".join(parts)
