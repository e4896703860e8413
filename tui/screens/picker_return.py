"""Back on the picker from a diagnosis: the cursor on that workload, in the same list the user left.

When the workload is on the page shown, its row is highlighted. When it is not (it moved while the diagnosis
was open, or the diagnosis was opened straight from the command line), the list is not narrowed to it: in an
order by date (the default, newest phase change first) its page is found with two reads, the workload (its
date now) and a count of the rows before it, and that page is shown with its row highlighted. The list's
filters and what it marked as news (✱) stay as they were. In an order by text, or in the needs-attention view
(walked page by page), no page can be computed: a notice says where the workload went and how to find it.
"""

from __future__ import annotations

from datetime import datetime

from textual import work
from textual.message import Message

from core.models.runai import Workload
from core.safety.untrusted import clean
from core.sources.runai_params import filter_item
from tui.paging import PageNav
from tui.picker_query import DATE_FIELDS, PickerQuery, Sort
from tui.screens.picker_reads import PickerReads


class ReturnPage(Message):
    """Where the workload gone back to is in the list: the offset of its page, or None with why not."""

    def __init__(self, workload_id: str, offset: int | None, why: str | None = None) -> None:
        super().__init__()
        self.workload_id = workload_id
        self.offset = offset
        self.why = why


def _date(workload: Workload, field: str) -> datetime | None:
    return workload.phase_updated_at if field == "phaseUpdatedAt" else workload.created_at


class PickerReturn(PickerReads):
    nav: PageNav
    _query: PickerQuery
    _sort: Sort

    @work(group="picker-return", exclusive=True, exit_on_error=False)
    async def _find_return_page(self, workload_id: str, name: str | None, filters: list[str], sort: Sort) -> None:
        """The page of the list (its filters, its order) the workload is on now; posts ReturnPage."""
        shown = clean(name or workload_id, one_line=True, max_len=80)
        if sort.field not in DATE_FIELDS or self.nav.walked:
            how = "the needs-attention view is walked page by page" if self.nav.walked else f"sorted {sort.describe()}"
            self.post_message(ReturnPage(workload_id, None, f"{shown} is not on this page ({how}): / finds it by name"))
            return
        try:
            workload = await self.tenant.runai.get_workload(workload_id)
            when = _date(workload, sort.field)
            if when is None:
                raise ValueError(f"it has no {sort.field}")
            # Newest first: the rows at or after its date come before it (ties put it among them).
            before = filter_item(sort.field, ">=" if sort.descending else "<=", when)
            count = await self.tenant.runai.count_workloads([*filters, before])
        except Exception as exc:  # the list stays as it is, and the notice says why
            self.post_message(ReturnPage(workload_id, None, f"{shown} could not be found in the list: {exc}"))
            return
        self.post_message(ReturnPage(workload_id, max(0, int(count) - 1)))
