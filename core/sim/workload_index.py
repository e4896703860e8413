"""The workload list of a served bundle, indexed once, so a page costs what a page holds, not what the tenant holds.

A bundle does not change while it is served. For each order a list is asked in (sortBy, sortOrder), the
workloads are sorted once, exactly as `filtering.sort_items` sorts them, and split by deleted or not and by
cluster (every picker query names one); each field a filter names has its values made comparable once
(`filtering.comparable`: dates parsed, numbers read). A query's selection is then read off that order lazily:
a page walks only until it has its rows and knows whether one more follows, the count walks to the end, and
what was walked is kept for the next pages of the same query (a handful of recent queries, a position per
workload found). Filtering a sorted list keeps its order, so the answer is the one sorting the selection gives.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

from core.sim.filtering import WORKLOAD_FIELDS, Comparable, Condition, ListField, comparable, sort_items
from core.sim.per_bundle import PerBundle

# Queries whose selections are kept: the picker's current one, the count beside it, and the ones a user goes
# back and forth between.
KEPT_QUERIES = 8
# The field every picker query filters on with ==: the sorted order is kept split by its value.
SPLIT_FIELD = "clusterId"

Row = dict[str, Any]
Value = Comparable
_Whole = dict[bool, list[int]]  # deleted or not -> positions in order
_Split = dict[tuple[bool, Value], list[int]]  # (deleted or not, cluster) -> positions in order


class _Selection:
    """The positions a query selects, found as far as someone asked."""

    def __init__(self, candidates: Iterator[int]) -> None:
        self._candidates = candidates
        self.found: list[int] = []
        self.complete = False

    def reach(self, count: int | None) -> None:
        """Find positions until there are `count` (all of them when None) or no more."""
        found, step = self.found, self.found.append
        for position in self._candidates:
            step(position)
            if count is not None and len(found) >= count:
                return
        self.complete = True


class WorkloadIndex:
    def __init__(self, workloads: Sequence[Row]) -> None:
        self._workloads = list(workloads)
        self._lock = threading.Lock()  # the loopback server answers from several threads
        self._orders: dict[tuple[str | None, bool], tuple[_Whole, _Split]] = {}
        self._values: dict[str, list[Value]] = {}
        self._names: list[str] | None = None
        self._selections: OrderedDict[tuple[Any, ...], _Selection] = OrderedDict()

    def page(self, offset: int, limit: int, **query: Any) -> tuple[list[Row], int | None]:
        """One page of a query (see `_selection` for its keys) and the `next` offset, None on the last page."""
        with self._lock:
            selection = self._selection(**query)
            selection.reach(offset + limit + 1)  # one more than the page: is there a next page?
            chunk = selection.found[offset : offset + limit]
            more = len(selection.found) > offset + limit
        workloads = self._workloads
        return [workloads[i] for i in chunk], offset + limit if more else None

    def prepare(self, sort_by: str | None, descending: bool) -> None:
        """Sort the workloads in this order now, ahead of the first query that asks for it (a server with time
        to spare before its first request)."""
        with self._lock:
            self._order(sort_by, descending)

    def count(self, **query: Any) -> int:
        with self._lock:
            selection = self._selection(**query)
            selection.reach(None)
            return len(selection.found)

    def _selection(
        self,
        *,
        deleted: bool,
        search: str,
        conditions: Sequence[Condition],
        sort_by: str | None,
        descending: bool,
    ) -> _Selection:
        key = (deleted, search, tuple(conditions), sort_by, descending)
        selection = self._selections.get(key)
        if selection is not None:
            self._selections.move_to_end(key)
            return selection
        whole, split = self._order(sort_by, descending)
        # An == condition on the split field picks its part of the order; the rest are tested one by one.
        cluster = next((c for c in conditions if c.field.name == SPLIT_FIELD and c.op == "=="), None)
        if cluster is not None:
            order: Sequence[int] = split.get((deleted, cluster.value), [])
            conditions = [c for c in conditions if c is not cluster]
        else:
            order = whole.get(deleted, [])
        selection = self._selections[key] = _Selection(self._matching(order, search, conditions))
        if len(self._selections) > KEPT_QUERIES:
            self._selections.popitem(last=False)
        return selection

    def _matching(self, order: Sequence[int], search: str, conditions: Sequence[Condition]) -> Iterator[int]:
        tests = [(c.holds, self._comparable(c.field)) for c in conditions]
        names = self._lowered_names() if search else None
        for i in order:
            if names is not None and search not in names[i]:
                continue
            if all(holds(values[i]) for holds, values in tests):
                yield i

    def _order(self, sort_by: str | None, descending: bool) -> tuple[_Whole, _Split]:
        """The workloads in the order asked for, by deleted or not, and by (deleted, cluster) too."""
        found = self._orders.get((sort_by, descending))
        if found is None:
            if sort_by is None:
                ranked: Sequence[int] = range(len(self._workloads))
            else:
                positions = {id(wl): i for i, wl in enumerate(self._workloads)}
                ordered = sort_items(self._workloads, WORKLOAD_FIELDS[sort_by], descending)
                ranked = [positions[id(wl)] for wl in ordered]
            clusters = self._comparable(WORKLOAD_FIELDS[SPLIT_FIELD])
            whole: _Whole = {}
            split: _Split = {}
            for i in ranked:
                gone = bool(self._workloads[i].get("deletedAt"))
                whole.setdefault(gone, []).append(i)
                split.setdefault((gone, clusters[i]), []).append(i)
            found = self._orders[(sort_by, descending)] = (whole, split)
        return found

    def _comparable(self, field: ListField) -> list[Value]:
        values = self._values.get(field.name)
        if values is None:
            values = [comparable(field.raw(wl), field.kind) for wl in self._workloads]
            self._values[field.name] = values
        return values

    def _lowered_names(self) -> list[str]:
        if self._names is None:
            self._names = [str(wl.get("name", "")).lower() for wl in self._workloads]
        return self._names


# One index per bundle being served, dropped with the bundle.
index_of: PerBundle[WorkloadIndex] = PerBundle(
    lambda bundle: WorkloadIndex([entry["workload"] for entry in bundle.workloads])
)
