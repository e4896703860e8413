"""Something the simulator derives from a bundle it serves (an index), built on first use and kept for as long as
the bundle lives: a bundle does not change while it is served (the live demo serves a new one when it moves)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from core.sim.bundle import CaseBundle

T = TypeVar("T")


class PerBundle(Generic[T]):
    def __init__(self, make: Callable[[CaseBundle], T]) -> None:
        self._make = make
        self._made: dict[int, T] = {}
        self._lock = threading.Lock()  # the loopback server answers from several threads

    def __call__(self, bundle: CaseBundle) -> T:
        key = id(bundle)
        with self._lock:
            made = self._made.get(key)
            if made is None:
                made = self._made[key] = self._make(bundle)
                weakref.finalize(bundle, self._made.pop, key, None)
            return made
