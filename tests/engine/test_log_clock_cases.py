"""Issue 31.5 end to end: the same crash log with its stamps in UTC, in local time without a zone (east and west
of UTC), and with a zone, diagnosed over real HTTP, cites the same line; where the stamps read later than the
container's end, the report says why it read them anyway."""

from __future__ import annotations

import re

import pytest

from core.models.report import Report
from tests.engine.ff_clock_cases import CLOCKS, clock_variants
from tests.engine.test_rule_cases import build_from, diagnose_bundle

_CITED = re.compile(r'^Log line (\d+) of container main \((?:previous|current) instance\): "(.*?)"(?:; |$)')


async def _diagnosed(kind: str, clock: str) -> Report:
    bundle = build_from(lambda: clock_variants(kind, clock))
    report, _ = await diagnose_bundle(bundle, **bundle["request"])
    return report


def _cited(report: Report) -> tuple[str, str]:
    found = [m.groups() for item in report.evidence if (m := _CITED.match(item.text))]
    assert len(found) == 1, [item.text for item in report.evidence]
    return found[0]


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("port", "Web server failed to start. Port 8080 was already in use."),
        ("jdbc", "Caused by: java.sql.SQLException: Access denied for user 'ledger'@'10.42.3.17'"),
    ],
)
async def test_the_cited_line_does_not_depend_on_the_clock(kind: str, words: str) -> None:
    reports = {clock: await _diagnosed(kind, clock) for clock in CLOCKS}
    cited = {clock: _cited(report) for clock, report in reports.items()}
    assert len(set(cited.values())) == 1, cited
    assert words in cited["utc"][1]
    assert all(report.category == "CRASH_APP_ERROR" for report in reports.values())
    evidence = {clock: "\n".join(item.text for item in report.evidence) for clock, report in reports.items()}
    # Only the log whose stamps read later than the end (local time east of UTC, no zone) needs a word of why.
    assert "likely logs in local time" in evidence["local-no-zone"]
    for clock in ("utc", "local-west-no-zone", "zoned"):
        assert "later than the container's end" not in evidence[clock], clock
