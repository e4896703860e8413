"""The verdict banner at the top of the diagnosis screen: the category (or the outcome and what to do next),
the infrastructure finding when there is one (its own line, with its owner), the reason, the recurrence badge
and the next action; or the running / failed / cancelled state.

Its height is fixed (4 rows on short terminals, 6 from 36 rows up) whatever it says, so nothing below it moves
when the verdict replaces "Diagnosing…". What does not fit is cut with `… v`, and `v` shows it whole.

Every state is said in words and a mark as well as colour (the CSS classes only tint it): a failure is ✗, a
stop by a scheduling policy ■ (nothing is broken), UNKNOWN ?, a success ✓ and a route-out →, so a monochrome
terminal or a pasted screenshot still carries the verdict. All cluster text is placed into `Text` objects,
never into markup.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from core.models.report import Report
from core.report.render import headline
from tui.next_steps import for_the_app
from tui.widgets.findings_line import findings_line

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
STATES = ("running", "diagnosed", "policy", "unknown", "routed", "succeeded", "failed", "cancelled")
_SYMBOL = {
    "diagnosed": "✗",
    "policy": "■",
    "unknown": "?",
    "routed": "→",
    "succeeded": "✓",
    "failed": "!",
    "cancelled": "■",
    "running": "◷",
}
COMPACT_ROWS, TALL_ROWS = 4, 6
MORE = " … v"


def recurrence_badge(report: Report) -> str:
    """`3 in 7d · recurring`, `1 in 24h · one-off`, `1+ in 24h · recurrence unknown` (history not read whole),
    or `not counted` for a routed-out workload."""
    r = report.recurrence
    if report.outcome != "diagnosed":
        return f"recurrence not counted ({r.lookback})"
    return f"{r.counted()} in {r.lookback} · {r.kind()}"


def others_badge(report: Report) -> str | None:
    """`other submissions of this name: 5 failed in 7d`, when others failed: recurrence counts this one only."""
    others = report.recurrence.other_submissions
    if report.outcome != "diagnosed" or others is None or not others.failed:
        return None
    return f"other submissions of this name: {others.failed} failed in {others.lookback}"


def workload_label(name: str | None, project: str | None, fallback: str = "workload") -> str:
    shown = name or fallback
    return f"{shown} (project {project})" if project else shown


def report_state(report: Report) -> str:
    if report.outcome == "succeeded":
        return "succeeded"
    if report.outcome != "diagnosed":
        return "routed"
    category = report.category or "UNKNOWN"
    if category == "UNKNOWN":
        return "unknown"
    return "policy" if category == "SCHEDULING_POLICY_TERMINATED" else "diagnosed"


class VerdictBanner(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.state = "running"
        self.compact = False
        self.cut = False
        self._plain = ""
        # Logical lines, each with how many rows it may wrap onto on a tall terminal.
        self._lines: list[tuple[Text, int]] = []
        # The line left out first when there are more lines than rows (the reason: the Evidence tab opens
        # with it, and `v` shows it), so `Next:` always shows.
        self._spare: int | None = None

    @property
    def plain(self) -> str:
        """The banner's whole text without styles (what `v` shows), for tests and the terminal run."""
        return self._plain

    @property
    def rows(self) -> int:
        return COMPACT_ROWS if self.compact else TALL_ROWS

    def set_compact(self, compact: bool) -> None:
        """Four rows on short terminals, six from 36 rows up (the Evidence tab and `v` repeat it all)."""
        if compact != self.compact:
            self.compact = compact
            self.set_class(compact, "-compact")
            self._paint()

    def on_resize(self) -> None:
        self._paint()

    def _show(self, state: str, lines: list[tuple[Text, int]], spare: int | None = None) -> None:
        self.state = state
        for name in STATES:
            self.set_class(name == state, f"-{name}")
        self._lines = lines
        self._spare = spare
        self._plain = "\n".join(text.plain for text, _ in lines)
        self._paint()

    def _paint(self) -> None:
        width = self.content_region.width
        if not width:
            self.update(Text("\n").join(text for text, _ in self._lines))
            return
        rows: list[Text] = []
        budget = self.rows
        self.cut = False
        lines = self._lines
        if len(lines) > budget and self._spare is not None:
            lines = [line for index, line in enumerate(lines) if index != self._spare]
            self.cut = True
        for index, (text, most) in enumerate(lines):
            left = budget - len(rows) - (len(lines) - index - 1)  # one row kept for each line after it
            allowed = 1 if self.compact else max(1, min(most, left))
            wrapped = list(text.wrap(self.app.console, width)) if allowed > 1 else [text]
            shown = [line.copy() for line in wrapped[:allowed]]
            if len(wrapped) > allowed or shown[-1].cell_len > width:
                self.cut = True
                last = shown[-1]
                last.truncate(max(1, width - len(MORE)))
                last.append(MORE, style="bold")
            rows.extend(shown)
            if len(rows) >= budget:
                break
        self.update(Group(*rows[:budget]))

    def show_running(self, workload: str, lookback: str, step: str | None = None) -> None:
        title = Text(f"{_SYMBOL['running']} Diagnosing ", style="bold")
        title.append(workload, style="bold")
        title.append(f" · lookback {lookback}")
        self._show(
            "running", [(title, 1), (Text(step or "Starting…"), 1), (Text("esc cancels and goes back"), 1)]
        )

    def show_report(self, report: Report) -> None:
        state = report_state(report)
        if report.outcome == "diagnosed":
            category = report.category or "UNKNOWN"
            title = Text(f"{_SYMBOL[state]} {category}", style="bold")
            title.append(f" — {CATEGORY_WORDS.get(category, '')}")
        else:
            title = Text(f"{_SYMBOL[state]} {headline(report)}", style="bold")
        w = report.workload
        badge = Text(f" {recurrence_badge(report)} ", style="reverse")
        others = others_badge(report)
        if others:
            badge.append(f" {others} ", style="bold")
            badge.append("·")
        badge.append(" " + workload_label(w.name, w.project, w.id or "workload"))
        if w.phase:
            badge.append(f" · phase {w.phase}")
        reason = Text("Reason: ", style="bold")
        reason.append(report.reason or "not stated")
        nxt = report.next_action or (report.recommendations[0] if report.recommendations else None)
        finding = findings_line(report)  # a fault under the workload, apart from the category
        lines = [(title, 1), *([(finding, 1)] if finding else []), (badge, 1), (reason, 2 if nxt else 4)]
        if nxt:
            nxt_text = Text("Next: ", style="bold")
            nxt_text.append(for_the_app(report, nxt))
            lines.append((nxt_text, 2))
        self._show(state, lines, spare=len(lines) - 2 if nxt else None)

    def show_failure(self, title: str, detail: str, hint: str) -> None:
        head = Text(f"{_SYMBOL['failed']} Diagnosis failed: {title}", style="bold")
        what = Text("What to do: ", style="bold")
        what.append(hint)
        self._show("failed", [(head, 1), (Text(detail), 3), (what, 2)])

    def show_cancelled(self, workload: str) -> None:
        head = Text(f"{_SYMBOL['cancelled']} Diagnosis of ", style="bold")
        head.append(workload, style="bold")
        head.append(" cancelled", style="bold")
        self._show("cancelled", [(head, 1), (Text("Press r to run it again."), 1)])
