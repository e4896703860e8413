"""Tolerant parsing of API bodies: one bad item or field never loses the rest of a page.

Rules:
- the envelope (a dict holding the list under ``key``, and ``next``) must have the documented shape, or
  ``ShapeError`` is raised with a message saying what was expected and what arrived;
- each item is validated on its own; an item that is not an object is skipped and reported;
- a field whose value has the wrong type is dropped (it reads as None) and reported, the item is kept;
- every problem becomes an ``ItemProblem`` whose message starts with the wire path, e.g.
  ``records[3].meta.creationTimestamp: unparsable timestamp 'yesterday' ...``.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from core.models import fast, safe_json
from core.models.base import ApiModel, preview
from core.models.gc_pause import gc_paused
from core.models.json_keys import DuplicateKey
from core.models.safe_json import json_type

T = TypeVar("T", bound=ApiModel)

# A wrong value can hide another one beneath it (a dropped object may have had bad children); a few rounds
# always suffice in practice, and the bound keeps hostile input from looping.
_MAX_REPAIR_ROUNDS = 8
_DROPPED = object()


class ShapeError(ValueError):
    """A body whose overall shape is not what the endpoint documents."""


@dataclass
class ItemProblem:
    """One problem inside a page: ``index`` of the item, ``message`` starting with the field path."""

    index: int
    message: str


@dataclass
class Page(Generic[T]):
    """Parsed items, the ``next`` offset (None on the last page) and what could not be read."""

    items: list[T]
    next: int | None
    problems: list[ItemProblem] = field(default_factory=list)
    # Items the server sent beyond the number asked for, not read (0 for an honest page).
    cut: int = 0


def parse_json(raw: bytes | str, what: str) -> Any:
    """Decode a JSON body; malformed text raises ShapeError naming ``what`` and the position.

    Values nested too deeply or integers too long to convert do not fail the body: they become ``Unreadable``
    markers (see ``safe_json``) that the tolerant parsers below drop and report like any wrong value.
    """
    try:
        with gc_paused():
            return safe_json.loads(raw)
    except UnicodeDecodeError as exc:
        raise ShapeError(f"{what}: body is not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        if exc.doc.lstrip()[:1] == "<":
            raise ShapeError(f"{what}: expected JSON, got what looks like an HTML page") from None
        where = f"line {exc.lineno} column {exc.colno}"
        raise ShapeError(f"{what}: malformed JSON at {where}: {exc.msg}") from None
    except safe_json.TooManyValues as exc:
        raise ShapeError(f"{what}: not read: {exc}") from None
    except (RecursionError, MemoryError):
        raise ShapeError(f"{what}: JSON too large or nested too deeply to read") from None


def parse_tolerant(model: type[T], data: Any, path: str) -> tuple[T | None, list[str]]:
    """Validate ``data`` as ``model``, dropping fields with wrong values.

    Returns the object (None when ``data`` is not an object at all) and messages for whatever could not be
    kept. Dropped-field messages are also recorded on the object, so ``obj.parse_problems()`` lists all.
    """
    if not isinstance(data, dict):
        return None, [f"{path}: expected an object, got {json_type(data)}"]
    clean = fast.validate_clean(model, data)
    if clean is not None:
        return clean, []
    working: Any = data
    dropped: list[str] = []
    for _ in range(_MAX_REPAIR_ROUNDS):
        try:
            obj = model.model_validate(working)
        except ValidationError as exc:
            if working is data:
                try:
                    working = copy.deepcopy(data)  # never mutate the caller's body
                except RecursionError:
                    # Bodies from parse_json are depth-bounded; this guards direct callers with raw deep data.
                    return None, [f"{path}: nested too deeply to read"]
            removed, changed = _drop_bad_fields(working, exc)
            if not changed:
                break
            dropped.extend(removed)
            continue
        for message in dropped:
            obj.add_parse_problem(message)
        return obj, [f"{path}.{problem}" for problem in obj.parse_problems()]
    return None, [f"{path}: could not be read as {model.__name__}"] + [f"{path}.{m}" for m in dropped]


# Lists whose items the API declares nullable (the 2.24 document: a page of events; in a spec, its annotations,
# labels, environment variables, tolerations, storage lists; extended resources). A null item there is no
# problem: it is left out without a word. Anywhere else it is a value that could not be read.
NULLABLE_ITEMS: frozenset[str] = frozenset({"events"})


def _drop_bad_fields(data: dict[str, Any], exc: ValidationError) -> tuple[list[str], bool]:
    """Drop each value an error points at; the messages for them, and whether anything was dropped."""
    messages: dict[str, str] = {}
    changed = False
    touched_lists: list[list[Any]] = []
    for error in exc.errors(include_url=False):
        parent: Any = None
        key: Any = None
        current: Any = data
        parts: list[str] = []
        for part in error["loc"]:
            # Union members add their type name to loc; stop at the deepest part the data really has.
            if isinstance(current, dict) and isinstance(part, str) and part in current:
                parent, key, current = current, part, current[part]
                parts.append(f".{part}" if parts else part)
            elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
                parent, key, current = current, part, current[part]
                parts.append(f"[{part}]")
            else:
                break
        if parent is None or current is _DROPPED:
            continue
        dotted = "".join(parts)
        if isinstance(current, DuplicateKey):  # said as what it is, not as a wrong type
            messages.setdefault(dotted, f"{dotted}: {current.what}")
        elif not (current is None and isinstance(parent, list)):  # a null list item: nothing to read, no problem
            messages.setdefault(dotted, f"{dotted}: {error['msg']}, got {preview(current)}; value dropped")
        changed = True
        if isinstance(parent, list):
            parent[key] = _DROPPED
            touched_lists.append(parent)
        else:
            del parent[key]
    for items in touched_lists:
        items[:] = [item for item in items if item is not _DROPPED]
    return list(messages.values()), changed


def _parse_next(body: dict[str, Any], what: str) -> int | None:
    return parse_next(body.get("next"), what)


def parse_next(raw: Any, what: str) -> int | None:
    """A page's raw ``next`` as an offset (None on the last page); ShapeError when it is not one."""
    if raw is None:
        return None
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        return raw
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= 18:
        return int(raw)
    raise ShapeError(f"{what}: 'next' must be a non-negative integer offset, got {preview(raw)}")


def parse_page(body: Any, key: str, model: type[T], *, max_items: int | None = None) -> Page[T]:
    """Parse ``{key: [...], "next": n?}``; raises ShapeError only when the envelope itself is wrong.

    With ``max_items`` (the ``limit`` the request asked for), items past it are not read: the page records how
    many were cut and says so in its problems.
    """
    expected = f"expected an object with a '{key}' list"
    if not isinstance(body, dict):
        raise ShapeError(f"{expected}, got {json_type(body)}")
    if key not in body:
        keys = ", ".join(sorted(str(k) for k in body)[:10]) or "none"
        raise ShapeError(f"{expected}, got an object without '{key}' (keys: {preview(keys)})")
    raw_items = body[key]
    if not isinstance(raw_items, list):
        raise ShapeError(f"{expected}, got '{key}': {json_type(raw_items)}")
    next_offset = _parse_next(body, f"'{key}' page")
    return _parse_items(raw_items, key, model, next_offset, max_items)


def parse_page_bytes(
    raw: bytes, key: str, model: type[T], *, max_items: int | None = None, one_pass_from: int = fast.ONE_PASS_FROM
) -> Page[T]:
    """``parse_page(parse_json(raw, ...), ...)`` with the same answer, errors and problems, faster: a clean page
    of ``one_pass_from`` bytes or more is decoded straight into models (``fast.validate_page_json``); any other
    goes the two-step way."""
    found = None
    if len(raw) >= one_pass_from:
        with gc_paused():
            found = fast.validate_page_json(raw, key, model)
    if found is not None:
        return clean_page(found[0], found[1], key, max_items)
    return parse_page(parse_json(raw, "body"), key, model, max_items=max_items)


def parse_list(body: Any, model: type[T], what: str, *, max_items: int | None = None) -> Page[T]:
    """Parse a bare JSON list (``GET /api/v1/clusters``); item paths are ``what[i]``; ``next`` is None."""
    if not isinstance(body, list):
        raise ShapeError(f"{what}: expected a list, got {json_type(body)}")
    return _parse_items(body, what, model, None, max_items)


def _parse_items(
    raw_items: list[Any], key: str, model: type[T], next_offset: int | None, max_items: int | None
) -> Page[T]:
    items: list[T] = []
    problems: list[ItemProblem] = []
    cut = 0
    if max_items is not None and len(raw_items) > max_items:
        cut = len(raw_items) - max_items
        raw_items = raw_items[:max_items]
    with gc_paused():
        for index, raw in enumerate(raw_items):
            if raw is None and key in NULLABLE_ITEMS:
                continue  # the API declares these items nullable: a null holds nothing to read, and hides nothing
            obj, messages = parse_tolerant(model, raw, f"{key}[{index}]")
            problems.extend(ItemProblem(index, message) for message in messages)
            if obj is not None:
                items.append(obj)
    if cut:
        problems.append(cut_problem(key, max_items or 0, cut))
    return Page(items=items, next=next_offset, problems=problems, cut=cut)


def cut_problem(key: str, max_items: int, cut: int) -> ItemProblem:
    """What a page that held `cut` items more than the `max_items` asked for says about them."""
    return ItemProblem(
        max_items,
        f"{key}: the server sent {max_items + cut} items where at most {max_items} were asked for; "
        f"the {cut} past the first {max_items} were not read",
    )


def clean_page(items: list[T], raw_next: Any, key: str, max_items: int | None) -> Page[T]:
    """The page a one-pass read of clean items gives: as the two-step read would, items past `max_items` cut
    and said (every item was clean, so the first `max_items` are exactly what the tolerant read keeps)."""
    next_offset = parse_next(raw_next, f"'{key}' page")
    if max_items is None or len(items) <= max_items:
        return Page(items=items, next=next_offset)
    cut = len(items) - max_items
    return Page(items=items[:max_items], next=next_offset, problems=[cut_problem(key, max_items, cut)], cut=cut)


def parse_object_bytes(raw: bytes, model: type[T], what: str, *, one_pass_from: int = fast.ONE_PASS_FROM) -> T:
    """``parse_object(parse_json(raw, ...), ...)`` with the same answer, faster for a clean body (see above)."""
    found = object_in_one_pass(raw, model, one_pass_from)
    return found if found is not None else parse_object(parse_json(raw, "body"), model, what)


def object_in_one_pass(raw: bytes, model: type[T], one_pass_from: int = fast.ONE_PASS_FROM) -> T | None:
    """A clean body of ``one_pass_from`` bytes or more as ``model``, read in one pass; else None (read it the
    two-step way)."""
    if len(raw) < one_pass_from:
        return None
    with gc_paused():
        return fast.validate_object_json(raw, model)


def parse_object(body: Any, model: type[T], what: str) -> T:
    """Parse one object body (e.g. a workload); wrong fields are dropped and listed in ``parse_problems()``.

    Raises ShapeError when ``body`` is not an object.
    """
    if not isinstance(body, dict):
        raise ShapeError(f"{what}: expected an object, got {json_type(body)}")
    obj, messages = parse_tolerant(model, body, what)
    if obj is None:
        raise ShapeError("; ".join(messages))
    return obj
