"""A history that never ends (`next` advancing for ever, 20,000 records a page where 500 were asked for) is read
up to the record cap and no further, and the report says so: the same pages and the same report on a quick
server and on a slow one, because the bound is a count, not a time. (How long it takes, against a 20,000-record
history read whole: tests/benchmarks/bench_endless_history.py.)"""

from __future__ import annotations

import math

from core.diagnosis.engine import run_to_report
from core.diagnosis.steps.history import MAX_HISTORY_RECORDS
from core.models.report import Report
from tests.benchmarks.endless_history import PER_PAGE, endless_tenant


async def _diagnose(latency_ms: float) -> tuple[Report, int]:
    async with endless_tenant(latency_ms=latency_ms) as (client, plane, request):
        report = await run_to_report(request, client, None, tier2_unavailable="no Kubernetes in this test")
        return report, plane.pages_served


async def test_an_endless_history_stops_at_the_record_cap_and_says_so() -> None:
    report, served = await _diagnose(0)
    pages = math.ceil(MAX_HISTORY_RECORDS / PER_PAGE)
    assert served == pages  # records oldest first: nothing read ahead, nothing past the cap
    assert report.category == "OOM_KILLED"
    [stopped] = [m for m in report.missing if m.what == "older history"]
    assert f"stopped after {pages * PER_PAGE:,} records in {pages} pages" in stopped.why
    assert f"at most {MAX_HISTORY_RECORDS:,} records" in stopped.why
    [oversized] = [m for m in report.missing if "where 500 were asked for" in m.why]
    assert f"pages of up to {PER_PAGE:,} records" in oversized.why
    assert report.recurrence.complete is False  # a floor: what was read, and it says "at least"


async def test_the_bound_is_a_count_the_same_on_a_slow_server() -> None:
    quick, quick_pages = await _diagnose(0)
    slow, slow_pages = await _diagnose(150)  # every answer 150 ms later: a busy machine, seen from the client
    assert slow_pages == quick_pages
    assert [m.why for m in slow.missing] == [m.why for m in quick.missing]
    assert slow.recurrence == quick.recurrence
