"""What the memory chart draws, worked out from the samples and the report, without drawing anything: the
usage series against a time axis, the configured limit and request as lines, the measured peak, the failures
and restarts the history places inside the sampled time, and the failed runs' time when it is only part of it.

Kept apart from the widget so the arithmetic (scales, ticks, which marks fall inside the axis) is tested
without a terminal. Times are seconds from the first sample; labels are UTC.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from core.models.quantity import format_bytes
from core.models.report import HistoryEntry

X_TICKS = 5
Y_TICKS = 4
HEADROOM = 1.08  # room above the highest line, so the limit is not drawn on the frame


@dataclass(frozen=True, slots=True)
class Span:
    start: float
    end: float
    label: str


@dataclass(frozen=True, slots=True)
class PlotSpec:
    xs: list[float]
    ys: list[float]  # in `unit`
    unit: str
    scale: int  # bytes per unit
    top: float
    x_ticks: list[float]
    x_labels: list[str]
    y_ticks: list[float]
    y_labels: list[str]
    limit: float | None
    request: float | None
    peak: tuple[float, float] | None
    failures: list[float] = field(default_factory=list)
    shaded: list[Span] = field(default_factory=list)
    held: list[tuple[int, int]] = field(default_factory=list)  # samples [start, stop) not drawn (held_runs)
    first: datetime | None = None
    last: datetime | None = None


def utc(at: datetime) -> datetime:
    return (at if at.tzinfo is not None else at.replace(tzinfo=UTC)).astimezone(UTC)


def _unit(top_bytes: int) -> tuple[str, int]:
    for unit, scale in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if top_bytes >= scale:
            return unit, scale
    return "B", 1


def _time_label(at: datetime, span_s: float) -> str:
    return f"{at:%m-%d %H:%M}" if span_s >= 20 * 3600 else f"{at:%H:%M}" if span_s >= 300 else f"{at:%H:%M:%S}"


def failure_times(history: Iterable[HistoryEntry]) -> list[datetime]:
    """The first failure line of each occurrence (a restart, a failed run): one mark per distinct failure."""
    first: dict[int | None, datetime] = {}
    for entry in history:
        if entry.failure and entry.at is not None:
            key = entry.occurrence if entry.occurrence is not None else -len(first) - 1
            if key not in first or utc(entry.at) < first[key]:
                first[key] = utc(entry.at)
    return sorted(first.values())


def run_spans(windows: Iterable[dict[str, object]]) -> list[tuple[datetime, datetime, str]]:
    """The report's `memory.windows` (each run the metrics were read for), skipping malformed ones."""
    spans: list[tuple[datetime, datetime, str]] = []
    for window in windows:
        try:
            start = utc(datetime.fromisoformat(str(window["start"])))
            end = utc(datetime.fromisoformat(str(window["end"])))
        except (KeyError, ValueError):
            continue
        spans.append((start, end, str(window.get("run") or "run")))
    return spans


def held_runs(samples: Sequence[tuple[datetime, int]], failures: Sequence[datetime]) -> list[tuple[int, int]]:
    """Index ranges [start, stop) of samples that only repeat the value a container had when it failed.

    A range query carries a series' last stored sample for minutes after the container stopped (Prometheus'
    staleness window), so memory looks held at its last level past the kill. A run of one exact value that
    straddles a failure is that carry: the curve is drawn to the run's first sample and not on."""
    times = [utc(at) for at, _ in samples]
    runs: list[tuple[int, int]] = []
    for failed in failures:
        i = bisect.bisect_right(times, utc(failed)) - 1
        if i < 0 or i + 1 >= len(samples) or samples[i + 1][1] != samples[i][1]:
            continue
        start, stop = i, i + 1
        while start > 0 and samples[start - 1][1] == samples[i][1]:
            start -= 1
        while stop < len(samples) and samples[stop][1] == samples[i][1]:
            stop += 1
        runs.append((start + 1, stop))
    return sorted(set(runs))


def plot_spec(
    samples: Sequence[tuple[datetime, int]],
    limit: int | None,
    request: int | None,
    failures: Sequence[datetime] = (),
    windows: Sequence[tuple[datetime, datetime, str]] = (),
) -> PlotSpec | None:
    """The chart for `samples` (oldest first); None when there is nothing measured to draw."""
    if not samples:
        return None
    first, last = utc(samples[0][0]), utc(samples[-1][0])
    span = max((last - first).total_seconds(), 1.0)
    peak_at, peak_bytes = max(samples, key=lambda sample: sample[1])
    top_bytes = max(v for v in (peak_bytes, limit or 0, request or 0, 1))
    unit, scale = _unit(top_bytes)
    top = top_bytes / scale * HEADROOM

    def x(at: datetime) -> float:
        return (utc(at) - first).total_seconds()

    x_ticks = [span * i / (X_TICKS - 1) for i in range(X_TICKS)]
    x_labels = [_time_label(datetime.fromtimestamp(first.timestamp() + t, UTC), span) for t in x_ticks]
    y_ticks = [top / HEADROOM * i / (Y_TICKS - 1) for i in range(Y_TICKS)]
    if limit is not None and limit / scale not in y_ticks:
        # The limit always gets its label, so its line can be read against the scale (over the limit, the peak
        # sets the top and the limit falls between ticks).
        y_ticks = sorted([*y_ticks, limit / scale])
    y_labels = [format_bytes(round(t * scale)) if t else "0" for t in y_ticks]
    shaded = [
        Span(max(0.0, x(a)), min(span, x(b)), label)
        for a, b, label in windows
        # A run that covers the whole axis is the chart itself: shading all of it would say nothing.
        if x(b) > 0 and x(a) < span and (x(a) > 0 or x(b) < span)
    ]
    return PlotSpec(
        xs=[x(at) for at, _ in samples],
        ys=[value / scale for _, value in samples],
        unit=unit,
        scale=scale,
        top=top,
        x_ticks=x_ticks,
        x_labels=x_labels,
        y_ticks=y_ticks,
        y_labels=y_labels,
        limit=limit / scale if limit is not None else None,
        request=request / scale if request is not None and request != limit else None,
        peak=(x(peak_at), peak_bytes / scale),
        failures=[x(at) for at in failures if 0 <= x(at) <= span],
        shaded=shaded,
        held=held_runs(samples, failures),
        first=first,
        last=last,
    )
