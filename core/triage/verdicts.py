"""Verdicts kept per workload for the picker's verdict column: which rows get one, and the cache.

A row gets a background diagnosis when it is one the needs-attention view keeps from its list entry alone
(Failed, Crashed, Stopped, or a Pending / Running row whose status shows a failing pod), or any row of that
view (which read its events already). Other rows are never diagnosed in the background: a healthy Running row
costs nothing.

A verdict is kept under the workload id and its `phaseUpdatedAt`: when the phase changes, so may the verdict,
and the next look diagnoses again. The cache is bounded; the oldest entries go first.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from core.models.runai import Workload
from core.triage.attention import judge_listed

if TYPE_CHECKING:  # the picker imports this module before its first page, which never needs the engine
    from core.triage.batch import Verdict

MAX_CACHED = 1000


def verdict_key(workload: Workload) -> tuple[str, str]:
    return (workload.id or "", workload.phase_updated_at.isoformat() if workload.phase_updated_at else "")


def wants_verdict(workload: Workload, *, attention_view: bool) -> bool:
    """Whether a row of the page is diagnosed in the background (see the module docstring)."""
    if not workload.id:
        return False
    if attention_view:
        return True
    judged = judge_listed(workload)
    return judged is not None and judged.keep


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

    def __len__(self) -> int:
        return len(self._kept)


def to_diagnose(
    rows: Sequence[Workload], cache: VerdictCache, *, attention_view: bool, under_way: set[tuple[str, str]]
) -> tuple[list[Workload], list[Workload]]:
    """For a page read again: the rows that get a verdict, and those of them still to diagnose (no verdict for
    their current phase change in `cache`, none under way). A row whose phase did not change costs nothing."""
    eligible = [w for w in rows if wants_verdict(w, attention_view=attention_view)]
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
