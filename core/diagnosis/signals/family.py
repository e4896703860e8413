"""A signal family's declaration: its kinds, its matcher, its real cluster strings (`Example`) and the rule rows
its kinds feed. Apart from `model` (the signals themselves), so that the matchers' types (`text`) can sit between
the two without an import circle."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text


@dataclass(frozen=True, slots=True)
class Example:
    """A real cluster string and what it must give: the strongest signal's kind (None: no signal at all), and
    any of that signal's fields worth pinning (``pull_kind``, ``resource``, ``exit_code``, ...)."""

    reason: str | None
    message: str | None
    kind: SignalKind | None
    fields: tuple[tuple[str, Any], ...] = ()


def example(reason: str | None, message: str | None, kind: SignalKind | None, /, **fields: Any) -> Example:
    return Example(reason, message, kind, tuple(sorted(fields.items())))


@dataclass(frozen=True, slots=True)
class Family:
    """One failure family: its name, the kinds it can give, its matcher, its examples, and for each kind that
    can decide a category the rule row (core/diagnosis/rules.py) it feeds. ``match`` is None for a family that
    only modifies what others found (init containers)."""

    name: str
    kinds: frozenset[SignalKind]
    match: Callable[[Text, Collector], None] | None
    examples: tuple[Example, ...]
    rows: Mapping[SignalKind, str] = field(default_factory=dict)
