"""Hypothesis strategies for bodies Run:ai's SDK accepts, built from its pydantic models.

Each model's fields are read (`model_fields`: annotation, alias, required or not, length and range bounds) and so
are its generated validators (`re.match(r"...", value)` and `value not in set([...])`, read from their source):
a required field is always there, an optional one sometimes, a nullable one sometimes null, an enum field any of
its values, a string any text (or one the field's pattern accepts). A drawn body is then checked by the model
itself (`valid`), so the strategy can be approximate where the SDK is subtle; the tests keep only what it
accepts.
"""

from __future__ import annotations

import enum
import inspect
import re
import types
import typing
from datetime import UTC, datetime
from functools import cache
from typing import Any

import annotated_types
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

MAX_DEPTH = 5
# Fields the API documents as offsets or counts (a page's `next` is the next `offset`, whose minimum is 0).
COUNTS = frozenset({"next", "count"})  # nested models past this leave their optional fields out
_MATCH = re.compile(r"""re\.match\(\s*r?(["'])(.+?)\1\s*,\s*value""")
_IN_SET = re.compile(r"value not in set\(\s*\[(.*?)\]\s*\)", re.DOTALL)
_WORDS = re.compile(r"""["']([^"']*)["']""")

# Text a valid body may hold: anything printable, with a few characters a reader must survive.
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=24)
INSTANTS = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2030, 12, 31), timezones=st.just(UTC)
).map(lambda d: d.isoformat().replace("+00:00", "Z"))


def valid(model: type[BaseModel], body: Any) -> bool:
    try:
        model.model_validate(body)
    except (ValidationError, ValueError, TypeError):
        return False
    return True


@cache
def _checks(model: type[BaseModel]) -> dict[str, st.SearchStrategy[Any]]:
    """Field name -> a strategy for the values its generated validator accepts."""
    out: dict[str, st.SearchStrategy[Any]] = {}
    for decorator in model.__pydantic_decorators__.field_validators.values():
        try:
            source = inspect.getsource(decorator.func)
        except (OSError, TypeError):
            continue
        strategy: st.SearchStrategy[Any] | None = None
        if (found := _IN_SET.search(source)) is not None:
            strategy = st.sampled_from(_WORDS.findall(found.group(1)))
        elif (found := _MATCH.search(source)) is not None and found.group(2) != ".*":
            pattern = found.group(2)
            strategy = st.from_regex("^" + pattern.lstrip("^").rstrip("$") + r"\Z").filter(
                lambda text, p=pattern: re.match(p, text) is not None
            )
        if strategy is not None:
            for name in decorator.info.fields:
                out[name] = strategy
    return out


def body_of(model: type[BaseModel], depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """A dict the model reads (by its aliases), its optional fields sometimes there."""
    return st.deferred(lambda: _body(model, depth))


def _body(model: type[BaseModel], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    if "actual_instance" in model.model_fields:  # a oneOf wrapper: one of the models it wraps
        choices = [
            info.annotation
            for name, info in model.model_fields.items()
            if name.startswith(("oneof_schema", "anyof_schema"))
        ]
        return st.one_of([value_of(c, (), depth) for c in choices])
    checks = _checks(model)
    required: dict[str, st.SearchStrategy[Any]] = {}
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in model.model_fields.items():
        key = info.alias or name
        strategy = checks[name] if name in checks else value_of(info.annotation, tuple(info.metadata), depth)
        if key in COUNTS:  # an offset or a count: the API's are never negative
            strategy = st.none() | st.integers(0, 10_000) if _nullable(info.annotation) else st.integers(0, 10_000)
        if name in checks and _nullable(info.annotation):
            strategy = st.none() | strategy
        if info.is_required():
            required[key] = strategy
        elif depth < MAX_DEPTH:
            optional[key] = strategy
    return st.fixed_dictionaries(required, optional=optional)


def _nullable(annotation: Any) -> bool:
    return type(None) in typing.get_args(annotation)


def value_of(annotation: Any, metadata: tuple[Any, ...], depth: int) -> st.SearchStrategy[Any]:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return value_of(args[0], (*metadata, *annotation.__metadata__), depth)
    if origin in (typing.Union, types.UnionType):
        return st.one_of([st.none() if a is type(None) else value_of(a, metadata, depth) for a in args])
    if origin in (list, set, typing.List):  # noqa: UP006
        return st.lists(value_of(args[0], (), depth + 1), max_size=3 if depth < 3 else 1)
    if origin in (dict, typing.Dict):  # noqa: UP006
        return st.dictionaries(TEXT, value_of(args[1], (), depth + 1), max_size=2)
    if annotation is Any or annotation is object:
        return st.none() | st.booleans() | st.integers(-5, 5) | TEXT
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return body_of(annotation, depth + 1)
        if issubclass(annotation, enum.Enum):
            return st.sampled_from([member.value for member in annotation])
        if issubclass(annotation, bool):
            return st.booleans()
        if issubclass(annotation, int):
            return st.integers(*_bounds(metadata, -(2**31), 2**31))
        if issubclass(annotation, float):
            low, high = _bounds(metadata, -1e9, 1e9)
            return st.floats(low, high, allow_nan=False, allow_infinity=False)
        if issubclass(annotation, datetime):
            return INSTANTS
        if issubclass(annotation, str):
            low, high = _lengths(metadata)
            return st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=low, max_size=high)
        if issubclass(annotation, bytes):
            return TEXT
    return st.none()


def _bounds(metadata: tuple[Any, ...], low: float, high: float) -> tuple[Any, Any]:
    for item in metadata:
        for attr, apply in (("ge", max), ("gt", max), ("le", min), ("lt", min)):
            bound = getattr(item, attr, None)
            if bound is not None:
                if attr in ("ge", "gt"):
                    low = apply(low, bound + (1 if attr == "gt" else 0))
                else:
                    high = apply(high, bound - (1 if attr == "lt" else 0))
    return low, high


def _lengths(metadata: tuple[Any, ...]) -> tuple[int, int]:
    low, high = 0, 24
    for item in metadata:
        if isinstance(item, annotated_types.MinLen) or getattr(item, "min_length", None) is not None:
            low = max(low, getattr(item, "min_length", 0) or 0)
        if isinstance(item, annotated_types.MaxLen) or getattr(item, "max_length", None) is not None:
            high = min(high, getattr(item, "max_length", high) or high)
    return low, max(low, high)
