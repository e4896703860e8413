"""How recurrence is worded when the history was read whole, and when it was not (then the count is a floor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.models.report import Report
from tui.widgets.verdict_banner import recurrence_badge

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "reports" / "demo" / "crash-traceback.json"


def _golden() -> dict[str, object]:
    """The JSON report of a golden case (stored there as its lines)."""
    return json.loads("\n".join(json.loads(GOLDEN.read_text(encoding="utf-8"))["json"]))


def _report(count: int, complete: bool) -> Report:
    data = _golden()
    data["recurrence"] |= {"count": count, "recurring": count >= 2, "complete": complete, "lookback": "24h"}
    return Report.model_validate(data)


@pytest.mark.parametrize(
    ("count", "complete", "badge"),
    [
        (1, True, "1 in 24h · one-off"),
        (3, True, "3 in 24h · recurring"),
        (0, True, "0 in 24h · none counted"),
        (1, False, "1+ in 24h · recurrence unknown"),
        (0, False, "0+ in 24h · recurrence unknown"),
        (2, False, "2+ in 24h · recurring"),
    ],
)
def test_the_banner_calls_no_count_from_a_partial_history_a_one_off(count: int, complete: bool, badge: str) -> None:
    assert recurrence_badge(_report(count, complete)) == badge


def test_a_report_without_the_added_key_reads_as_complete() -> None:
    # Reports written before the key existed (or by another tool) counted from a history read whole.
    data = _golden()
    data["recurrence"].pop("complete", None)
    assert Report.model_validate(data).recurrence.complete is True
