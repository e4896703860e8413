"""A count with its noun in the right number, for every text the product writes (reports and the app)."""

from __future__ import annotations

IRREGULAR = {"entry": "entries", "is": "are", "was": "were"}


def plural(count: int, noun: str) -> str:
    """`1 row`, `3 rows`, `1 event read`, `2 event reads`, `0 entries` (the last word takes the number)."""
    if count == 1:
        return f"{count:,} {noun}"
    head, _, last = noun.rpartition(" ")
    many = IRREGULAR.get(last, last + ("es" if last.endswith(("s", "x", "ch", "sh")) else "s"))
    return f"{count:,} {head + ' ' if head else ''}{many}"


def duration(seconds: float) -> str:
    """A span in the unit a person reads it in: `40 s`, `12 min`, `3 h 5 min`, `4 days`, `3 weeks`."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 48 * 3600:
        hours, minutes = divmod(s // 60, 60)
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days = s // 86400
    return plural(days, "day") if days < 21 else plural(days // 7, "week")
