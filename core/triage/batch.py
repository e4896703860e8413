"""Many diagnoses at once, within an API politeness budget.

A batch (a scan, the picker's background verdicts, an MCP scan) runs the same engine as a single diagnosis,
a few workloads at a time. Two limits hold whatever the batch size:

- `Politeness.diagnoses`: how many diagnoses run at the same time (the rest wait their turn, in order);
- `Politeness.requests`: how many reads (Run:ai and Kubernetes together) are in flight at once, across all of
  them. One diagnosis makes about ten reads in three rounds, so a few diagnoses keep this many busy.

`diagnose_many` yields each result as it finishes; closing it early cancels every diagnosis still running or
waiting, and their reads with them. A diagnosis that cannot produce a report is a `Verdict` with `failure`
set, never an exception that stops the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.diagnosis.engine import DiagnosisFailed, OpenTier2, Tier1, diagnose
from core.diagnosis.progress import ProgressEvent, VerdictReady
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.safety.untrusted import clean

MAX_DIAGNOSES = 16


@dataclass(frozen=True, slots=True)
class Politeness:
    """How hard a batch may lean on the APIs: diagnoses at once, and reads in flight at once."""

    diagnoses: int = 4
    requests: int = 8

    def __post_init__(self) -> None:
        if not 1 <= self.diagnoses <= MAX_DIAGNOSES:
            raise ValueError(f"concurrency must be a whole number from 1 to {MAX_DIAGNOSES}, got {self.diagnoses}")
        if self.requests < 1:
            raise ValueError(f"requests in flight must be at least 1, got {self.requests}")

    def describe(self) -> str:
        return f"at most {self.diagnoses} diagnoses and {self.requests} API reads in flight at once"


# The picker's background verdicts: gentler than a scan, so the picker's own page reads never queue behind it.
BACKGROUND = Politeness(diagnoses=2, requests=4)


class Gated:
    """Any source (a Run:ai client, a Kubernetes source) whose async reads each wait for a slot of `gate`.

    Forwarding by name keeps this in step with whatever reads the source offers; attributes that are not
    coroutine functions (a label, a property) pass through untouched.
    """

    def __init__(self, inner: Any, gate: asyncio.Semaphore) -> None:
        self._inner = inner
        self._gate = gate

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name.startswith("_") or not inspect.iscoroutinefunction(attr):
            return attr
        return self._gated(attr)

    def _gated(self, call: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def gated(*args: Any, **kwargs: Any) -> Any:
            async with self._gate:
                return await call(*args, **kwargs)

        return gated


class ClustersOnce:
    """A Run:ai source whose clusters list is read once and shared. Every diagnosis checks its cluster against
    that list (and reads the cluster's status from it); within one batch the list does not change, so a batch of
    fifty diagnoses makes one read of it, not fifty. A failed read is shared too: each diagnosis states the gap."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._read: asyncio.Future[Any] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def list_clusters_page(self) -> Any:
        if self._read is None:
            self._read = asyncio.ensure_future(self._inner.list_clusters_page())
        # Shielded: one diagnosis cancelled (the picker left its page) does not cancel the read the others await.
        return await asyncio.shield(self._read)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One diagnosis of a batch: its report and every progress event (so a screen can replay it), or why none."""

    request: DiagnosisRequest
    report: Report | None
    events: tuple[ProgressEvent, ...] = ()
    failure: str | None = None

    @property
    def label(self) -> str:
        """The category of a diagnosis, the outcome of a routed-out one, or `no report`."""
        return verdict_label(self.report)


def verdict_label(report: Report | None) -> str:
    if report is None:
        return "no report"
    if report.outcome == "diagnosed" and report.category:
        return report.category
    return report.outcome


async def diagnose_collected(
    request: DiagnosisRequest,
    tier1: Tier1,
    tier2: Any = None,
    *,
    tier2_unavailable: str | None = None,
    open_tier2: OpenTier2 | None = None,
) -> Verdict:
    """One diagnosis drained into a `Verdict`; a failure to produce a report is stated, not raised."""
    events: list[ProgressEvent] = []
    try:
        async for event in diagnose(
            request, tier1, tier2, tier2_unavailable=tier2_unavailable, open_tier2=open_tier2
        ):
            events.append(event)
    except DiagnosisFailed as exc:
        return Verdict(request, None, tuple(events), f"no report could be produced: {clean(exc, max_len=500)}")
    except Exception as exc:  # an engine bug ends this diagnosis in words, never the whole batch
        text = clean(f"{type(exc).__name__}: {exc}", max_len=500)
        return Verdict(request, None, tuple(events), f"internal error, no report: {text}")
    report = next((e.report for e in reversed(events) if isinstance(e, VerdictReady)), None)
    return Verdict(request, report, tuple(events), None if report else "the diagnosis ended without a verdict")


async def diagnose_many(
    requests: Sequence[DiagnosisRequest],
    tier1: Tier1,
    tier2: Any = None,
    *,
    tier2_unavailable: str | None = None,
    open_tier2: OpenTier2 | None = None,
    politeness: Politeness = Politeness(),
) -> AsyncIterator[tuple[int, Verdict]]:
    """Diagnose `requests` (started in their order) and yield `(index, verdict)` as each one finishes.

    Tier 2 is given (`tier2` / `tier2_unavailable`) or opened with `open_tier2` by the first diagnosis that
    needs it (each waits for the same opening), its reads under the same gate."""
    gate = asyncio.Semaphore(politeness.requests)
    gated1: Any = Gated(ClustersOnce(tier1), gate)
    gated2: Any = Gated(tier2, gate) if tier2 is not None else None
    turns = asyncio.Semaphore(politeness.diagnoses)
    gated_open: OpenTier2 | None = None
    if open_tier2 is not None:
        opener = open_tier2

        async def gated_open() -> tuple[Any, str | None]:
            kube, why = await opener()
            return (Gated(kube, gate) if kube is not None else None), why

    async def one(index: int, request: DiagnosisRequest) -> tuple[int, Verdict]:
        async with turns:
            verdict = await diagnose_collected(
                request, gated1, gated2, tier2_unavailable=tier2_unavailable, open_tier2=gated_open
            )
            return index, verdict

    tasks = [asyncio.create_task(one(i, r)) for i, r in enumerate(requests)]
    try:
        for finished in asyncio.as_completed(tasks):
            yield await finished
    finally:
        for task in tasks:
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*tasks, return_exceptions=True)
