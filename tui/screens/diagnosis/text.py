"""The diagnosis screen's words that are not a pane's: the verdict in full (for the Evidence tab and `v`) and
a run that ended without a report."""

from __future__ import annotations

from rich.text import Text

from core.diagnosis.engine import DiagnosisFailed
from core.models.report import Report
from core.report.render import headline
from core.safety.untrusted import clean
from tui.next_steps import for_the_app
from tui.screens.problem import describe_error
from tui.widgets.findings_line import findings_detail


def verdict_preface(report: Report, *, reason: bool = True) -> Text:
    """The reason (unless `reason` is False: the banner right above says it, and `v` whole) and the
    recommendations in full, below the evidence, with command-line advice said as what to press in the app."""
    text = Text()
    if reason:
        text.append("Reason: ", style="bold")
        text.append(report.reason or "not stated", style="not bold")
    findings = findings_detail(report)
    if findings is not None:
        text.append("\n" if text.plain else "")
        text.append_text(findings)
    if report.recommendations:
        text.append("\n" if text.plain else "")
        text.append("Recommendation", style="bold")
        for line in report.recommendations:
            text.append(f"\n• {for_the_app(report, line)}", style="not bold")
    return text


def verdict_detail(report: Report) -> Text:
    """Everything the banner summarises, whole: outcome, reason, next action, recommendations and notes."""
    text = Text(headline(report), style="bold")
    text.append("\n\n")
    text.append_text(verdict_preface(report))
    # A route-out's next action leads its recommendations already: said once.
    if report.next_action and report.next_action not in report.recommendations:
        text.append("\nNext: ", style="bold")
        text.append(for_the_app(report, report.next_action), style="not bold")
    if report.notes:
        text.append("\nNotes", style="bold")
        for note in report.notes:
            text.append(f"\n• {for_the_app(report, note)}", style="not bold")
    return text


def failure_words(error: BaseException) -> tuple[str, str, str]:
    """Title, detail and what to do for a run that produced no report."""
    cause = error.__cause__ if isinstance(error, DiagnosisFailed) else error
    if cause is not None and not isinstance(cause, DiagnosisFailed):
        info = describe_error(cause, "this workload")
        return info.title, info.detail, info.hint
    detail = clean(str(error), max_len=600)
    hint = (
        "Check the workload id and cluster; a refusal (403) needs a viewer role on the project. "
        "Press r to retry."
    )
    return "no report could be produced", detail, hint
