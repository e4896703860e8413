"""`runai-triage watch`: poll one cluster (or one project of it) and diagnose every workload that newly fails or
newly needs attention, once per phase change, as it happens.

One sweep:
1. List the workloads whose phase changed inside the window (`phaseUpdatedAt>=` its start), newest first, with the
   needs-attention filters (the phases that never need a diagnosis left out by the server): one list request,
   more only when more than a page changed in the window. Every row is checked again on the client.
2. Keep the rows not delivered yet (the state, core.triage.watch_state) that need attention: Failed, Crashed and
   Stopped always; Pending, Running and Degraded when their status, or their recent events, show a failing pod
   (core.triage.attention; a row's events are read again at every sweep while its phase change is fresh, then
   less often, at least once a minute: `_recheck`).
3. Diagnose them, oldest first, at most `max_per_minute` started in any minute (the rest wait for the next
   sweep, never dropped), within the background politeness budget (two diagnoses, four reads in flight), and
   hand each over as it is ready. The caller says when one was delivered (`delivered`); only then is it kept as
   done, so a report whose output or post failed is not lost.

The window starts at `--since` back from the start (else at the state's watermark, for a restarted watch, else
at the start) and then follows the sweeps, SLACK behind the last one that went well, so a late phase change is
still seen and the state stays small. A diagnosis that produced no report is tried again at the next sweeps (a
storm of 429s may be why), and delivered as "no report" after MAX_TRIES. Sweeps are paced by the caller with a
`Pacer` (core.triage.pacing), which backs off while the list cannot be read.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from core.diagnosis.request import DiagnosisRequest, UsageError, parse_lookback
from core.models.runai import Workload
from core.sources.runai import MAX_LIMIT, filter_item, invalid_workload_id
from core.triage.attention import Judgement, attention_filters, judge_by_events, judge_listed
from core.triage.batch import BACKGROUND, ClustersOnce, Politeness, diagnose_many
from core.triage.pacing import DEFAULT_INTERVAL_S, Pacer, polite
from core.triage.scan import ScanEntry, resolve_cluster
from core.triage.watch_state import Key, WatchState

SLACK = timedelta(minutes=10)
MAX_CATCH_UP = timedelta(hours=24)
MAX_PAGES = 4
EVENTS_RECHECK = timedelta(minutes=1)
MAX_TRIES = 3
DEFAULT_MAX_PER_MINUTE = 20
MAX_PER_MINUTE = 600


@dataclass(frozen=True, slots=True)
class WatchRequest:
    cluster_id: str
    project: str | None = None
    since: str | None = None
    lookback: str = "24h"
    interval_s: float = DEFAULT_INTERVAL_S
    max_per_minute: int = DEFAULT_MAX_PER_MINUTE

    def __post_init__(self) -> None:
        cluster = (self.cluster_id or "").strip()
        if not cluster:
            raise UsageError("missing a cluster id (--cluster-id): a watch covers one cluster. Identifiers are "
                             "never guessed.")
        problem = invalid_workload_id(cluster, "cluster id")
        if problem:
            raise UsageError(f"cluster id: {problem}")
        if self.project is not None and (not self.project.strip() or "," in self.project
                                         or not self.project.isprintable()):
            raise UsageError("--project must be non-empty printable text without a comma")
        for flag, window in (("--since", self.since), ("--lookback", self.lookback)):
            if window is not None:
                try:
                    parse_lookback(window)
                except UsageError as exc:
                    raise UsageError(str(exc).replace("lookback", flag, 1)) from None
        if not 1 <= self.interval_s <= 3600:  # NaN fails this too
            raise UsageError(f"--refresh {self.interval_s:g}: a watch reads every 1 to 3600 seconds")
        if not 1 <= self.max_per_minute <= MAX_PER_MINUTE:
            raise UsageError(f"--max-per-minute {self.max_per_minute}: from 1 to {MAX_PER_MINUTE}")

    def scope(self, tenant: str) -> str:
        """What a state file belongs to: the tenant, the cluster and the project."""
        return f"{tenant} · cluster {self.cluster_id.strip().lower()} · project {self.project or '(all)'}"


@dataclass
class WatchCounts:
    sweeps: int = 0
    failed_sweeps: int = 0
    listed: int = 0
    diagnosed: int = 0
    delivered: int = 0
    deferred: int = 0  # waiting for the next minute (--max-per-minute) or for another try


@dataclass
class _Tries:
    count: int = 0


@dataclass
class Watcher:
    request: WatchRequest
    tier1: Any
    state: WatchState
    clock: Callable[[], datetime]
    tier2: dict[str, Any] = field(default_factory=dict)
    politeness: Politeness = BACKGROUND
    single_attempt: bool = True  # a long-running watch reads once per sweep; `--once` keeps the client's retries
    resolved: bool = False  # the request's cluster id is the tenant's own already (core.triage.scan.resolve_cluster)
    counts: WatchCounts = field(default_factory=WatchCounts)
    pacer: Pacer = field(init=False)
    window_start: datetime | None = None
    _begun: bool = False
    _held: set[Key] = field(default_factory=set)  # handed over, not yet said to be delivered
    _tries: dict[Key, _Tries] = field(default_factory=dict)
    _events: dict[Key, tuple[Judgement, datetime]] = field(default_factory=dict)
    _started: deque[datetime] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self.pacer = Pacer(self.request.interval_s)

    async def begin(self) -> None:
        """Resolve the cluster (its id or exact name; UnknownCluster names the tenant's) and set the window."""
        if self._begun:
            return
        if not self.resolved:
            cluster = await resolve_cluster(ClustersOnce(self.tier1), self.request.cluster_id)
            self.request = dataclasses.replace(self.request, cluster_id=cluster)
            self.resolved = True
        now = self.clock()
        if self.request.since is not None:
            start = now - parse_lookback(self.request.since)
        elif self.state.watermark is not None:
            start = max(min(now, self.state.watermark - SLACK), now - MAX_CATCH_UP)
        else:
            start = now
        self.window_start = start
        self._begun = True

    # -- one sweep ----------------------------------------------------------------------------------------
    async def sweep(self) -> AsyncIterator[ScanEntry]:
        """List, judge and diagnose what is new; yields each entry as its diagnosis ends. A list that cannot be
        read raises (the caller backs off); nothing else does."""
        await self.begin()
        now = self.clock()
        rows = await self._list(now)
        self.counts.sweeps += 1
        self.counts.listed += len(rows)
        fresh = [w for w in rows if self._fits(w) and _key(w) not in self._held and not self.state.delivered(_key(w))]
        judged = await self._judge(fresh, now)
        chosen = sorted((w for w, j in zip(fresh, judged, strict=True) if j.keep), key=_when)
        whys = {_key(w): j.why for w, j in zip(fresh, judged, strict=True)}
        allowed = self._allowance(now)
        self.counts.deferred += max(0, len(chosen) - allowed)
        chosen = chosen[:allowed]
        async for entry in self._diagnose(chosen, whys, now):
            yield entry
        self._slide(now)

    def delivered(self, entry: ScanEntry) -> None:
        """The entry reached its readers: kept as done (in the state) for good."""
        key = _key(entry.workload)
        self._held.discard(key)
        self._tries.pop(key, None)
        self.state.mark(key)
        self.counts.delivered += 1

    def not_delivered(self, entry: ScanEntry) -> None:
        """The caller could not deliver it (a post that failed): not diagnosed again in this run, and not kept
        as done, so a restarted watch tries it again."""
        self._held.add(_key(entry.workload))

    async def _list(self, now: datetime) -> list[Workload]:
        assert self.window_start is not None
        items = [filter_item("clusterId", "==", self.request.cluster_id.strip())]
        if self.request.project:
            items.append(filter_item("projectName", "==", self.request.project))
        items.append(filter_item("phaseUpdatedAt", ">=", self.window_start))
        items += attention_filters()
        rows: list[Workload] = []
        offset: int | None = 0
        for _ in range(MAX_PAGES):
            if offset is None:
                break
            if self.single_attempt:
                with polite():
                    page = await self.tier1.list_workloads(filters=items, sort_by="phaseUpdatedAt",
                                                           sort_order="desc", offset=offset, limit=MAX_LIMIT)
            else:
                page = await self.tier1.list_workloads(filters=items, sort_by="phaseUpdatedAt", sort_order="desc",
                                                       offset=offset, limit=MAX_LIMIT)
            rows += page.items
            offset = page.next if page.items else None
        return rows

    def _fits(self, w: Workload) -> bool:
        """The server's filtering, checked again (how it compares is not verified)."""
        if not w.id or w.phase_updated_at is None or self.window_start is None:
            return False
        if w.cluster_id and w.cluster_id.lower() != self.request.cluster_id.strip().lower():
            return False
        if self.request.project and w.project_name != self.request.project:
            return False
        return w.phase_updated_at >= self.window_start

    async def _judge(self, rows: list[Workload], now: datetime) -> list[Judgement]:
        gate = asyncio.Semaphore(self.politeness.requests)
        listed = [judge_listed(w) for w in rows]
        out: list[Judgement | None] = list(listed)
        reads: list[tuple[int, Workload]] = []
        for i, (w, j) in enumerate(zip(rows, listed, strict=True)):
            if j is not None:
                continue
            kept = self._events.get(_key(w))
            if kept is not None and now - kept[1] < self._recheck(w, now):
                out[i] = kept[0]
            else:
                reads.append((i, w))
        found = await asyncio.gather(*(judge_by_events(self.tier1, w, gate) for _, w in reads))
        for (i, w), judgement in zip(reads, found, strict=True):
            self._events[_key(w)] = (judgement, now)
            out[i] = judgement
        return [j for j in out if j is not None]

    def _recheck(self, w: Workload, now: datetime) -> timedelta:
        """How long an events judgement of a Pending or Running row holds: a phase that changed moments ago is
        where a failing pod shows first (a bad image fails within seconds), so it is looked at again at every
        sweep; after that, at half its age, and at least once a minute."""
        age = now - w.phase_updated_at if w.phase_updated_at is not None else EVENTS_RECHECK
        return max(timedelta(seconds=self.request.interval_s) / 2, min(EVENTS_RECHECK, age / 2))

    def _allowance(self, now: datetime) -> int:
        while self._started and now - self._started[0] >= timedelta(minutes=1):
            self._started.popleft()
        return max(0, self.request.max_per_minute - len(self._started))

    async def _diagnose(self, rows: list[Workload], whys: dict[Key, str], now: datetime) -> AsyncIterator[ScanEntry]:
        if not rows:
            return
        cluster = self.request.cluster_id.strip()
        requests = [
            DiagnosisRequest(cluster_id=cluster, workload_id=w.id, lookback=self.request.lookback, now=now,
                             count_others=False)
            for w in rows
        ]
        self._started.extend(now for _ in rows)
        async for index, verdict in diagnose_many(requests, self.tier1, **self.tier2, politeness=self.politeness):
            w = rows[index]
            key = _key(w)
            self.counts.diagnosed += 1
            if verdict.report is None:
                tries = self._tries.setdefault(key, _Tries())
                tries.count += 1
                if tries.count < MAX_TRIES:
                    self.counts.deferred += 1
                    continue  # tried again at the next sweep: the reads may have met a storm
            self._held.add(key)
            yield ScanEntry(w, whys.get(key, ""), dataclasses.replace(verdict, events=()))

    def _slide(self, now: datetime) -> None:
        """A sweep went well: the watermark moves to its start, the window follows SLACK behind. The state keeps
        what was delivered as far back as a restart with the same options looks (`--since`, or SLACK)."""
        self.state.watermark = now
        start = max(self.window_start or now, now - SLACK)
        self.window_start = start
        since = parse_lookback(self.request.since) if self.request.since is not None else SLACK
        self.state.prune(now - max(since, SLACK))
        # What this run remembers beside the state follows the window too: memory stays flat however long it runs.
        self._events = {k: v for k, v in self._events.items() if now - v[1] < SLACK}
        self._tries = {k: t for k, t in self._tries.items() if _inside(k, start) and not self.state.delivered(k)}
        self._held = {k for k in self._held if _inside(k, start)}


def _key(w: Workload) -> Key:
    return (w.id or "", w.phase_updated_at.isoformat() if w.phase_updated_at else "")


def _inside(key: Key, start: datetime) -> bool:
    try:
        return datetime.fromisoformat(key[1]) >= start
    except ValueError:
        return False


def _when(w: Workload) -> float:
    return w.phase_updated_at.timestamp() if w.phase_updated_at is not None else float("-inf")
