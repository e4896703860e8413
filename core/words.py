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
