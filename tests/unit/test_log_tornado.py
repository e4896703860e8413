"""Tornado's and Jupyter's stamps carry a year (`[E 241130 12:00:00 web:1234] `, yymmdd; `[I 2026-11-30
12:00:00.123 ServerApp] `): read as zone-less times under the rules Python logging's zone-less stamps follow
(log_clock.py), never when garbled, and never over the kubelet's own stamp."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.diagnosis.log_lines import read_line, read_log
from core.diagnosis.log_scan import scan_log

END = datetime(2026, 11, 30, 12, 0, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "when", "level", "rest"),
    [
        ("[E 261130 12:00:00 web:1234] Uncaught exception GET /api", "2026-11-30T12:00:00", "error",
         "Uncaught exception GET /api"),
        ("[I 261130 12:00:00.123 ServerApp] Kernel started", "2026-11-30T12:00:00.123", "info", "Kernel started"),
        ("[W 241231 23:59:59.999999 NotebookApp] old", "2024-12-31T23:59:59.999999", "warning", "old"),
        ("[C 2026-11-30 11:57:28.871 ServerApp] Bad config", "2026-11-30T11:57:28.871", "critical", "Bad config"),
        ("[D 240229 00:00:00 log:1] leap day", "2024-02-29T00:00:00", "debug", "leap day"),
    ],
)
def test_a_tornado_stamp_is_a_zone_less_time(line: str, when: str, level: str, rest: str) -> None:
    assert read_line(line) == (datetime.fromisoformat(when).replace(tzinfo=UTC), level, rest)
    read, _, unread = read_log([line])  # no run needed: the stamp has its year
    assert read[0] is not None and read[0].at is not None and unread is None


@pytest.mark.parametrize(
    "line",
    [
        "[E 261399 12:00:00 web:1] month 13",
        "[E 250229 12:00:00 web:1] 29 February of a common year",
        "[E 261100 12:00:00 web:1] day 0",
        "[E 261130 24:00:00 web:1] hour 24",
        "[E 261130 12:00:60 web:1] a leap second",
        "[W 2026-13-01 12:00:00 ServerApp] month 13, four-digit year",
        "[I 11:57:28.871 NotebookApp] a time of day, no date",
    ],
)
def test_a_garbled_or_dateless_tornado_stamp_is_no_time_but_keeps_its_level(line: str) -> None:
    at, level, body = read_line(line)
    assert at is None and level is not None and body == line.split("] ", 1)[1]


@pytest.mark.parametrize(
    "line", ["[E 26113 12:00:00 web:1] five digits", "[E 2611300 12:00:00 web:1] seven", "[X 261130 12:00:00 a] x"]
)
def test_a_line_that_only_looks_like_tornado_keeps_its_text(line: str) -> None:
    assert read_line(line) == (None, None, line)


def test_the_kubelets_stamp_wins_over_tornados() -> None:
    line = "2026-11-30T12:00:01.5Z [E 261130 20:00:01 web:1] Uncaught exception"
    assert read_line(line) == (datetime(2026, 11, 30, 12, 0, 1, 500000, tzinfo=UTC), "error", "Uncaught exception")


def test_late_tornado_stamps_are_judged_as_python_loggings_are() -> None:
    # The same server in local time (+8 h), once as tornado writes it and once as Python logging does: the same
    # verdict on the clock (stamps later than the read: read anyway, likely local time), the same line cited.
    times = ["11:59:00", "19:59:58", "20:00:04"]
    tornado = [f"[E 261130 {t} web:1] Uncaught exception {n}" for n, t in enumerate(times)]
    python = [f"2026-11-30 {t},000 - tornado.application - ERROR - Uncaught exception {n}"
              for n, t in enumerate(times)]
    found = [scan_log(log, before=END, read_at=END) for log in (tornado, python)]
    (t_finding, t_clock, _), (p_finding, p_clock, _) = found
    assert t_clock is not None and t_clock == p_clock and t_clock.zoneless and t_clock.future
    assert "likely logs in local time" in t_clock.text()
    assert t_finding is not None and p_finding is not None and t_finding.line_no == p_finding.line_no
