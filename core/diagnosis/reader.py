"""How the engine makes a read: counted against its step, announced when it finishes, a failure made a gap.

Only the reads everything depends on may end a diagnosis: the workload's own status read and the list a lookup
by name needs (`essential=True`). When one of them finds the API unreachable or the credentials refused,
`DiagnosisFailed` says so. Every other failure, of any kind (unreachable after retries, refused, timed out,
malformed, too deep to parse, anything but a cancellation), becomes a `ReadFailure` or `Missing` that the
report states, and the diagnosis carries on with what it has. `Steps` announces the seed's five steps as they
start and finish, with the reads each made.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from core.diagnosis.observations import quote
from core.diagnosis.progress import STEP_TITLES, ProgressEvent, ReadFinished, StepFinished, StepStarted
from core.models.history_compact import CompactRecord
from core.models.pages import Page
from core.models.report import MissingItem
from core.models.runai import (
    Cluster,
    HistoryRecord,
    InferenceRevision,
    MetricsResponse,
    RunaiPod,
    Workload,
    WorkloadEvent,
)
from core.models.runai_spec import WorkloadSpecDoc
from core.sources.errors import (
    ApiError,
    ApiTimeout,
    AuthError,
    BrokenAnswer,
    ForbiddenError,
    MalformedResponse,
    NotFoundError,
    RunaiError,
    UnreachableError,
)
from core.sources.evidence import Missing

T = TypeVar("T")
Emit = Callable[[ProgressEvent], None]


class Tier1(Protocol):
    """The Run:ai reads the engine makes (RunaiClient provides them)."""

    async def list_workloads(self, **kwargs: Any) -> Page[Workload]: ...
    async def get_workload(self, workload_id: str) -> Workload: ...
    async def get_events(self, workload_id: str, **kwargs: Any) -> Page[WorkloadEvent]: ...
    async def get_spec(self, workload_id: str, workload_type: str | None) -> WorkloadSpecDoc: ...
    async def get_pods(self, workload_id: str, **kwargs: Any) -> Page[RunaiPod]: ...
    async def get_history(self, workload_id: str, **kwargs: Any) -> Page[CompactRecord]: ...
    async def get_metrics(
        self, workload_id: str, types: Any, start: datetime, end: datetime, samples: int = ...
    ) -> MetricsResponse: ...
    async def get_pod_metrics(
        self, workload_id: str, pod_id: str, types: Any, start: datetime, end: datetime, samples: int = ...
    ) -> MetricsResponse: ...
    async def list_projects(self, **kwargs: Any) -> Any: ...
    async def list_clusters_page(self) -> Page[Cluster]: ...
    async def list_inference_revisions(self, workload_id: str, **kwargs: Any) -> Page[InferenceRevision]: ...
    async def get_revision_pods(self, revision_id: str, **kwargs: Any) -> Page[RunaiPod]: ...
    async def get_revision_events(self, revision_id: str, **kwargs: Any) -> Page[WorkloadEvent]: ...
    async def get_revision_history(self, revision_id: str, **kwargs: Any) -> Page[HistoryRecord]: ...


class DiagnosisFailed(Exception):
    """No report can be produced (unreachable, credentials refused): the message says what to try."""


@dataclass(frozen=True, slots=True)
class ReadFailure:
    """A Run:ai read that failed: the error, and the gap it leaves in the report's words."""

    error: Exception
    missing: MissingItem


# Why a read failed, by the error's type (the first that fits), in words a user can act on.
_WHY: tuple[tuple[type[Exception] | tuple[type[Exception], ...], str], ...] = (
    (AuthError, "the credentials were refused: {}"),
    (UnreachableError, "the control plane could not be reached: {}"),
    (NotFoundError, "not found (HTTP 404): {}"),
    (ForbiddenError, "refused (HTTP 403): the access key lacks a role that can read this; {}"),
    (ApiTimeout, "timed out: {}"),
    # Before MalformedResponse, its base: nothing usable arrived, so there was no answer to read.
    (BrokenAnswer, "the server was reached but did not send a complete answer: {}"),
    (MalformedResponse, "the answer could not be read: {}"),
    (ApiError, "the API answered HTTP {status}: {}"),
    ((RunaiError, ValueError), "{}"),
    (RecursionError, "the answer is nested too deeply to be read"),
)


def error_why(exc: Exception) -> str:
    """Why a read failed; the error's own text is quoted, cleaned."""
    for kinds, why in _WHY:
        if isinstance(exc, kinds):
            # Long enough that the cause and the advice at the end of our own error texts are never cut.
            return why.format(quote(exc, 600), status=getattr(exc, "status", None))
    return f"the answer could not be read ({type(exc).__name__}): {quote(exc, 300)}"


class Reader:
    """Makes reads for the engine and counts them, in total and per step, as each one starts."""

    def __init__(self, emit: Emit, clock: Callable[[], float]) -> None:
        self._emit = emit
        self._clock = clock
        self.total = 0
        self.by_step: dict[int, int] = {}

    def _count(self, step: int) -> float:
        self.total += 1
        self.by_step[step] = self.by_step.get(step, 0) + 1
        return self._clock()

    async def tier1(
        self, step: int, source: str, what: str, call: Callable[[], Awaitable[T]], *, essential: bool = False
    ) -> T | ReadFailure:
        begin = self._count(step)
        try:
            value = await call()
        except (AuthError, UnreachableError) as exc:
            self._emit(ReadFinished(source, what, self._clock() - begin, False, step))
            if essential:  # nothing else could be read either
                raise DiagnosisFailed(quote(exc, 500)) from exc
            return ReadFailure(exc, MissingItem(what=what, why=error_why(exc), source=source))
        except Exception as exc:  # not CancelledError (a BaseException): a cancelled read stays cancelled
            self._emit(ReadFinished(source, what, self._clock() - begin, False, step))
            return ReadFailure(exc, MissingItem(what=what, why=error_why(exc), source=source))
        self._emit(ReadFinished(source, what, self._clock() - begin, True, step))
        return value

    async def tier2(self, step: int, source: str, what: str, call: Callable[[], Awaitable[T]]) -> T | Missing:
        """The Kubernetes source answers a failed read with `Missing`; anything it raises becomes one too."""
        begin = self._count(step)
        try:
            value = await call()
        except Exception as exc:
            value = Missing(what, error_why(exc), source)
        self._emit(ReadFinished(source, what, self._clock() - begin, not isinstance(value, Missing), step))
        return value


class Steps:
    """Announces the seed's steps: each starts once, and finishes with its reads and time (or why skipped)."""

    def __init__(self, emit: Emit, clock: Callable[[], float], reader: Reader) -> None:
        self._emit = emit
        self._clock = clock
        self._reader = reader
        self._started: dict[int, float] = {}
        self._finished: set[int] = set()

    def start(self, step: int) -> None:
        if step in self._started:
            return
        self._started[step] = self._clock()
        self._emit(StepStarted(step, STEP_TITLES[step]))

    def finish(self, step: int, skipped: str | None = None) -> None:
        started = self._started.get(step)
        if started is None:
            self._emit(StepStarted(step, STEP_TITLES[step]))
            started = self._started[step] = self._clock()
        self._finished.add(step)
        self._emit(StepFinished(step, self._reader.by_step.get(step, 0), self._clock() - started, skipped))

    def finished(self, step: int) -> bool:
        return step in self._finished


async def cancel_all(tasks: Sequence[asyncio.Task[Any]]) -> None:
    """Cancel the tasks still running and wait for them; a read that failed beside the one that ended the run
    was already reported, so its exception is consumed here, not logged as never retrieved."""
    pending = [task for task in tasks if not task.done()]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for task in tasks:
        if not task.cancelled():
            task.exception()
