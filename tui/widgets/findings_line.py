"""Infrastructure findings on the diagnosis screen: a line of the verdict banner, a line each above the Evidence
tab's evidence, and the findings in full below it and in the whole verdict (`v`).

A finding is shown apart from the category, with its owner: the category says how the workload ended (the
seed's taxonomy); the finding says the fault is under it and who can fix it. The line carries a mark (⚑) and
words as well as a style, so a monochrome terminal or a pasted screenshot keeps it. Every string comes from the
report, cleaned where it entered; here it is only placed into `Text`, never into markup.
"""

from __future__ import annotations

from rich.text import Text

from core.models.report import Finding, Report
from core.report.render import finding_head, finding_label

MARK = "⚑"


def _where(finding: Finding) -> str:
    return f" on node {finding.node}" if finding.node else ""


def findings_line(report: Report) -> Text | None:
    """`⚑ Not the workload's fault · gpu-hardware on node gpu-e-47 · for the administrator: …`, or None."""
    if not report.findings:
        return None
    top = report.findings[0]
    line = Text(f"{MARK} {finding_label(top)}", style="bold reverse")
    line.append(f" {top.kind}{_where(top)} · for the {top.owner}", style="bold")
    line.append(": " + top.text.split(': "', 1)[0])
    more = len(report.findings) - 1
    if more:
        line.append(f" (+{more} more)", style="bold")
    return line


def findings_heads(report: Report) -> Text | None:
    """A line per finding, whole (`⚑ gpu-hardware on node gpu-e-47, for the administrator (explains this
    failure)`), or None: what the Evidence tab says above the evidence, as the text report does."""
    if not report.findings:
        return None
    return Text("\n").join(Text(f"{MARK} {finding_head(f)}", style="bold") for f in report.findings)


def findings_detail(report: Report) -> Text | None:
    """Every finding whole, with its source and the other pods on its node, or None when there is none."""
    if not report.findings:
        return None
    text = Text(f"{MARK} Infrastructure findings (for the administrator, apart from the category)", style="bold")
    for finding in report.findings:
        text.append(f"\n• {finding_head(finding)}: ", style="bold")
        text.append(f"{finding.text} (source: {finding.source})", style="not bold")
        if finding.other_pods_note:
            text.append(f"\n    {finding.other_pods_note}", style="not bold")
        for pod in finding.other_pods or ():
            name = f"{pod.namespace}/{pod.name}" if pod.namespace else pod.name
            text.append(f"\n    {name}: {pod.how}", style="not bold")
    return text
