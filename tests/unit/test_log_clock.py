"""A log's stamps against its container's end (issue 37.1, issue 31.5): the end compared at the API's whole-second
resolution, the log of the instance that ended never losing a line for its stamps, a log on another clock read
and said so, and the same crash log cited the same whatever clock wrote it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import pytest

from core.diagnosis.log_clock import Stamp, end_of_second, judge
from core.diagnosis.log_scan import explaining_line, log_signals, scan_log
from tests.engine.ff_clock_cases import CLOCKS, access_denied, port_in_use

# The kubelet's finishedAt: whole seconds.
END = datetime(2026, 11, 30, 11, 32, 12, tzinfo=UTC)


def lines(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


# Python logging's stamps: the container's last ERROR line and its traceback fall within its last second.
LAST_SECOND = [
    "2026-11-30 11:31:41,102 INFO trainer: epoch 12 step 48000 loss 1.842",
    "2026-11-30 11:32:12,411 ERROR trainer: checkpoint save failed",
    "Traceback (most recent call last):",
    '  File "/workspace/train.py", line 244, in save_checkpoint',
    "    torch.save(state, path)",
    "OSError: [Errno 28] No space left on device: '/ckpt/step-48500.pt'",
]
# The kubelet's own stamps (`kubectl logs --timestamps`): nanoseconds and a zone.
KUBELET = [
    "2026-11-30T11:32:10.201334512Z I1130 11:32:10.201203       1 main.go:88] starting feature-gateway v1.14.2",
    "2026-11-30T11:32:12.905112003Z E1130 11:32:12.904981       1 main.go:121] failed to load config: open "
    "/etc/gateway/config.yaml: no such file or directory",
]


def test_the_end_is_compared_at_the_apis_whole_second() -> None:
    assert end_of_second(END) == END + timedelta(seconds=1)
    assert end_of_second(END.replace(microsecond=999_999)) == END + timedelta(seconds=1)
    assert end_of_second(datetime(2026, 11, 30, 11, 32, 12)) == END + timedelta(seconds=1)  # naive is UTC


@pytest.mark.parametrize(("log", "words"), [(LAST_SECOND, "No space left on device"), (KUBELET, "failed to load")])
def test_a_line_of_the_last_second_is_not_after_the_end(log: list[str], words: str) -> None:
    # Not the instance's own end (the failure's time): still, the last second counts as before it.
    finding, clock, _ = scan_log(log, before=END)
    assert finding is not None and words in finding.text
    assert clock is None


def test_a_line_a_second_after_the_end_is_late() -> None:
    log = [*LAST_SECOND, "2026-11-30 11:32:13,002 ERROR sidecar: lost connection to the metrics gateway"]
    finding, clock, _ = scan_log(log, before=END)
    assert finding is not None and "No space left" in finding.text
    assert clock is not None and not clock.kept and clock.late == 1
    assert "left out" in clock.text()


def test_the_log_of_the_instance_that_ended_loses_no_line_for_its_stamps() -> None:
    # The last lines read later than the end, yet this is the instance that ended: they are read.
    log = [*LAST_SECOND[:1], "2026-11-30 11:35:00,000 ERROR trainer: checkpoint save failed", *LAST_SECOND[2:]]
    finding, clock, _ = scan_log(log, before=END, own=True)
    assert finding is not None and finding.line_no == 6
    assert clock is not None and clock.kept and clock.late == 5 and not clock.all_late
    assert "read anyway" in clock.text()
    # Read against a failure's time instead, they are left out: nothing explains.
    assert explaining_line(log, before=END) is None


def test_every_line_later_than_the_end_means_the_clock_not_the_lines() -> None:
    shifted = [line.replace("2026-11-30 11:", "2026-11-30 19:") for line in LAST_SECOND]
    for own in (True, False):
        finding, clock, _ = scan_log(shifted, before=END, own=own)
        assert finding is not None and "No space left on device" in finding.text, own
        assert clock is not None and clock.kept and clock.all_late and clock.zoneless
        assert clock.ahead == timedelta(hours=8, microseconds=411_000)
        assert "no zone" in clock.text() and "local time" in clock.text()


def test_zoned_stamps_later_than_the_end_blame_the_clock_or_a_restart() -> None:
    late = [line.replace("Z ", "+00:00 ").replace("11:32:1", "11:40:1") for line in KUBELET]
    finding, clock, _ = scan_log(late, before=END, own=True)
    assert finding is not None and "failed to load config" in finding.text
    assert clock is not None and not clock.zoneless and "restarted between" in clock.text()


def test_infrastructure_lines_follow_the_same_rule() -> None:
    log = ["2026-11-30 19:32:11,000 NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."]
    assert log_signals(log, before=END, own=True)
    assert log_signals(log, before=END)  # every stamped line late: read


def test_judge_keeps_unstamped_lines_before_the_first_stamp() -> None:
    stamps = [None, Stamp(END + timedelta(seconds=5), False), None]
    drop, clock = judge(stamps, END, own=False)
    assert drop == [False, False, False] and clock is not None and clock.all_late  # every stamped line is late
    stamps = [Stamp(END - timedelta(seconds=5), False), Stamp(END + timedelta(seconds=5), False), None]
    drop, clock = judge(stamps, END, own=False)
    assert drop == [False, True, True] and clock is not None and clock.late == 2


StampWriter = Callable[[datetime, int], str]


@pytest.mark.parametrize(
    ("make", "cited"),
    [
        (port_in_use, "Web server failed to start. Port 8080 was already in use."),
        (access_denied, "Caused by: java.sql.SQLException: Access denied for user 'ledger'@'10.42.3.17'"),
    ],
)
@pytest.mark.parametrize("own", [True, False])
def test_the_same_crash_log_is_cited_alike_whatever_its_clock(
    make: Callable[[datetime, StampWriter], str], cited: str, own: bool
) -> None:
    found = {}
    for name, clock in CLOCKS.items():
        log = lines(make(END, clock))
        finding = explaining_line(log, before=END, own=own)
        assert finding is not None, name
        found[name] = (finding.line_no, finding.text)
    assert len(set(found.values())) == 1, found
    assert cited in next(iter(found.values()))[1]


def test_a_zone_written_as_an_offset_is_read_as_one() -> None:
    plus8 = timezone(timedelta(hours=8))
    log = [f"{(END - timedelta(seconds=1)).astimezone(plus8).isoformat()} ERROR boom: disk full"]
    assert explaining_line(log, before=END) is not None


def test_a_stamp_later_than_the_read_is_on_another_clock() -> None:
    # The current instance of a container still running, read against the workload's failure: lines after the
    # failure are left out, unless one reads later than the moment the log was read (local time, no zone).
    log = [
        "2026-11-30 11:30:00,000 INFO server: listening on :8000",
        "2026-11-30 12:31:50,000 ERROR server: model store unreachable: connect timeout",
    ]
    read_at = datetime(2026, 11, 30, 11, 45, tzinfo=UTC)
    finding, clock, _ = scan_log(log, before=END, read_at=read_at)
    assert finding is not None and finding.line_no == 2
    assert clock is not None and clock.kept and clock.future and not clock.all_late
    assert "after the log was read" in clock.text()
    # Within a read's delay of the moment it was read, a late line is still only late.
    log[1] = log[1].replace("12:31:50", "11:50:50")
    finding, clock, _ = scan_log(log, before=END, read_at=read_at)
    assert finding is None and clock is not None and not clock.kept


def test_a_zone_less_stamp_a_little_late_blames_the_clock_not_local_time() -> None:
    # Six seconds past the end is no zone's offset (the smallest are 30 min): the clock is off, or the
    # container restarted between the reads; and one line is one line.
    log = [*LAST_SECOND[:1], "2026-11-30 11:32:18,870 WARNING pinned memory: falling back to pageable memory"]
    _, clock, _ = scan_log(log, before=END, own=True)
    assert clock is not None and clock.zoneless and clock.late == 1 and not clock.all_late
    text = clock.text()
    assert "1 line reads later than the container's end" in text and "the last by 6 s" in text
    assert "local time" not in text and "its clock is off" in text
