"""Logs whose stamps carry no year, against Python logging's dated ones of the same size, in the same run.

Run: `.venv/bin/python -m tests.benchmarks.bench_yearless [--lines 50000] [--runs 3]`

Two logs of `--lines` lines each, the same messages: one glog (`I1205 12:34:56.000123   1003 trainer.cc:12] `,
every stamp given its year from the container's run), one Python logging (`2026-12-05 12:34:56,123 - trainer -
INFO - `). Each is timed through `read_log` (stamps, prefixes, the run's year) and `scan_log` (the explaining
line too); the best of N runs is printed with the ratio glog / Python logging. Prints only; asserts nothing.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial

from core.diagnosis.log_lines import read_log
from core.diagnosis.log_scan import scan_log
from core.diagnosis.log_yearless import Window

START = datetime(2026, 12, 5, 0, 0, tzinfo=UTC)
RUN = Window(START, START + timedelta(hours=23))
LAST = "CUDA error: an illegal memory access was encountered"


def logs(count: int) -> tuple[list[str], list[str]]:
    glog, python = [], []
    for n in range(count):
        moment = START + timedelta(seconds=n % 80_000)
        message = f"step {n} loss 0.{n % 97:02d} lr 3e-4"
        glog.append(f"I{moment:%m%d %H:%M:%S}.{n % 1_000_000:06d}   {1000 + n % 7} trainer.cc:{n % 900}] {message}")
        python.append(f"{moment:%Y-%m-%d %H:%M:%S},{n % 1000:03d} - trainer - INFO - {message}")
    glog[-1] = f"E{START + timedelta(hours=22):%m%d %H:%M:%S}.000000 1 trainer.cc:1] {LAST}"
    python[-1] = f"{START + timedelta(hours=22):%Y-%m-%d %H:%M:%S},000 - trainer - ERROR - {LAST}"
    return glog, python


def best(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        work()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    glog, python = logs(args.lines)
    for name, read in (("read_log", read_log), ("scan_log", scan_log)):
        g = best(args.runs, partial(read, glog, window=RUN))
        p = best(args.runs, partial(read, python, window=RUN))
        print(f"{name:9} {args.lines} lines: glog {g:.3f} s, Python logging {p:.3f} s, ratio {g / p:.2f}")
    unread = read_log(glog, window=RUN)[2]
    print(f"glog stamps unread: {unread.text() if unread else 'none'}")


if __name__ == "__main__":
    main()
