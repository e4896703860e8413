"""Shared pydantic base and field types for the objects the Run:ai and Kubernetes APIs return.

Parse problems: a value that is present but unusable (an unparsable timestamp, or a field the tolerant
parser in ``pages`` had to drop) never fails the whole object. The field becomes None and a message naming
the wire field and the raw text is kept on the object; ``ApiModel.parse_problems()`` returns those messages
for the object and every nested model, each prefixed with its wire path (e.g. ``meta.creationTimestamp``).
"""

from __future__ import annotations

import contextvars
import re
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationInfo,
    WrapValidator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from core.safety.untrusted import redacted

# How much of a bad raw value a message quotes: enough to recognise it, too little to flood a report.
RAW_PREVIEW_CHARS = 80

# Each ApiModel being validated pushes its own list here so that field validators (which cannot see the
# instance) can record problems on the object they belong to. Validation is synchronous, so a ContextVar is
# enough and stays correct across threads and asyncio tasks.
_problem_stack: contextvars.ContextVar[list[list[tuple[str, str]]] | None] = contextvars.ContextVar(
    "runai_triage_problem_stack", default=None
)


def preview(raw: Any) -> str:
    """repr() of a raw value, shortened so hostile or huge input cannot bloat a message.

    Redacted before it is cut: a cut through a credential would leave a piece no rule recognises. The window
    redacted is bounded (a huge value costs no more than a long line) and far wider than what is kept.
    """
    text = repr(raw)
    if len(text) <= RAW_PREVIEW_CHARS:
        return text
    window = RAW_PREVIEW_CHARS * 50
    shown = redacted(text[:window])
    if len(shown) <= RAW_PREVIEW_CHARS and len(text) <= window:
        return shown
    return f"{shown[:RAW_PREVIEW_CHARS]}... ({len(text)} chars)"


# Problems recorded during the outermost validation under way, whichever model they belong to.
_problem_total: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "runai_triage_problem_total", default=None
)


# Set while ``core.models.fast`` validates an item without the problem stack: a problem found then must not be
# lost, so it aborts that validation and the item is validated again the tolerant way, which records it.
FAST_VALIDATION = contextvars.ContextVar("runai_triage_fast_validation", default=False)
_fast = FAST_VALIDATION


class NeedsTolerantPath(ValueError):
    """Raised inside a fast validation when a field has a problem to record (pydantic turns it into a
    ValidationError, which sends the item down the tolerant path)."""


def record_problem(field_name: str, message: str) -> None:
    """Attach a problem about one field to the ApiModel being validated (no-op outside validation)."""
    if _fast.get():
        raise NeedsTolerantPath(f"{field_name}: {message}")
    stack = _problem_stack.get()
    if stack:
        stack[-1].append((field_name, message))
        total = _problem_total.get()
        if total is not None:
            total[0] += 1


# Problems live beside the objects, keyed by identity, and only for objects that have any: private
# attributes would cost every one of the many thousands of clean objects an initialisation step.
# `weakref.finalize` drops an entry when its object goes, so a recycled id never inherits stale problems.
_PROBLEMS: dict[int, list[str]] = {}
_DIRTY: set[int] = set()  # objects whose own fields or nested models recorded a problem


def _forget(key: int) -> None:
    _PROBLEMS.pop(key, None)
    _DIRTY.discard(key)


def _mark_dirty(model: BaseModel) -> None:
    key = id(model)
    if key not in _DIRTY:
        _DIRTY.add(key)
        weakref.finalize(model, _forget, key)


class ApiModel(BaseModel):
    """Base for every API object: snake_case in Python, camelCase on the wire, unknown keys kept."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        alias_generator=to_camel,
        frozen=False,
        # Each model's validator is built on its first use, not at import: the app's first page needs a few of
        # the seventy, and start-up should not wait for the rest.
        defer_build=True,
    )

    @model_validator(mode="wrap")
    @classmethod
    def _collect_problems(cls, data: Any, handler: Any) -> Any:
        stack = _problem_stack.get()
        token = None
        total_token = None
        if stack is None:
            stack = []
            token = _problem_stack.set(stack)
            total_token = _problem_total.set([0])
        total = _problem_total.get()
        before = total[0] if total is not None else 0
        mine: list[tuple[str, str]] = []
        stack.append(mine)
        try:
            result = handler(data)
            after = total[0] if total is not None else 0
        finally:
            stack.pop()
            if token is not None:
                _problem_stack.reset(token)
            if total_token is not None:
                _problem_total.reset(total_token)
        if isinstance(result, ApiModel):
            if mine:
                own = _PROBLEMS.setdefault(id(result), [])
                for field_name, message in mine:
                    field = cls.model_fields.get(field_name)
                    wire = (field.alias if field is not None else None) or field_name
                    own.append(f"{wire}: {message}")
            if after != before or mine:
                _mark_dirty(result)
        return result

    def add_parse_problem(self, message: str) -> None:
        """Record a problem found outside validation (used by the tolerant parser)."""
        _PROBLEMS.setdefault(id(self), []).append(message)
        _mark_dirty(self)

    def parse_problems(self) -> list[str]:
        """Problems of this object and all nested models, each prefixed with its wire path."""
        if id(self) not in _DIRTY:
            return []
        return list(_walk_problems(self, ""))


def _walk_problems(model: ApiModel, prefix: str) -> Iterator[str]:
    if id(model) not in _DIRTY:
        return
    for message in _PROBLEMS.get(id(model), ()):
        yield f"{prefix}.{message}" if prefix else message
    for name, field in type(model).model_fields.items():
        wire = field.alias or name
        path = f"{prefix}.{wire}" if prefix else wire
        yield from _walk_value(getattr(model, name, None), path)


def _walk_value(value: Any, path: str) -> Iterator[str]:
    # Models sit directly in fields or one level down in lists/dicts; free-form JSON (Any fields) is not
    # walked, so a deeply nested hostile value cannot exhaust the stack here.
    if isinstance(value, ApiModel):
        yield from _walk_problems(value, path)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, ApiModel):
                yield from _walk_problems(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, ApiModel):
                yield from _walk_problems(item, f"{path}.{key}")


# ISO-8601 as the APIs send it: date, 'T' or space, time, optional fraction of any length, optional Z/offset.
_ISO_RE = re.compile(
    r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ]"
    r"(?P<time>[0-9]{2}:[0-9]{2}(?::[0-9]{2})?)"
    r"(?:\.(?P<frac>[0-9]+))?"
    r"(?P<tz>[Zz]|[+-][0-9]{2}:?[0-9]{2})?"
)
_MAX_TIMESTAMP_CHARS = 64
# What the APIs send almost always (UTC; whole seconds, or milliseconds or microseconds as metrics samples are):
# read by fromisoformat directly, which gives exactly what the general path below gives for it, without building
# a new string first.
_COMMON_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{3}|\.[0-9]{6})?Z")
_COMMON_LENGTHS = frozenset({20, 24, 27})
# A history repeats its timestamps (an event's record and the event carry the same one): the common ones read
# lately, kept (datetimes are immutable, so sharing one is safe) until there are this many.
_common_seen: dict[str, datetime] = {}
_COMMON_SEEN_MAX = 4096


def parse_timestamp(raw: Any) -> datetime | None:
    """Parse an API timestamp into an aware datetime; naive values are UTC. Raises ValueError if unusable.

    None and "" mean "not set" and give None.
    """
    if raw is None:
        return None
    if type(raw) is str and len(raw) in _COMMON_LENGTHS:
        known = _common_seen.get(raw)
        if known is not None:
            return known
        if _COMMON_TIMESTAMP.fullmatch(raw):
            try:
                common: datetime | None = datetime.fromisoformat(raw)
            except ValueError:  # a month 13: the general path below says so in its own words
                common = None
            if common is not None and EARLIEST.year < common.year < LATEST.year - 1:
                if len(_common_seen) >= _COMMON_SEEN_MAX:
                    _common_seen.clear()
                _common_seen[raw] = common
                return common
    return parse_timestamp_general(raw)


def parse_timestamp_general(raw: Any) -> datetime | None:
    """`parse_timestamp` without its shortcut for the common shape (the tests hold the two to the same answers)."""
    if raw is None:
        return None
    if isinstance(raw, datetime):
        return raw if raw.tzinfo is not None else raw.replace(tzinfo=UTC)
    if not isinstance(raw, str):
        raise ValueError(f"expected an ISO-8601 string, got {type(raw).__name__}")
    if raw == "":
        return None
    if len(raw) > _MAX_TIMESTAMP_CHARS:
        raise ValueError(f"too long for a timestamp ({len(raw)} chars)")
    match = _ISO_RE.fullmatch(raw)
    if match is None:
        raise ValueError("not an ISO-8601 timestamp")
    # Python accepts at most 6 fractional digits; Kubernetes and Go may send 9 (nanoseconds): truncate.
    frac = match["frac"]
    text = f"{match['date']}T{match['time']}" + (f".{frac[:6].ljust(6, '0')}" if frac else "")
    tz = match["tz"]
    if tz and tz not in ("Z", "z"):
        text += tz if ":" in tz else f"{tz[:3]}:{tz[3:]}"
    parsed = datetime.fromisoformat(text)
    parsed = parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    problem = out_of_range(parsed)
    if problem:
        raise ValueError(problem)
    return parsed


# Every instant the diagnosis reasons about lies well inside this window, so lookbacks (up to a year), run
# windows and margins computed from one can never step outside what `datetime` can hold. Year 1 and 9999 (Go's
# zero time, "forever" sentinels, a hostile server) would otherwise overflow in the first subtraction.
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(3000, 1, 1, tzinfo=UTC)


def out_of_range(value: datetime) -> str | None:
    """Why an aware datetime cannot be used as a time of the diagnosis, or None when it can."""
    if EARLIEST.year < value.year < LATEST.year - 1:
        return None  # an offset (under a day) cannot carry such a year across the limits
    try:
        utc = value.astimezone(UTC)
    except (OverflowError, ValueError):
        return "out of range: cannot be expressed in UTC (year 1 or 9999 with an offset?)"
    if not EARLIEST <= utc < LATEST:
        return f"out of range: year {utc.year} is outside {EARLIEST.year}-{LATEST.year - 1}"
    return None


def timestamp_validator(raw: Any, handler: Any, info: ValidationInfo) -> datetime | None:
    try:
        return parse_timestamp(raw)
    except ValueError as exc:
        record_problem(info.field_name or "?", f"unparsable timestamp {preview(raw)} ({exc})")
        return None


Timestamp = Annotated[datetime | None, WrapValidator(timestamp_validator)]
"""An aware datetime or None; an unparsable value becomes None plus a parse problem on the owning model."""


def _number_to_str(value: Any) -> Any:
    # Ids the docs type as strings (projectId, departmentId) sometimes arrive as JSON numbers.
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return str(value)
    return value


LooseStr = Annotated[str | None, BeforeValidator(_number_to_str)]
"""A string field that also accepts a JSON number (kept as its decimal text)."""

Number = int | float
"""A JSON number: ints stay ints (1 GPU), fractions stay floats (0.5 GPU)."""
