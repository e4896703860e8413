"""What was delivered where: one record per destination (stdout, each webhook), and each webhook's outbox.

A watch has several destinations: stdout, and each `--post` URL. What one of them has is no proof that another
has it (a failure printed to a file by one run was never posted by it), so each keeps its own record: the keys it
received, and for a webhook the posts it has not accepted yet, in the order they were made (its outbox). A key
is opaque here: the caller makes it (core.triage.watch `failure_key`), and says when its failure happened
(`when`, epoch seconds) so that keys too old to come back can be forgotten.

Everything here is plain data that goes to the state file (core.notify.state_file) whole, so a post that could
not be made survives a restart: the next run posts its outbox first, in order. Bounds: a record keeps at most
MAX_DONE keys, and an outbox at most MAX_OUTBOX posts (`enqueue` says False when it is full; the caller says
so). A destination's id never holds its URL, which is a secret: `post:` and a digest of it.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

SCHEMA = "runai-triage/watch-state@2"
MAX_DONE = 20_000
MAX_OUTBOX = 500
MAX_TEXT = 16_000  # a post's text as kept in the outbox (a chat post is far shorter)
STDOUT = "stdout"


def destination_id(url: str) -> str:
    """A webhook's id in the state file: a digest of its URL, never the URL."""
    return "post:" + hashlib.sha256(url.strip().encode()).hexdigest()[:20]


class LedgerUnreadable(ValueError):
    """The state's content is not a delivery ledger this version can read."""


@dataclass(slots=True)
class Pending:
    """A post waiting in an outbox: the key, when its failure happened, the text in the destination's dialect,
    a name to show in messages, and how many times it was tried."""

    key: str
    when: float
    text: str
    name: str
    queued_at: float
    attempts: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "when": self.when, "text": self.text, "name": self.name,
                "queuedAt": self.queued_at, "attempts": self.attempts}

    @classmethod
    def from_json(cls, item: object) -> Pending | None:
        if not isinstance(item, dict):
            return None
        key, text, name = item.get("key"), item.get("text"), item.get("name")
        when, queued, attempts = item.get("when"), item.get("queuedAt"), item.get("attempts", 0)
        if not (isinstance(key, str) and 0 < len(key) <= 200 and isinstance(text, str) and isinstance(name, str)):
            return None
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (when, queued, attempts)):
            return None
        return cls(key, float(when), text[:MAX_TEXT], name[:200], float(queued), int(attempts))  # type: ignore[arg-type]


@dataclass
class Record:
    """One destination: what it has (key -> when), and for a webhook what waits to be posted to it."""

    id: str
    where: str  # how messages name it: "stdout", or a webhook's scheme and host
    dialect: str | None = None
    done: OrderedDict[str, float] = field(default_factory=OrderedDict)
    outbox: deque[Pending] = field(default_factory=deque)
    _queued: set[str] = field(default_factory=set)

    def delivered(self, key: str) -> bool:
        return key in self.done

    def has(self, key: str) -> bool:
        """Delivered, or waiting in the outbox: either way nothing more is needed for it."""
        return key in self.done or key in self._queued

    def mark(self, key: str, when: float) -> None:
        self.done[key] = when
        self.done.move_to_end(key)
        while len(self.done) > MAX_DONE:
            self.done.popitem(last=False)

    @property
    def full(self) -> bool:
        return len(self.outbox) >= MAX_OUTBOX

    def enqueue(self, item: Pending) -> bool:
        """Add a post at the end of the outbox; False (and nothing kept) when it holds MAX_OUTBOX already."""
        if item.key in self._queued:
            return True
        if self.full:
            return False
        self.outbox.append(item)
        self._queued.add(item.key)
        return True

    def head(self) -> Pending | None:
        return self.outbox[0] if self.outbox else None

    def settle_head(self, *, delivered: bool) -> Pending:
        """The head leaves the outbox: delivered (then kept as done), or given up on (a receiver that refuses
        it for good)."""
        item = self.outbox.popleft()
        self._queued.discard(item.key)
        if delivered:
            self.mark(item.key, item.when)
        return item

    def to_json(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "dialect": self.dialect,
            "delivered": [[k, when] for k, when in self.done.items()],
            "outbox": [p.to_json() for p in self.outbox],
        }

    @classmethod
    def from_json(cls, rid: str, data: object) -> Record:
        if not isinstance(data, dict):
            raise LedgerUnreadable(f"destination {rid[:40]!r} is not an object")
        where, dialect = data.get("where"), data.get("dialect")
        record = cls(rid, where[:200] if isinstance(where, str) else rid,
                     dialect if isinstance(dialect, str) else None)
        for item in data.get("delivered") or []:
            if (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and len(item[0]) <= 200
                    and isinstance(item[1], int | float) and not isinstance(item[1], bool)):
                record.mark(item[0], float(item[1]))
        for raw in data.get("outbox") or []:
            pending = Pending.from_json(raw)
            if pending is not None:
                record.enqueue(pending)
        return record


@dataclass
class Ledger:
    """Every destination's record, the scope they belong to, and where the next run looks from (opaque here:
    the watch's own words for it)."""

    scope: str
    look_from: str | None = None
    records: dict[str, Record] = field(default_factory=dict)

    def record(self, rid: str, where: str, dialect: str | None = None) -> Record:
        """The destination's record, made when it is new; its shown name and dialect as this run says."""
        found = self.records.get(rid)
        if found is None:
            found = self.records[rid] = Record(rid, where, dialect)
        found.where, found.dialect = where, dialect if dialect is not None else found.dialect
        return found

    def has_all(self, key: str, ids: list[str]) -> bool:
        return all(rid in self.records and self.records[rid].has(key) for rid in ids)

    def prune(self, before: float) -> None:
        """Forget delivered keys of failures older than `before`: no later window reaches them. Outboxes keep
        every post, however old: it was never delivered."""
        for record in self.records.values():
            for key in [k for k, when in record.done.items() if when < before]:
                del record.done[key]

    def waiting(self) -> int:
        return sum(len(r.outbox) for r in self.records.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "scope": self.scope,
            "lookFrom": self.look_from,
            "destinations": {rid: r.to_json() for rid, r in self.records.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ledger:
        """A ledger of SCHEMA (the caller checked the schema and the scope); LedgerUnreadable for a bad shape."""
        scope, look_from, destinations = data.get("scope"), data.get("lookFrom"), data.get("destinations")
        if not isinstance(scope, str) or not isinstance(destinations, dict):
            raise LedgerUnreadable("no scope or no destinations")
        ledger = cls(scope, look_from if isinstance(look_from, str) else None)
        for rid, raw in destinations.items():
            if isinstance(rid, str) and 0 < len(rid) <= 100:
                ledger.records[rid] = Record.from_json(rid, raw)
        return ledger
