"""The READ-ONLY badge every screen shows: the tool's promise, always in sight."""

from __future__ import annotations

from textual.widgets import Static

READ_ONLY_TOOLTIP = (
    "runai-triage only reads: it sends GET requests, plus POST to the two token endpoints, and nothing else"
)


class ReadOnlyBadge(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("READ-ONLY", id=id, markup=False)
        self.tooltip = READ_ONLY_TOOLTIP
