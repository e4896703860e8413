"""The diagnosis engine's public face: one diagnosis as an async iterator of progress events, ending in a report.

The workflow itself is core/diagnosis/orchestrator.py (the seed's steps in order, with its gates) over the
step modules in core/diagnosis/steps/. The screen drains `diagnose` and fills in as events arrive; the
headless command and the tests call `run_to_report`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING

from core.diagnosis.orchestrator import Orchestrator
from core.diagnosis.progress import ProgressEvent, VerdictReady
from core.diagnosis.reader import DiagnosisFailed, Tier1
from core.diagnosis.request import DiagnosisRequest
from core.diagnosis.steps.cluster import UnknownCluster
from core.models.report import Report
from core.sources.budget import DIAGNOSIS_BUDGET_S, time_budget

if TYPE_CHECKING:
    from core.sources.kube import KubeSource

__all__ = ["DiagnosisFailed", "OpenTier2", "Tier1", "UnknownCluster", "diagnose", "run_to_report"]

# How to open Tier 2 when the diagnosis needs it: its source, or why there is none (core.tenant.Tenant.open_tier2).
OpenTier2 = Callable[[], Awaitable[tuple["KubeSource | None", str | None]]]

_DONE = object()


async def diagnose(
    request: DiagnosisRequest,
    tier1: Tier1,
    tier2: KubeSource | None = None,
    *,
    tier2_unavailable: str | None = None,
    open_tier2: OpenTier2 | None = None,
    clock: Callable[[], float] = time.perf_counter,
    budget_s: float = DIAGNOSIS_BUDGET_S,
) -> AsyncIterator[ProgressEvent]:
    """Run one diagnosis; yields progress as reads complete and ends with `VerdictReady`.

    Raises DiagnosisFailed when no report can be produced at all (the API unreachable, credentials refused,
    the workload itself unreadable). Closing the iterator early cancels the reads still in flight. Every read
    made on its behalf shares one time budget (`budget_s`), whoever drives it: the app, a script or a scan.
    Tier 2 is either given (`tier2`, or why not: `tier2_unavailable`) or opened with `open_tier2`, which starts
    with Step 1 and is waited for only when Step 1 confirms an in-scope failure.
    """
    queue: asyncio.Queue[object] = asyncio.Queue()

    async def work() -> None:
        try:
            with time_budget(budget_s):  # set inside the task, so its reads (and their threads) see it
                await Orchestrator(
                    request, tier1, tier2, tier2_unavailable, clock, queue.put_nowait, open_tier2=open_tier2
                ).run()
        finally:
            queue.put_nowait(_DONE)

    task = asyncio.create_task(work())
    try:
        while True:
            item = await queue.get()
            if item is _DONE:
                break
            yield item  # type: ignore[misc]
        await task
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def run_to_report(
    request: DiagnosisRequest,
    tier1: Tier1,
    tier2: KubeSource | None = None,
    *,
    tier2_unavailable: str | None = None,
    open_tier2: OpenTier2 | None = None,
) -> Report:
    """Drain a diagnosis and return its report (for the headless command and tests)."""
    report: Report | None = None
    async for event in diagnose(request, tier1, tier2, tier2_unavailable=tier2_unavailable, open_tier2=open_tier2):
        if isinstance(event, VerdictReady):
            report = event.report
    assert report is not None
    return report
