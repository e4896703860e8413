"""The picker's verdicts, in words: a Verdict cell for the table, and the line that counts the page's verdicts
(`verdicts: 4 OOM_KILLED · 2 IMAGE_PULL_FAILED · 1 UNKNOWN`). Plain `Text`, never markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from core.models.report import CATEGORIES, FINDING_KINDS, OUTCOMES

if TYPE_CHECKING:  # the batch module loads the engine, which the picker's first page never needs
    from core.triage.batch import Verdict

# No dimmed styles: a dimmed cell would vanish under the cursor row's colours in some themes.
WAITING = Text("…")
# The cell of a Pending workload that a finding holds, by the finding's kind.
HELD_BY = {kind: f"pending · {kind}" for kind in FINDING_KINDS}
# What a Verdict cell can say: a category, an outcome (`pending` with the kind of finding that holds it), or
# `no report` (core.triage.batch.verdict_label). The table gives the column this width when the terminal has
# room, so no label is cut there.
VERDICT_WIDTH = max(len(label) for label in (*CATEGORIES, *OUTCOMES, "no report", *HELD_BY.values()))


def verdict_why(verdict: Verdict) -> str:
    """The line that says why, as `scan` and the report lead with it: the decisive line (or the failing log
    line) with its sources; for a routed-out outcome its reason; for no report, why there is none."""
    # Loaded only once a verdict exists: the engine (and the report) is loaded by then.
    from core.report.why import why_line

    report = verdict.report
    if report is None:
        return verdict.failure or "no report"
    line = why_line(report)
    if line is None:
        return report.reason or "no reason stated"
    text, sources = line
    return f"{text} ({', '.join(sources)})"


def verdict_cell(verdict: Verdict) -> Text:
    """A category in bold; an outcome (routed out) or a diagnosis without a report in plain words. A Pending
    workload whose report names what holds it from outside (an admission webhook, a node under pressure) says
    so beside `pending`: the Phase column already says Pending, the cell says why."""
    label = verdict.label
    if label in CATEGORIES:
        return Text(label, style="bold")
    report = verdict.report
    if report is not None and report.outcome == "pending":
        cause = next((f.kind for f in report.findings if f.explains), None)
        if cause is not None:
            return Text(HELD_BY.get(cause, label))
    return Text(label)


class VerdictLine(Static):
    """One line: the first of the given wordings (longest first) that fits the width, else the last one cut."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.plain = ""
        self._wordings: list[str] = [""]

    def show(self, text: str | list[str]) -> None:
        self._wordings = [text] if isinstance(text, str) else list(text) or [""]
        self._paint()

    def on_resize(self) -> None:
        self._paint()

    def _paint(self) -> None:
        width = self.content_region.width
        fits = [w for w in self._wordings if not width or len(w) <= width]
        self.plain = fits[0] if fits else self._wordings[-1]
        self.update(Text(self.plain, no_wrap=True, overflow="ellipsis"))  # one line; the rest is a cut, marked
