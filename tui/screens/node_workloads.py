"""The picker, narrowed to one node: every workload whose pods ran on the node in the Nodes view's window, in
the picker's own table, the failures first (each with the verdict the view diagnosed), then the rest, newest
phase change first. `enter` diagnoses the highlighted workload as from the picker; `v` shows the whole row.

The view knows the failures as the workloads list gave them; the others it knows from their pods only, so each
is read by its id once (a few at a time, within the politeness budget). A workload whose read fails is listed
from what its pods said (name, project) with its phase unknown, and the line under the table says so.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from core.models.runai import Workload
from core.plural import plural
from core.safety.untrusted import clean
from core.triage.batch import Politeness
from core.triage.nodes import NodesResult
from core.triage.nodes_render import cause_line, rate_text
from core.triage.nodes_rows import NodeFailure, NodeRow
from tui.clock import Clock
from tui.messages import WorkloadChosen
from tui.screens.detail import DetailScreen
from tui.screens.workload_detail import workload_detail
from tui.widgets.footer import KeysFooter
from tui.widgets.notice import Notice
from tui.widgets.row_detail import RowDetail
from tui.widgets.top_bar import TopBar
from tui.widgets.verdict_line import VerdictLine, verdict_cell, verdict_why
from tui.widgets.workload_table import WorkloadTable

if TYPE_CHECKING:
    from core.tenant import Tenant

GROUP = "node-workloads"


class WorkloadsRead(Message):
    def __init__(self, found: dict[str, Workload], failed: dict[str, str]) -> None:
        super().__init__()
        self.found = found
        self.failed = failed


def _time(w: Workload) -> float:
    return w.phase_updated_at.timestamp() if w.phase_updated_at else float("-inf")


class NodeWorkloadsScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "diagnose", "diagnose", tooltip="Diagnose the highlighted workload"),
        Binding("v", "view_row", "view row", show=False, tooltip="Every field of the highlighted row, uncut"),
        Binding("escape", "back", "back", tooltip="Back to the nodes"),
    ]

    def __init__(self, tenant: Tenant, clock: Clock, row: NodeRow, result: NodesResult) -> None:
        super().__init__()
        self.tenant = tenant
        self._clock = clock
        self.node = row
        self.result = result
        self._failures: dict[str, NodeFailure] = {f.workload_id: f for f in row.failures}
        self._known: dict[str, Workload] = {f.workload_id: f.workload for f in row.failures if f.workload}
        self._unread: dict[str, str] = {}
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield TopBar(self.tenant.label)
        yield Static(self._title(), id="node-workloads-title")
        with Container(id="table-area"):
            yield WorkloadTable(self._clock, id="workloads")
            yield Notice(id="notice")
        yield RowDetail(id="row-detail")
        yield VerdictLine(id="verdict-line")
        yield KeysFooter()

    def _title(self) -> Text:
        r, res = self.node, self.result
        window = f"{res.start.strftime('%Y-%m-%d %H:%M')} to {res.end.strftime('%Y-%m-%d %H:%M')} UTC"
        said = (f"Workloads that ran on {r.name} · {window} · {r.failed} of {plural(r.workloads, 'workload')} "
                f"failed ({rate_text(r)})")
        return Text(clean(said, one_line=True, max_len=400))

    def on_mount(self) -> None:
        self.query_one(WorkloadTable).display = False
        self.query_one(Notice).show("loading", "Reading the node's workloads…", self._title().plain)
        cause = cause_line(self.node, self.result.end)
        self.query_one(VerdictLine).show(f"⚑ {cause}" if cause else f"{self.node.name}: no cause shared by its "
                                         "failures")
        self._read_missing([wid for wid in self.node.ran if wid not in self._known])

    @work(group=GROUP, exclusive=True, exit_on_error=False)
    async def _read_missing(self, ids: list[str]) -> None:
        gate = asyncio.Semaphore(Politeness().requests)
        found: dict[str, Workload] = {}
        failed: dict[str, str] = {}

        async def one(wid: str) -> None:
            async with gate:
                try:
                    found[wid] = await self.tenant.runai.get_workload(wid)
                except Exception as exc:  # listed from its pods, its phase unknown, and said
                    failed[wid] = clean(f"{type(exc).__name__}: {exc}", one_line=True, max_len=200)

        await asyncio.gather(*(one(wid) for wid in ids))
        self.post_message(WorkloadsRead(found, failed))

    def on_workloads_read(self, message: WorkloadsRead) -> None:
        self._known.update(message.found)
        self._unread = message.failed
        rows: list[Workload] = []
        for wid, there in self.node.ran.items():
            rows.append(self._known.get(wid) or Workload(id=wid, name=there.name, project_name=there.project))
        failures = sorted((w for w in rows if w.id in self._failures), key=_time, reverse=True)
        others = sorted((w for w in rows if w.id not in self._failures), key=_time, reverse=True)
        verdicts = {f.workload_id: verdict_cell(f.verdict) if f.verdict else Text(f.label)
                    for f in self._failures.values()}
        table = self.query_one(WorkloadTable)
        self.query_one(Notice).display = False
        table.display = True
        table.show_workloads([*failures, *others], verdicts=verdicts)
        table.focus()
        self.loaded = True
        if self._unread:
            self.notify(f"{plural(len(self._unread), 'workload')} could not be read and show only what their pods "
                        "said (phase unknown).", severity="warning", markup=False)
        self._show_row_detail()

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        self._show_row_detail()

    def _show_row_detail(self) -> None:
        workload = self.query_one(WorkloadTable).highlighted
        failure = self._failures.get(workload.id or "") if workload is not None else None
        why = verdict_why(failure.verdict) if failure is not None and failure.verdict is not None else None
        unread = self._unread.get(workload.id or "") if workload is not None else None
        self.query_one(RowDetail).show_workload(workload, f"not read: {unread}" if unread else None, why)

    # -- the table's keys (it is the picker's; one page holds the node's workloads) --------------------------
    def action_row(self, delta: int) -> None:
        table = self.query_one(WorkloadTable)
        table.move_cursor(row=table.cursor_row + delta)

    def action_next_page(self, _shown_as: str = "") -> None:
        self.action_row(max(self.query_one(WorkloadTable).size.height - 1, 1))

    def action_previous_page(self) -> None:
        self.action_row(-max(self.query_one(WorkloadTable).size.height - 1, 1))

    def action_first_page(self) -> None:
        self.query_one(WorkloadTable).move_cursor(row=0)

    def action_last_page(self) -> None:
        table = self.query_one(WorkloadTable)
        table.move_cursor(row=table.row_count - 1)

    def action_diagnose(self) -> None:
        workload = self.query_one(WorkloadTable).highlighted if self.loaded else None
        if workload is None or not workload.id:
            self.notify("No workload is highlighted.", severity="warning", timeout=2)
            return
        cluster = workload.cluster_id or self.result.request.cluster_id
        self.post_message(WorkloadChosen(workload.id, cluster, workload.name, workload.project_name))

    def return_to(self, workload_id: str | None, name: str | None) -> None:
        """Back from a diagnosis opened here: the cursor on that workload."""
        table = self.query_one(WorkloadTable)
        ids = [w.id for w in table.workloads]
        if workload_id in ids:
            table.move_cursor(row=ids.index(workload_id), animate=False)

    def action_view_row(self) -> None:
        table = self.query_one(WorkloadTable)
        workload = table.highlighted if self.loaded else None
        if workload is None:
            self.notify("No workload is highlighted.", severity="warning", timeout=2)
            return
        body = workload_detail(workload, self._clock(), {}, None, table.verdict_text(workload.id or ""))
        self.app.push_screen(DetailScreen(f"Workload {workload.name or workload.id}", body))

    def action_back(self) -> None:
        self.workers.cancel_group(self, GROUP)
        self.app.pop_screen()
