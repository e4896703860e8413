"""Each message said once in a text or Markdown report (issue 34): the evidence quotes it; the reason, a
finding and the recommendations point to it instead of quoting it again.

A policy's refusal was quoted four times in one report: in the reason, the finding, the evidence and the
recommendation. The JSON keeps every field whole; only the words a person reads are shortened here, and only
where the evidence quotes the same message (or the finding says the same words) above or below them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.models.evidence_text import quoted, same_message
from core.models.report import Finding, Report

# A message shorter than this is cheaper to say again than to point to.
WORTH_POINTING = 40
UNDER_EVIDENCE = "its message is quoted under Evidence"
IN_FINDING = "see the finding above"
_TRAILING_QUOTE = re.compile(r'^(?P<head>.*?): "(?P<msg>.*)"$', re.DOTALL)


def cited_messages(report: Report) -> list[str]:
    """The messages the report's evidence quotes, long enough to point to."""
    out = []
    for item in report.evidence:
        found = quoted(item.text)
        if found is not None and len(found[1]) >= WORTH_POINTING:
            out.append(found[1])
    return out


def _quoted_elsewhere(message: str, cited: Iterable[str]) -> bool:
    return any(same_message(message, other) for other in cited)


def finding_words(finding: Finding, cited: list[str]) -> str:
    """A finding's text without the message it ends by quoting, when the evidence quotes that message."""
    m = _TRAILING_QUOTE.match(finding.text)
    if m is None or not _quoted_elsewhere(m["msg"], cited):
        return finding.text
    return f"{m['head']}; {UNDER_EVIDENCE}"


def reason_words(reason: str, cited: list[str]) -> str:
    """The reason with a message the evidence quotes pointed to, not repeated."""
    m = _TRAILING_QUOTE.match(reason)
    if m is not None and _quoted_elsewhere(m["msg"], cited):
        reason = f"{m['head']}; {UNDER_EVIDENCE}"
    for message in cited:
        if message in reason:
            reason = reason.replace(message, "the message quoted under Evidence")
    return reason


def advice_words(advice: str, findings: Iterable[Finding]) -> str:
    """A recommendation with a finding's own words (repeated in brackets) pointed to."""
    for finding in findings:
        m = _TRAILING_QUOTE.match(finding.text)
        said = m["head"] if m is not None else finding.text
        if len(said) >= WORTH_POINTING and f"({said})" in advice:
            advice = advice.replace(f"({said})", f"({IN_FINDING})")
    return advice
