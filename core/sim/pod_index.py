"""Every pod of a served bundle, indexed once, so a page of the tenant-wide pod list costs what the window holds,
not what the tenant ever ran.

`GET /api/v1/workloads/pods` is answered from the workloads' `pods` (case-format.md). The pods are split by
deleted or not, and for each date field a `>=` filter names (a window's start: `completedAt>=`, `deletedAt>=`,
`createdAt>=`) they are kept sorted by it, so a query starts from the first pod inside the window (a bisection)
and tests its other conditions only on those. Each query's selection is kept for its next pages (a handful of
recent queries). A bundle does not change while it is served (the live demo serves a new bundle when it moves).
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from core.sim.filtering import Condition, ListField, comparable, list_fields, sort_items
from core.sim.per_bundle import PerBundle

Row = dict[str, Any]

# The fields the 2.24 document lets the tenant-wide pod list filter and sort on (its filterBy pattern and
# sortBy enum). `currentNodepool` is the pod's `currentNodePool`.
POD_FIELDS: dict[str, ListField] = {
    **list_fields("text", "clusterId", "workloadId", "revisionId", "nodeName", "currentNodepool",
              paths={"currentNodepool": ("currentNodePool",)}),
    **list_fields("date", "createdAt", "completedAt", "deletedAt"),
}
KEPT_QUERIES = 8


class PodIndex:
    def __init__(self, workloads: Sequence[Row]) -> None:
        pods = [p for e in workloads for p in e.get("pods") or [] if isinstance(p, dict)]
        self._parts: dict[bool, list[Row]] = {False: [], True: []}
        for pod in pods:
            self._parts[bool(pod.get("deletedAt"))].append(pod)
        self._lock = threading.Lock()
        self._by_date: dict[tuple[bool, str], tuple[list[datetime], list[Row]]] = {}
        self._selections: OrderedDict[tuple[Any, ...], list[Row]] = OrderedDict()

    def page(
        self,
        offset: int,
        limit: int,
        *,
        deleted: bool,
        completed: bool | None,
        conditions: Sequence[Condition],
        sort_by: str | None,
        descending: bool,
    ) -> tuple[list[Row], int | None]:
        key = (deleted, completed, tuple(conditions), sort_by, descending)
        with self._lock:
            chosen = self._selections.get(key)
            if chosen is None:
                chosen = self._select(deleted, completed, conditions, sort_by, descending)
                self._selections[key] = chosen
                if len(self._selections) > KEPT_QUERIES:
                    self._selections.popitem(last=False)
            else:
                self._selections.move_to_end(key)
        chunk = chosen[offset : offset + limit]
        return chunk, offset + limit if offset + limit < len(chosen) else None

    def _select(
        self, deleted: bool, completed: bool | None, conditions: Sequence[Condition], sort_by: str | None,
        descending: bool,
    ) -> list[Row]:
        start = next((c for c in conditions if c.field.kind == "date" and c.op == ">="), None)
        if start is not None and isinstance(start.target, datetime):
            stamps, ordered = self._sorted(deleted, start.field)
            candidates: Sequence[Row] = ordered[bisect.bisect_left(stamps, start.target):]
            rest = [c for c in conditions if c is not start]
        else:
            candidates, rest = self._parts[deleted], list(conditions)
        chosen = [
            p for p in candidates
            if (completed is None or bool(p.get("completedAt")) == completed) and all(c.test(p) for c in rest)
        ]
        if sort_by:
            chosen = sort_items(chosen, POD_FIELDS[sort_by], descending)
        return chosen

    def _sorted(self, deleted: bool, field: ListField) -> tuple[list[datetime], list[Row]]:
        found = self._by_date.get((deleted, field.name))
        if found is None:
            stamps = ((comparable(field.raw(p), "date"), p) for p in self._parts[deleted])
            dated = [(at, p) for at, p in stamps if isinstance(at, datetime)]
            dated.sort(key=lambda pair: pair[0])
            found = self._by_date[(deleted, field.name)] = ([at for at, _ in dated], [p for _, p in dated])
        return found

    def prepare(self) -> None:
        """Sort every date field now (a benchmark's warm-up; a server with time before its first request)."""
        with self._lock:
            for deleted in (False, True):
                for field in POD_FIELDS.values():
                    if field.kind == "date":
                        self._sorted(deleted, field)


# One index per bundle being served, built on first use and dropped with the bundle.
pod_index_of: PerBundle[PodIndex] = PerBundle(lambda bundle: PodIndex(bundle.workloads))
