"""The picker's words for the line under the table: a plain function of what the screen knows, so it is tested
and read without a terminal (the full view of one row is tui/screens/workload_detail.py)."""

from __future__ import annotations

from dataclasses import dataclass

from core.triage.attention import AttentionPage
from tui.picker_query import PickerQuery, Sort
from tui.widgets.page_indicator import rows_text
from tui.words import plural


@dataclass(frozen=True, slots=True)
class IndicatorState:
    query: PickerQuery
    sort: Sort
    offset: int | None  # start of the page on screen; None before the first page (or on an error)
    shown: int
    total: int | None
    total_problem: str | None
    loading: bool
    hidden: int
    unreadable: int
    last_page: bool
    attention: AttentionPage | None


def indicator_parts(s: IndicatorState) -> list[str]:
    parts: list[str] = []
    page = s.attention
    if page is not None:
        of = f"{s.total:,}" if s.total is not None else "?" if s.total_problem else "…"
        parts.append("NEEDS ATTENTION")
        parts.append(plural(s.shown, "row"))
        parts.append(f"{page.scanned:,}/{of} checked")
        if page.event_reads:
            parts.append(f"{plural(page.event_reads, 'event read')}")
        if page.unconfirmed:
            parts.append(f"{page.unconfirmed} unconfirmed")
        if page.budget_hit:
            parts.append("] checks further")
    elif s.offset is not None:
        parts.append(rows_text(s.offset, s.shown, s.total, s.total_problem))
    parts.append(s.sort.describe())
    if s.last_page and s.offset is not None:
        parts.append("last page")
    if s.query.name and s.query.name != s.query.server_name():
        parts.append("name matched ignoring case")
    if s.loading:
        parts.append("loading…")
    if s.total_problem:
        parts.append(f"total unknown ({s.total_problem})")
    if s.hidden:
        parts.append(f"{plural(s.hidden, 'row')} hidden: did not match the filter")
    if s.unreadable:
        parts.append(f"{plural(s.unreadable, 'item')} could not be read")
    return parts
