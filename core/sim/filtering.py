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
from typing import Any

from core.sim.bundle import parse_instant, show

STRING_OPS: frozenset[str] = frozenset({"==", "!=", "=@", "!@", "=^", "=$"})
DATE_OPS: frozenset[str] = frozenset({"==", "!=", "<=", ">="})
_ALL_OPS = ("==", "!=", "<=", ">=", "=@", "!@", "=^", "=$")

WORKLOAD_STRING_FIELDS: frozenset[str] = frozenset(
    {"name", "projectName", "projectId", "clusterId", "phase", "type", "submittedBy"}
)
WORKLOAD_DATE_FIELDS: frozenset[str] = frozenset({"phaseUpdatedAt", "createdAt"})
WORKLOAD_SORT_FIELDS: frozenset[str] = frozenset(
    {"phaseUpdatedAt", "createdAt", "name", "phase", "projectName", "type", "updatedAt", "submittedBy"}
)
DATE_SORT_FIELDS: frozenset[str] = frozenset({"phaseUpdatedAt", "createdAt", "updatedAt"})
PROJECT_STRING_FIELDS: frozenset[str] = frozenset({"name", "clusterId"})

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


def comparable(raw: object, *, as_date: bool) -> str | datetime | None:
    """What a condition compares a field's raw value as: its text, or its instant for a date field; None when
    the value is missing or cannot be compared (an object, a list, an unreadable date)."""
    if raw is None or isinstance(raw, dict | list):
        return None
    if as_date:
        return parse_instant(raw)
    return str(raw).lower() if isinstance(raw, bool) else str(raw)


@dataclass(frozen=True)
class Condition:
    field: str
    op: str
    value: str
    instant: datetime | None  # set for date fields

    def test(self, item: dict[str, Any]) -> bool:
        return self.holds(comparable(item.get(self.field), as_date=self.instant is not None))

    def holds(self, value: str | datetime | None) -> bool:
        """The condition on a value made by `comparable` (which the simulator's index keeps per workload)."""
        negative = self.op in ("!=", "!@")
        if value is None:
            return negative
        if self.instant is not None:
            if not isinstance(value, datetime):
                return negative
            when = value
            if self.op == "==":
                return when == self.instant
            if self.op == "!=":
                return when != self.instant
            if self.op == "<=":
                return when <= self.instant
            return when >= self.instant
        if not isinstance(value, str):
            return negative
        text = value
        if self.op == "==":
            return text == self.value
        if self.op == "!=":
            return text != self.value
        if self.op == "=@":
            return self.value in text
        if self.op == "!@":
            return self.value not in text
        if self.op == "=^":
            return text.startswith(self.value)
        return text.endswith(self.value)


def _split_items(text: str) -> list[str]:
    items: list[str] = []
    start = 0
    for i, ch in enumerate(text):
        if ch == "," and _ITEM_START.match(text, i + 1):
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return items


def parse_filter_by(
    values: Iterable[str], string_fields: frozenset[str], date_fields: frozenset[str] = frozenset()
) -> list[Condition]:
    """Parse every `filterBy` parameter (repeats are ANDed) into conditions; QueryError says what is wrong."""
    conditions: list[Condition] = []
    for text in values:
        if text == "":
            continue
        for item in _split_items(text):
            m = _FIELD.match(item)
            if m is None:
                raise QueryError(
                    f"filterBy: cannot read item '{show(item)}'; expected <field><operator><value>"
                )
            field_name = m.group(0)
            rest = item[m.end() :]
            op = rest[:2]
            if op not in _ALL_OPS:
                if field_name not in string_fields | date_fields:
                    raise QueryError(f"filterBy: unknown field '{show(field_name)}'")
                raise QueryError(f"filterBy: unknown operator '{show(rest[:2])}' in '{show(item)}'")
            value = rest[2:]
            if field_name in date_fields:
                if op not in DATE_OPS:
                    raise QueryError(
                        f"filterBy: operator '{op}' is not supported for date field '{field_name}'"
                    )
                instant = parse_instant(value)
                if instant is None:
                    raise QueryError(f"filterBy: '{field_name}' needs an ISO-8601 date, got '{show(value)}'")
                conditions.append(Condition(field_name, op, value, instant))
            elif field_name in string_fields:
                if op not in STRING_OPS:
                    raise QueryError(f"filterBy: operator '{op}' is not supported for field '{field_name}'")
                conditions.append(Condition(field_name, op, value, None))
            else:
                raise QueryError(f"filterBy: unknown field '{show(field_name)}'")
    return conditions


def apply_conditions(
    items: Iterable[dict[str, Any]], conditions: Sequence[Condition]
) -> list[dict[str, Any]]:
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
    key: str,
    descending: bool,
    *,
    as_date: bool,
    tie: Callable[[dict[str, Any]], str] = lambda item: str(item.get("id", "")),
) -> list[dict[str, Any]]:
    """Sort by one field; missing values sort as the smallest. Ties go by `tie`, ascending: stable pages."""

    def primary(item: dict[str, Any]) -> tuple[int, Any]:
        raw = item.get(key)
        if as_date:
            when = parse_instant(raw)
            return (0, 0.0) if when is None else (1, when.timestamp())
        if raw is None or isinstance(raw, dict | list):
            return (0, "")
        return (1, str(raw))

    by_tie = sorted(items, key=tie)
    return sorted(by_tie, key=primary, reverse=descending)


def parse_paging(
    query: Query, default_limit: int = DEFAULT_LIMIT, max_limit: int = MAX_LIMIT
) -> tuple[int, int]:
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
