"""The demo tenant moved in time: every moment it holds shifted by the same whole number of seconds.

A live tenant served on the wall clock (`serve --demo --live`, `--demo --live`) starts at the moment it is started,
not at the demo's capture instant, so a client on the wall clock (a real-mode diagnosis, which uses its own "now")
reads the same ages as the app that shares the simulator's clock. Shifting keeps every story as it was recorded,
only later: each ISO-8601 timestamp (a whole string, with its fraction and its zone written as before), each
`YYYY-MM-DD HH:MM:SS` moment inside a text (a log line's own time), and the `HH:MM` a cluster's condition message
gives. The bundle is never changed in place: a new one is returned.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime, timedelta
from typing import Any

from core.models.gc_pause import gc_paused
from core.sim.bundle import CaseBundle

_WHOLE = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?(Z|z|[+-]\d{2}:\d{2})?$")
_INSIDE = re.compile(r"(\d{4}-\d{2}-\d{2})([T ])(\d{2}:\d{2}:\d{2})")
_CLOCK_TIME = re.compile(r"(?<![:\d])(\d{2}):(\d{2})(?![:\d])")


def shift_bundle(bundle: CaseBundle, seconds: int) -> CaseBundle:
    """`bundle` with every moment `seconds` later (the same bundle when it is 0)."""
    if not seconds:
        return bundle
    delta = timedelta(seconds=seconds)
    with gc_paused():  # hundreds of thousands of new containers, none of them in a cycle
        raw = shift_json(bundle.raw, delta)
    for cluster in raw.get("clusters") or []:
        for condition in (cluster.get("status") or {}).get("conditions") or []:
            if isinstance(condition.get("message"), str):
                condition["message"] = _shift_clock_times(condition["message"], delta)
    return dataclasses.replace(
        bundle,
        captured_at=bundle.captured_at + delta,
        clusters=raw.get("clusters") or [],
        projects=raw.get("projects") or [],
        workloads=raw.get("workloads") or [],
        kubernetes=raw.get("kubernetes"),
        raw=raw,
        _by_id={},
    )


def shift_json(value: Any, delta: timedelta) -> Any:
    """A copy of a JSON value with every timestamp in it `delta` later."""
    if isinstance(value, dict):
        return {k: shift_json(v, delta) for k, v in value.items()}
    if isinstance(value, list):
        return [shift_json(v, delta) for v in value]
    if isinstance(value, str) and len(value) >= 19 and "-" in value and ":" in value:
        return _shift_text(value, delta)
    return value


def _shift_text(text: str, delta: timedelta) -> str:
    whole = _WHOLE.match(text)
    if whole is not None:
        date, time, fraction, zone = whole.groups()
        moment = _later(date, time, delta)
        return text if moment is None else f"{moment}{fraction or ''}{zone or ''}".replace(" ", "T", 1)
    return _INSIDE.sub(lambda m: _inside(m, delta), text)


def _inside(match: re.Match[str], delta: timedelta) -> str:
    date, sep, time = match.groups()
    moment = _later(date, time, delta)
    return match.group(0) if moment is None else moment.replace(" ", sep, 1)


def _later(date: str, time: str, delta: timedelta) -> str | None:
    try:
        moment = datetime.fromisoformat(f"{date} {time}") + delta
    except (ValueError, OverflowError):
        return None
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _shift_clock_times(text: str, delta: timedelta) -> str:
    """`since 09:02` in a message: the time of day moved on by `delta` (whole minutes of it)."""
    minutes = int(delta.total_seconds() // 60)

    def moved(match: re.Match[str]) -> str:
        hours, mins = int(match.group(1)), int(match.group(2))
        if hours > 23 or mins > 59:
            return match.group(0)
        total = (hours * 60 + mins + minutes) % (24 * 60)
        return f"{total // 60:02d}:{total % 60:02d}"

    return _CLOCK_TIME.sub(moved, text)
