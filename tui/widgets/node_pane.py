"""Tier 2: the node the pod ran on, as `kubectl describe node` shows it: conditions, taints, cordon. Read
only on node-failure evidence (the seed's gate), so "not read: why" is the usual state and says so."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from core.diagnosis.progress import NodeFound
from core.diagnosis.signals.node_health import failing
from tui.widgets.pane_state import Tier2Pane


def _since(at: datetime | None) -> str:
    if at is None:
        return "unknown"
    moment = at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%m-%d %H:%M:%S")


def unhealthy(kind: str, status: str) -> bool:
    """The diagnosis's own polarity (a `...Ready` type should be True, a problem type False, so a detector's
    `AcceleratedHardwareReady=False` is the fault), and a condition nobody can vouch for (Unknown) is no better."""
    return failing(kind, status) or status == "Unknown"


def _reason_message(reason: str | None, message: str | None) -> Text:
    line = Text(reason or "")
    if message:
        line.append((" · " if reason else "") + message)
    return line


def scheduling_state(node: NodeFound) -> str:
    """Whether new pods can land on the node, from what the node says: cordoned, not Ready, or tainted so that
    only pods that tolerate it land; `schedulable` only when none of these holds."""
    said = []
    if node.unschedulable:
        said.append("cordoned (unschedulable)")
    ready = next((c.status for c in node.conditions if c.type == "Ready"), None)
    if ready is not None and ready != "True":
        # As kubectl shows it: NotReady, whether the kubelet said so (False) or stopped reporting (Unknown).
        said.append("NotReady" if ready == "False" else f"NotReady (Ready {ready}: kubelet not reporting)")
    effects = sorted({t.rsplit(":", 1)[-1] for t in node.taints} & {"NoSchedule", "NoExecute"})
    if effects:
        said.append(f"tainted {', '.join(effects)} (see Taints)")
    return " · ".join(said) if said else "schedulable"


class NodePane(Tier2Pane, VerticalScroll):
    noun = "Node"

    node: NodeFound | None

    def _clear(self) -> None:
        self.node = None

    def show(self, node: NodeFound) -> None:
        self.node, self.state = node, "found"
        self._draw()

    @property
    def plain(self) -> str:
        if self.state != "found" or self.node is None:
            return self.gap_plain()
        n = self.node
        lines = [f"node {n.name} unschedulable={n.unschedulable}"]
        lines += [f"{c.type}={c.status} {c.reason or ''} {c.message or ''}".rstrip() for c in n.conditions]
        lines += [f"taint {t}" for t in n.taints]
        return "\n".join(lines)

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        body = self.query_one(".pane--body", Static)
        n = self.node
        if self.state != "found" or n is None:
            body.update(self.gap_text())
            return
        head = Text(f"Node {n.name}", style="bold")
        head.append(" · " + scheduling_state(n))
        parts: list[Text | Table] = [head]
        table = Table(expand=True, box=None, padding=(0, 1), show_edge=False, header_style="bold")
        table.add_column("", no_wrap=True)
        table.add_column("condition", no_wrap=True)
        table.add_column("status", no_wrap=True)
        table.add_column("since", no_wrap=True)
        # Reason and message share the one flexible column: beside four fixed ones at 80 columns, a message
        # column of its own was squeezed to one letter a line.
        table.add_column("reason · message", ratio=1, min_width=16, overflow="fold")
        for c in n.conditions:
            bad = unhealthy(c.type, c.status)
            table.add_row(
                Text("✗" if bad else "✓", style="bold" if bad else ""),
                Text(c.type),
                Text(c.status, style="bold" if bad else ""),
                Text(_since(c.since)),
                _reason_message(c.reason, c.message),
            )
        parts.append(table if n.conditions else Text("The node reports no conditions.", style="italic"))
        parts.append(Text("Taints: " + (", ".join(n.taints) if n.taints else "none")))
        body.update(Group(*parts))
