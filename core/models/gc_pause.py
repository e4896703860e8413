"""Parsing many objects at once without the cyclic garbage collector walking them, as they are made or after.

Every few hundred new containers CPython runs a collection, and the objects a page parse creates (the decoded
JSON, then per object a model instance, its field dict and its field set) are all new containers; as they pile
up (a 20,000-record history), every older-generation collection walks all of them again: on a long history
that was a third of the diagnosis's CPU. Parsed JSON and the models built from it hold no reference cycles, so
the collector has nothing to find in them: reference counting frees each the moment it is dropped.

- `gc_paused()`: the collector does not run while a page is decoded and parsed. Pauses nest and may overlap
  between threads (the Kubernetes reads parse in worker threads); it runs again when the last one ends, and
  only if it was running when the first began.
- `older_collections_postponed()`: for as long as it is held (one diagnosis), only the youngest generation is
  collected, so what was parsed is walked once, while young; the older generations' collections, which would
  walk everything parsed so far again and again, wait until the last holder lets go (their thresholds are put
  back then). A cycle that became garbage meanwhile is collected then, a moment later than it would have been.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_depth = 0
_resume = False
_postponers = 0
_thresholds: tuple[int, int, int] = (700, 10, 10)
_NEVER = 1_000_000_000  # collections of the younger generation before an older one's: never, in practice


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()


@contextlib.contextmanager
def older_collections_postponed() -> Iterator[None]:
    global _postponers, _thresholds
    with _lock:
        if _postponers == 0:
            _thresholds = gc.get_threshold()  # type: ignore[assignment]
            gc.set_threshold(_thresholds[0], _NEVER, _NEVER)
        _postponers += 1
    try:
        yield
    finally:
        with _lock:
            _postponers -= 1
            if _postponers == 0:
                gc.set_threshold(*_thresholds)
