"""What moved between two reads of one list: which rows changed phase, and which newly need attention.

One tracker per list (filters and order): it remembers, for every workload it has seen, its phase change time
and whether it needed attention then. A row is

- *changed* when its phase or its `phaseUpdatedAt` differs from what the last read showed (marked for
  MARK_READS reads, so the eye can find it);
- *newly failing* when it needs attention now and did not before: it was seen not needing it, or it was never
  seen and its phase changed after the tracker began (a workload that failed before the list was first read is
  not news). It stays flagged until `seen` is called for it (the user looked) or the list changes;
- *recovered* when it needed attention on an earlier read and does not now (a crash loop that came back up): it
  is no news any more, and is said as recovered until it needs attention again.

The judgement "needs attention" is the caller's (the picker's verdict rule, core.triage.verdicts), so this module
decides nothing about failures itself. Memory is bounded: the oldest remembered rows go past MAX_REMEMBERED.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from core.models.runai import Workload

MARK_READS = 3
MAX_REMEMBERED = 5000


@dataclass(frozen=True, slots=True)
class _Seen:
    phase: str | None
    when: datetime | None
    attention: bool | None  # None: not judged (the judgement would have cost more than that read could spend)


@dataclass(frozen=True, slots=True)
class Changes:
    """One read's news: rows whose phase changed, rows that newly need attention, and rows that needed it and
    do not any more (a crash loop that recovered)."""

    changed: tuple[str, ...] = ()
    newly_failing: tuple[str, ...] = ()
    recovered: tuple[str, ...] = ()


@dataclass
class ChangeTracker:
    since: datetime | None
    reads: int = 0
    _seen: OrderedDict[str, _Seen] = field(default_factory=OrderedDict)
    _marked: dict[str, int] = field(default_factory=dict)  # id -> the read that marked it
    flagged: dict[str, None] = field(default_factory=dict)  # ids newly failing, not looked at yet (in order)
    # Ids that needed attention on an earlier read and, judged again, do not now: said as recovered (no longer
    # counted as new failures), until they need attention again.
    recovered: dict[str, None] = field(default_factory=dict)

    def update(self, rows: Sequence[Workload], needs_attention: Callable[[Workload], bool | None]) -> Changes:
        """Compare a fresh read with what was seen; returns this read's news (marks and flags are kept).
        `needs_attention` may answer None (not judged): such a row is news later only as one never seen is."""
        self.reads += 1
        changed: list[str] = []
        newly: list[str] = []
        back: list[str] = []
        for w in rows:
            if not w.id:
                continue
            now = _Seen(w.phase, w.phase_updated_at, needs_attention(w))
            before = self._seen.get(w.id)
            if before is not None and (before.phase, before.when) != (now.phase, now.when):
                changed.append(w.id)
                self._marked[w.id] = self.reads
            if now.attention and self._is_news(before, now):
                newly.append(w.id)
                self.flagged[w.id] = None
            if now.attention:
                self.recovered.pop(w.id, None)
            elif now.attention is False and before is not None and before.attention:
                # It needed attention and does not now, in the same phase or a quiet one: a recovery, not news.
                back.append(w.id)
                self.recovered[w.id] = None
                self.flagged.pop(w.id, None)
            self._seen[w.id] = now
            self._seen.move_to_end(w.id)
        while len(self._seen) > MAX_REMEMBERED:
            gone, _ = self._seen.popitem(last=False)
            self._marked.pop(gone, None)
            self.flagged.pop(gone, None)
            self.recovered.pop(gone, None)
        for stale in [i for i, at in self._marked.items() if self.reads - at >= MARK_READS]:
            del self._marked[stale]
        return Changes(tuple(changed), tuple(newly), tuple(back))

    def _is_news(self, before: _Seen | None, now: _Seen) -> bool:
        if before is not None and before.attention is not None:
            return not before.attention
        if (before is None and self.reads == 1) or self.since is None or now.when is None:
            return False  # the first read is what the list was when the user came: nothing is news yet
        return now.when >= self.since

    def marked(self) -> set[str]:
        """Rows whose phase changed in one of the last MARK_READS reads."""
        return set(self._marked)

    def seen(self, ids: Iterable[str]) -> None:
        """The user looked at these rows: they are news no more."""
        for i in ids:
            self.flagged.pop(i, None)
