"""Is a secret shown? Checked on what a reader of each output sees, and on any 12-character piece of it.

A secret counts as shown when any 12 consecutive characters of it appear (the whole of a shorter one), so a
half-hidden token is a leak too. Each output is first reduced to its readable text: JSON strings decoded,
Markdown escapes and code fences removed, and the visible stand-ins of control characters (`\\x1b[31m`,
`\\u200b`) dropped, so a secret that was only re-encoded or split by an escape is still found.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

WINDOW = 12
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_VISIBLE_ESCAPES = re.compile(r"\\x[0-9a-f]{2}(?:\[[0-9;]*[A-Za-z])?|\\u[0-9a-f]{4}|\\U[0-9a-f]{8}|\\[nrt]")


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside `value`: dicts, lists, tuples, dataclasses and pydantic models, recursively."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseModel):
        yield from strings_in(value.model_dump())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from strings_in(getattr(value, f.name))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from strings_in(item)


def readable(output: str, fmt: str) -> str:
    """The text a reader of `output` sees, in the form `fmt` (json, markdown, or anything plain)."""
    if fmt == "json":
        output = "\n".join(strings_in(json.loads(output)))
    elif fmt == "markdown":
        output = _MD_ESCAPE.sub(r"\1", output).replace("`", "")
    return _VISIBLE_ESCAPES.sub("", output)


def fragments(secret: str) -> list[str]:
    if len(secret) <= WINDOW:
        return [secret]
    return [secret[i : i + WINDOW] for i in range(len(secret) - WINDOW + 1)]


def shown(secret: str, text: str) -> bool:
    """True when any piece of `secret` is in `text`; split into its lines, each line is checked on its own."""
    return any(piece in text for line in secret.splitlines() for piece in fragments(line) if piece.strip())
