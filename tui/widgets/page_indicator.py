"""The line under the workload table: which rows of how many are shown, and what is happening."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


def rows_text(offset: int, shown: int, total: int | None, total_note: str | None = None) -> str:
    """`rows 51-100 of 2,041`; the total reads `…` while it is being counted and `?` when it could not be."""
    of = f"{total:,}" if total is not None else "?" if total_note else "…"
    if shown <= 0:
        return f"no rows at {offset + 1:,} of {of}" if offset else f"rows 0 of {of}"
    return f"rows {offset + 1:,}-{offset + shown:,} of {of}"


class PageIndicator(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.plain = ""

    def show(self, *parts: str) -> None:
        """Show the non-empty parts joined by ` · ` (plain text: parts may quote filter values)."""
        self.plain = " · ".join(part for part in parts if part)
        self.update(Text(self.plain))
