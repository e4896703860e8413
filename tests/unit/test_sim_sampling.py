"""Range-query sampling: evenly spaced instants, latest sample at or before each, 300 s staleness."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.sim.sampling import format_instant, sample_instants, sample_series, stored_points, value_text

T0 = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)


def _at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def _stamp(minutes: float) -> str:
    return format_instant(_at(minutes))


def test_instants_are_even_and_inclusive() -> None:
    assert sample_instants(T0, _at(10), 3) == [_at(0), _at(5), _at(10)]
    assert sample_instants(T0, _at(10), 1) == [_at(10)]
    odd = sample_instants(T0, T0 + timedelta(seconds=10), 4)
    assert odd[0] == T0 and odd[-1] == T0 + timedelta(seconds=10)
    assert odd[1] == T0 + timedelta(microseconds=3_333_333)
    assert sample_instants(T0, T0, 5) == [T0] * 5


def test_instant_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        sample_instants(T0, _at(1), 0)
    with pytest.raises(ValueError, match="before start"):
        sample_instants(_at(1), T0, 2)


def test_latest_sample_at_or_before_each_instant() -> None:
    values = [{"value": "b", "timestamp": _stamp(2)}, {"value": "a", "timestamp": _stamp(0)}]
    out = sample_series(values, T0, _at(4), 5)
    assert out == [
        {"value": "a", "timestamp": _stamp(0)},
        {"value": "a", "timestamp": _stamp(1)},
        {"value": "b", "timestamp": _stamp(2)},
        {"value": "b", "timestamp": _stamp(3)},
        {"value": "b", "timestamp": _stamp(4)},
    ]


def test_staleness_window_is_300_seconds_inclusive() -> None:
    values = [{"value": "1", "timestamp": _stamp(1)}]
    out = sample_series(values, T0, _at(7), 8)  # instants every minute, 10:00 .. 10:07
    # nothing before the first sample; 10:06 is exactly 300 s after it (kept), 10:07 is stale (left out)
    assert [o["timestamp"] for o in out] == [_stamp(m) for m in (1, 2, 3, 4, 5, 6)]


def test_a_spike_between_instants_is_missed() -> None:
    values = [
        {"value": "10", "timestamp": _stamp(0)},
        {"value": "99", "timestamp": _stamp(2)},
        {"value": "10", "timestamp": _stamp(3)},
    ]
    assert [o["value"] for o in sample_series(values, T0, _at(4), 2)] == ["10", "10"]
    assert "99" in [o["value"] for o in sample_series(values, T0, _at(4), 5)]


def test_values_are_kept_as_written() -> None:
    assert value_text("6442450944") == "6442450944"
    assert value_text("1e9") == "1e9"
    assert value_text(3) == "3"
    assert value_text(2.0) == "2"
    assert value_text(0.25) == "0.25"


def test_unparsable_and_empty_series() -> None:
    assert stored_points([{"value": "1", "timestamp": "nope"}, {"timestamp": _stamp(0)}]) == []
    assert sample_series(None, T0, _at(1), 3) == []
    assert sample_series([], T0, _at(1), 3) == []


def test_format_instant() -> None:
    assert format_instant(T0) == "2026-11-30T10:00:00Z"
    assert format_instant(T0 + timedelta(milliseconds=250)) == "2026-11-30T10:00:00.250Z"
