"""Metrics range-query maths: what a Prometheus-style query returns from full-resolution stored samples.

- Instants: N evenly spaced from start to end inclusive. N=1 gives just `end` (the most recent view of the
  window, which is what a caller asking for one sample of "the state" wants).
- At each instant: the latest stored sample at or before it, if that sample is at most 300 s older
  (Prometheus' staleness window); otherwise the instant is left out. Nothing is returned before the first
  stored sample.
- A returned point carries the instant's timestamp (as Prometheus does) and the stored value text unchanged.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from core.sim.bundle import parse_instant

STALENESS = timedelta(seconds=300)
DEFAULT_SAMPLES = 20
MAX_SAMPLES = 1000


def format_instant(when: datetime) -> str:
    """ISO-8601 in UTC with a `Z`; milliseconds only when the instant is not on a whole second."""
    utc = when.astimezone(UTC)
    if utc.microsecond:
        return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def sample_instants(start: datetime, end: datetime, count: int) -> list[datetime]:
    if count < 1:
        raise ValueError("count must be at least 1")
    if end < start:
        raise ValueError("end is before start")
    if count == 1:
        return [end]
    span = end - start
    # Integer microsecond arithmetic keeps the last instant exactly on `end`.
    micros = span // timedelta(microseconds=1)
    return [start + timedelta(microseconds=micros * i // (count - 1)) for i in range(count)]


def value_text(value: object) -> str:
    """Stored values are kept as written; numbers written without quotes are turned into their JSON text."""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def stored_points(values: Iterable[dict[str, Any]] | None) -> list[tuple[datetime, str]]:
    """Parse and time-order a series' stored samples; unparsable ones are skipped (load rejects them)."""
    points: list[tuple[datetime, str]] = []
    for sample in values or []:
        when = parse_instant(sample.get("timestamp"))
        if when is None or "value" not in sample:
            continue
        points.append((when, value_text(sample["value"])))
    points.sort(key=lambda p: p[0])
    return points


def sample_points(
    points: Sequence[tuple[datetime, str]], instants: Sequence[datetime], staleness: timedelta = STALENESS
) -> list[dict[str, str]]:
    times = [p[0] for p in points]
    out: list[dict[str, str]] = []
    for instant in instants:
        idx = bisect.bisect_right(times, instant) - 1
        if idx < 0:
            continue
        when, text = points[idx]
        if instant - when > staleness:
            continue
        out.append({"value": text, "timestamp": format_instant(instant)})
    return out


def sample_series(
    values: Iterable[dict[str, Any]] | None, start: datetime, end: datetime, count: int
) -> list[dict[str, str]]:
    """The values a range query over [start, end] with `count` samples returns for one stored series."""
    return sample_points(stored_points(values), sample_instants(start, end, count))
