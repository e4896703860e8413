"""A long history is read several pages at a time, and gives exactly the report of reading it page by page.

Real HTTP against the simulator throughout. The page-by-page reference is the same engine with a read-ahead of
one page. The Run:ai client is wrapped only to watch its history calls, or to play a server whose `next` does
not step by the page size.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.steps import history_pages
from core.diagnosis.steps.history_pages import READ_AHEAD, pages_to_floor
from core.models.pages import Page
from core.models.report import Report
from core.models.runai import HistoryRecord
from core.sim.bundle import parse_bundle
from core.sim.demo.kit import NOW
from core.sources.runai import RunaiClient
from core.tenant import open_bundle_tenant
from tests.engine.test_rule_cases import bundle_of, oom_message, oom_story

RECORDS_PER_RUN = 400


def _long_story() -> Any:
    """Eight OOM runs over two days, each with hundreds of back-off events: about 3,300 records, 7 pages."""
    s = oom_story("h-ahead", "ahead-oom", at=30)
    s.history.clear()
    s.created = 3200
    pod = s.pod_name()
    for end in (2900, 2500, 2100, 1700, 1300, 900, 500, 30):
        s.add_phase(end + 60, "Pending")
        s.add_phase(end + 55, "Running")
        for i in range(RECORDS_PER_RUN):
            s.add_event(end + 50 - i * 0.1, "BackOff", f"Back-off restarting failed container main in pod {pod}",
                        pod=pod, in_events=False)
        s.add_event(end + 0.05, "OOMKilled", "Container main was OOM killed", pod=pod, in_events=False)
        s.add_phase(end, "Failed", oom_message(pod))
    return s


class _Watched:
    """The real client; its history calls counted while in flight, optionally with `next` stepping by less than
    a page (a server whose pages overlap)."""

    def __init__(self, client: RunaiClient, *, next_step: int | None = None, uneven: bool = False) -> None:
        self._client = client
        self._next_step = next_step
        self._uneven = uneven
        self.in_flight = self.most_in_flight = 0
        self.offsets: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    async def get_history(self, workload_id: str, **kwargs: Any) -> Page[HistoryRecord]:
        self.offsets.append(kwargs["offset"])
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            page = await self._client.get_history(workload_id, **kwargs)
        finally:
            self.in_flight -= 1
        if self._next_step is not None and page.next is not None:
            page.next = kwargs["offset"] + self._next_step
        if self._uneven and page.next is not None:  # steps of 300 and 500 in turn, by offset
            page.next = kwargs["offset"] + (300 if (kwargs["offset"] // 100) % 2 == 0 else 500)
        return page


async def _diagnose(**watch: Any) -> tuple[Report, _Watched]:
    story = _long_story()
    bundle = parse_bundle(bundle_of([story], kube=False), "inline")
    async with open_bundle_tenant(bundle, label="read-ahead") as tenant:
        watched = _Watched(tenant.runai, **watch)
        request = DiagnosisRequest(cluster_id=story.cluster, workload_id=story.id, lookback="7d", now=NOW)
        report = await run_to_report(request, watched, None, tier2_unavailable="not in this test")  # type: ignore[arg-type]
        return report, watched


def _comparable(report: Report) -> dict[str, Any]:
    data = report.model_dump(mode="json")
    data.pop("reads", None)  # how many reads were made is what read-ahead may change; nothing else
    return data


async def _one_by_one(monkeypatch: pytest.MonkeyPatch, **watch: Any) -> tuple[Report, _Watched]:
    with monkeypatch.context() as patch:
        patch.setattr(history_pages, "READ_AHEAD", 1)
        return await _diagnose(**watch)


async def test_pages_are_read_ahead_and_the_report_is_that_of_reading_them_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ahead, watched = await _diagnose()
    one_by_one, serial = await _one_by_one(monkeypatch)
    assert serial.most_in_flight == 1
    assert 1 < watched.most_in_flight <= READ_AHEAD
    assert _comparable(ahead) == _comparable(one_by_one)
    assert ahead.recurrence is not None and ahead.recurrence.count == 8
    assert serial.offsets == list(range(0, 3500, 500))  # 3,232 records
    # Every page the one-by-one reading needed, each asked for once; any other lies past the last record.
    assert len(watched.offsets) == len(set(watched.offsets)) and set(serial.offsets) <= set(watched.offsets)
    assert all(offset >= 3232 for offset in set(watched.offsets) - set(serial.offsets))


async def test_a_server_whose_next_does_not_step_by_a_page_gets_the_same_report_either_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ahead, watched = await _diagnose(next_step=300)
    one_by_one, serial = await _one_by_one(monkeypatch, next_step=300)
    assert _comparable(ahead) == _comparable(one_by_one)
    assert serial.offsets == list(range(0, 3300, 300))
    assert set(serial.offsets) <= set(watched.offsets)


async def test_a_server_whose_steps_change_has_the_pages_asked_ahead_dropped_and_asked_again_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ahead, watched = await _diagnose(uneven=True)
    one_by_one, serial = await _one_by_one(monkeypatch, uneven=True)
    assert _comparable(ahead) == _comparable(one_by_one)
    assert serial.offsets[:4] == [0, 300, 800, 1100]
    assert set(serial.offsets) <= set(watched.offsets)


def test_the_read_ahead_guess_follows_the_time_one_page_covered() -> None:
    newest = NOW
    assert pages_to_floor(newest, newest - timedelta(hours=1), 500, newest - timedelta(hours=3), 500) == 2
    assert pages_to_floor(newest, newest - timedelta(hours=1), 500, newest - timedelta(days=9), 500) == READ_AHEAD
    # Nothing to go by (one instant, or already past the floor): the next page only.
    assert pages_to_floor(newest, newest, 500, newest - timedelta(days=1), 500) == 1
    assert pages_to_floor(newest, newest - timedelta(hours=1), 500, newest, 500) == 1
