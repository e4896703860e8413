"""JSON decoding for bodies written by someone else: bounded depth, bounded integers, never a RecursionError.

The standard decoder recurses once per nesting level and gives up with ``RecursionError`` somewhere near a
thousand levels (where exactly depends on how deep the caller's stack already is), and it refuses integer
literals longer than Python's int-conversion limit (4,300 digits) with a bare ``ValueError``. Neither may lose a
whole page because one field is hostile, and the outcome must not depend on the caller's stack:

- a list or object nested deeper than ``MAX_DEPTH`` levels becomes an ``Unreadable`` marker, whatever decoder
  path produced it (the C decoder when it copes, else an iterative one that never recurses);
- an integer literal too long to convert becomes an ``Unreadable`` marker too.

A marker is not a value any model field accepts, so the tolerant parser in ``pages`` drops the field and
reports it (``phaseMessage: Input should be a valid string, got <list nested deeper than 64 levels>``) while the
rest of the body is kept. A key an object gives twice with different values is such a marker too
(``json_keys.DuplicateKey``): jiter reads a clean body first, and finds the keys given twice.
"""

from __future__ import annotations

import json
import re
import sys
from json.decoder import scanstring  # the C string scanner: no recursion, same escapes as json.loads
from typing import Any

from core.models.json_keys import add_pair, decode_unique, object_pairs

# Deep enough for any real Run:ai or Kubernetes object (managedFields and embedded manifests stay under ~20).
MAX_DEPTH = 64
# A 500-item page of workloads holds ~20,000 objects and lists and ~100,000 values; a Kubernetes event list
# of 16 MiB fewer than a million values. Past these a body is refused whole (see TooManyValues).
MAX_CONTAINERS = 250_000
MAX_VALUES = 1_000_000


class Unreadable:
    """Stands where a value could not be decoded safely; its repr says what was there."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return f"<{self.what}>"

    __str__ = __repr__


def _int_digit_limit() -> int:
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    return limit or 4300


def _parse_int(text: str) -> int | Unreadable:
    digits = len(text) - (text[0] == "-")
    if digits > _int_digit_limit():
        return Unreadable(f"integer with {digits} digits, too long to read")
    return int(text)


def _too_deep(kind: str, max_depth: int) -> Unreadable:
    return Unreadable(f"{kind} nested deeper than {max_depth} levels, not read")


class TooManyValues(ValueError):
    """The body holds more values than any real answer; decoding it would cost memory out of all proportion."""


def check_counts(raw: bytes | str) -> None:
    # Counted in C before decoding: a few bytes per value ("[{},{},...]") would otherwise become hundreds of
    # MiB of Python objects. Brackets and commas inside strings count too, which only errs on the safe side.
    if isinstance(raw, str):
        containers, commas = raw.count("{") + raw.count("["), raw.count(",")
    else:
        containers, commas = raw.count(b"{") + raw.count(b"["), raw.count(b",")
    if containers > MAX_CONTAINERS:
        raise TooManyValues(f"more than {MAX_CONTAINERS:,} objects and lists, far beyond any real answer")
    if commas > MAX_VALUES:
        raise TooManyValues(f"more than {MAX_VALUES:,} values, far beyond any real answer")


def loads(raw: bytes | str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Decode ``raw`` like ``json.loads`` (so errors are ``JSONDecodeError``/``UnicodeDecodeError``), with the
    limits above applied; ``TooManyValues`` when the body is made of far more values than a real answer."""
    check_counts(raw)
    unique, value = decode_unique(raw)
    if unique:
        return prune(value, max_depth)
    # A key given twice, or a body jiter does not read as json.loads does: the standard decoder decides.
    try:
        try:
            value = json.loads(raw, object_pairs_hook=object_pairs)
        except ValueError as exc:
            if isinstance(exc, json.JSONDecodeError) or "digits" not in str(exc):
                raise
            # Only now the slower hook: an integer literal too long to convert is in the body.
            value = json.loads(raw, parse_int=_parse_int, object_pairs_hook=object_pairs)
    except RecursionError:
        text = raw if isinstance(raw, str) else raw.decode(json.detect_encoding(raw), "surrogatepass")
        return _IterativeDecoder(text, max_depth).decode()
    return prune(value, max_depth)


def prune(value: Any, max_depth: int = MAX_DEPTH) -> Any:
    """Replace, in place and without recursion, every list or object deeper than ``max_depth``.

    Walked level by level, keeping only containers (a comprehension per container): every value of a large
    page is looked at once, so this is written for speed.
    """
    if type(value) not in _CONTAINERS:
        return value
    if max_depth < 1:
        return _too_deep(_kind(value), max_depth)
    level: list[Any] = [value]
    for _ in range(max_depth - 1):
        level = _next_level(level)
        if not level:
            return value
    # ``level`` holds the containers at max_depth: any container inside them is one level too deep.
    for container in level:
        slots = container.items() if type(container) is dict else enumerate(container)
        deeper = [(key, child) for key, child in slots if type(child) in _CONTAINERS]
        for key, child in deeper:
            container[key] = _too_deep(_kind(child), max_depth)
    return value


_CONTAINERS = frozenset({dict, list})


def within_depth(value: Any, levels: int) -> bool:
    """True when no list or object in ``value`` lies deeper than ``levels`` levels (``value`` itself is level 1);
    walked like ``prune``, level by level, so a hostile value costs no recursion."""
    level: list[Any] = [value] if type(value) in _CONTAINERS else []
    for _ in range(levels):
        if not level:
            return True
        level = _next_level(level)
    return not level


def _next_level(level: list[Any]) -> list[Any]:
    """The lists and objects directly inside those of ``level`` (a comprehension: every value is looked at)."""
    return [
        child
        for container in level
        for child in (container.values() if type(container) is dict else container)
        if type(child) in _CONTAINERS
    ]


def _kind(value: Any) -> str:
    return "object" if isinstance(value, dict) else "list"


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_LITERALS = (
    ("true", True),
    ("false", False),
    ("null", None),
    ("NaN", float("nan")),
    ("Infinity", float("inf")),
    ("-Infinity", float("-inf")),
)
# While skipping a too-deep value: runs of brackets are counted in one step, strings are stepped over whole.
_SKIP = re.compile(r"[\[{]+|[\]}]+|\"")


class _IterativeDecoder:
    """A JSON decoder with an explicit stack, used only when the C decoder ran out of stack."""

    def __init__(self, text: str, max_depth: int) -> None:
        self.text = text
        self.max_depth = max_depth

    def fail(self, message: str, pos: int) -> json.JSONDecodeError:
        return json.JSONDecodeError(message, self.text, pos)

    def ws(self, pos: int) -> int:
        match = _WS.match(self.text, pos)
        return match.end() if match else pos

    def key(self, pos: int) -> tuple[str, int]:
        """An object key and the position after its colon."""
        if self.text[pos : pos + 1] != '"':
            raise self.fail("Expecting property name enclosed in double quotes", pos)
        key, pos = scanstring(self.text, pos + 1)
        pos = self.ws(pos)
        if self.text[pos : pos + 1] != ":":
            raise self.fail("Expecting ':' delimiter", pos)
        return key, self.ws(pos + 1)

    def scalar(self, pos: int) -> tuple[Any, int]:
        text = self.text
        if text[pos : pos + 1] == '"':
            return scanstring(text, pos + 1)
        match = _NUMBER.match(text, pos)
        if match is not None and match.end() > pos:
            integer, frac, exp = match.groups()
            if frac or exp:
                return float(integer + (frac or "") + (exp or "")), match.end()
            return _parse_int(integer), match.end()
        for word, value in _LITERALS:
            if text.startswith(word, pos):
                return value, pos + len(word)
        raise self.fail("Expecting value", pos)

    def skip(self, pos: int) -> int:
        """The position just after the list or object that starts at ``pos``."""
        depth = 0
        at = pos
        while True:
            match = _SKIP.search(self.text, at)
            if match is None:
                raise self.fail("Unterminated list or object", pos)
            run = match.group()
            if run == '"':
                _, at = scanstring(self.text, match.end())
            elif run[0] in "[{":
                depth += len(run)
                at = match.end()
            elif len(run) >= depth:
                return match.start() + depth
            else:
                depth -= len(run)
                at = match.end()

    def decode(self) -> Any:
        text = self.text
        stack: list[dict[str, Any] | list[Any]] = []
        keys: list[str] = []
        pos = self.ws(0)
        while True:
            # One value starts at pos.
            opener = text[pos : pos + 1]
            value: Any
            if opener in ("[", "{") and len(stack) + 1 > self.max_depth:
                value = _too_deep("list" if opener == "[" else "object", self.max_depth)
                pos = self.skip(pos)
            elif opener in ("[", "{"):
                container: dict[str, Any] | list[Any] = [] if opener == "[" else {}
                closer = "]" if opener == "[" else "}"
                pos = self.ws(pos + 1)
                if text[pos : pos + 1] == closer:
                    value, pos = container, pos + 1
                else:
                    stack.append(container)
                    if isinstance(container, dict):
                        key, pos = self.key(pos)
                        keys.append(key)
                    continue
            else:
                value, pos = self.scalar(pos)
            # The value is complete: attach it, closing every container that ends here.
            while True:
                if not stack:
                    end = self.ws(pos)
                    if end != len(text):
                        raise self.fail("Extra data", end)
                    return value
                parent = stack[-1]
                if isinstance(parent, list):
                    parent.append(value)
                else:
                    add_pair(parent, keys[-1], value)
                pos = self.ws(pos)
                mark = text[pos : pos + 1]
                if mark == ",":
                    pos = self.ws(pos + 1)
                    if isinstance(parent, dict):
                        keys[-1], pos = self.key(pos)
                    break
                if mark != ("]" if isinstance(parent, list) else "}"):
                    raise self.fail("Expecting ',' delimiter", pos)
                pos += 1
                value = stack.pop()
                if isinstance(value, dict):
                    keys.pop()


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
