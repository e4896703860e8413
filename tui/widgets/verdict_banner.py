"""The verdict banner at the top of the diagnosis screen: the category (or the outcome and what to do next),
the one-line reason and the recurrence badge, or the running / failed / cancelled state.

Every state is said in words as well as colour (the CSS classes only tint it), so a monochrome terminal or a
pasted screenshot still carries the verdict. All cluster text arrives as plain strings and is placed into
`Text` objects, never into markup.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from core.models.report import Report
from core.report.render import headline

# What each category means, in a few words, next to its name.
CATEGORY_WORDS: dict[str, str] = {
    "CRASH_APP_ERROR": "the application exited with an error",
    "OOM_KILLED": "killed for going over its memory limit",
    "IMAGE_PULL_FAILED": "the container image could not be pulled",
    "INIT_FAILED": "an init container failed",
    "DATASOURCE_MOUNT_FAILED": "a volume or data source could not be mounted",
    "NODE_FAILURE": "the node failed, was drained or evicted the pod",
    "SCHEDULING_POLICY_TERMINATED": "stopped by a scheduling policy or by a user",
    "UNKNOWN": "no signal decides the cause: see the Missing tab",
}
STATES = ("running", "diagnosed", "unknown", "routed", "failed", "cancelled")
_SYMBOL = {"diagnosed": "✗", "unknown": "?", "routed": "→", "failed": "!", "cancelled": "■", "running": "◷"}


def recurrence_badge(report: Report) -> str:
    """`3 in 7d · recurring`, `1 in 24h · one-off`, or `not counted` for a routed-out workload."""
    r = report.recurrence
    if report.outcome != "diagnosed":
        return f"recurrence not counted ({r.lookback})"
    kind = "recurring" if r.recurring else "one-off" if r.count == 1 else "none counted"
    return f"{r.count} in {r.lookback} · {kind}"


def workload_label(name: str | None, project: str | None, fallback: str = "workload") -> str:
    shown = name or fallback
    return f"{shown} (project {project})" if project else shown


class VerdictBanner(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.state = "running"
        self.compact = False
        self._plain = ""
        self._text = Text()

    @property
    def plain(self) -> str:
        """The banner's text without styles (what a reader sees), for tests and the terminal run."""
        return self._plain

    def set_compact(self, compact: bool) -> None:
        """On short terminals every line is cut to one row (the Evidence tab repeats the full reason)."""
        if compact != self.compact:
            self.compact = compact
            self._paint()

    def _show(self, state: str, text: Text) -> None:
        self.state = state
        for name in STATES:
            self.set_class(name == state, f"-{name}")
        self._plain = text.plain
        self._text = text
        self._paint()

    def _paint(self) -> None:
        if not self.compact:
            self.update(self._text)
            return
        lines = self._text.split("\n")
        for line in lines:
            line.no_wrap = True
            line.overflow = "ellipsis"
        self.update(Group(*lines))

    def show_running(self, workload: str, lookback: str, step: str | None = None) -> None:
        text = Text(f"{_SYMBOL['running']} Diagnosing ", style="bold")
        text.append(workload, style="bold")
        text.append(f" · lookback {lookback}")
        text.append("\n" + (step or "Starting…"))
        text.append("\nesc cancels and goes back")
        self._show("running", text)

    def show_report(self, report: Report) -> None:
        if report.outcome == "diagnosed":
            category = report.category or "UNKNOWN"
            state = "unknown" if category == "UNKNOWN" else "diagnosed"
            text = Text(f"{_SYMBOL[state]} {category}", style="bold")
            text.append(f" — {CATEGORY_WORDS.get(category, '')}")
        else:
            state = "routed"
            text = Text(f"{_SYMBOL[state]} {headline(report)}", style="bold")
        w = report.workload
        text.append("\n")
        text.append(f" {recurrence_badge(report)} ", style="reverse")
        text.append(" " + workload_label(w.name, w.project, w.id or "workload"))
        if w.phase:
            text.append(f" · phase {w.phase}")
        text.append("\nReason: ", style="bold")
        text.append(report.reason or "not stated")
        nxt = report.next_action or (report.recommendations[0] if report.recommendations else None)
        if nxt:
            text.append("\nNext: ", style="bold")
            text.append(nxt)
        self._show(state, text)

    def show_failure(self, title: str, detail: str, hint: str) -> None:
        text = Text(f"{_SYMBOL['failed']} Diagnosis failed: {title}", style="bold")
        text.append("\n" + detail)
        text.append("\nWhat to do: ", style="bold")
        text.append(hint)
        self._show("failed", text)

    def show_cancelled(self, workload: str) -> None:
        text = Text(f"{_SYMBOL['cancelled']} Diagnosis of ", style="bold")
        text.append(workload, style="bold")
        text.append(" cancelled", style="bold")
        text.append("\nPress r to run it again.")
        self._show("cancelled", text)
