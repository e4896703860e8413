"""Stamps without a year (glog's `E1205 12:34:56.789012 12345 file.cc:123]`, vLLM's `INFO 12-05 12:34:56
[engine.py:123]`): read in the one year that puts them inside the run of the container instance that wrote the
log, else not read at all and said so; garbled stamps and look-alike lines are no stamps."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from core.diagnosis.kube_evidence import log_window
from core.diagnosis.log_lines import LogLine, read_line, read_log
from core.diagnosis.log_scan import log_signals, scan_log
from core.diagnosis.log_yearless import SKEW, Window, place, yearless
from core.models.kube import K8sPod
from core.sources.kube_types import LogExcerpt

START = datetime(2026, 12, 5, 11, 0, 0, tzinfo=UTC)
END = datetime(2026, 12, 5, 12, 35, 0, tzinfo=UTC)
RUN = Window(START, END)


def at(line: str, window: Window | None = RUN) -> datetime | None:
    read, _, _ = read_log([line], window=window)
    assert read[0] is not None
    return read[0].at


def body(line: str, window: Window | None = RUN) -> LogLine:
    read, _, _ = read_log([line], window=window)
    assert read[0] is not None
    return read[0]


# -- the formats as programs write them --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("line", "when", "level", "rest"),
    [
        # glog from C++ (thread id padded), absl's Python logging, PyTorch's bracketed c10d lines
        ("E1205 12:34:56.789012   12345 file.cc:123] message", "2026-12-05T12:34:56.789012", "error", "message"),
        ("I1205 11:02:03.000001 140234 absl_logging.py:88] step 10", "2026-12-05T11:02:03.000001", "info", "step 10"),
        ("W1205 12:00:00 1 main.go:88] slow", "2026-12-05T12:00:00", "warning", "slow"),
        ("F1205 12:30:00.5 77 check.cc:9] Check failed: ok", "2026-12-05T12:30:00.500000", "fatal", "Check failed: ok"),
        (
            "[E1205 12:34:56.220 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout",
            "2026-12-05T12:34:56.220000", "error", "[Rank 3] Watchdog caught collective operation timeout",
        ),
        ("[rank3]:[E1205 12:34:56.220 ProcessGroupNCCL.cpp:616] boom", "2026-12-05T12:34:56.220000", "error", "boom"),
        # vLLM, V1's bracketed location and the older bare one, every level it writes
        ("INFO 12-05 12:34:56 [engine.py:123] message", "2026-12-05T12:34:56", "info", "message"),
        ("INFO 12-05 12:34:56 engine.py:123] message", "2026-12-05T12:34:56", "info", "message"),
        ("ERROR 12-05 12:34:56 [core.py:515] EngineCore failed", "2026-12-05T12:34:56", "error", "EngineCore failed"),
        ("WARNING 12-05 11:59:00 [config.py:1] casting", "2026-12-05T11:59:00", "warning", "casting"),
        ("DEBUG 12-05 11:00:01 [utils.py:7] env", "2026-12-05T11:00:01", "debug", "env"),
        ("CRITICAL 12-05 12:34:59 [launcher.py:101] out", "2026-12-05T12:34:59", "critical", "out"),
        ("INFO 12-05 12:34:56.123 [engine.py:123] message", "2026-12-05T12:34:56.123000", "info", "message"),
    ],
)
def test_a_stamp_without_a_year_is_read_in_the_year_of_the_run(line: str, when: str, level: str, rest: str) -> None:
    read = body(line)
    assert read.at == datetime.fromisoformat(when).replace(tzinfo=UTC)
    assert (read.level, read.body) == (level, rest)


def test_without_the_run_no_year_is_given() -> None:
    line = "E1205 12:34:56.789012 12345 file.cc:123] message"
    assert at(line, None) is None
    assert read_line(line) == (None, "error", "message")  # one line alone has no run to date it by
    _, _, unread = read_log([line])
    assert unread is not None and "does not say when this container instance ran" in unread.text()


def test_a_full_stamp_before_the_prefix_is_the_lines_own() -> None:
    # `kubectl logs --timestamps` before a glog line: the kubelet's zoned stamp is the time, whatever the run.
    line = "2026-12-05T12:34:57.905112003Z E1205 20:34:56.789012 1 main.go:121] failed to load config"
    read, _, unread = read_log([line], window=RUN)
    assert read[0] is not None and read[0].at == datetime(2026, 12, 5, 12, 34, 57, 905112, tzinfo=UTC)
    assert read[0].body == "failed to load config" and unread is None


# -- the year ---------------------------------------------------------------------------------------------------
def test_across_new_year_each_stamp_takes_the_year_that_puts_it_in_the_run() -> None:
    run = Window(datetime(2026, 12, 31, 23, 50, tzinfo=UTC), datetime(2027, 1, 1, 0, 0, 5, tzinfo=UTC))
    assert at("E1231 23:59:59.000000 1 train.cc:1] last of the year", run) == datetime(
        2026, 12, 31, 23, 59, 59, tzinfo=UTC
    )
    assert at("I0101 00:00:03 1 train.cc:2] first of the next", run) == datetime(2027, 1, 1, 0, 0, 3, tzinfo=UTC)
    assert at("ERROR 12-31 23:55:00 [engine.py:9] boom", run) == datetime(2026, 12, 31, 23, 55, tzinfo=UTC)


def test_a_run_that_has_just_begun_the_year_dates_last_years_stamps_last_year() -> None:
    # The run started before midnight and the log was read after it: a December stamp is of the old year.
    run = Window(datetime(2026, 12, 31, 22, 0, tzinfo=UTC), datetime(2027, 1, 1, 1, 0, tzinfo=UTC), running=True)
    assert at("W1231 22:10:00 1 a.cc:1] x", run) == datetime(2026, 12, 31, 22, 10, tzinfo=UTC)


def test_a_29_february_is_read_only_in_a_leap_year() -> None:
    leap = Window(datetime(2028, 2, 28, 23, 0, tzinfo=UTC), datetime(2028, 3, 1, 1, 0, tzinfo=UTC))
    assert at("E0229 12:00:00 1 a.cc:1] x", leap) == datetime(2028, 2, 29, 12, tzinfo=UTC)
    common = Window(datetime(2027, 2, 28, 23, 0, tzinfo=UTC), datetime(2027, 3, 1, 1, 0, tzinfo=UTC))
    assert at("E0229 12:00:00 1 a.cc:1] x", common) is None


def test_a_stamp_within_the_skew_of_the_run_is_read() -> None:
    late = (END + SKEW - timedelta(seconds=1)).strftime("%m%d %H:%M:%S")
    early = (START - SKEW + timedelta(seconds=1)).strftime("%m%d %H:%M:%S")
    read, _, unread = read_log([f"I{early} 1 a.cc:1] up", f"E{late} 1 a.cc:2] down"], window=RUN)
    assert unread is None and all(line is not None and line.at is not None for line in read)


# -- stamps the run cannot date: none is read, and why ------------------------------------------------------------
EAST = timezone(timedelta(hours=8))


def _local(moment: datetime) -> str:
    return moment.astimezone(EAST).strftime("%m%d %H:%M:%S.%f")


def test_stamps_outside_the_run_are_not_read_and_the_log_says_why() -> None:
    # glog in the container's local time (UTC+8): the last lines read hours after the container ended.
    log = [
        f"I{_local(START + timedelta(minutes=1))} 1 server.cc:10] starting",
        f"E{_local(END - timedelta(seconds=3))} 1 server.cc:99] failed to bind :8001: address in use",
    ]
    read, clock, unread = read_log(log, END, own=True, window=RUN)
    assert [line.at for line in read if line is not None] == [None, None]
    assert clock is None
    assert unread is not None and unread.stamps == 2 and unread.outside == 2
    text = unread.text()
    assert "not read as times" in text and "outside the container's run" in text and START.isoformat() in text
    assert "local time" in text
    # Not read is not "late": read against a failure's time, no line is left out for its stamp.
    finding, clock, unread = scan_log(log, before=END - timedelta(minutes=30), window=RUN)
    assert finding is not None and "address in use" in finding.text and clock is None and unread is not None


def test_one_stamp_outside_the_run_keeps_every_stamp_of_the_log_unread() -> None:
    log = ["I1205 11:30:00 1 a.cc:1] inside", "E1205 19:30:00 1 a.cc:2] eight hours on"]
    read, _, unread = read_log(log, window=RUN)
    assert [line.at for line in read if line is not None] == [None, None]
    assert unread is not None and (unread.stamps, unread.outside) == (2, 1)
    assert "not read as times: 1 fall outside" in unread.text()


def test_a_stamp_earlier_than_the_run_is_not_read() -> None:
    # West of UTC the stamps read before the container started; a year earlier would be further still.
    assert at("E1205 10:30:00 1 a.cc:1] x") is None
    assert at("E1204 12:00:00 1 a.cc:1] x") is None


def test_a_run_of_a_year_or_more_cannot_give_a_year() -> None:
    long = Window(datetime(2025, 11, 1, tzinfo=UTC), END)
    _, _, unread = read_log(["E1205 12:00:00 1 a.cc:1] x"], window=long)
    assert unread is not None and unread.outside == 0 and "a year or more" in unread.text()


@pytest.mark.parametrize(
    "run",
    [
        Window(None, END),
        Window(START, None),
        Window(END, START),  # ends before it starts: nothing fits
        Window(datetime.min.replace(tzinfo=UTC), datetime.min.replace(tzinfo=UTC) + timedelta(hours=1)),
        Window(datetime.max.replace(tzinfo=UTC) - timedelta(hours=1), datetime.max.replace(tzinfo=UTC)),
        Window(datetime(2026, 12, 5, 11, 0), datetime(2026, 12, 5, 12, 35)),  # naive: UTC
    ],
)
def test_odd_runs_give_an_answer_not_a_traceback(run: Window) -> None:
    stamps, unread = place([yearless("12", "05", "12:00:00", None)], run)
    naive = run.start is not None and run.start.tzinfo is None
    assert (stamps[0] is not None) == naive and (unread is None) == naive


# -- what is no stamp ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line",
    [
        "E9999 99:99:99.999999 1 file.cc:1] garbled",
        "E1305 12:00:00 1 file.cc:1] month 13",
        "E0230 12:00:00 1 file.cc:1] 30 February",
        "E0005 12:00:00 1 file.cc:1] day 0",
        "E1205 24:00:00 1 file.cc:1] hour 24",
        "E1205 12:60:00 1 file.cc:1] minute 60",
        "E1205 12:00:60 1 file.cc:1] a leap second",
        "ERROR 13-45 12:00:00 [engine.py:1] month 13",
        "INFO 00-00 00:00:00 [engine.py:1] zeros",
    ],
)
def test_a_garbled_stamp_is_no_stamp(line: str) -> None:
    read, clock, unread = read_log([line], END, window=RUN)
    assert read[0] is not None and read[0].at is None
    assert clock is None and unread is None  # nothing to date: not a stamp the run failed to place


@pytest.mark.parametrize(
    "line",
    [
        "I1205 12:34:56.789 started the server",  # no file:line]
        "I1205 12:34:56 x.py] no line number",
        "I2026 was a good year",
        "I12051 12:34:56 1 a.cc:1] five digits",
        "I1205 12:34 1 a.cc:1] no seconds",
        "Info 12-05 12:34:56 [engine.py:1] not vLLM's level",
        "INFO 12-05-2026 12:34:56 [engine.py:1] not vLLM's date",
    ],
)
def test_a_line_that_only_looks_like_glog_or_vllm_keeps_its_text(line: str) -> None:
    read, _, unread = read_log([line], window=RUN)
    assert read[0] is not None and read[0].at is None and unread is None
    if line[1].isdigit():  # not glog: its letter is no level, its text is all body
        assert read[0].body == line and read[0].level is None


def test_a_hostile_line_stays_cheap_and_unread() -> None:
    line = "E1205 12:00:00 " + "9" * 200_000 + " a.cc:1] x"
    read, _, unread = read_log([line], window=RUN)
    assert read[0] is not None and read[0].at is None and unread is None


# -- what the times are used for ----------------------------------------------------------------------------------
VLLM_SERVER = [
    "INFO 12-05 11:40:02 [api_server.py:1043] vLLM API server version 0.8.5",
    "ERROR 12-05 12:10:41 [core.py:396] EngineCore hit an exception: torch.OutOfMemoryError: CUDA out of memory. "
    "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB of which 1.02 GiB is free.",
    "ERROR 12-05 12:21:07 [serving_chat.py:200] Error in chat completion stream generator.",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/serving_chat.py", line 480, in '
    "chat_completion_stream_generator",
    "    async for res in result_generator:",
    "asyncio.exceptions.CancelledError",
]


def test_a_line_written_after_the_failure_is_left_out_of_a_log_that_is_not_the_instances() -> None:
    # The current instance, still running, read against the workload's failure at 12:15: the error written
    # after it is not what ended the workload.
    failed = datetime(2026, 12, 5, 12, 15, tzinfo=UTC)
    running = Window(START, END, running=True)
    finding, clock, unread = scan_log(VLLM_SERVER, before=failed, read_at=END, window=running)
    assert finding is not None and finding.line_no == 2 and "CUDA out of memory" in finding.text
    assert clock is not None and not clock.kept and clock.late == 5 and unread is None
    assert "left out, as written after it" in clock.text()
    # Without the run there is no year, so no time: every line counts, the later traceback's with them.
    finding, clock, unread = scan_log(VLLM_SERVER, before=failed, read_at=END)
    assert finding is not None and finding.line_no == 7 and clock is None and unread is not None


def test_infrastructure_lines_after_the_failure_are_left_out_alike() -> None:
    log = [
        "I1205 11:00:30 1 train.cc:1] step 1",
        "E1205 12:20:00 1 nvml.cc:1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
    ]
    failed = datetime(2026, 12, 5, 12, 15, tzinfo=UTC)
    assert log_signals(log, before=failed, window=Window(START, END, running=True)) == []
    assert log_signals(log, before=failed)  # no run, no time: the line counts


# -- the run, from the pod ---------------------------------------------------------------------------------------
def _pod(state: dict[str, object], last: dict[str, object] | None = None) -> K8sPod:
    return K8sPod.model_validate({
        "metadata": {"name": "p", "namespace": "n", "creationTimestamp": "2026-12-05T10:58:00Z"},
        "status": {
            "startTime": "2026-12-05T10:59:00Z",
            "containerStatuses": [{"name": "main", "state": state, "lastState": last or {}}],
        },
    })


def _excerpt(previous: bool) -> LogExcerpt:
    return LogExcerpt(container="main", previous=previous, lines=[], truncated=False)


def test_the_run_is_the_instance_the_log_was_read_from() -> None:
    done = {"terminated": {"startedAt": "2026-12-05T11:00:00Z", "finishedAt": "2026-12-05T12:35:00Z"}}
    running = {"running": {"startedAt": "2026-12-05T12:36:00Z"}}
    read = datetime(2026, 12, 5, 12, 40, tzinfo=UTC)
    assert log_window(_pod(running, done), _excerpt(True), read) == Window(START, END)
    assert log_window(_pod(running, done), _excerpt(False), read) == Window(
        datetime(2026, 12, 5, 12, 36, tzinfo=UTC), read, running=True
    )
    assert log_window(_pod(done), _excerpt(False), read) == Window(START, END)
    # A container waiting to start again: its pod's start bounds every instance.
    waiting = {"waiting": {"reason": "CrashLoopBackOff"}}
    assert log_window(_pod(waiting), _excerpt(False), read) == Window(
        datetime(2026, 12, 5, 10, 59, tzinfo=UTC), read, running=True
    )


def test_a_start_the_pod_cannot_have_given_this_run_gives_way_to_the_pods_start() -> None:
    # A startedAt after the finishedAt, or containerd's 1970-01-01 for a container that never started, is no
    # start of this run: the pod's start bounds it instead, and the stamps are read.
    read = datetime(2026, 12, 5, 12, 40, tzinfo=UTC)
    pod_start = datetime(2026, 12, 5, 10, 59, tzinfo=UTC)
    for started in ("2026-12-05T12:35:01Z", "1970-01-01T00:00:00Z"):
        done = {"terminated": {"startedAt": started, "finishedAt": "2026-12-05T12:35:00Z"}}
        window = log_window(_pod(done), _excerpt(False), read)
        assert window == Window(pod_start, END), started
        assert at("E1205 12:00:00 1 a.cc:1] x", window) == datetime(2026, 12, 5, 12, tzinfo=UTC)
    # Without a startedAt the pod's start is the run's too.
    done = {"terminated": {"finishedAt": "2026-12-05T12:35:00Z"}}
    assert log_window(_pod(done), _excerpt(False), read) == Window(pod_start, END)


def test_a_run_that_ends_before_it_starts_says_so_not_local_time() -> None:
    _, _, unread = read_log(["E1205 12:00:00 1 a.cc:1] x"], window=Window(END, START))
    assert unread is not None
    assert unread.text() == (
        "its stamp without a year (month and day only) was not read as a time: the pod gives this container "
        "instance a start (2026-12-05T12:35:00+00:00) later than its end (2026-12-05T11:00:00+00:00), so its run "
        "cannot date it"
    )


@pytest.mark.parametrize(
    ("line", "level", "rest"),
    [
        # glog 0.7 writes std::thread::id, a pthread_t: 15 digits and more
        ("W1205 12:34:56.789012 140234567890123 socket.cpp:558] [c10d] timed out", "warning", "[c10d] timed out"),
        ("E1205 12:34:56.789012 18446744073709551615 a.cc:1] widest", "error", "widest"),
        # and the prefixes that stand before a glog line
        ("[default0]:E1205 12:34:56 1 a.cc:1] torchrun's tag", "error", "torchrun's tag"),
        ("[default0]:[rank0]:[E1205 12:34:56.1 a.cc:1] both tags", "error", "both tags"),
        ("[1,13]<stderr>:E1205 12:34:56 1 a.cc:1] mpirun's tag", "error", "mpirun's tag"),
        ("stderr F E1205 12:34:56 1 a.cc:1] a CRI stream tag", "error", "a CRI stream tag"),
    ],
)
def test_glog_behind_its_thread_id_and_a_launchers_tag_is_read(line: str, level: str, rest: str) -> None:
    read = body(line)
    assert read.at is not None and read.at.date() == END.date() and read.at.time().hour == 12
    assert (read.level, read.body) == (level, rest)


def test_the_kubelets_stamp_wins_over_a_glog_stamp_behind_a_cri_tag() -> None:
    # The read's own clock (kubectl --timestamps), then the CRI stream tag, then glog in local time (+8 h).
    line = "2026-12-05T12:00:00.1Z stdout F [rank3]:[E1205 20:00:00.000000 1 a.cc:1] boom"
    read, _, unread = read_log([line], window=RUN)
    assert read[0] is not None and read[0].at == datetime(2026, 12, 5, 12, 0, 0, 100000, tzinfo=UTC)
    assert (read[0].level, read[0].body, unread) == ("error", "boom", None)
