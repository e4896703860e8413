"""Progress reaches the diagnosis screen in batches: a burst goes together, the verdict at once, nothing is
held past the flush delay, and a cancelled run's leftovers are dropped."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from core.diagnosis.progress import ProgressEvent, StepStarted, VerdictReady
from tui.progress_batches import FLUSH_S, ProgressBatches


def _collector() -> tuple[list[tuple[ProgressEvent, ...]], Any]:
    posted: list[tuple[ProgressEvent, ...]] = []

    def post(events: Sequence[ProgressEvent]) -> None:
        posted.append(tuple(events))

    return posted, post


async def test_a_burst_goes_as_one_batch_after_the_delay_and_in_order() -> None:
    posted, post = _collector()
    batches = ProgressBatches(post)
    events = [StepStarted(n, f"step {n}") for n in (1, 2, 3)]
    for event in events:
        batches.add(event)
    assert posted == []  # held for the delay
    await asyncio.sleep(FLUSH_S * 3)
    assert posted == [tuple(events)]


async def test_the_verdict_goes_at_once_with_what_waited_before_it() -> None:
    posted, post = _collector()
    batches = ProgressBatches(post)
    verdict = VerdictReady(report=None)  # type: ignore[arg-type]
    batches.add(StepStarted(5, "classify"))
    batches.add(verdict)
    assert posted == [(StepStarted(5, "classify"), verdict)]
    await asyncio.sleep(FLUSH_S * 3)
    assert len(posted) == 1  # the timer was stopped: nothing posted twice


async def test_a_closed_batcher_drops_what_waited() -> None:
    posted, post = _collector()
    batches = ProgressBatches(post)
    batches.add(StepStarted(1, "resolve"))
    batches.close()
    await asyncio.sleep(FLUSH_S * 3)
    assert posted == []
