"""Where each watched failure goes: stdout, and each webhook through its outbox; and what each destination
already has.

Each destination keeps its own record in the ledger, so what one has (stdout, or one chat) is never taken for what
another has; a failure a destination already has is said and skipped for it alone. Stdout is written at once; a
post is put in its webhook's outbox (kept in the state file) and posted by that webhook's courier, so printing
never waits for a chat. A failure that shares a cause with others is gathered into its storm (core.notify.storms)
and goes out in the storm's post when `flush` finds it due; a workload failing again within the cool-down is
counted instead of posted. Stdout is never grouped.

Keyed opaquely: a failure is what `Failure` names (core.triage.watched makes them from the watch's entries), a
storm's post is written by the caller's `storm_text` (core.triage.chat_storm), and stdout and messages are the
caller's `write` and `say`. Nothing here imports the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from core.notify.courier import Courier
from core.notify.dialects import dialect_for
from core.notify.ledger import STDOUT, Ledger, Pending, Record, destination_id
from core.notify.state_file import StateFile
from core.notify.storms import Grouping, Member, Release
from core.notify.webhook import WebhookPoster, where
from core.safety.untrusted import clean

SHOWN_SKIPPED = 5


class Failure(Protocol):
    """One failure to deliver: its key, when it happened (epoch seconds), what a cool-down is kept per (its
    workload), how messages and a storm's list name it, and its texts, each asked for only when needed."""

    @property
    def key(self) -> str: ...
    @property
    def when(self) -> float: ...
    @property
    def subject(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def project(self) -> str: ...
    @property
    def label(self) -> str: ...

    def printed(self) -> str:
        """The failure as stdout shows it."""
        ...

    def post(self, dialect: str, repeats: int) -> str:
        """Its own post in `dialect`; `repeats`: its workload's failures a cool-down counted since its last post."""
        ...

    def shared(self) -> tuple[str, dict[str, str]] | None:
        """(the key of a cause it may share with others, what a storm's posts say of it), or None."""
        ...


@dataclass(frozen=True, slots=True)
class PostTarget:
    url: str
    dialect: str
    said: bool  # the dialect was given, or the URL's host says it (else markdown was assumed)

    @classmethod
    def of(cls, url: str, given: str | None) -> PostTarget:
        dialect, said = dialect_for(url, given)
        return cls(url, dialect, said)


@dataclass
class Deliveries:
    """Stdout and the webhooks of one watch, their records, and the state file they are kept in. `write` prints
    (raising OSError or ValueError when stdout is closed), `say` tells the person running it (stderr)."""

    ledger: Ledger
    state: StateFile | None
    write: Callable[[str], None]
    say: Callable[[str], None]
    storm_text: Callable[[Release, str], str]  # a storm's post in a dialect
    grouping: Grouping = field(default_factory=Grouping)
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
        courier = Courier(record, poster, clock=clock, saved=self.save, say=self.say)
        self.couriers.append(courier)
        return courier

    @property
    def ids(self) -> list[str]:
        return [self.stdout.id, *(c.record.id for c in self.couriers)]

    def done(self, key: str) -> bool:
        """Every destination of this run has the failure (delivered, or waiting in its outbox)."""
        return self.ledger.has_all(key, self.ids)

    # -- one failure --------------------------------------------------------------------------------------
    def deliver(self, failure: Failure) -> bool:
        """Print the failure and queue its posts, each for a destination that lacks it; True when every
        destination now has it (an outbox at its bound, or a closed stdout, leaves it to a later run)."""
        key, when, name = failure.key, failure.when, failure.name
        complete = True
        if self.stdout.delivered(key):
            self._skipped.setdefault("stdout", []).append(name)
        elif self._print(failure.printed()):
            self.stdout.mark(key, when)
            self.printed += 1
        else:
            complete = False
        for courier in self.couriers:
            if courier.record.has(key):
                self._skipped.setdefault(courier.where, []).append(name)
                continue
            complete &= self._to_webhook(courier, failure)
        self.save()
        return complete

    def _to_webhook(self, courier: Courier, failure: Failure) -> bool:
        """A failure for one webhook: counted (a repeat in its workload's cool-down), gathered into its cause's
        storm (posted by `flush`), or put in the outbox alone. True when the webhook now has it."""
        record, grouping = courier.record, self.grouping
        book, key, when, subject = record.book, failure.key, failure.when, failure.subject
        if book.posted_at(subject) == when:  # this very failure went out (its record was forgotten since)
            record.mark(key, when)
            return True
        if book.repeat(subject, when, grouping.cooldown_s):
            record.mark(key, when)
            self.repeated += 1
            self._repeats_said.setdefault(courier.where, []).append(failure.name)
            return True
        shared = failure.shared() if grouping.window_s > 0 else None
        repeats = book.counted(subject)
        text = failure.post(record.dialect or "markdown", repeats)  # alone, or as a storm of one
        if shared is not None:
            cause, facts = shared
            member = Member(key, when, failure.name, failure.project, failure.label, repeats, text)
            book.gather(cause, facts, member, grouping.window_s, self.wall())
            book.posting(subject, when)
            return True
        if not courier.add(Pending(key, when, text, failure.name, time.time())):
            return False
        book.posting(subject, when)
        return True

    def flush(self, *, everything: bool = False) -> None:
        """Put in each outbox the storm posts due now (all that is gathered, with `everything`)."""
        now = self.wall()
        changed = False
        for courier in self.couriers:
            book = courier.record.book
            for release in book.due(now, self.grouping, everything=everything):
                if not courier.add(self._storm_pending(release, courier.record.dialect or "markdown")):
                    break  # the outbox is at its bound: what was gathered stays, for a later flush
                book.released(release, now)
                self.storm_posts += not (release.first and len(release.members) == 1)
                changed = True
        if changed:
            self.save()

    def _storm_pending(self, release: Release, dialect: str) -> Pending:
        """A storm's post as an outbox item: the key of its first failure, covering the others it lists. A storm
        of one failure (so far) is that failure's own post."""
        members = release.members
        if release.first and len(members) == 1 and members[0].alone:
            only = members[0]
            return Pending(only.key, only.when, only.alone, only.name, time.time())
        subject = clean(release.facts.get("subject") or "a cause", one_line=True, max_len=80)
        name = f"the {'storm' if release.first else 'storm follow-up'} of {subject} ({len(members)} failures)"
        return Pending(members[0].key, members[0].when, self.storm_text(release, dialect), name, time.time(),
                       covers=tuple((m.key, m.when) for m in members[1:]))

    def gathered(self) -> int:
        """Failures gathered into a storm's next post, over every webhook of this run."""
        return sum(c.record.book.waiting() for c in self.couriers)

    def say_skipped(self) -> None:
        """Once a sweep: the failures a destination was not sent because it already had them."""
        for where_, names in self._skipped.items():
            verb = "printed" if where_ == "stdout" else f"posted to {where_}"
            self.say(f"not {verb} again, it already had {'it' if len(names) == 1 else 'them'} (an earlier run): "
                     f"{_some(names)}")
        self._skipped.clear()
        for where_, names in self._repeats_said.items():
            cooldown = _duration(self.grouping.cooldown_s)
            self.say(f"not posted to {where_}, failed again within the cool-down ({cooldown}; counted, and said "
                     f"with its next post): {_some(names)}")
        self._repeats_said.clear()

    def _print(self, text: str) -> bool:
        try:
            self.write(text)
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
            self.say(f"{problem}; the watch goes on, and says so again only if the problem changes")
        self._save_problem = problem

    @property
    def save_problem(self) -> str | None:
        return self._save_problem


def _some(names: list[str]) -> str:
    """The first SHOWN_SKIPPED names, and how many more."""
    more = f" and {len(names) - SHOWN_SKIPPED} more" if len(names) > SHOWN_SKIPPED else ""
    return ", ".join(names[:SHOWN_SKIPPED]) + more


def _duration(seconds: float) -> str:
    if seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    return f"{seconds / 60:g}m" if seconds % 60 == 0 else f"{seconds:g}s"
