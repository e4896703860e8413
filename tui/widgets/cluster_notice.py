"""One line under the picker's filters, shown only when a cluster listed is not Connected or has not reported
lately: its status and last report, and that its rows may be stale. Plain `Text`, never markup."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class ClusterNotice(Static):
    DEFAULT_CSS = """
    ClusterNotice {
        height: auto;
        padding: 0 1;
        color: $warning;
        display: none;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.plain = ""

    def show(self, stale: list[str]) -> bool:
        """`stale`: a few words per cluster that may be stale. Returns whether the line's height changed."""
        before = self.display
        if stale:
            self.plain = f"⚑ {' · '.join(stale)}: {'its' if len(stale) == 1 else 'their'} rows may be stale"
            self.update(Text(self.plain))
        else:
            self.plain = ""
        self.display = bool(stale)
        return before != self.display
