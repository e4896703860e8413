"""pydantic's own fast path for clean items, before the tolerant layer's Python hooks are paid for.

The tolerant layer (``base``) runs Python on every object: a wrap validator per model that keeps a stack of
parse problems, and a wrap validator per timestamp. A clean item (every field of the right type, every
timestamp readable) records no problem, so for it that machinery changes nothing but the time. For each model
this builds, once, a second validator from the model's own core schema with the per-model hook taken out and
the timestamp hook replaced by a plain parser (``parse_timestamp``, the same function); it produces instances
of the same class with the same field values. Whatever that validator refuses (a wrong type, an unreadable
timestamp, anything a validator would record as a problem) raises, and the caller goes the tolerant way for
that one item, so the problems are found and reported exactly as before.
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import SchemaValidator

from core.models import safe_json
from core.models.base import FAST_VALIDATION, ApiModel, NeedsTolerantPath, parse_timestamp, timestamp_validator
from core.models.json_keys import decode_unique
from core.models.report import ReportModel

T = TypeVar("T", bound=ApiModel)
M = TypeVar("M")  # an API model, or a dataclass pydantic validates

_COLLECT = ApiModel.__dict__["_collect_problems"].__func__
_VALIDATORS: dict[type[ApiModel], SchemaValidator] = {}
_LOCK = threading.Lock()
# null is "not set" for parse_timestamp too: answered without calling it. The common shape (UTC, whole seconds
# or milli- or microseconds, this century) is read by pydantic's own parser, in Rust, without a Python call per
# value; anything else, or anything that parser refuses (a month 13), goes to parse_timestamp as before, and so
# to the tolerant path if that refuses it too. Both give the same instant: pydantic's UTC zone object equals
# ``timezone.utc``, formats and compares like it (tests/unit/test_fast_validation.py holds them to it).
COMMON_UTC = r"^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{3}|\.[0-9]{6})?Z$"
_TIMESTAMP = {
    "type": "nullable",
    "schema": {
        "type": "union",
        "mode": "left_to_right",
        "choices": [
            {"type": "chain", "steps": [{"type": "str", "strict": True, "pattern": COMMON_UTC}, {"type": "datetime"}]},
            {"type": "function-plain", "function": {"type": "no-info", "function": parse_timestamp}},
        ],
    },
}


def _strip(node: Any) -> Any:
    """A copy of a core schema without the per-model problem hook, timestamps parsed by a plain function."""
    if isinstance(node, dict):
        if node.get("type") == "function-wrap":
            function = node["function"]["function"]
            if getattr(function, "__func__", None) is _COLLECT:
                inner = dict(_strip(node["schema"]))
                if "ref" in node:  # definitions refer to the model by the wrapper's ref
                    inner["ref"] = node["ref"]
                return inner
            if function is timestamp_validator:
                return _TIMESTAMP
        return {key: _strip(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_strip(value) for value in node]
    return node


def validator(model: type[ApiModel]) -> SchemaValidator:
    """The fast validator of ``model``, built on first use (models are few; each is built once)."""
    found = _VALIDATORS.get(model)
    if found is None:
        with _LOCK:
            found = _VALIDATORS.get(model)
            if found is None:
                if not model.__pydantic_complete__:
                    model.model_rebuild()  # its schema is built on first use (defer_build)
                found = SchemaValidator(_strip(model.__pydantic_core_schema__))
                _VALIDATORS[model] = found
    return found


def validate_clean(model: type[T], data: dict[str, Any]) -> T | None:
    """``data`` as ``model`` when nothing in it needs the tolerant path, else None (the caller falls back)."""
    token = FAST_VALIDATION.set(True)  # a problem any validator would record aborts this validation
    try:
        return validator(model).validate_python(data)  # type: ignore[no-any-return]
    except ValidationError:
        return None
    finally:
        FAST_VALIDATION.reset(token)


def prepare_all() -> None:
    """Build every API model's validators now, and the report's models (the app does it in a warm-up thread, so
    the first diagnosis does not pay for the eighty of them); each API model is built under the same lock its
    first use would take."""
    pending: list[type[ApiModel]] = [ApiModel]
    while pending:
        for model in pending.pop().__subclasses__():
            pending.append(model)
            if model.__module__.startswith("core."):
                validator(model)
    with _LOCK:
        for report_model in ReportModel.__subclasses__():
            if not report_model.__pydantic_complete__:
                report_model.model_rebuild()


# -- pages decoded and validated in one pass ------------------------------------------------------------------
# The tolerant two-step path validates each item with Python hooks. A clean page is instead decoded by jiter and
# validated by one compiled page validator, with no hook per object (pydantic's own ``validate_json`` would
# skip the decode, but it keeps one of a key's two values silently; jiter finds them). That path is taken only
# when its answer is the one the two-step path would give: any item or envelope it refuses, any integer literal
# too long for Python, a key given twice, and any free-form value (an ``Any`` field or an unknown key) nested
# deep enough that the two-step path would have cut it (``safe_json.MAX_DEPTH``), makes the caller take the
# two-step path for the whole body.

# Below this size a body is read the two-step way: building a model's one-pass validator (a few ms, once per
# model) would cost more than one pass saves on a few items, and a single diagnosis reads mostly small bodies.
ONE_PASS_FROM = 16 * 1024
_CONTAINER_SCHEMAS = frozenset(
    {"model-fields", "dataclass-args", "typed-dict", "dict", "list", "tuple", "set", "frozenset"}
)
# Levels above an item of a page: the envelope object and its list.
_ENVELOPE_LEVELS = 2
_PAGE_VALIDATORS: dict[tuple[str | None, type[Any]], SchemaValidator | None] = {}


def _typed_depth(node: Any, definitions: dict[str, Any], path: tuple[str, ...]) -> int | None:
    """The most lists and objects a schema's typed part nests (``Any`` counts 0); None when unbounded (a model
    that contains itself). Over-counts rather than under-counts: it only decides when the fast path is safe."""
    if isinstance(node, list):
        depths = [_typed_depth(child, definitions, path) for child in node]
        return None if None in depths else max((d for d in depths if d is not None), default=0)
    if not isinstance(node, dict):
        return 0
    if node.get("type") == "definition-ref":
        ref = node.get("schema_ref")
        if ref in path or ref not in definitions:
            return None
        return _typed_depth(definitions[ref], definitions, (*path, ref))
    children = [value for key, value in node.items() if key != "definitions" and isinstance(value, dict | list)]
    deepest = _typed_depth(children, definitions, path)
    if deepest is None:
        return None
    kind = node.get("type")  # a str in a schema node; in a ``fields`` mapping, a field that is named "type"
    return deepest + (1 if isinstance(kind, str) and kind in _CONTAINER_SCHEMAS else 0)


def _guarded(node: Any, guard: dict[str, Any]) -> Any:
    """A copy of a schema in which every ``Any`` value, unknown keys' values included, passes ``guard``."""
    if isinstance(node, dict):
        if node.get("type") == "any":
            return guard
        copied = {key: _guarded(value, guard) for key, value in node.items()}
        if node.get("type") == "model-fields":
            copied["extras_schema"] = guard
        return copied
    if isinstance(node, list):
        return [_guarded(value, guard) for value in node]
    return node


def _depth_guard(levels: int) -> dict[str, Any]:
    def within(value: Any) -> Any:
        if not safe_json.within_depth(value, levels):
            raise NeedsTolerantPath(f"nested deeper than {levels} levels")
        return value

    return {"type": "function-after", "schema": {"type": "any"}, "function": {"type": "no-info", "function": within}}


def page_validator(key: str | None, model: type[Any]) -> SchemaValidator | None:
    """A validator of ``{key: [model, ...], "next": ...}`` bytes (of one ``model`` object when ``key`` is None),
    built once; None when ``model`` nests without bound (the two-step path is then the only one)."""
    known = (key, model)
    if known in _PAGE_VALIDATORS:
        return _PAGE_VALIDATORS[known]
    with _LOCK:
        if known not in _PAGE_VALIDATORS:
            _PAGE_VALIDATORS[known] = _build_validator(key, model)
    return _PAGE_VALIDATORS[known]


def _core_schema(model: type[Any]) -> Any:
    """The core schema of an API model, or of a dataclass pydantic validates (``history_compact``)."""
    if issubclass(model, BaseModel):
        if not model.__pydantic_complete__:
            model.model_rebuild()
        return model.__pydantic_core_schema__
    return TypeAdapter(model).core_schema


def _build_validator(key: str | None, model: type[Any]) -> SchemaValidator | None:
    item = _strip(_core_schema(model))
    definitions = {d["ref"]: d for d in item.get("definitions", []) if isinstance(d, dict) and "ref" in d}
    typed = _typed_depth(item, definitions, ())
    if typed is None:
        return None
    # A free-form value sits in an object at most this deep, so it may hold the rest of MAX_DEPTH.
    levels = safe_json.MAX_DEPTH - (_ENVELOPE_LEVELS if key is not None else 0) - typed
    if levels < 1:
        return None
    guard = _depth_guard(levels)
    item = _guarded(item, guard)
    if key is None:
        return SchemaValidator(item)
    inner = item["schema"] if item.get("type") == "definitions" else item
    page: dict[str, Any] = {
        "type": "typed-dict",
        "fields": {
            key: {"type": "typed-dict-field", "schema": {"type": "list", "items_schema": inner}},
            "next": {"type": "typed-dict-field", "schema": guard, "required": False},
        },
        "extra_behavior": "ignore",
    }
    if item is not inner:
        page = {"type": "definitions", "schema": page, "definitions": item["definitions"]}
    return SchemaValidator(page)


def validate_json(raw: bytes, key: str | None, model: type[Any]) -> Any:
    """The body decoded and validated in one pass by ``page_validator(key, model)``; None whenever the two-step
    path must decide (a problem to report, a value it would cut, a body it would refuse)."""
    validator = page_validator(key, model)
    if validator is None:
        return None
    try:
        safe_json.check_counts(raw)
    except safe_json.TooManyValues:
        return None
    # jiter reads the body with its duplicate-key check on (pydantic's validate_json keeps one of the two values
    # silently); a body with a key given twice is read the two-step way, which names it.
    unique, decoded = decode_unique(raw)
    if not unique:
        return None
    token = FAST_VALIDATION.set(True)
    try:
        return validator.validate_python(decoded)
    except ValueError:  # ValidationError, and anything else pydantic refuses
        return None
    finally:
        FAST_VALIDATION.reset(token)


def validate_page_json(raw: bytes, key: str, model: type[M]) -> tuple[list[M], Any] | None:
    """The items and the raw ``next`` of a page body, in one pass; None when the two-step path must decide."""
    body = validate_json(raw, key, model)
    return None if body is None else (body[key], body.get("next"))


def validate_object_json(raw: bytes, model: type[T]) -> T | None:
    """One object body as ``model``, in one pass; None when the two-step path must decide."""
    return validate_json(raw, None, model)  # type: ignore[no-any-return]
