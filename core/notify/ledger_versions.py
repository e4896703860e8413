"""The ledger in a state file of any version this one reads (STATE_VERSIONS), and where a restart looks from.

Version 3 is today's (core.notify.ledger); 2 had no storms, so its records start without any; 1 kept one list of
(workload id, phase change) for every destination: what it delivered, each of them had, under the key the
caller makes of that pair (`v1_key`: the keys are the caller's, opaque here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from core.notify.ledger import STDOUT, Ledger
from core.notify.state_file import Loaded
from core.usage import Opt, Worded

STATE_VERSIONS = (1, 2, 3)


class StateOfAnotherWatch(Worded, ValueError):
    """The state file belongs to a watch of another tenant, cluster or project (its option named as data)."""


def ledger_of(
    loaded: Loaded,
    scope: str,
    post_ids: Sequence[str],
    v1_key: Callable[[str, datetime | None], str],
    v1_slack: timedelta,
) -> Ledger:
    """The ledger in the state file (a version 1 file upgraded: `v1_key` keys its pairs, and a restart looks
    from `v1_slack` before its watermark), a fresh one when there is none. Raises StateOfAnotherWatch for a file
    of another scope, LedgerUnreadable for one whose content has a bad shape."""
    data = loaded.data
    if data is None:
        return Ledger(scope)
    if data.get("scope") != scope:
        raise StateOfAnotherWatch(
            f"the state file keeps the state of another watch ({str(data.get('scope'))[:200]!r}); give this one "
            "its own ", Opt("state"), " file"
        )
    if loaded.version in (2, 3):
        return Ledger.from_json(data)
    ledger = Ledger(scope)
    mark = _instant(data.get("watermark"))
    ledger.look_from = (mark - v1_slack).isoformat() if mark is not None else None
    records = [ledger.record(STDOUT, STDOUT), *(ledger.record(rid, rid) for rid in post_ids)]
    for item in data.get("delivered") or []:
        if isinstance(item, list) and len(item) == 2 and all(isinstance(v, str) and len(v) < 200 for v in item):
            when = _instant(item[1])
            key = v1_key(item[0], when)
            for record in records:
                record.mark(key, when.timestamp() if when else 0.0)
    return ledger


def look_from(ledger: Ledger) -> datetime | None:
    """Where the last run left the watch's window (None: it did not say, or not readably)."""
    return _instant(ledger.look_from)


def _instant(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
