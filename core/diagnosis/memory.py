"""Step 4, metrics: the measured CPU-memory peak of each failed run against the configured limit.

A range query returns one value per evenly spaced instant, so a spike between two instants is invisible. We
therefore ask only about the time each failed run was alive, with the most samples the API gives, and split a
long run into several queries so the spacing stays near a typical scrape interval. The peak we report is the
largest value the API returned: a measurement, never a request, limit or allocation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from core.models.quantity import format_bytes
from core.models.report import NOT_MEASUREMENTS
from core.models.runai import MetricsResponse

USAGE = "CPU_MEMORY_USAGE_BYTES"
LIMIT = "CPU_MEMORY_LIMIT_BYTES"
REQUEST = "CPU_MEMORY_REQUEST_BYTES"
MEMORY_TYPES = (USAGE, LIMIT, REQUEST)
MAX_SAMPLES = 1000
# Spacing we aim for between instants; finer than this rarely reveals more on a 15-30 s scrape interval.
TARGET_STEP = timedelta(seconds=15)
MAX_CHUNKS_PER_WINDOW = 8
# The last sample before a kill can sit up to one scrape interval after the last one we would otherwise ask.
END_MARGIN = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class RunWindow:
    start: datetime
    end: datetime
    label: str  # "failed run ending 11:25" etc.
    current: bool


def plan_queries(window: RunWindow) -> list[tuple[datetime, datetime]]:
    """Split one run window so each query of MAX_SAMPLES instants is spaced about TARGET_STEP apart."""
    span = window.end - window.start
    if span <= timedelta(0):
        return []
    per_query = TARGET_STEP * (MAX_SAMPLES - 1)
    chunks = max(1, min(MAX_CHUNKS_PER_WINDOW, -(-span // per_query)))
    size = span / chunks
    return [(window.start + size * i, window.start + size * (i + 1)) for i in range(chunks)]


def step_of(window: RunWindow) -> timedelta:
    queries = plan_queries(window)
    if not queries:
        return timedelta(0)
    start, end = queries[0]
    return (end - start) / (MAX_SAMPLES - 1)


# No machine holds more memory than this (the largest single systems hold 32-48 TiB): a sample above it is not a
# measurement. A workload's series sums its pods', so its bound is this times their number.
PLAUSIBLE_MEMORY = 64 * 1024**4


@dataclass
class SeriesSummary:
    samples: list[tuple[datetime, int]]
    peak: int | None
    peak_at: datetime | None
    # Samples below zero or above the bound: not measurements, left out (how many, and the largest of them).
    dropped: int = 0
    dropped_example: int | None = None


def usage_summary(
    responses: Iterable[MetricsResponse], metric: str = USAGE, most: int = PLAUSIBLE_MEMORY
) -> SeriesSummary:
    """All samples of `metric` across the responses, de-duplicated by timestamp, oldest first; a value below zero
    or above `most` bytes is counted in `dropped`, never used."""
    by_time: dict[datetime, int] = {}
    dropped = 0
    example: int | None = None
    for response in responses:
        for series in response.series(metric):
            for sample in series.values or ():
                number = sample.number()
                if number is None or sample.timestamp is None:
                    continue
                value = int(number)
                if value < 0 or value > most:
                    dropped += 1
                    example = value if example is None or abs(value) > abs(example) else example
                    continue
                # Several series (one per pod) at one instant: the largest is the one that nears the limit.
                if value > by_time.get(sample.timestamp, -1):
                    by_time[sample.timestamp] = value
    samples = sorted(by_time.items())
    if not samples:
        return SeriesSummary([], None, None, dropped, example)
    # The first instant the peak was seen: a range query repeats the last sample until it goes stale, so a
    # later instant with the same value may lie after the kill that ended the run.
    peak = max(value for _, value in samples)
    peak_at = next(at for at, value in samples if value == peak)
    return SeriesSummary(samples, peak, peak_at, dropped, example)


def dropped_why(summary: SeriesSummary, most: int, *, whole: bool) -> str:
    """Why samples were left out: `whole` when none was left (so there is no peak at all)."""
    count = f"all {summary.dropped} samples" if whole else f"{summary.dropped} of the samples"
    return (
        f"{count} read were below zero or above {format_bytes(most)}, more than any machine holds (for example "
        f"{summary.dropped_example} bytes): {NOT_MEASUREMENTS}, so they were not used"
    )
