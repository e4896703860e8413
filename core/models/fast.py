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

from pydantic import ValidationError
from pydantic_core import SchemaValidator

from core.models.base import FAST_VALIDATION, ApiModel, parse_timestamp, timestamp_validator

T = TypeVar("T", bound=ApiModel)

_COLLECT = ApiModel.__dict__["_collect_problems"].__func__
_VALIDATORS: dict[type[ApiModel], SchemaValidator] = {}
_LOCK = threading.Lock()
# null is "not set" for parse_timestamp too: answered without calling it.
_TIMESTAMP = {
    "type": "nullable",
    "schema": {"type": "function-plain", "function": {"type": "no-info", "function": parse_timestamp}},
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
    """Build every API model's validators now (the app does it in a warm-up thread, so the first diagnosis does
    not pay for the seventy of them); each model is built under the same lock its first use would take."""
    pending: list[type[ApiModel]] = [ApiModel]
    while pending:
        for model in pending.pop().__subclasses__():
            pending.append(model)
            if model.__module__.startswith("core."):
                validator(model)
