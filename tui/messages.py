"""Messages the app's workers and screens exchange.

Workers never touch widgets: each one posts exactly one of these when its read ends. Results of reads that
can go stale carry the number of the request they answer (`seq` / `generation`), so a screen can drop an
answer for filters it no longer shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from core.models.runai import Cluster, Workload
from core.triage.attention import AttentionPage
from tui.commands.start import OpenedTenant, StartProblem

if TYPE_CHECKING:  # both load the engine, which the picker's first page never needs
    from core.diagnosis.progress import ProgressEvent
    from core.triage.batch import Verdict


@dataclass(frozen=True, slots=True)
class DiagnosisTarget:
    """What to diagnose: a workload id, or a name + project to resolve (the seed's Option A / Option B)."""

    cluster_id: str | None
    workload_id: str | None = None
    name: str | None = None
    project: str | None = None


class TenantOpened(Message):
    def __init__(self, opened: OpenedTenant) -> None:
        super().__init__()
        self.opened = opened


class StartFailed(Message):
    def __init__(self, problem: StartProblem) -> None:
        super().__init__()
        self.problem = problem


class WorkloadChosen(Message):
    """The user asked to diagnose a workload from the picker (`replay`: its background diagnosis, if done)."""

    def __init__(
        self,
        workload_id: str,
        cluster_id: str | None,
        name: str | None,
        project: str | None,
        replay: tuple[ProgressEvent, ...] = (),
    ) -> None:
        super().__init__()
        self.workload_id = workload_id
        self.cluster_id = cluster_id
        self.name = name
        self.project = project
        self.replay = replay


class VerdictArrived(Message):
    """A background diagnosis of a picker row finished (`seq`: the page it was started for)."""

    def __init__(self, seq: int, workload: Workload, verdict: Verdict) -> None:
        super().__init__()
        self.seq = seq
        self.workload = workload
        self.verdict = verdict


class ClustersLoaded(Message):
    def __init__(self, clusters: list[Cluster], problems: list[str]) -> None:
        super().__init__()
        self.clusters = clusters
        self.problems = problems


class ClustersFailed(Message):
    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error


class ProjectsLoaded(Message):
    def __init__(self, cluster_id: str | None, names: list[str]) -> None:
        super().__init__()
        self.cluster_id = cluster_id
        self.names = names


class ProjectsFailed(Message):
    def __init__(self, cluster_id: str | None, error: Exception) -> None:
        super().__init__()
        self.cluster_id = cluster_id
        self.error = error


class PageLoaded(Message):
    def __init__(
        self,
        seq: int,
        offset: int,
        limit: int,
        workloads: list[Workload],
        next_offset: int | None,
        unreadable: int,
        attention: AttentionPage | None = None,
    ) -> None:
        super().__init__()
        self.seq = seq
        self.offset = offset
        self.limit = limit
        self.workloads = workloads
        self.next_offset = next_offset
        self.unreadable = unreadable
        # For the needs-attention view: why each row is listed and what the client-side check read.
        self.attention = attention


class PageFailed(Message):
    def __init__(self, seq: int, error: Exception) -> None:
        super().__init__()
        self.seq = seq
        self.error = error


class CountLoaded(Message):
    def __init__(self, generation: int, count: int) -> None:
        super().__init__()
        self.generation = generation
        self.count = count


class CountFailed(Message):
    def __init__(self, generation: int, error: Exception) -> None:
        super().__init__()
        self.generation = generation
        self.error = error


# -- the diagnosis screen's run -------------------------------------------------------------------------------
class DiagnosisProgress(Message):
    """Engine events of run `run_id`, one or a batch (tui.progress_batches), in the order they came."""

    def __init__(self, run_id: int, events: ProgressEvent | Sequence[ProgressEvent]) -> None:
        super().__init__()
        self.run_id = run_id
        self.events: tuple[ProgressEvent, ...] = tuple(events) if isinstance(events, Sequence) else (events,)


class DiagnosisStopped(Message):
    """Run `run_id` ended without a report (DiagnosisFailed or an unexpected error), in words."""

    def __init__(self, run_id: int, title: str, detail: str, hint: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.title = title
        self.detail = detail
        self.hint = hint
