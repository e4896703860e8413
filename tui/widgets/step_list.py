"""The seed's five steps with their state as the engine works through them, and what each one cost.

A step is pending until the engine starts it, running until it finishes, then done (with its reads and
time) or skipped (with why). Reads are counted live from ReadFinished while a step runs; StepFinished's
own count replaces them when it arrives, because that is the engine's authoritative tally.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from core.diagnosis.progress import STEP_TITLES

# The step each read belongs to, by its source (the engine makes these reads in these steps).
STEP_OF_SOURCE: dict[str, int] = {
    "list_workloads": 1,
    "get_workload_status": 1,
    "get_workload_spec": 2,
    "get_workload_pods": 2,
    "get_workload_history": 3,
    "get_workload_metrics": 4,
    "kubectl describe pod": 4,
    "kubectl logs --previous": 4,
    "kubectl logs": 4,
    "kubectl get events": 4,
    "kubectl describe node": 4,
}
_LOOK = {
    "pending": ("○", "dim"),
    "running": ("◐", "bold"),
    "done": ("✓", ""),
    "skipped": ("–", "dim"),
    "failed": ("✗", "bold"),
    "cancelled": ("■", "dim"),
}


@dataclass
class StepState:
    step: int
    title: str
    state: str = "pending"
    reads: int = 0
    failed_reads: int = 0
    seconds: float | None = None
    why: str | None = None

    def cost(self) -> str:
        if self.state == "pending":
            return ""
        reads = f"{self.reads} read{'s' if self.reads != 1 else ''}"
        if self.failed_reads:
            reads += f" ({self.failed_reads} failed)"
        if self.seconds is None:
            return reads
        return f"{reads} · {self.seconds * 1000:.0f} ms"


LABEL_WIDTH = 12  # "◷ 4 running", "– 4 skipped"
COST_WIDTH = 20  # "13 reads in 1234 ms" and a step's "5 reads · 1234 ms", whole


def full_width() -> int:
    """The columns the step table needs for every title and cost whole, its padding included."""
    return 2 + LABEL_WIDTH + 1 + max(len(title) for title in STEP_TITLES.values()) + 1 + COST_WIDTH


class StepList(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.steps: dict[int, StepState] = {}
        self.compact = False
        self.total: tuple[int, float] | None = None
        self.reset()

    def reset(self) -> None:
        self.steps = {n: StepState(n, title) for n, title in STEP_TITLES.items()}
        self.total = None
        self._refresh_table()

    def set_compact(self, compact: bool) -> None:
        """One line instead of a table, for short terminals (the full table shows from 36 rows up)."""
        if compact != self.compact:
            self.compact = compact
            self._refresh_table()

    def set_total(self, reads: int, seconds: float) -> None:
        self.total = (reads, seconds)
        self._refresh_table()

    def total_text(self) -> str:
        if self.total is None:
            return ""
        reads, seconds = self.total
        return f"{reads} read{'s' if reads != 1 else ''} in {seconds * 1000:.0f} ms"

    def start(self, step: int, title: str) -> None:
        state = self._get(step, title)
        if state.state == "pending":
            state.state = "running"
        self._refresh_table()

    def read(self, source: str, ok: bool, step: int | None = None) -> None:
        step = step if step is not None else STEP_OF_SOURCE.get(source)
        if step is None or step not in self.steps:
            return
        state = self.steps[step]
        if state.state in ("pending", "running"):
            state.reads += 1
            state.failed_reads += 0 if ok else 1
            self._refresh_table()

    def finish(self, step: int, reads: int, seconds: float, skipped: str | None) -> None:
        state = self._get(step, STEP_TITLES.get(step, f"Step {step}"))
        state.reads = reads
        state.seconds = seconds
        state.state = "skipped" if skipped else "done"
        state.why = skipped
        self._refresh_table()

    def close_open(self, pending: str, running: str | None, why: str) -> None:
        """End the steps a run left open: never-started ones become `pending`, unfinished ones `running`
        (e.g. "skipped" and None after a route-out; "cancelled" and "cancelled" after esc)."""
        for state in self.steps.values():
            if state.state == "pending":
                state.state, state.why = pending, why
            elif state.state == "running" and running is not None:
                state.state, state.why = running, why
        self._refresh_table()

    def route_out(self, outcome: str) -> str:
        """A route-out ends the run where it was decided: the step that was running is done there (its reads
        kept), the steps never started are skipped. Returns why, naming that step."""
        started = [s.step for s in self.steps.values() if s.state != "pending"]
        at = max(started, default=1)
        why = f"routed out at Step {at} ({outcome}): nothing past Step {at} is read"
        for state in self.steps.values():
            if state.state == "running":
                state.state, state.why = "done", f"routed out here ({outcome})"
            elif state.state == "pending":
                state.state, state.why = "skipped", why
        self._refresh_table()
        return why

    def _get(self, step: int, title: str) -> StepState:
        if step not in self.steps:
            self.steps[step] = StepState(step, title)
        return self.steps[step]

    @property
    def plain(self) -> str:
        lines = [
            f"{s.step} {s.state} {s.title} {s.cost()} {s.why or ''}".rstrip() for s in self.steps.values()
        ]
        return "\n".join([*lines, self.total_text()] if self.total else lines)

    def _compact_line(self) -> Text:
        text = Text("Steps", style="bold", no_wrap=True, overflow="ellipsis")
        if self.total is not None:
            text.append(f" ({self.total_text()})", style="dim")
        # Neighbouring steps in the same state share one label ("-2-5 skipped") so the line fits 80 columns.
        groups: list[list[StepState]] = []
        for s in self.steps.values():
            if groups and groups[-1][-1].state == s.state and groups[-1][-1].step == s.step - 1:
                groups[-1].append(s)
            else:
                groups.append([s])
        for group in groups:
            first, last = group[0], group[-1]
            symbol, style = _LOOK.get(first.state, ("?", ""))
            steps = f"{first.step}" if first is last else f"{first.step}-{last.step}"
            text.append("  ")
            text.append(f"{symbol}{steps} {first.state}", style=style)
        return text

    def _refresh_table(self) -> None:
        if self.compact:
            self.update(self._compact_line())
            return
        table = Table.grid(padding=(0, 1), expand=True)
        table.add_column(no_wrap=True, width=LABEL_WIDTH)
        table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
        table.add_column(no_wrap=True, justify="right")
        for s in self.steps.values():
            symbol, style = _LOOK.get(s.state, ("?", ""))
            label = Text(f"{symbol} {s.step} {s.state}", style=style)
            title = Text(s.title, style=style)
            if s.why:
                title.append(f" — {s.why}", style="italic")
            table.add_row(label, title, Text(s.cost(), style="dim" if s.state != "done" else ""))
        if self.total is not None:
            table.add_row(Text(""), Text("total", style="dim"), Text(self.total_text(), style="dim"))
        self.update(table)
