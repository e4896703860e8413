"""One webhook's storms and cool-downs: which failures go into one post, which into a follow-up, which are only
counted. Plain data, kept in the destination's record (core.notify.ledger) and so in the state file, so a
restarted watch goes on with the storms it had.

- A storm is the failures of one cause (an opaque key the caller derives from each diagnosis) whose phase
  changes are less than `window_s` apart, one after the other. Its first post goes out once its first failure
  has waited `first_wait` (a minute, a fifth of the window when that is shorter: what else the cause takes down
  in that minute is in the same post), and lists every failure of it handed over by then; what joins it later
  is gathered and goes out as one follow-up, no sooner than `window_s` after the storm's last post. A failure
  more than `window_s` after the storm's last one starts a new storm of the same cause.
- A cool-down: a workload that fails again less than `cooldown_s` after the failure of it last posted (or
  gathered) is counted, not posted; the count goes with its next post.
- Times of failures are the tenant's (its phase changes, epoch seconds); when a follow-up is due is measured on
  the caller's wall clock (`now`), also epoch seconds, so it holds across a restart.

Nothing gathered is lost: it stays in the record until it is in the outbox, and `holds` says the destination
has it meanwhile (the watch does not diagnose it again).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypeIs

MAX_STORMS = 2_000
MAX_RECENT = 20_000
MAX_FACTS = 2_000  # characters of each piece of what a storm post says of its cause
MAX_ALONE = 16_000  # a failure's own post, kept while it is gathered (a chat post is far shorter)


@dataclass(frozen=True, slots=True)
class Grouping:
    """`window_s` 0: no storms (one post per failure); `cooldown_s` 0: every failure of a workload is posted."""

    window_s: float = 300.0
    cooldown_s: float = 1800.0

    @property
    def first_wait(self) -> float:
        """How long a storm's first failure waits for others before its first post."""
        return min(60.0, self.window_s / 5)


@dataclass(slots=True)
class Member:
    """One failure in a storm: its key, when it happened, and what the list in a post shows of it."""

    key: str
    when: float
    name: str
    project: str
    label: str
    repeats: int = 0  # earlier failures of the workload counted in its cool-down
    alone: str = ""  # its post were it alone: what goes out when the storm is this failure and no other

    def to_json(self) -> list[Any]:
        return [self.key, self.when, self.name, self.project, self.label, self.repeats, self.alone]

    @classmethod
    def from_json(cls, raw: object) -> Member | None:
        if not (isinstance(raw, list) and len(raw) == 7):
            return None
        key, when, name, project, label, repeats, alone = raw
        if not (isinstance(key, str) and 0 < len(key) <= 200 and _number(when) and isinstance(repeats, int)):
            return None
        if not all(isinstance(v, str) for v in (name, project, label, alone)):
            return None
        return cls(key, float(when), name[:200], project[:200], label[:80], max(0, repeats), alone[:MAX_ALONE])


@dataclass(slots=True)
class Storm:
    cause: str
    facts: dict[str, str]  # what its posts say of the cause (the caller's words, kept for follow-ups)
    first_at: float
    last_at: float
    posted: int = 0  # failures posted so far
    posts: int = 0  # posts made (the first, then follow-ups)
    last_post: float | None = None  # wall clock
    opened: float | None = None  # wall clock: when its first failure was gathered
    gathered: list[Member] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.cause, "facts": self.facts, "firstAt": self.first_at, "lastAt": self.last_at,
                "posted": self.posted, "posts": self.posts, "lastPost": self.last_post, "opened": self.opened,
                "gathered": [m.to_json() for m in self.gathered], "projects": self.projects}

    @classmethod
    def from_json(cls, raw: object) -> Storm | None:
        if not isinstance(raw, dict):
            return None
        cause, facts, first, last = raw.get("cause"), raw.get("facts"), raw.get("firstAt"), raw.get("lastAt")
        if not (isinstance(cause, str) and 0 < len(cause) <= 1000 and isinstance(facts, dict)):
            return None
        if not _number(first) or not _number(last):
            return None
        kept = {k: v[:MAX_FACTS] for k, v in facts.items() if isinstance(k, str) and isinstance(v, str)}
        last_post, opened = raw.get("lastPost"), raw.get("opened")
        storm = cls(cause, kept, float(first), float(last), _count(raw.get("posted")), _count(raw.get("posts")),
                    float(last_post) if _number(last_post) else None, float(opened) if _number(opened) else None)
        storm.gathered = [m for m in map(Member.from_json, raw.get("gathered") or []) if m is not None]
        storm.projects = [p[:200] for p in raw.get("projects") or [] if isinstance(p, str)][:500]
        return storm


@dataclass(frozen=True, slots=True)
class Release:
    """A post to make: the storm's first (`first`) or a follow-up, of these members. What the post says of the
    storm so far (read before `StormBook.released` counts this post in) is below; core.triage.chat_storm writes it."""

    storm: Storm
    members: list[Member]
    first: bool

    @property
    def facts(self) -> dict[str, str]:
        return self.storm.facts

    @property
    def number(self) -> int:
        """0 for the first post, then 1, 2, ... for follow-ups."""
        return self.storm.posts

    @property
    def total(self) -> int:
        """The storm's failures posted once this post is out."""
        return self.storm.posted + len(self.members)

    @property
    def projects(self) -> int:
        """The projects of those failures."""
        return len({*self.storm.projects, *(m.project for m in self.members)})

    @property
    def since(self) -> float:
        """The storm's first failure (epoch seconds)."""
        return self.storm.first_at

    @property
    def key(self) -> str:
        """The post's key: its first member's (the post covers the others)."""
        return self.members[0].key


@dataclass
class StormBook:
    storms: OrderedDict[str, Storm] = field(default_factory=OrderedDict)
    # workload id -> [when its last posted failure happened, failures counted since]
    recent: OrderedDict[str, list[float]] = field(default_factory=OrderedDict)
    _held: set[str] = field(default_factory=set)

    def holds(self, key: str) -> bool:
        """The failure waits in a storm, to go out with its next post."""
        return key in self._held

    # -- one failure --------------------------------------------------------------------------------------
    def repeat(self, workload: str, when: float, cooldown_s: float) -> bool:
        """Whether this failure of `workload` falls in the cool-down of its last posted one (then it is
        counted); otherwise it becomes the one the cool-down runs from."""
        last = self.recent.get(workload)
        if last is not None and cooldown_s > 0 and 0 < when - last[0] < cooldown_s:
            last[1] += 1
            return True
        return False

    def posted_at(self, workload: str) -> float | None:
        """When the workload's last posted failure happened, while its cool-down is remembered."""
        last = self.recent.get(workload)
        return last[0] if last is not None else None

    def counted(self, workload: str) -> int:
        """The workload's failures the cool-down counted since its last post."""
        last = self.recent.get(workload)
        return int(last[1]) if last is not None else 0

    def posting(self, workload: str, when: float) -> None:
        """The workload's failure at `when` goes out: its cool-down runs from it, and the count starts again."""
        self.recent.pop(workload, None)
        self.recent[workload] = [when, 0.0]
        while len(self.recent) > MAX_RECENT:
            self.recent.popitem(last=False)

    def gather(self, cause: str, facts: dict[str, str], member: Member, window_s: float, now: float) -> Storm:
        """Add a failure to its cause's storm (a new one, opened `now` on the wall clock, when there is none
        within the window)."""
        storm = self.storms.get(cause)
        if storm is None or not (storm.first_at - window_s <= member.when <= storm.last_at + window_s):
            storm = Storm(cause, {k: v[:MAX_FACTS] for k, v in facts.items()}, member.when, member.when, opened=now)
            self._replace(cause, storm)
        storm.last_at = max(storm.last_at, member.when)
        storm.gathered.append(member)
        self._held.add(member.key)
        return storm

    def _replace(self, cause: str, storm: Storm) -> None:
        old = self.storms.pop(cause, None)
        if old is not None and old.gathered:  # kept under a name of its own until it is released
            self.storms[f"{cause}\x00{old.first_at}"] = old
        self.storms[cause] = storm
        while len(self.storms) > MAX_STORMS:
            _, dropped = next(iter(self.storms.items()))
            if dropped.gathered:
                break
            self.storms.popitem(last=False)

    # -- what is due ----------------------------------------------------------------------------------------
    def due(self, now: float, grouping: Grouping, *, everything: bool = False) -> list[Release]:
        """The posts due at `now` (wall clock): a storm's first post once its first failure waited
        `first_wait`, a follow-up a window after the storm's last post; with `everything`, all that is gathered
        (the end of a `--once` run). A clock that went back is taken as the wait being over."""
        out = []
        for storm in self.storms.values():
            if not storm.gathered:
                continue
            if storm.last_post is None:
                since, wait = storm.opened, grouping.first_wait
            else:
                since, wait = storm.last_post, grouping.window_s
            ready = everything or since is None or not 0 <= now - since < wait
            if ready:
                out.append(Release(storm, sorted(storm.gathered, key=lambda m: m.when), storm.posts == 0))
        return out

    def released(self, release: Release, now: float) -> None:
        """The post of `release` is in the outbox: its members leave the storm."""
        storm = release.storm
        keys = {m.key for m in release.members}
        storm.gathered = [m for m in storm.gathered if m.key not in keys]
        self._held -= keys
        storm.posted += len(release.members)
        storm.posts += 1
        storm.last_post = now
        for member in release.members:
            if member.project not in storm.projects:
                storm.projects.append(member.project)
        for name in [k for k, s in self.storms.items() if s is storm and "\x00" in k and not s.gathered]:
            del self.storms[name]

    def prune(self, before: float, grouping: Grouping) -> None:
        """Forget storms that ended, and cool-downs that ran out, before `before` (failure time)."""
        for name in [k for k, s in self.storms.items() if not s.gathered and s.last_at + grouping.window_s < before]:
            del self.storms[name]
        for workload in [w for w, (when, _) in self.recent.items() if when + grouping.cooldown_s < before]:
            del self.recent[workload]

    def waiting(self) -> int:
        return len(self._held)

    def to_json(self) -> dict[str, Any]:
        return {"storms": {k: s.to_json() for k, s in self.storms.items()},
                "recent": [[w, when, count] for w, (when, count) in self.recent.items()]}

    @classmethod
    def from_json(cls, raw: object) -> StormBook:
        book = cls()
        if not isinstance(raw, dict):
            return book
        storms = raw.get("storms")
        for name, item in (storms.items() if isinstance(storms, dict) else ()):
            storm = Storm.from_json(item)
            if storm is not None and isinstance(name, str) and len(book.storms) < MAX_STORMS:
                book.storms[name] = storm
                book._held |= {m.key for m in storm.gathered}
        for item in raw.get("recent") or []:
            if (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str) and len(item[0]) <= 200
                    and _number(item[1]) and _number(item[2])):
                book.recent[item[0]] = [float(item[1]), float(item[2])]
        while len(book.recent) > MAX_RECENT:
            book.recent.popitem(last=False)
        return book


def _number(value: object) -> TypeIs[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _count(value: object) -> int:
    return int(value) if _number(value) and 0 <= value < 1e9 else 0
