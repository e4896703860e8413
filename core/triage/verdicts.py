"""Verdicts kept per workload for the picker's verdict column: which rows get one, and the cache.

A row gets a background diagnosis when it is one the needs-attention view keeps from its list entry alone
(Failed, Crashed, Stopped, or a Pending / Running row whose status shows a failing pod), a Pending row whose
recent events show a failing pod (one events read per such row and phase change: an image that cannot be pulled
shows nowhere else), or any row of that view (which read its events already). Other rows are never diagnosed in
the background: a healthy Running row costs nothing.

A verdict is kept under the workload id and its `phaseUpdatedAt`: when the phase changes, so may the verdict,
and the next look diagnoses again. The cache is bounded; the oldest entries go first.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from core.models.runai import Workload
from core.triage.attention import AttentionCache, Judgement, judge_listed

if TYPE_CHECKING:  # the picker imports this module before its first page, which never needs the engine
    from core.triage.batch import Verdict

MAX_CACHED = 1000
# The phases whose rows the plain list judges by one events read each (the needs-attention view judges Running
# and Degraded rows that way too; in the plain list their crash loop shows in their conditions).
PLAIN_EVENT_PHASES = ("Pending",)


def verdict_key(workload: Workload) -> tuple[str, str]:
    return (workload.id or "", workload.phase_updated_at.isoformat() if workload.phase_updated_at else "")


def wants_verdict(
    workload: Workload, *, attention_view: bool, judged: Mapping[tuple[str, str], Judgement] | None = None
) -> bool:
    """Whether a row of the page is diagnosed in the background (see the module docstring); `judged` holds the
    judgements already made from rows' events (core.triage.attention.AttentionCache)."""
    if not workload.id:
        return False
    if attention_view:
        return True
    listed = judge_listed(workload)
    if listed is None and judged is not None:
        listed = judged.get(AttentionCache.key(workload))
    return listed is not None and listed.keep


def needs_events(workload: Workload, judged: Mapping[tuple[str, str], Judgement]) -> bool:
    """A Pending row of the plain list whose list entry cannot say whether a pod fails (an image it cannot
    pull, a volume it cannot mount, an init container in a crash loop show only in its events), not judged from
    its events yet: one events read decides it, as in the needs-attention view. Call only once the engine's
    signals are loaded (`judging_loads_the_engine` is False)."""
    if not workload.id or (workload.phase or "") not in PLAIN_EVENT_PHASES:
        return False
    return judge_listed(workload) is None and AttentionCache.key(workload) not in judged


class VerdictCache:
    def __init__(self, limit: int = MAX_CACHED) -> None:
        self._limit = limit
        self._kept: OrderedDict[tuple[str, str], Verdict] = OrderedDict()

    def get(self, workload: Workload) -> Verdict | None:
        key = verdict_key(workload)
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def put(self, workload: Workload, verdict: Verdict) -> None:
        key = verdict_key(workload)
        self._kept[key] = verdict
        self._kept.move_to_end(key)
        while len(self._kept) > self._limit:
            self._kept.popitem(last=False)

    def forget(self, workload: Workload) -> None:
        """Drop the verdict kept for this row's phase change: what it said no longer holds (a recovery)."""
        self._kept.pop(verdict_key(workload), None)

    def __len__(self) -> int:
        return len(self._kept)


def to_diagnose(
    rows: Sequence[Workload],
    cache: VerdictCache,
    *,
    attention_view: bool,
    under_way: set[tuple[str, str]],
    recovered: Collection[str] = (),
    judged: Mapping[tuple[str, str], Judgement] | None = None,
) -> tuple[list[Workload], list[Workload]]:
    """For a page read again: the rows that get a verdict, and those of them still to diagnose (no verdict for
    their current phase change in `cache`, none under way). A row whose phase did not change costs nothing. A
    row that needed attention and recovered (`recovered` ids) keeps a verdict, the diagnosis's word on it now."""
    eligible = [w for w in rows if wants_verdict(w, attention_view=attention_view, judged=judged) or w.id in recovered]
    todo = [w for w in eligible if cache.get(w) is None and verdict_key(w) not in under_way]
    return eligible, todo


# Each category by the word that tells it apart, for a line too narrow for the full names (80 columns).
SHORT_LABELS = {
    "CRASH_APP_ERROR": "CRASH",
    "OOM_KILLED": "OOM",
    "IMAGE_PULL_FAILED": "PULL",
    "INIT_FAILED": "INIT",
    "DATASOURCE_MOUNT_FAILED": "MOUNT",
    "NODE_FAILURE": "NODE",
    "SCHEDULING_POLICY_TERMINATED": "POLICY",
}


def count_line(labels: Sequence[str], *, short: bool = False) -> str:
    """`4 OOM_KILLED · 2 IMAGE_PULL_FAILED · 1 UNKNOWN`: the most frequent first (`short`: `4 OOM · ...`)."""
    counts = Counter(labels)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return " · ".join(f"{n:,} {SHORT_LABELS.get(label, label) if short else label}" for label, n in ordered)


def page_line(labels: Iterable[str], waiting: int, eligible: int, checking: int = 0) -> str:
    """The line under the picker: `verdicts: 4 OOM_KILLED · 2 UNKNOWN` and how many are still being read;
    `checking` rows are not yet known to want a verdict (their status is still to be judged)."""
    return page_lines(labels, waiting, eligible, checking)[0]


def page_lines(labels: Iterable[str], waiting: int, eligible: int, checking: int = 0) -> list[str]:
    """The line under the picker, longest first: the full words, then the same counts in fewer words, for a
    line that must fit the terminal's width (each says every count)."""
    shown = list(labels)
    if not eligible and not checking:
        return ["verdicts: no failed or needs-attention rows on this page"]
    out = []
    for short in (False, True):
        counts = count_line(shown, short=short) if shown else "none yet"
        busy = [f"diagnosing {waiting} more in the background"] if waiting else []
        if checking:
            busy.append(f"checking the status of {checking} more row{'s' if checking != 1 else ''}")
        brief = [f"{waiting + checking} more to come"] if waiting or checking else []
        out.append("verdicts: " + counts + (f" ({'; '.join(busy)})" if busy else ""))
        out.append("verdicts: " + counts + (f" ({brief[0]})" if brief else ""))
    if waiting or checking:
        counts = count_line(shown, short=True) if shown else "none yet"
        out.append(f"verdicts: {counts} (+{waiting + checking})")
    return list(dict.fromkeys(out))
