"""A key an object gives twice: found where every body and bundle is decoded, never decided silently.

`{"phase": "Failed", ..., "phase": "Running"}` is valid JSON to most decoders, and each keeps one of the two
values without a word (Python's the last, others the first), so which phase a diagnosis believes would depend
on the decoder. Here:

- a body is first decoded by jiter (pydantic's own JSON parser) with its duplicate check on: a clean body costs
  no more than the standard decoder, and the answer is the same;
- when jiter finds a key given twice (or cannot read the body at all), the body is decoded again by the standard
  decoder with `object_pairs`, which keeps a key given twice with the same value, and puts a `DuplicateKey`
  marker where the values differ. Like a value nested too deeply (core.models.safe_json), the marker is no value
  any field accepts: the tolerant parser drops the field and names it, and the rest of the body is kept;
- a case bundle, a file someone can correct, is refused instead, naming the path of the object and the key
  (core.sim.bundle, `first_duplicate`).

stdlib and jiter only: imported by core.models.safe_json, which loads without pydantic.
"""

from __future__ import annotations

import json
from typing import Any

import jiter

_SHOWN = 40


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


class DuplicateKey:
    """Stands where an object gave one key several different values: which one the sender meant cannot be told."""

    __slots__ = ("key", "values")

    def __init__(self, key: str, values: list[Any]) -> None:
        self.key = key
        self.values = values

    @property
    def given(self) -> str:
        """`the key 'phase' is given twice with different values ("Failed", then "Running")`."""
        times = "twice" if len(self.values) == 2 else f"{len(self.values)} times"
        shown = ", then ".join(_short(v) for v in self.values[:3]) + (", …" if len(self.values) > 3 else "")
        return f"the key '{self.key}' is given {times} with different values ({shown})"

    @property
    def what(self) -> str:
        return f"{self.given}; none of them was used"

    def __repr__(self) -> str:
        return f"<{self.what}>"

    __str__ = __repr__


def object_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`object_pairs_hook` for json.loads: a dict, with a `DuplicateKey` where one key has different values."""
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: dict[str, list[Any]] = {}
    for key, value in pairs:
        seen.setdefault(key, []).append(value)
    for key, values in seen.items():
        if len(values) > 1 and any(v != values[0] for v in values[1:]):
            obj[key] = DuplicateKey(key, values)
    return obj


def add_pair(obj: dict[str, Any], key: str, value: Any) -> None:
    """`obj[key] = value` for a decoder that builds objects one pair at a time, with the same rule."""
    if key not in obj:
        obj[key] = value
        return
    held = obj[key]
    if isinstance(held, DuplicateKey):
        held.values.append(value)
    elif held != value:
        obj[key] = DuplicateKey(key, [held, value])


def decode_unique(raw: bytes | str) -> tuple[bool, Any]:
    """(True, the value) when jiter reads `raw` and no object in it gives a key twice; (False, None) otherwise
    (a key given twice, or anything jiter does not read as the standard decoder would: decode it that way)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    try:
        return True, jiter.from_json(data, catch_duplicate_keys=True, cache_mode="keys")
    except ValueError:
        return False, None


def first_duplicate(value: Any, path: str = "$") -> tuple[str, DuplicateKey] | None:
    """Where the first `DuplicateKey` in a decoded document stands (its object's JSON path), walked without
    recursion, in document order."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            marker = next((item for item in node.values() if isinstance(item, DuplicateKey)), None)
            if marker is not None:
                return where, marker
            inner = [(key, item) for key, item in node.items() if isinstance(item, dict | list)]
            stack.extend((f"{where}.{key}" if where != "$" else str(key), item) for key, item in reversed(inner))
        elif isinstance(node, list):
            inner = [(i, item) for i, item in enumerate(node) if isinstance(item, dict | list)]
            stack.extend((f"{where}[{i}]", item) for i, item in reversed(inner))
    return None
