"""`runai-triage watch`: poll one cluster (or one project of it) and diagnose every workload that newly fails or
newly needs attention, once per phase change, as it happens.

One sweep:
1. List the workloads whose phase changed inside the window (`phaseUpdatedAt>=` its start), newest first, with the
   needs-attention filters (the phases that never need a diagnosis left out by the server): one list request,
   more only when more than a page changed in the window. Every row is checked again on the client.
2. Keep the rows that some destination still lacks (`done`, the caller's delivery records) and that need
   attention: Failed, Crashed and Stopped always; Pending, Running and Degraded when their status, or their
   recent events, show a failing pod (core.triage.attention; a row's events are read again at every sweep while
   its phase change is fresh, then less often, at least once a minute: `_recheck`).
3. Diagnose them, oldest first, at most `max_per_minute` started in any minute, within the background politeness
   budget (two diagnoses, four reads in flight), and hand each over in that order as it is ready. The caller says
   when one was delivered (`delivered`); until then it is not diagnosed again in this run.

The window starts at `--since` back from the start (else where the last run left it, `look_from`, for a
restarted watch, else at the start) and then follows the sweeps, SLACK behind the last one that went well, so a
late phase change is still seen. It never moves past a failure that is still waiting: one the rate held back
(what `--max-per-minute` holds back waits, in order, however long the catch-up) or one whose diagnosis produced
no report yet (tried again at the next sweeps, a storm of 429s may be why, and delivered as "no report" after
MAX_TRIES). Sweeps are paced by the caller with a `Pacer` (core.triage.pacing), which backs off while the list
cannot be read.

Each failure has a stable key (`failure_key`: the cluster, the workload id and the moment of its phase change),
the same in every run and every scope, which the delivery records keep and every post carries.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from core.diagnosis.request import DiagnosisRequest, UsageError, parse_lookback
from core.models.runai import Workload
from core.sources.runai import MAX_LIMIT, filter_item
from core.triage.attention import Judgement, attention_filters, judge_by_events, judge_listed
from core.triage.batch import BACKGROUND, ClustersOnce, Politeness, Verdict, diagnose_many
from core.triage.pacing import DEFAULT_INTERVAL_S, Pacer, polite
from core.triage.scan import ScanEntry, resolve_cluster
from core.triage.scan_scope import check_request_scope
from core.usage import Opt

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
        check_request_scope(self.cluster_id, "a watch covers one cluster", (("project", self.project),))
        if self.since is not None:
            parse_lookback(self.since, "since")
        parse_lookback(self.lookback, "lookback")
        if not 1 <= self.interval_s <= 3600:  # NaN fails this too
            raise UsageError(Opt("refresh"), f" {self.interval_s:g}: a watch reads every 1 to 3600 seconds")
        if not 1 <= self.max_per_minute <= MAX_PER_MINUTE:
            raise UsageError(Opt("max_per_minute"), f" {self.max_per_minute}: from 1 to {MAX_PER_MINUTE}")

    def scope(self, tenant: str) -> str:
        """What a state file belongs to: the tenant, the cluster and the project."""
        return f"{tenant} · cluster {self.cluster_id.strip().lower()} · project {self.project or '(all)'}"


Key = tuple[str, str]  # (workload id, phaseUpdatedAt as ISO-8601): this run's own bookkeeping


def failure_key(cluster_id: str, workload: Workload) -> str:
    """The stable key of one failure: the same for the same phase change in any run, scope or process, so a
    receiver can drop a repeat (delivery is at least once)."""
    when = workload.phase_updated_at.isoformat() if workload.phase_updated_at else ""
    digest = hashlib.sha256(f"{cluster_id.strip().lower()}|{workload.id or ''}|{when}".encode()).hexdigest()
    return f"rt-{digest[:24]}"


@dataclass
class WatchCounts:
    sweeps: int = 0
    failed_sweeps: int = 0
    listed: int = 0
    diagnosed: int = 0
    delivered: int = 0
    deferred: int = 0  # after the last sweep: waiting for the next minute (--max-per-minute) or another try


@dataclass
class _Tries:
    count: int = 0


def _never_done(key: str) -> bool:
    return False


@dataclass
class Watcher:
    request: WatchRequest
    tier1: Any
    clock: Callable[[], datetime]
    tier2: dict[str, Any] = field(default_factory=dict)
    politeness: Politeness = BACKGROUND
    single_attempt: bool = True  # a long-running watch reads once per sweep; `--once` keeps the client's retries
    resolved: bool = False  # the request's cluster id is the tenant's own already (core.triage.scan_scope)
    look_from: datetime | None = None  # where the last run's window stood (its delivery records say)
    done: Callable[[str], bool] = _never_done  # every destination has this failure (delivered or queued)
    counts: WatchCounts = field(default_factory=WatchCounts)
    pacer: Pacer = field(init=False)
    window_start: datetime | None = None
    _begun: bool = False
    _held: set[Key] = field(default_factory=set)  # handed over, not yet said to be delivered
    _tries: dict[Key, _Tries] = field(default_factory=dict)
    _events: dict[Key, tuple[Judgement, datetime]] = field(default_factory=dict)
    # --max-per-minute is about the API, so it is counted on a real clock (monotonic seconds; tests step it),
    # never on the tenant's: a still bundle's clock does not move, and the allowance would never come back.
    rate_clock: Callable[[], float] = time.monotonic
    _started: deque[float] = field(default_factory=deque)
    _waiting_from: datetime | None = None  # the oldest failure held back by the rate in the last sweep
    _held_back: int = 0

    def __post_init__(self) -> None:
        self.pacer = Pacer(self.request.interval_s)

    def key_of(self, workload: Workload) -> str:
        return failure_key(self.request.cluster_id, workload)

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
        elif self.look_from is not None:
            start = max(min(now, self.look_from), now - MAX_CATCH_UP)
        else:
            start = now
        self.window_start = start
        self._begun = True

    @property
    def keep_from(self) -> datetime | None:
        """Failures older than this can never be listed again by this watch or a restart with the same options:
        their delivery records may be forgotten."""
        if self.window_start is None:
            return None
        since = parse_lookback(self.request.since) if self.request.since is not None else SLACK
        return min(self.window_start, self.clock() - max(since, SLACK))

    # -- one sweep ----------------------------------------------------------------------------------------
    async def sweep(self) -> AsyncIterator[ScanEntry]:
        """List, judge and diagnose what is new; yields each entry, oldest failure first, as its diagnosis ends.
        A list that cannot be read raises (the caller backs off); nothing else does."""
        await self.begin()
        now = self.clock()
        rows = await self._list(now)
        self.counts.sweeps += 1
        self.counts.listed += len(rows)
        # A failure whose diagnosis is to be tried again is forgotten once it is no longer listed (its workload
        # changed phase again, or left the window): it must not hold the window back for ever.
        listed = {_key(w) for w in rows}
        self._tries = {k: t for k, t in self._tries.items() if k in listed}
        fresh = [w for w in rows if self._fits(w) and _key(w) not in self._held and not self.done(self.key_of(w))]
        judged = await self._judge(fresh, now)
        chosen = sorted((w for w, j in zip(fresh, judged, strict=True) if j.keep), key=_when)
        whys = {_key(w): j.why for w, j in zip(fresh, judged, strict=True)}
        allowed = self._allowance()
        held_back = chosen[allowed:]
        self._waiting_from = held_back[0].phase_updated_at if held_back else None
        self._held_back = len(held_back)
        async for entry in self._diagnose(chosen[:allowed], whys, now):
            yield entry
        self._slide(now)

    def delivered(self, entry: ScanEntry) -> None:
        """The entry reached every destination, or waits in their outboxes: not diagnosed again."""
        key = _key(entry.workload)
        self._held.discard(key)
        self._tries.pop(key, None)
        self.counts.delivered += 1

    def not_delivered(self, entry: ScanEntry) -> None:
        """The caller could not take it (an outbox at its bound): not diagnosed again in this run, and not kept
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

    def _allowance(self) -> int:
        now = self.rate_clock()
        while self._started and now - self._started[0] >= 60.0:
            self._started.popleft()
        return max(0, self.request.max_per_minute - len(self._started))

    async def _diagnose(self, rows: list[Workload], whys: dict[Key, str], now: datetime) -> AsyncIterator[ScanEntry]:
        """Diagnose `rows` (oldest first) and hand each over in that order: one that finished early waits for the
        ones before it, so every destination gets the failures in the order they happened."""
        if not rows:
            return
        cluster = self.request.cluster_id.strip()
        requests = [
            DiagnosisRequest(cluster_id=cluster, workload_id=w.id, lookback=self.request.lookback, now=now,
                             count_others=False)
            for w in rows
        ]
        started = self.rate_clock()
        self._started.extend(started for _ in rows)
        ready: dict[int, Verdict] = {}
        turn = 0
        async for index, verdict in diagnose_many(requests, self.tier1, **self.tier2, politeness=self.politeness):
            self.counts.diagnosed += 1
            ready[index] = verdict
            while turn in ready:
                entry = self._entry(rows[turn], ready.pop(turn), whys)
                turn += 1
                if entry is not None:
                    yield entry

    def _entry(self, w: Workload, verdict: Verdict, whys: dict[Key, str]) -> ScanEntry | None:
        key = _key(w)
        if verdict.report is None:
            tries = self._tries.setdefault(key, _Tries())
            tries.count += 1
            if tries.count < MAX_TRIES:
                return None  # tried again at the next sweep: the reads may have met a storm
        self._held.add(key)
        return ScanEntry(w, whys.get(key, ""), dataclasses.replace(verdict, events=()))

    def _slide(self, now: datetime) -> None:
        """A sweep went well: the window follows it SLACK behind, but never past a failure that still waits (held
        back by the rate, or without a report yet), so nothing in the window is dropped."""
        start = max(self.window_start or now, now - SLACK)
        waiting = [datetime.fromisoformat(k[1]) for k in self._tries if k[1]]
        if self._waiting_from is not None:
            waiting.append(self._waiting_from)
        if waiting:
            start = min(start, *waiting)
        self.window_start = start
        # What this run remembers follows the window too: memory stays flat however long it runs.
        self._events = {k: v for k, v in self._events.items() if now - v[1] < SLACK}
        self._tries = {k: t for k, t in self._tries.items() if _inside(k, start)}
        self._held = {k for k in self._held if _inside(k, start)}
        self.counts.deferred = self._held_back + len(self._tries)


def _key(w: Workload) -> Key:
    return (w.id or "", w.phase_updated_at.isoformat() if w.phase_updated_at else "")


def _inside(key: Key, start: datetime) -> bool:
    try:
        return datetime.fromisoformat(key[1]) >= start
    except ValueError:
        return False


def _when(w: Workload) -> float:
    return w.phase_updated_at.timestamp() if w.phase_updated_at is not None else float("-inf")
