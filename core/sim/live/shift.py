"""The demo tenant moved in time: every moment it holds shifted by the same whole number of seconds.

A live tenant served on the wall clock (`serve --demo --live`, `--demo --live`) starts at the moment it is started,
not at the demo's capture instant, so a client on the wall clock (a real-mode diagnosis, which uses its own "now")
reads the same ages as the app that shares the simulator's clock. Shifting keeps every story as it was recorded,
only later: each ISO-8601 timestamp (a whole string, with its fraction and its zone written as before), each
`YYYY-MM-DD HH:MM:SS` moment inside a text (a log line's own time), glog's and vLLM's stamps in a log's text
(`E1130 11:41:10`, `ERROR 11-30 11:41:10`: no year, so the one of the bundle's capture, or the year before), and
the `HH:MM` a cluster's condition message gives. The bundle is never changed in place: a new one is returned.
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
# Stamps without a year, as glog and vLLM start a line with them (core/diagnosis/log_yearless.py reads them).
# A colon may stand before one only as the end of a launcher's tag (`[default0]:`, `[1,13]<stderr>:`).
_GLOG = re.compile(
    r"(?<![\w.-])(?<![^\]>]:)(?P<head>[DIWEF])(?P<month>\d{2})(?P<day>\d{2}) (?P<clock>\d{2}:\d{2}:\d{2})(?=[.\s])"
)
_VLLM = re.compile(
    r"(?<![\w-])(?P<head>(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL) )(?P<month>\d{2})-(?P<day>\d{2}) "
    r"(?P<clock>\d{2}:\d{2}:\d{2})(?=[.\s])"
)


def shift_bundle(bundle: CaseBundle, seconds: int) -> CaseBundle:
    """`bundle` with every moment `seconds` later (the same bundle when it is 0)."""
    if not seconds:
        return bundle
    delta = timedelta(seconds=seconds)
    with gc_paused():  # hundreds of thousands of new containers, none of them in a cycle
        raw = shift_json(bundle.raw, delta, bundle.captured_at)
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


def shift_json(value: Any, delta: timedelta, captured: datetime | None = None) -> Any:
    """A copy of a JSON value with every timestamp in it `delta` later; with `captured` (when the value was
    recorded, before the shift), the stamps without a year in a log's text too."""
    if isinstance(value, dict):
        out = {k: shift_json(v, delta, captured) for k, v in value.items()}
        if captured is not None and "pod" in out and "container" in out and isinstance(out.get("text"), str):
            out["text"] = shift_yearless(out["text"], delta, captured)
        return out
    if isinstance(value, list):
        return [shift_json(v, delta, captured) for v in value]
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


def shift_yearless(text: str, delta: timedelta, captured: datetime) -> str:
    """A log's text with its glog and vLLM stamps `delta` later, each read in the year that puts it at or before
    `captured` (a day's grace), as written there."""

    def moved(match: re.Match[str], dash: bool) -> str:
        month, day = int(match["month"]), int(match["day"])
        try:
            clock = datetime.strptime(match["clock"], "%H:%M:%S").time()
        except ValueError:
            return match.group(0)
        for year in (captured.year + 1, captured.year, captured.year - 1):
            try:
                moment = datetime.combine(datetime(year, month, day).date(), clock)
            except ValueError:
                continue
            if moment <= captured.replace(tzinfo=None) + timedelta(days=1):
                later = moment + delta
                return match["head"] + later.strftime("%m-%d %H:%M:%S" if dash else "%m%d %H:%M:%S")
        return match.group(0)

    text = _GLOG.sub(lambda m: moved(m, False), text)
    return _VLLM.sub(lambda m: moved(m, True), text)


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
