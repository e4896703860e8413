"""Where a watched failure goes: stdout, in the chosen format, and each `--post` webhook, through its outbox.

Glue between the watch (core.triage.watch), the renderings of an entry (core.triage.entry_render) and the
delivery records, outboxes and couriers (core.notify). Each destination keeps
its own record in the ledger, so what one has (stdout, or one chat) is never taken for what another has; a
failure a destination already has is said and skipped for it alone. Stdout is written at once; a post is put
in its webhook's outbox (kept in the state file) and posted by that webhook's courier, so printing never waits
for a chat. A failure whose report shows a cause others can share (core.triage.storm_cause) is gathered into its
storm (core.notify.storms) and goes out in the storm's post (core.triage.chat_storm) when `flush` finds it due;
a workload failing again within the cool-down is counted instead of posted. Stdout is never grouped.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TextIO

from core.models.runai import Workload
from core.notify.courier import Courier
from core.notify.dialects import dialect_for
from core.notify.ledger import STDOUT, Ledger, Pending, Record, destination_id
from core.notify.state_file import Loaded, StateFile
from core.notify.storms import Grouping, Member, Release
from core.notify.webhook import WebhookPoster, where
from core.safety.untrusted import clean
from core.triage.chat_storm import StormPost, storm_facts, storm_text
from core.triage.entry_render import chat_text, render, top_line
from core.triage.scan import ScanEntry
from core.triage.storm_cause import Cause, cause_of
from core.triage.watch import SLACK, failure_key
from tui.commands.headless import say, write_out
from tui.commands.start import StartOptions

STATE_VERSIONS = (1, 2, 3)
SHOWN_SKIPPED = 5


class StateOfAnotherWatch(ValueError):
    """The state file belongs to a watch of another tenant, cluster or project."""


@dataclass(frozen=True, slots=True)
class PostTarget:
    url: str
    dialect: str
    said: bool  # the dialect was given, or the URL's host says it (else markdown was assumed)

    @classmethod
    def of(cls, url: str, given: str | None) -> PostTarget:
        dialect, said = dialect_for(url, given)
        return cls(url, dialect, said)


def diagnose_command(options: StartOptions, cluster_id: str, workload_id: str, lookback: str) -> str:
    """The command that prints the whole report of one workload, for the chat message's last line."""
    if options.mode == "demo" and options.live is not None:
        return "the watch's own output (a live demo cannot be read again by another command)"
    tenant = {"demo": ["--demo"], "case": ["--case", str(options.case_path)]}.get(options.mode)
    if tenant is None:
        tenant = ["--base-url", options.base_url] if options.base_url else []
    extra = [] if lookback == "24h" else ["--lookback", lookback]
    words = ["runai-triage", "diagnose", *tenant, "--cluster-id", cluster_id, "--workload-id", workload_id, *extra]
    return shlex.join(words)


def storm_command(options: StartOptions, cluster_id: str, cause: Cause, first: str) -> str:
    """What a storm's first post says to run: a node's incident report (`nodes --node`), else the whole report
    of its first failure (`first`, the command diagnose_command wrote)."""
    if cause.kind != "node" or (options.mode == "demo" and options.live is not None):
        return first
    tenant = {"demo": ["--demo"], "case": ["--case", str(options.case_path)]}.get(options.mode)
    if tenant is None:
        tenant = ["--base-url", options.base_url] if options.base_url else []
    return shlex.join(["runai-triage", "nodes", *tenant, "--cluster-id", cluster_id, "--node", cause.subject,
                       "--format", "markdown"])


def ledger_of(loaded: Loaded, scope: str, cluster_id: str, post_ids: Sequence[str]) -> Ledger:
    """The ledger in the state file (a version 1 file upgraded), a fresh one when there is none. Raises
    StateOfAnotherWatch for a file of another scope, LedgerUnreadable for one whose content has a bad shape."""
    data = loaded.data
    if data is None:
        return Ledger(scope)
    if data.get("scope") != scope:
        raise StateOfAnotherWatch(
            f"the state file keeps the state of another watch ({str(data.get('scope'))[:200]!r}); give this one "
            "its own --state file"
        )
    if loaded.version in (2, 3):  # 2 had no storms: its records start without any
        return Ledger.from_json(data)
    # Version 1 kept one list for every destination: what it delivered, each of them had.
    ledger = Ledger(scope)
    mark = _instant(data.get("watermark"))
    ledger.look_from = (mark - SLACK).isoformat() if mark is not None else None
    records = [ledger.record(STDOUT, STDOUT), *(ledger.record(rid, rid) for rid in post_ids)]
    for item in data.get("delivered") or []:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(v, str) and len(v) < 200 for v in item):
            when = _instant(item[1])
            key = _v1_key(cluster_id, item[0], when)
            for record in records:
                record.mark(key, when.timestamp() if when else 0.0)
    return ledger


def _v1_key(cluster_id: str, workload_id: str, when: datetime | None) -> str:
    return failure_key(cluster_id, Workload.model_validate({"id": workload_id, "phaseUpdatedAt": when}))


def _instant(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


@dataclass
class Deliveries:
    """Stdout and the webhooks of one watch, their records, and the state file they are kept in."""

    ledger: Ledger
    state: StateFile | None
    out: TextIO
    err: TextIO
    fmt: str
    command: Callable[[ScanEntry], str]
    prog: str
    grouping: Grouping = field(default_factory=Grouping)
    storm_command: Callable[[Cause, ScanEntry], str] | None = None  # what a storm's first post says to run
    wall: Callable[[], float] = time.time  # when a storm's follow-up is due (epoch seconds: kept across restarts)
    stdout: Record = field(init=False)
    couriers: list[Courier] = field(default_factory=list)
    printed: int = 0
    unprinted: int = 0  # stdout could not be written (a closed pipe)
    repeated: int = 0  # failures a cool-down counted instead of posting (over every webhook)
    storm_posts: int = 0
    _repeats_said: dict[str, list[str]] = field(default_factory=dict)
    _save_problem: str | None = None
    _skipped: dict[str, list[str]] = field(default_factory=dict)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.stdout = self.ledger.record(STDOUT, STDOUT)

    def add_webhook(self, target: PostTarget, poster: WebhookPoster, clock: Callable[[], float]) -> Courier:
        record = self.ledger.record(destination_id(target.url), where(target.url), target.dialect)
        courier = Courier(record, poster, clock=clock, saved=self.save, say=self._say)
        self.couriers.append(courier)
        return courier

    @property
    def ids(self) -> list[str]:
        return [self.stdout.id, *(c.record.id for c in self.couriers)]

    def done(self, key: str) -> bool:
        """Every destination of this run has the failure (delivered, or waiting in its outbox)."""
        return self.ledger.has_all(key, self.ids)

    def _say(self, text: str) -> None:
        say(self.err, f"{self.prog}: {text}")

    # -- one failure --------------------------------------------------------------------------------------
    def deliver(self, entry: ScanEntry, key: str) -> bool:
        """Print the entry and queue its posts, each for a destination that lacks it; True when every
        destination now has it (an outbox at its bound, or a closed stdout, leaves it to a later run)."""
        w = entry.workload
        name = clean(w.name or w.id or "a workload", one_line=True, max_len=80)
        when = w.phase_updated_at.timestamp() if w.phase_updated_at else 0.0
        complete = True
        if self.stdout.delivered(key):
            self._skipped.setdefault("stdout", []).append(name)
        elif self._print(render(entry, self.fmt)):
            self.stdout.mark(key, when)
            self.printed += 1
        else:
            complete = False
        for courier in self.couriers:
            if courier.record.has(key):
                self._skipped.setdefault(courier.where, []).append(name)
                continue
            complete &= self._to_webhook(courier, entry, key, when, name)
        self.save()
        return complete

    def _to_webhook(self, courier: Courier, entry: ScanEntry, key: str, when: float, name: str) -> bool:
        """A failure for one webhook: counted (a repeat in its workload's cool-down), gathered into its cause's
        storm (posted by `flush`), or put in the outbox alone. True when the webhook now has it."""
        record, grouping = courier.record, self.grouping
        book = record.book
        workload = entry.workload.id or key
        if book.posted_at(workload) == when:  # this very failure went out (its record was forgotten since)
            record.mark(key, when)
            return True
        if book.repeat(workload, when, grouping.cooldown_s):
            record.mark(key, when)
            self.repeated += 1
            self._repeats_said.setdefault(courier.where, []).append(name)
            return True
        cause = cause_of(entry.verdict.report) if grouping.window_s > 0 else None
        repeats = book.counted(workload)
        if cause is not None:
            why, sources = top_line(entry)
            report = entry.verdict.report
            do = report.recommendations[0] if report is not None and report.recommendations else None
            command = self.storm_command(cause, entry) if self.storm_command is not None else self.command(entry)
            project = clean(entry.workload.project_name or "no project", one_line=True, max_len=80)
            alone = chat_text(entry, record.dialect or "markdown", self.command(entry), key, repeats)
            book.gather(cause.key, storm_facts(cause, why, sources, do, command),
                        Member(key, when, name, project, entry.label, repeats, alone), grouping.window_s,
                        self.wall())
            book.posting(workload, when)
            return True
        text = chat_text(entry, record.dialect or "markdown", self.command(entry), key, repeats)
        if not courier.add(Pending(key, when, text, name, time.time())):
            return False
        book.posting(workload, when)
        return True

    def flush(self, *, everything: bool = False) -> None:
        """Put in each outbox the storm posts due now (all that is gathered, with `everything`)."""
        now = self.wall()
        changed = False
        for courier in self.couriers:
            book = courier.record.book
            for release in book.due(now, self.grouping, everything=everything):
                if not courier.add(_storm_pending(release, courier.record.dialect or "markdown")):
                    break  # the outbox is at its bound: what was gathered stays, for a later flush
                book.released(release, now)
                self.storm_posts += not (release.first and len(release.members) == 1)
                changed = True
        if changed:
            self.save()

    def gathered(self) -> int:
        """Failures gathered into a storm's next post, over every webhook of this run."""
        return sum(c.record.book.waiting() for c in self.couriers)

    def say_skipped(self) -> None:
        """Once a sweep: the failures a destination was not sent because it already had them."""
        for where_, names in self._skipped.items():
            shown = ", ".join(names[:SHOWN_SKIPPED]) + (f" and {len(names) - SHOWN_SKIPPED} more"
                                                         if len(names) > SHOWN_SKIPPED else "")
            verb = "printed" if where_ == "stdout" else f"posted to {where_}"
            self._say(f"not {verb} again, it already had {'it' if len(names) == 1 else 'them'} (an earlier run): "
                      f"{shown}")
        self._skipped.clear()
        for where_, names in self._repeats_said.items():
            shown = ", ".join(names[:SHOWN_SKIPPED]) + (f" and {len(names) - SHOWN_SKIPPED} more"
                                                         if len(names) > SHOWN_SKIPPED else "")
            cooldown = _duration(self.grouping.cooldown_s)
            self._say(f"not posted to {where_}, failed again within the cool-down ({cooldown}; counted, and said "
                      f"with its next post): {shown}")
        self._repeats_said.clear()

    def _print(self, text: str) -> bool:
        try:
            write_out(self.out, text)
        except (OSError, ValueError):  # a closed stream: not delivered there
            self.unprinted += 1
            return False
        return True

    # -- the couriers ---------------------------------------------------------------------------------------
    def start(self) -> None:
        self._tasks = [asyncio.create_task(c.run(), name=f"courier {c.where}") for c in self.couriers]

    def wake(self) -> None:
        for courier in self.couriers:
            courier.wake()

    async def settled(self) -> None:
        for courier in self.couriers:
            await courier.settled()

    async def drain_once(self) -> None:
        for courier in self.couriers:
            await courier.drain_once()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []

    def waiting(self) -> int:
        return sum(c.waiting for c in self.couriers)

    def others_waiting(self) -> list[Record]:
        """Records of webhooks this run does not post to whose outboxes still hold posts."""
        mine = set(self.ids)
        return [r for r in self.ledger.records.values() if r.id not in mine and r.outbox]

    # -- the state file -------------------------------------------------------------------------------------
    def save(self) -> None:
        if self.state is None:
            return
        problem = self.state.save(self.ledger.to_json())
        if problem != self._save_problem and problem is not None:
            self._say(f"{problem}; the watch goes on, and says so again only if the problem changes")
        self._save_problem = problem

    @property
    def save_problem(self) -> str | None:
        return self._save_problem


def _storm_pending(release: Release, dialect: str) -> Pending:
    """A storm's post as an outbox item: the key of its first failure, covering the others it lists. A storm of
    one failure (so far) is that failure's own post."""
    storm, members = release.storm, release.members
    if release.first and len(members) == 1 and members[0].alone:
        only = members[0]
        return Pending(only.key, only.when, only.alone, only.name, time.time())
    projects = {*storm.projects, *(m.project for m in members)}
    post = StormPost(storm.facts, tuple(members), release.first, storm.posts, storm.posted + len(members),
                     len(projects), storm.first_at, members[0].key)
    subject = clean(storm.facts.get("subject") or "a cause", one_line=True, max_len=80)
    name = f"the {'storm' if release.first else 'storm follow-up'} of {subject} ({len(members)} failures)"
    return Pending(members[0].key, members[0].when, storm_text(post, dialect), name, time.time(),
                   covers=tuple((m.key, m.when) for m in members[1:]))


def _duration(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    return f"{seconds / 60:g}m" if seconds % 60 == 0 else f"{seconds:g}s"


def describe_targets(targets: Sequence[PostTarget]) -> str:
    parts = []
    for t in targets:
        how = t.dialect if t.said else f"{t.dialect} (its host does not say; --post-format to choose)"
        parts.append(f"{where(t.url)} as {how}")
    return ", ".join(parts)


def look_from(ledger: Ledger) -> datetime | None:
    return _instant(ledger.look_from)
