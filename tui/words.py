"""Small helpers for the app's words: a count with its noun in the right number, labelled lines."""

from __future__ import annotations

from rich.text import Text

IRREGULAR = {"entry": "entries", "is": "are", "was": "were"}


def plural(count: int, noun: str) -> str:
    """`1 row`, `3 rows`, `1 event read`, `2 event reads`, `0 entries` (the last word takes the number)."""
    if count == 1:
        return f"{count:,} {noun}"
    head, _, last = noun.rpartition(" ")
    many = IRREGULAR.get(last, last + ("es" if last.endswith(("s", "x", "ch", "sh")) else "s"))
    return f"{count:,} {head + ' ' if head else ''}{many}"


def field_lines(fields: list[tuple[str, str]]) -> Text:
    """`label: value` lines, the label in bold; values are plain text (callers pass sanitised strings)."""
    text = Text()
    for index, (label, value) in enumerate(fields):
        if index:
            text.append("\n")
        text.append(f"{label}: ", style="bold")
        text.append(value)
    return text
