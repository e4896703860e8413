"""Loading the engine's modules off the UI thread, one thread at a time.

The picker's verdict worker, its cluster line and the app's warm-up each load parts of the engine in a thread of
their own, at moments that can meet. Two threads importing the same packages at once can see one half made
(a `KeyError` on `core.diagnosis.signals` was seen): every such load goes through `load`, under one lock.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType

_LOCK = threading.Lock()


def load(name: str) -> ModuleType:
    """Import `name` (blocking): call it from a thread, never from the UI loop."""
    with _LOCK:
        return importlib.import_module(name)
