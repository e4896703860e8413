"""What a diagnosis spends reading one log: once for both findings, against the two reads it used to make.

Run: `.venv/bin/python -m tests.benchmarks.bench_log_once [--lines 50000] [--runs 5]`

A diagnosis wants two things of each log it reads: the explaining line (`scan_log`) and the GPU hardware, driver
and fabric lines (`log_signals`). Each of those reads every line (stamps, prefixes, the run's year) on its own,
so asking both read the log twice; `scanned` reads it once and gives both. The logs are bench_yearless's (glog
and Python logging, `--lines` each). Prints the best of N runs of each and the ratio one read / two reads, with
the check that both ways find the same. Asserts nothing about time.
"""

from __future__ import annotations

import argparse
from functools import partial

from core.diagnosis.log_scan import log_signals, scan_log, scanned
from tests.benchmarks.bench_yearless import RUN, best, logs


def twice(lines: list[str]) -> tuple[object, object]:
    return scan_log(lines, window=RUN)[0], log_signals(lines, window=RUN)


def once(lines: list[str]) -> tuple[object, object]:
    scan = scanned(lines, window=RUN)
    return scan.finding, scan.signals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for name, lines in zip(("glog", "Python logging"), logs(args.lines), strict=True):
        assert once(lines) == twice(lines), "one read and two reads must find the same"
        two = best(args.runs, partial(twice, lines))
        one = best(args.runs, partial(once, lines))
        print(f"{name:15} {args.lines} lines: two reads {two:.3f} s, one read {one:.3f} s, ratio {one / two:.2f}")


if __name__ == "__main__":
    main()
