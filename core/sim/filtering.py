"""filterBy / sortBy / offset-limit paging, as the Run:ai list endpoints do them, over raw JSON dicts.

Choices where the real API is undocumented: string comparisons are case-sensitive; a missing or null field
never satisfies a positive operator (==, =@, =^, =$, <=, >=) and always satisfies a negative one (!=, !@); a
comma splits items only when what follows looks like `<field><op>`, so a comma inside a value survives.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from core.sim.bundle import parse_instant, show

STRING_OPS: frozenset[str] = frozenset({"==", "!=", "=@", "!@", "=^", "=$"})
DATE_OPS: frozenset[str] = frozenset({"==", "!=", "<=", ">="})
NUMBER_OPS: frozenset[str] = DATE_OPS  # the API's own example: allocatedGPU>=2
_ALL_OPS = ("==", "!=", "<=", ">=", "=@", "!@", "=^", "=$")

FieldKind = Literal["text", "date", "number"]


@dataclass(frozen=True)
class ListField:
    """A field a list endpoint filters and sorts on: its name in `filterBy`/`sortBy`, how its values compare,
    and where the value sits in an item (a key, or a path of keys)."""

    name: str
    kind: FieldKind
    path: tuple[str, ...]

    def raw(self, item: dict[str, Any]) -> object:
        value: object = item
        for key in self.path:
            if isinstance(value, list) and key.isdigit():
                value = value[int(key)] if int(key) < len(value) else None
            elif isinstance(value, dict):
                value = value.get(key)
            else:
                return None
        return value


def list_fields(kind: FieldKind, *names: str, paths: dict[str, tuple[str, ...]] | None = None) -> dict[str, ListField]:
    return {name: ListField(name, kind, (paths or {}).get(name, (name,))) for name in names}


# The 26 fields `GET /api/v1/workloads` sorts and filters on in 2.24 (the `sortBy` enum and the `filterBy`
# pattern of the OpenAPI document Run:ai's SDK, runapy 1.224.0, is generated from). Where a field is not a
# key of the workload object, its value is read from where the object keeps it: `allocatedGPU` is
# `allocatedResources.gpu`; `nodepool` (which of a workload's pools the server uses is UNVERIFIED) its first
# current node pool.
WORKLOAD_FIELDS: dict[str, ListField] = {
    **list_fields(
        "text", "type", "name", "clusterId", "projectId", "projectName", "departmentId", "departmentName",
        "submittedBy", "phase", "nodepool", "distributedFramework", "category", "priorityClassName",
        "aiApplicationId", "aiApplicationName",
        paths={"nodepool": ("currentNodePools", "0")},
    ),
    **list_fields("date", "createdAt", "deletedAt", "completedAt", "phaseUpdatedAt", "guaranteedRuntimeEndsAt"),
    **list_fields(
        "number", "allocatedGPU", "idleGpus", "idleAllocatedGpus", "priority", "totalPendingTimeSeconds",
        "totalRunningTimeSeconds",
        paths={"allocatedGPU": ("allocatedResources", "gpu")},
    ),
}
WORKLOAD_SORT_FIELDS: frozenset[str] = frozenset(WORKLOAD_FIELDS)
PROJECT_FIELDS: dict[str, ListField] = list_fields("text", "name", "clusterId")

DEFAULT_LIMIT = 50
MAX_LIMIT = 500

_ITEM_START = re.compile(r"[A-Za-z][A-Za-z0-9_.]*(?:==|!=|<=|>=|=@|!@|=\^|=\$)")
_FIELD = re.compile(r"[A-Za-z][A-Za-z0-9_.]*")

Query = Sequence[tuple[str, str]]


class QueryError(ValueError):
    """A query parameter the server rejects with 400; the message names the parameter and the bad part."""


def query_values(query: Query, name: str) -> list[str]:
    return [v for k, v in query if k == name]


def query_get(query: Query, name: str) -> str | None:
    values = query_values(query, name)
    return values[0] if values else None


def query_bool(query: Query, name: str) -> bool:
    value = query_get(query, name)
    if value is None or value == "":
        return False
    lowered = value.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise QueryError(f"{name}: expected true or false, got '{show(value)}'")


Comparable = str | datetime | float | None


def comparable(raw: object, kind: FieldKind) -> Comparable:
    """What a condition compares a field's raw value as: its text, its instant (a date field) or its number (a
    number field); None when the value is missing or cannot be compared (an object, a list, an unreadable
    date, text in a number field)."""
    if raw is None or isinstance(raw, dict | list):
        return None
    if kind == "date":
        return parse_instant(raw)
    if kind == "number":
        return _number(raw)
    return str(raw).lower() if isinstance(raw, bool) else str(raw)


def _number(raw: object) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    try:
        value = float(str(raw))
    except ValueError:
        return None
    return value if value == value else None  # NaN compares with nothing


@dataclass(frozen=True)
class Condition:
    field: ListField
    op: str
    value: str
    target: Comparable  # the value as the field's kind compares it (text, instant or number)

    def test(self, item: dict[str, Any]) -> bool:
        return self.holds(comparable(self.field.raw(item), self.field.kind))

    def holds(self, value: Comparable) -> bool:
        """The condition on a value made by `comparable` (which the simulator's index keeps per workload)."""
        negative = self.op in ("!=", "!@")
        if value is None or type(value) is not type(self.target):
            return negative
        if self.op == "==":
            return value == self.target
        if self.op == "!=":
            return value != self.target
        if self.op == "<=":
            return value <= self.target  # type: ignore[operator]
        if self.op == ">=":
            return value >= self.target  # type: ignore[operator]
        text, wanted = str(value), str(self.target)
        if self.op == "=@":
            return wanted in text
        if self.op == "!@":
            return wanted not in text
        if self.op == "=^":
            return text.startswith(wanted)
        return text.endswith(wanted)


def _split_items(text: str) -> list[str]:
    items: list[str] = []
    start = 0
    for i, ch in enumerate(text):
        if ch == "," and _ITEM_START.match(text, i + 1):
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def parse_filter_by(values: Iterable[str], fields: dict[str, ListField]) -> list[Condition]:
    """Parse every `filterBy` parameter (repeats are ANDed) into conditions; QueryError says what is wrong."""
    conditions: list[Condition] = []
    for text in values:
        if text == "":
            continue
        for item in _split_items(text):
            m = _FIELD.match(item)
            if m is None:
                raise QueryError(f"filterBy: cannot read item '{show(item)}'; expected <field><operator><value>")
            field_name = m.group(0)
            rest = item[m.end() :]
            op = rest[:2]
            field = fields.get(field_name)
            if op not in _ALL_OPS:
                if field is None:
                    raise QueryError(f"filterBy: unknown field '{show(field_name)}'")
                raise QueryError(f"filterBy: unknown operator '{show(rest[:2])}' in '{show(item)}'")
            if field is None:
                raise QueryError(f"filterBy: unknown field '{show(field_name)}'")
            conditions.append(_condition(field, op, rest[2:]))
    return conditions


def _condition(field: ListField, op: str, value: str) -> Condition:
    if field.kind == "text":
        if op not in STRING_OPS:
            raise QueryError(f"filterBy: operator '{op}' is not supported for field '{field.name}'")
        return Condition(field, op, value, value)
    ops, read, needs = _TYPED[field.kind]
    if op not in ops:
        raise QueryError(f"filterBy: operator '{op}' is not supported for {field.kind} field '{field.name}'")
    target = read(value)
    if target is None:
        raise QueryError(f"filterBy: '{field.name}' needs {needs}, got '{show(value)}'")
    return Condition(field, op, value, target)


# A date or number field: its operators, how a filter's value is read, and what it must be.
_TYPED: dict[str, tuple[frozenset[str], Callable[[str], Comparable], str]] = {
    "date": (DATE_OPS, parse_instant, "an ISO-8601 date"),
    "number": (NUMBER_OPS, _number, "a number"),
}


def apply_conditions(items: Iterable[dict[str, Any]], conditions: Sequence[Condition]) -> list[dict[str, Any]]:
    return [item for item in items if all(c.test(item) for c in conditions)]


def sort_order(query: Query, default: str = "asc") -> str:
    order = query_get(query, "sortOrder")
    if order is None or order == "":
        return default
    if order.lower() not in ("asc", "desc"):
        raise QueryError(f"sortOrder: expected asc or desc, got '{show(order)}'")
    return order.lower()


def sort_items(
    items: list[dict[str, Any]],
    field: ListField,
    descending: bool,
    *,
    tie: Callable[[dict[str, Any]], str] = lambda item: str(item.get("id", "")),
) -> list[dict[str, Any]]:
    """Sort by one field, as its kind compares (text, instant, number); missing values sort as the smallest.
    Ties go by `tie`, ascending: stable pages."""

    def primary(item: dict[str, Any]) -> tuple[int, Any]:
        value = comparable(field.raw(item), field.kind)
        if value is None:
            return (0, 0.0 if field.kind != "text" else "")
        return (1, value.timestamp() if isinstance(value, datetime) else value)

    by_tie = sorted(items, key=tie)
    return sorted(by_tie, key=primary, reverse=descending)


def parse_paging(query: Query, default_limit: int = DEFAULT_LIMIT, max_limit: int = MAX_LIMIT) -> tuple[int, int]:
    offset_text = query_get(query, "offset")
    limit_text = query_get(query, "limit")
    offset = 0
    limit = default_limit
    if offset_text not in (None, ""):
        try:
            offset = int(offset_text)
        except ValueError:
            raise QueryError(f"offset: expected an integer, got '{show(offset_text)}'") from None
        if offset < 0:
            raise QueryError(f"offset: must be 0 or more, got {offset}")
    if limit_text not in (None, ""):
        try:
            limit = int(limit_text)
        except ValueError:
            raise QueryError(f"limit: expected an integer, got '{show(limit_text)}'") from None
        if not 1 <= limit <= max_limit:
            raise QueryError(f"limit: must be between 1 and {max_limit}, got {limit}")
    return offset, limit


def page(items: Sequence[Any], offset: int, limit: int) -> tuple[list[Any], int | None]:
    """One page and the `next` offset (None when this page reaches the end)."""
    chunk = list(items[offset : offset + limit])
    nxt = offset + limit if offset + limit < len(items) else None
    return chunk, nxt
