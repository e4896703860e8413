"""The lookback window (`--lookback`, `--since`, the app's `l`): what is accepted, and what each refusal says."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.diagnosis.request import UsageError, parse_lookback


@pytest.mark.parametrize(
    ("text", "window"),
    [("90m", timedelta(minutes=90)), ("24h", timedelta(hours=24)), (" 7d ", timedelta(days=7)),
     ("52w", timedelta(weeks=52)), ("366d", timedelta(days=366))],
)
def test_accepted_windows(text: str, window: timedelta) -> None:
    assert parse_lookback(text) == window


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("53w", "longer than a year"),
        ("367d", "longer than a year"),
        ("99999999w", "longer than a year"),  # a long number is a long window, not a malformed one
        ("9" * 64 + "d", "longer than a year"),  # and never overflows the arithmetic
        ("0h", "longer than zero"),
        ("2y", "not understood"),
        ("-5h", "not understood"),
        ("", "not understood"),
    ],
)
def test_refused_windows_say_why(text: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_lookback(text)
