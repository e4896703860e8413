"""Parsing many objects at once without the cyclic garbage collector walking them, as they are made or after.

Every few hundred new containers CPython runs a collection, and the objects a page parse creates (the decoded
JSON, then per object a model instance, its field dict and its field set) are all new containers; as they pile
up (a 20,000-record history), every full collection walks all of them again: on a long history that was a third
of the diagnosis's CPU. Parsed JSON and the models built from it hold no reference cycles, so the collector has
nothing to find in them: reference counting frees each the moment it is dropped, whatever the collector does.

- `gc_paused()`: the collector does not run while a page is parsed. Pauses nest and may overlap between
  threads (the Kubernetes reads parse in worker threads); it runs again when the last one ends, and only if it
  was running when the first began.
- `parsed_kept_frozen()`: for as long as it is held (one diagnosis), what a parse made is moved, when the parse
  ends, to the collector's permanent generation (`gc.freeze()`), which collections never walk; when the last
  holder lets go, it goes back to the oldest generation (`gc.unfreeze()`). Whatever else sat in the young
  generations at that moment is frozen with it, so a cycle that became garbage just then is collected once the
  diagnosis ends rather than during it.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_depth = 0
_resume = False
_freezers = 0


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
            if _depth == 0:
                if _freezers:
                    gc.freeze()
                if _resume:
                    gc.enable()


@contextlib.contextmanager
def parsed_kept_frozen() -> Iterator[None]:
    global _freezers
    with _lock:
        _freezers += 1
    try:
        yield
    finally:
        with _lock:
            _freezers -= 1
            if _freezers == 0:
                gc.unfreeze()
