"""Small helpers for the app's words: labelled lines, and the counted nouns shared with the reports."""

from __future__ import annotations

from rich.text import Text

from core.plural import plural

__all__ = ["field_lines", "plural"]

def field_lines(fields: list[tuple[str, str]]) -> Text:
    """`label: value` lines, the label in bold; values are plain text (callers pass sanitised strings)."""
    text = Text()
    for index, (label, value) in enumerate(fields):
        if index:
            text.append("\n")
        text.append(f"{label}: ", style="bold")
        text.append(value)
    return text
