"""The Nodes view (`N` on the picker, `nodes` in `:`): every node of the picker's cluster with the workloads that
ran on it in a window, how many failed, their verdicts and its state now, ranked as `runai-triage nodes` ranks
them (core.triage.nodes). A node whose failures share a cause is marked ⚑ and its cause is the line under the
table; `enter` opens the workloads that ran on the highlighted node, with their verdicts; `e` writes its
incident report (Markdown) to a file and `v` shows it; `w` changes the window.

Live like the picker: read again on the picker's interval (at least every NODES_MIN_INTERVAL_S: a read
diagnoses what failed since), each read a single attempt, timed from the end of the last one, backing off after
a failure (core.triage.pacing), paused while another screen covers this one. A read again diagnoses only the
failures it has no verdict for (NodesMemory). Nothing from the cluster is read as markup.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Static

from core.safety.untrusted import clean
from core.triage import nodes_incident
from core.triage.nodes import NodesMemory, NodesRequest, NodesResult, nodes_view
from core.triage.nodes_render import MARK, headline, short_time
from core.triage.nodes_rows import NodeRow
from core.triage.pacing import Pacer, polite
from tui.clock import Clock
from tui.export import ExportError, export_dir, export_stamp, safe_fragment, write_document
from tui.screens.detail import DetailScreen
from tui.screens.problem import describe_error
from tui.widgets.footer import KeysFooter
from tui.widgets.nodes_table import NodesTable
from tui.widgets.notice import Notice
from tui.widgets.top_bar import TopBar

if TYPE_CHECKING:
    from core.tenant import Tenant

GROUP = "nodes-read"
# A read of this view lists the window and diagnoses its new failures: not more often than this.
NODES_MIN_INTERVAL_S = 30.0
WINDOWS = ("24h", "7d", "1h", "6h")


class NodesRead(Message):
    def __init__(self, seq: int, result: NodesResult | None, error: BaseException | None = None) -> None:
        super().__init__()
        self.seq = seq
        self.result = result
        self.error = error


class NodesProgress(Message):
    def __init__(self, seq: int, done: int, total: int) -> None:
        super().__init__()
        self.seq = seq
        self.done = done
        self.total = total


def nodes_interval(picker_s: float) -> float:
    """The picker's interval, at least NODES_MIN_INTERVAL_S; 0 (read only when asked) when the picker's is."""
    return max(picker_s, NODES_MIN_INTERVAL_S) if picker_s > 0 else 0.0


class NodesScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "workloads", "workloads", tooltip="The workloads that ran on the highlighted node"),
        Binding("e", "incident", "incident", tooltip="Write the highlighted node's incident report (Markdown)"),
        Binding("v", "view_incident", "view", show=False, tooltip="Show the highlighted node's incident report"),
        Binding("w", "next_window", "window", tooltip="The window: 24 hours, 7 days, 1 hour, 6 hours"),
        Binding("r", "reload", "reload", show=False, tooltip="Read the nodes again"),
        Binding("escape", "back", "back", tooltip="Back to the picker"),
    ]

    def __init__(
        self, tenant: Tenant, clock: Clock, cluster_id: str, *, cluster_name: str | None = None,
        refresh_s: float = 0.0, kube_off: str | None = None,
    ) -> None:
        super().__init__()
        self.tenant = tenant
        self._clock = clock
        self.cluster_id = cluster_id
        self.cluster_name = cluster_name
        self.since = WINDOWS[0]
        self._kube_off = kube_off
        self._pacer = Pacer(nodes_interval(refresh_s))
        self._timer: Timer | None = None
        self._seq = 0
        self._memory = NodesMemory()
        self.result: NodesResult | None = None
        self.reading = False
        self._read_at: datetime | None = None
        self._problem: str | None = None
        self.exports: list[str] = []

    def compose(self) -> ComposeResult:
        yield TopBar(self.tenant.label)
        yield Static("", id="nodes-scope", markup=False)
        with Container(id="nodes-area"):
            yield NodesTable(id="nodes")
            yield Notice(id="nodes-notice")
        yield Static("", id="node-cause", markup=False)
        yield Static("", id="nodes-status", markup=False)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one(NodesTable).display = False
        self.query_one(NodesTable).focus()
        self._read()

    # -- reading ------------------------------------------------------------------------------------------
    @property
    def settled(self) -> bool:
        """A read has been shown and none is on its way (tests and screenshots wait for this)."""
        return not self.reading and (self.result is not None or self._problem is not None)

    def _request(self) -> NodesRequest:
        return NodesRequest(self.cluster_id, since=self.since)

    def _read(self, *, single_attempt: bool = False) -> None:
        self._seq += 1
        self.reading = True
        if self.result is None:
            where = clean(self.cluster_name or self.cluster_id, one_line=True, max_len=80)
            self.query_one(Notice).show("loading", "Reading the nodes…", f"Cluster {where}, the last {self.since}.")
        self._show_status()
        self._read_worker(self._seq, single_attempt)

    @work(group=GROUP, exclusive=True, exit_on_error=False)
    async def _read_worker(self, seq: int, single_attempt: bool) -> None:
        now = self._clock()

        def progress(done: int, total: int) -> None:
            self.post_message(NodesProgress(seq, done, total))

        tier2 = {"tier2_unavailable": self._kube_off} if self._kube_off else {"open_tier2": self.tenant.open_tier2}
        try:
            if single_attempt:
                with polite():  # one attempt: the pacer, not the client, waits before the next read
                    result = await nodes_view(self._request(), self.tenant.runai, now=now, progress=progress,
                                              memory=self._memory, **tier2)
            else:
                result = await nodes_view(self._request(), self.tenant.runai, now=now, progress=progress,
                                          memory=self._memory, **tier2)
        except Exception as exc:  # said on screen; the rows of the last read stay
            self.post_message(NodesRead(seq, None, exc))
            return
        self.post_message(NodesRead(seq, result))

    def on_nodes_progress(self, message: NodesProgress) -> None:
        if message.seq == self._seq and message.total:
            self._show_status(f"diagnosing the window's failures {message.done}/{message.total}")

    def on_nodes_read(self, message: NodesRead) -> None:
        if message.seq != self._seq:
            return
        self.reading = False
        if message.result is None:
            assert message.error is not None
            info = describe_error(message.error, "nodes")
            self._problem = f"{info.title}: {info.detail}"
            if self.result is None:
                self.query_one(Notice).show("error", f"{info.title} while reading the nodes", info.detail, info.hint)
            self._arm(self._pacer.failed(message.error))
        else:
            self._problem = None
            self.result = message.result
            self._read_at = self._clock()
            self._show_result(message.result)
            self._arm(self._pacer.succeeded())
        self._show_status()

    def _show_result(self, result: NodesResult) -> None:
        table = self.query_one(NodesTable)
        notice = self.query_one(Notice)
        scope = f"Nodes of {result.cluster.name if result.cluster else result.request.cluster_id}"
        window = f"the last {result.request.since} to {result.end.strftime('%Y-%m-%d %H:%M')} UTC"
        self.query_one("#nodes-scope", Static).update(Text(clean(f"{scope} · {window} · {headline(result)}",
                                                                 one_line=True, max_len=400)))
        if not result.rows:
            table.display = False
            notice.show("empty", "No node to show", "The cluster lists no node, and no pod ran in the window.")
            return
        notice.display = False
        table.display = True
        table.show_rows(result.rows, result.end)
        self._show_cause()

    # -- the live timer -----------------------------------------------------------------------------------
    def _arm(self, seconds: float) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._pacer.on and self.is_attached:
            self._timer = self.set_timer(max(seconds, 0.05), self._tick)

    def _tick(self) -> None:
        self._timer = None
        if self.app.screen is not self or self.reading:
            self._arm(self._pacer.interval_s)
            return
        self._read(single_attempt=True)

    def on_screen_suspend(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def on_screen_resume(self) -> None:
        if not self._pacer.on or self.reading:
            return
        stale = self._read_at is None or (self._clock() - self._read_at).total_seconds() >= self._pacer.interval_s
        self._arm(0.1 if stale else self._pacer.interval_s)

    # -- lines under the table ----------------------------------------------------------------------------
    @on(DataTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        self._show_cause()

    def _show_cause(self) -> None:
        """The highlighted node's shared cause; else the first marked node's; else the highlighted node's state."""
        result = self.result
        label = self.query_one("#node-cause", Static)
        if result is None:
            label.update("")
            return
        row = self.query_one(NodesTable).highlighted
        marked = row if row is not None and row.cause is not None else next(
            (r for r in result.rows if r.cause is not None), None)
        if marked is not None and marked.cause is not None:
            cause = marked.cause
            said = (f"{MARK} {marked.name}: {cause.count} of {marked.failed} failures share {cause.key} from "
                    f"{short_time(cause.at, result.end)}: {cause.text}")
        elif row is not None:
            said = f"{row.name}: {row.state.words()}; no cause shared by its failures"
        else:
            said = ""
        label.update(Text(clean(said, one_line=True, max_len=600), no_wrap=True, overflow="ellipsis"))

    def _show_status(self, busy: str | None = None) -> None:
        parts: list[str] = []
        if busy or self.reading:
            parts.append(busy or "reading…")
        if self._read_at is not None:
            parts.append(f"read {short_time(self._read_at, self._read_at)}")
        if self.result is not None:
            parts.append(f"{self.result.reads:,} API reads")
        if self._problem:
            parts.append(f"last read failed ({self._problem}); again in {self._pacer.last_wait_s:g} s")
        parts.append(f"read again every {self._pacer.interval_s:g} s" if self._pacer.on else "r reads it again")
        self.query_one("#nodes-status", Static).update(Text(clean(" · ".join(parts), one_line=True, max_len=400)))

    # -- actions ------------------------------------------------------------------------------------------
    def _highlighted(self, what: str) -> NodeRow | None:
        table = self.query_one(NodesTable)
        row = table.highlighted if table.display else None
        if row is None or self.result is None:
            self.notify(f"No node is highlighted to {what}.", severity="warning", timeout=2)
        return row

    def action_workloads(self) -> None:
        row = self._highlighted("list")
        if row is None or self.result is None:
            return
        from tui.screens.node_workloads import NodeWorkloadsScreen

        self.app.push_screen(NodeWorkloadsScreen(self.tenant, self._clock, row, self.result))

    def action_incident(self) -> None:
        row = self._highlighted("report on")
        if row is None or self.result is None:
            return
        text = nodes_incident.to_markdown(self.result, row)
        stem = f"runai-triage-node-{safe_fragment(row.name, 'node')}-{export_stamp(self._clock())}"
        try:
            written = write_document(text, "markdown", export_dir(), stem)
        except ExportError as exc:
            self.notify(str(exc), title="incident report not written", severity="error", markup=False)
            return
        self.exports.append(str(written.path))
        self.notify(f"Incident report of {row.name} written to {written.path}", title="exported", markup=False)

    def action_view_incident(self) -> None:
        row = self._highlighted("view")
        if row is None or self.result is None:
            return
        body = Text(nodes_incident.to_text(self.result, row))
        self.app.push_screen(DetailScreen(f"Node {clean(row.name, one_line=True, max_len=120)}", body))

    def action_next_window(self) -> None:
        self.since = WINDOWS[(WINDOWS.index(self.since) + 1) % len(WINDOWS)]
        self._memory = NodesMemory()  # a verdict's recurrence counts over the window: a new window, new verdicts
        self.notify(f"The last {self.since}.", timeout=2, markup=False)
        self._read()

    def action_reload(self) -> None:
        if not self.reading:
            self._read()

    def action_back(self) -> None:
        self.workers.cancel_group(self, GROUP)
        self.app.pop_screen()
