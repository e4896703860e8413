"""The house's rule for classes (issue 35, point 5): a reader finds a method within a few classes of our own.
Every class under `tui/` and `core/` has at most three bases, and no chain of our own classes from it down to a
library's is longer than three (itself included), so no screen grows back into a ladder of mixins; what a screen
needs beyond that is a plain object it calls (tui/screens/picker/verdicts.py, tui/paging.py)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import core
import tui

MOST = 3


def _classes() -> list[type]:
    found: list[type] = []
    for package in (tui, core):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if info.name.endswith("__main__"):
                continue  # a program, run when imported
            module = importlib.import_module(info.name)
            found += [c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == module.__name__]
    return found


def _ours(cls: type) -> bool:
    return cls.__module__.split(".")[0] in ("tui", "core")


def _chain(cls: type) -> list[str]:
    """The longest line of our own classes from `cls` to a base that is not ours."""
    longest = max((_chain(base) for base in cls.__bases__ if _ours(base)), key=len, default=[])
    return [cls.__qualname__, *longest]


def test_no_class_of_ours_has_more_than_three_bases_or_a_chain_of_more_than_three() -> None:
    classes = _classes()
    assert any(c.__name__ == "PickerScreen" for c in classes) and any(c.__name__ == "DiagnosisScreen" for c in classes)
    wide = {f"{c.__module__}.{c.__qualname__}": [b.__name__ for b in c.__bases__] for c in classes
            if len(c.__bases__) > MOST}
    deep = {f"{c.__module__}.{c.__qualname__}": _chain(c) for c in classes if len(_chain(c)) > MOST}
    assert not wide, f"more than {MOST} bases: {wide}"
    assert not deep, f"more than {MOST} of our classes in the chain: {deep}"
