"""One `watch`, in-process: open the tenant, check the scope, take the state file, then sweep until stopped.

The loop is core.triage.watch; where each failure goes is core.notify.deliveries (stdout at once, each webhook
through its outbox and courier, every destination with its own record in the state file), wired with the command
line's words in tui.commands.watch_delivery. Tests give it a clock, a sleep that steps that clock, and the
couriers' clock.

Exit status: 0 when it stopped as asked (Ctrl-C, SIGTERM, the end of a `--once` that delivered everything); 1
when it could not run (the tenant could not be opened, an unknown cluster or project, the one sweep of `--once`
failed, a state file that is another watch's, in use by another watch, unreadable or of a newer version); 2 for
a usage error (a --state that is a directory or cannot be written); 4 when a `--once` left something
undelivered (kept in the state file: the next run delivers it first).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import platformdirs

from core.diagnosis.engine import DiagnosisFailed
from core.notify.courier import Courier
from core.notify.deliveries import Deliveries, PostTarget
from core.notify.ledger import LedgerUnreadable, destination_id
from core.notify.ledger_versions import STATE_VERSIONS, StateOfAnotherWatch, ledger_of, look_from
from core.notify.state_file import StateFile, StateProblem
from core.notify.storms import Grouping
from core.notify.webhook import DEADLINE_S, WebhookPoster
from core.plural import plural
from core.safety.untrusted import clean
from core.tenant import Tenant
from core.triage.scan import ScanEntry
from core.triage.scan_scope import scope_of
from core.triage.storm_cause import Cause
from core.triage.watch import SLACK, Watcher, WatchRequest
from core.triage.watched import Wording, v1_key
from tui.commands.headless import advice, explain_start_problem, say, tier2_for, usage_words
from tui.commands.start import StartOptions, StartProblem, flag, open_tenant
from tui.commands.watch_delivery import deliveries_for, describe_targets, diagnose_command, storm_command

PROG = "runai-triage watch"
APP_NAME = "runai-triage"
UNDELIVERED = 4
# How long a stopped watch tries its outboxes once more before it exits (a pod is given 30 s after SIGTERM).
LAST_POSTS_S = 10.0
Sleep = Callable[[float], Awaitable[None]]


def default_state_path(scope: str, env: Mapping[str, str] | None = None) -> Path:
    """The state file of a watch of `scope`: under `$XDG_STATE_HOME/runai-triage/watch` when that is set, else the
    platform's state directory (platformdirs)."""
    environ = os.environ if env is None else env
    xdg = (environ.get("XDG_STATE_HOME") or "").strip()
    base = Path(xdg).expanduser() / APP_NAME if xdg else Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))
    return base / "watch" / f"{hashlib.sha256(scope.encode()).hexdigest()[:16]}.json"


@dataclass
class WatchRun:
    """One watch, in-process: what the command runs (tests give it clocks, a sleep and a stop)."""

    request: WatchRequest
    options: StartOptions
    fmt: str = "text"
    posts: Sequence[PostTarget] = ()
    state_path: Path | None = None
    once: bool = False
    out: TextIO = sys.stdout
    err: TextIO = sys.stderr
    clock: Callable[[], datetime] | None = None
    sleep: Sleep = asyncio.sleep
    post_transport: Any = None
    post_clock: Callable[[], float] = time.monotonic  # real time, seconds: the couriers' backoff and the rate
    post_deadline_s: float = DEADLINE_S
    opener: Callable[[], Tenant] | None = None  # how to open the tenant (default: what `options` describe)
    grouping: Grouping = field(default_factory=Grouping)  # storms and cool-downs (--group-window, --cooldown)
    wall: Callable[[], float] = time.time  # when a storm's follow-up is due (tests step it)
    watcher: Watcher | None = None
    deliveries: Deliveries | None = None
    _posters: list[WebhookPoster] = field(default_factory=list)

    async def run(self) -> int:
        """Open the tenant, watch until stopped (cancelled) or `--once` is done; returns the exit status."""
        try:
            tenant = self.opener() if self.opener is not None else open_tenant(self.options).tenant
        except StartProblem as problem:
            explain_start_problem(PROG, self.err, problem)
            return 1
        state: StateFile | None = None
        try:
            state, status = await self._open_state(tenant)
            if state is None:
                return status
            return await self._watch(tenant, state)
        except asyncio.CancelledError:
            return 0
        finally:
            if self.deliveries is not None:
                answering = [c for c in self.deliveries.couriers if c.answering]
                await self.deliveries.stop()
                if not self.once:
                    await self._last_posts(answering)
                self.deliveries.save()
            self.summary()
            for poster in self._posters:
                await poster.aclose()
            if state is not None:
                state.unlock()
            await tenant.aclose()

    async def _last_posts(self, answering: list[Courier]) -> None:
        """Stopped (Ctrl-C, SIGTERM): what the storms gathered goes into the outboxes now, not a window later,
        and each outbox whose webhook was answering (none in flight, the last post not failed) is tried once
        more, in order, within LAST_POSTS_S. What is not posted then stays in the state file, and the next run
        posts it first; a post cut off by the bound may go out twice (its key says so), never not at all."""
        deliveries = self.deliveries
        if deliveries is None or not deliveries.couriers:
            return
        deliveries.flush(everything=True)
        if not deliveries.waiting() or not answering:
            return
        try:
            await asyncio.wait_for(asyncio.gather(*(c.drain_once() for c in answering)), timeout=LAST_POSTS_S)
        except TimeoutError:
            say(self.err, f"{PROG}: the last posts took longer than {LAST_POSTS_S:g} s; "
                          f"{plural(deliveries.waiting(), 'post')} kept in the state file for the next run")

    async def settled(self) -> None:
        """Until every post due now has been tried (a test steps its clock after this)."""
        if self.deliveries is not None:
            await self.deliveries.settled()

    # -- before the first sweep ---------------------------------------------------------------------------
    async def _open_state(self, tenant: Tenant) -> tuple[StateFile | None, int]:
        """Check the scope as scan does, then take the state file and read the delivery records."""
        now = self._clock(tenant)()
        try:  # the tenant's own id for the cluster, so a name and an id share one state file
            scope = await scope_of(tenant.runai, self.request.cluster_id, self.request.project, now)
        except DiagnosisFailed as exc:
            say(self.err, f"{PROG}: cannot watch: {exc}")
            say(self.err, f"  {advice(exc)}")
            return None, 1
        for note in scope.notes:
            say(self.err, f"{PROG}: note: {note}")
        self.request = dataclasses.replace(self.request, cluster_id=scope.cluster_id)
        scope_text = self.request.scope(tenant.label)
        state = StateFile(self.state_path or default_state_path(scope_text), STATE_VERSIONS)
        try:
            state.prepare()
            state.lock()
        except StateProblem as problem:
            say(self.err, f"{PROG}: {'error: ' if problem.usage else ''}{usage_words(problem)}")
            return None, 2 if problem.usage else 1
        try:
            loaded = state.load()
            ledger = ledger_of(loaded, scope_text, [destination_id(t.url) for t in self.posts],
                               functools.partial(v1_key, self.request.cluster_id), SLACK)
        except (StateProblem, StateOfAnotherWatch, LedgerUnreadable) as problem:
            state.unlock()
            say(self.err, f"{PROG}: {usage_words(problem)}")
            return None, 1
        if loaded.note:
            say(self.err, f"{PROG}: {loaded.note}")
        self.deliveries = deliveries_for(ledger, state, self.out, self.err, PROG, grouping=self.grouping,
                                         wall=self.wall)
        for target in self.posts:
            poster = WebhookPoster(target.url, target.dialect, transport=self.post_transport,
                                   deadline_s=self.post_deadline_s)
            self._posters.append(poster)
            self.deliveries.add_webhook(target, poster, self.post_clock)
        return state, 0

    @property
    def wording(self) -> Wording:
        return Wording(self.fmt, self._command, self._storm_command, flag)

    def _command(self, entry: ScanEntry) -> str:
        return diagnose_command(self.options, self.request.cluster_id, entry.workload.id or "",
                                self.request.lookback)

    def _storm_command(self, cause: Cause, entry: ScanEntry) -> str:
        return storm_command(self.options, self.request.cluster_id, cause, self._command(entry))

    def _clock(self, tenant: Tenant) -> Callable[[], datetime]:
        return self.clock or tenant.live_clock or _frozen_or_wall(tenant)

    # -- the sweeps ---------------------------------------------------------------------------------------
    async def _watch(self, tenant: Tenant, state: StateFile) -> int:
        deliveries = self.deliveries
        assert deliveries is not None
        self.watcher = watcher = Watcher(
            self.request, tenant.runai, self._clock(tenant), tier2_for(self.options, tenant),
            single_attempt=not self.once, resolved=True, look_from=look_from(deliveries.ledger),
            done=deliveries.done, rate_clock=self.post_clock,
        )
        await watcher.begin()
        self._say_start(watcher, state.path)
        if not self.once:
            deliveries.start()
        wording = self.wording
        while True:
            try:
                async for entry in watcher.sweep():
                    if deliveries.deliver(wording.of(entry, watcher.key_of(entry.workload))):
                        watcher.delivered(entry)
                    else:
                        watcher.not_delivered(entry)
                wait = watcher.pacer.succeeded()
                deliveries.say_skipped()
                self._keep(watcher)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the list could not be read: said, and the next sweep waits longer
                watcher.counts.failed_sweeps += 1
                if self.once:
                    say(self.err, f"{PROG}: the sweep could not be made: {clean(str(exc), max_len=400)}")
                    return 1
                wait = watcher.pacer.failed(exc)
                say(self.err, f"{PROG}: sweep failed ({clean(type(exc).__name__, max_len=60)}: "
                              f"{clean(str(exc), max_len=200)}); next try in {wait:.0f} s")
            deliveries.flush(everything=self.once)  # storms: a first post at once, a follow-up when it is due
            if self.once:
                await deliveries.drain_once()
                return self._once_status()
            await self.sleep(wait)
            deliveries.wake()

    def _keep(self, watcher: Watcher) -> None:
        """After a good sweep: where a restart looks from, and the records no window can reach, forgotten."""
        deliveries = self.deliveries
        assert deliveries is not None and watcher.window_start is not None
        deliveries.ledger.look_from = watcher.window_start.isoformat()
        keep = watcher.keep_from
        if keep is not None:
            deliveries.ledger.prune(keep.timestamp(), self.grouping)
        deliveries.save()

    def _say_start(self, watcher: Watcher, path: Path) -> None:
        deliveries = self.deliveries
        assert deliveries is not None
        start = watcher.window_start
        said_start = start.strftime("%Y-%m-%d %H:%M:%S UTC") if start else "now"
        posting = f" and posting to {describe_targets(self.posts)}" if self.posts else ""
        project = self.request.project or "all projects"
        # `--once` makes one sweep: no interval to speak of.
        verb, pace = ("one sweep of", "") if self.once else ("watching", f" every {self.request.interval_s:g} s")
        say(self.err, f"{PROG}: {verb} cluster {watcher.request.cluster_id} ({project}){pace} from "
                      f"{said_start}{posting}; state in {path}")
        for courier in deliveries.couriers:
            if courier.waiting:
                verb = "waits" if courier.waiting == 1 else "wait"
                say(self.err, f"{PROG}: {plural(courier.waiting, 'post')} from an earlier run {verb} for "
                              f"{courier.where}: posted first, in order")
        for record in deliveries.others_waiting():
            verb = "waits" if len(record.outbox) == 1 else "wait"
            say(self.err, f"{PROG}: {plural(len(record.outbox), 'post')} {verb} for {record.where}, which this "
                          "run does not post to: a run with its --post URL posts them")

    def _once_status(self) -> int:
        deliveries = self.deliveries
        assert deliveries is not None
        lacking = [c for c in deliveries.couriers if c.waiting or c.overflowed or c.refused]
        if not lacking and not deliveries.unprinted and deliveries.save_problem is None:
            return 0
        for courier in lacking:
            parts = [f"{courier.waiting} waiting" + (f" ({courier.problem})" if courier.problem else "")]
            if courier.overflowed:
                parts.append(f"{courier.overflowed} past the outbox's bound (the next run diagnoses them again)")
            if courier.refused:
                parts.append(f"{courier.refused} refused for good by the receiver")
            say(self.err, f"{PROG}: not all delivered to {courier.where}: {'; '.join(parts)}. What waits is kept in "
                          "the state file, and the next run posts it first.")
        if deliveries.unprinted:
            say(self.err, f"{PROG}: {plural(deliveries.unprinted, 'report')} could not be printed (stdout closed); "
                          "the next run prints them.")
        if deliveries.save_problem is not None:
            say(self.err, f"{PROG}: the state was not saved, so the next run may deliver this run's reports again.")
        return UNDELIVERED

    def summary(self) -> None:
        watcher, deliveries = self.watcher, self.deliveries
        if watcher is None or deliveries is None or not (watcher.counts.sweeps or watcher.counts.failed_sweeps):
            return
        c = watcher.counts
        parts = [plural(c.sweeps, "sweep")]
        if c.failed_sweeps:
            parts.append(f"{c.failed_sweeps} failed")
        line = f"{PROG}: stopped after {', '.join(parts)}: {c.delivered} delivered, {deliveries.printed} printed"
        if deliveries.couriers:
            posted = sum(x.posted for x in deliveries.couriers)
            line += f", {posted} posted, {deliveries.waiting()} waiting to be posted"
            refused = sum(x.refused for x in deliveries.couriers)
            line += f", {refused} refused by a receiver" if refused else ""
            if deliveries.storm_posts:
                line += f", {deliveries.storm_posts} of them for storms"
            if deliveries.gathered():
                line += f", {deliveries.gathered()} gathered for a storm's next post"
            if deliveries.repeated:
                line += f", {deliveries.repeated} repeats in a cool-down counted, not posted"
        if c.deferred:
            line += f", {c.deferred} left for a later sweep"
        say(self.err, line)


def _frozen_or_wall(tenant: Tenant) -> Callable[[], datetime]:
    # A still bundle describes one moment (its capture); a real tenant lives now.
    captured = tenant.captured_at
    return (lambda: captured) if captured is not None else (lambda: datetime.now(UTC))
