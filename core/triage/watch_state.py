"""What a watch remembers between runs (`--state FILE`): the failures it has delivered, and up to when it had
looked, so a restarted watch neither posts again what it posted nor skips what happened while it was down.

The file is small JSON (`runai-triage/watch-state@1`): the watch's scope (tenant, cluster, project), its
watermark, and the delivered keys (workload id and `phaseUpdatedAt`: a workload that fails again later is news
again). It is written whole, through a temporary file, after every delivery, so a watch killed at any moment
loses at most the delivery it was making. Keys older than the watch's window can never be news again and are
dropped, so the file stays small however long the watch runs.

A file that cannot be read is said and replaced (the watch then looks back no further than `--since`); a file
of another scope is refused, so two watches do not share one by mistake.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA = "runai-triage/watch-state@1"
MAX_BYTES = 4 * 1024 * 1024
MAX_DONE = 20_000

Key = tuple[str, str]  # (workload id, phaseUpdatedAt as ISO-8601)


class StateOfAnotherWatch(ValueError):
    """The state file belongs to a watch of another tenant, cluster or project."""


def _instant(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


@dataclass
class WatchState:
    scope: str
    path: Path | None = None
    watermark: datetime | None = None
    done: OrderedDict[Key, None] = field(default_factory=OrderedDict)

    def delivered(self, key: Key) -> bool:
        return key in self.done

    def mark(self, key: Key) -> None:
        self.done[key] = None
        self.done.move_to_end(key)
        while len(self.done) > MAX_DONE:
            self.done.popitem(last=False)

    def prune(self, before: datetime) -> None:
        """Forget keys whose phase change is older than `before` (they are outside every later window)."""
        for key in [k for k in self.done if (when := _instant(k[1])) is not None and when < before]:
            del self.done[key]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "scope": self.scope,
            "watermark": self.watermark.isoformat() if self.watermark else None,
            "delivered": [list(k) for k in self.done],
        }

    def save(self) -> str | None:
        """Write the file (atomically); returns why it could not be written, or None."""
        if self.path is None:
            return None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            scratch = self.path.with_name(self.path.name + ".tmp")
            scratch.write_text(json.dumps(self.to_json(), separators=(",", ":")) + "\n", encoding="utf-8")
            scratch.replace(self.path)
        except OSError as exc:
            return f"the watch's state could not be written to {self.path}: {exc.strerror or exc}"
        return None


def load_state(path: Path, scope: str) -> tuple[WatchState, str | None]:
    """The state kept at `path` (a fresh one when there is none), and why it could not be read, if so. Raises
    StateOfAnotherWatch for a file of another scope."""
    fresh = WatchState(scope, path)
    try:
        if path.stat().st_size > MAX_BYTES:
            return fresh, f"{path} is larger than {MAX_BYTES // (1024 * 1024)} MiB, so it was not read"
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return fresh, None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return fresh, f"{path} could not be read ({type(exc).__name__})"
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        return fresh, f"{path} is not a runai-triage watch state ({SCHEMA})"
    if data.get("scope") != scope:
        raise StateOfAnotherWatch(
            f"{path} keeps the state of another watch ({str(data.get('scope'))[:200]!r}); give this one its own "
            "--state file"
        )
    state = WatchState(scope, path, _instant(data.get("watermark")))
    for item in data.get("delivered") or []:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(v, str) and len(v) < 200 for v in item):
            state.mark((item[0], item[1]))
    return state, None
