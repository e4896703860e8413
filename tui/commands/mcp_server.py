"""The MCP server: the diagnosis as three read-only tools an agent calls once, instead of following the
workflow itself, on the official MCP Python SDK (mcp 2.x, `MCPServer`).

- `diagnose_failed_workload`: the seed's parameters; returns the report@1 object as structured content;
- `list_workloads`: one page of a cluster's workloads, newest phase change first, optionally only those that
  need attention (as the picker's `a` view judges them);
- `scan_failures`: `runai-triage scan` as structured content (runai-triage/scan@1, each report@1 inside).

Identifiers are never guessed (the seed): a missing cluster id or workload identifier is a tool error that
says what to add. Everything read from the cluster is cleaned as for any report. The tenant is opened once, on
the server's own event loop, and closed when the server stops. Tool failures are tool errors in words; the
tenant's own credentials never appear in them (the clients redact what they quote).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Annotated, Any, TextIO

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import Field, ValidationError

from core import __version__
from core.diagnosis.engine import DiagnosisFailed, run_to_report
from core.diagnosis.reader import error_why
from core.diagnosis.request import DEFAULT_LOOKBACK, DiagnosisRequest, UsageError
from core.models.report import Report
from core.report.render import json_dict
from core.safety.untrusted import clean
from core.sources.runai import MAX_LIMIT, filter_item, invalid_workload_id
from core.tenant import Tenant
from core.triage.attention import AttentionCache, attention_filters, read_attention_page
from core.triage.batch import MAX_DIAGNOSES
from core.triage.scan import DEFAULT_SINCE, MAX_WORKLOADS, ScanRequest, resolve_cluster, scan
from core.triage.scan_render import to_dict
from core.triage.scan_scope import check_project
from tui.commands.headless import CapturedAtUnusable, advice, explain_start_problem, say, tenant_now, tier2_for
from tui.commands.start import StartOptions, StartProblem, open_tenant

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
INSTRUCTIONS = (
    "Diagnoses failed NVIDIA Run:ai workloads, read-only, following the 'diagnose a failed workload' workflow: "
    "one category out of eight (or why the workload is out of scope), with cited evidence, recurrence and the "
    "next action. Always pass cluster_id; name the workload by workload_id, or by workload_name and project. "
    "Never invent an identifier: ask the user for any that is missing."
)
MCP_SCAN_DEFAULT = 100
PROG = "runai-triage mcp"


class TenantHolder:
    """The one tenant the tools read, opened on the server's event loop."""

    def __init__(self, options: StartOptions) -> None:
        self.options = options
        self._tenant: Tenant | None = None

    @contextlib.asynccontextmanager
    async def opened(self) -> AsyncIterator[Tenant]:
        self._tenant = open_tenant(self.options).tenant
        try:
            # Tier 2's client loads on first use and takes a moment: off the loop, before the first call.
            await asyncio.to_thread(self._tenant.warm_kube)
            yield self._tenant
        finally:
            await self._tenant.aclose()
            self._tenant = None

    @property
    def tenant(self) -> Tenant:
        if self._tenant is None:
            raise ToolError("the tenant is not open (the server is starting or stopping); try again")
        return self._tenant

    def now(self) -> datetime | None:
        try:
            return tenant_now(self.tenant, None)
        except CapturedAtUnusable as exc:
            raise ToolError(str(exc)) from None


# A request's options are the tools' arguments, by the same key, but for the name a diagnosis is asked by.
_ARGUMENT = {"name": "workload_name"}


def argument(option: str) -> str:
    """A request's option as the tools name it: their argument (`max_workloads`; `name` -> `workload_name`)."""
    return _ARGUMENT.get(option, option)


def tool_words(problem: UsageError) -> str:
    """A usage error with the options it names said as the tools' arguments."""
    return problem.worded(argument)


def _ids(cluster_id: str, workload_id: str | None = None) -> tuple[str, str | None]:
    cluster = (cluster_id or "").strip()
    if not cluster:
        raise ToolError(
            "missing cluster_id: the id of the cluster the workload runs on. Identifiers are never guessed: "
            "ask the user for it."
        )
    problem = invalid_workload_id(cluster, "cluster id")
    if problem:
        raise ToolError(f"cluster_id: {problem}")
    wid = (workload_id or "").strip() or None
    if wid is not None and (problem := invalid_workload_id(wid)):
        raise ToolError(f"workload_id: {problem}")
    return cluster, wid


def _request(
    cluster_id: str, workload_id: str | None, workload_name: str | None, project: str | None, lookback: str,
    active: bool, now: datetime | None,
) -> DiagnosisRequest:
    cluster, wid = _ids(cluster_id, workload_id)
    name, proj = (workload_name or "").strip() or None, (project or "").strip() or None
    if wid is None and not (name and proj):
        lacking = "project" if name else "workload_name" if proj else "workload_id, or workload_name and project"
        raise ToolError(
            f"missing {lacking}: name the workload by its workload_id (Option A) or by its workload_name and "
            "project together (Option B). Identifiers are never guessed: ask the user for them."
        )
    if wid is not None and (name or proj):
        raise ToolError("give either workload_id or workload_name with project, not both")
    try:
        return DiagnosisRequest(
            cluster_id=cluster, workload_id=wid, name=None if wid else name, project=None if wid else proj,
            lookback=lookback or DEFAULT_LOOKBACK, active=active, now=now,
        )
    except UsageError as exc:
        raise ToolError(tool_words(exc)) from None


def _row(workload: Any, why: str | None) -> dict[str, Any]:
    def text(value: object, limit: int = 300) -> str | None:
        return clean(value, one_line=True, max_len=limit) if value is not None else None

    return {
        "id": workload.id,
        "name": text(workload.name),
        "project": text(workload.project_name),
        "clusterId": workload.cluster_id,
        "phase": text(workload.phase, 40),
        "phaseUpdatedAt": workload.phase_updated_at.isoformat() if workload.phase_updated_at else None,
        "phaseMessage": text(workload.phase_message),
        "type": text(workload.type, 60),
        "needsAttention": why,
    }


def argument_words(tool: str, error: ValidationError) -> str:
    """Arguments of the wrong type, in the tool's words: which argument and what it should be (no pydantic
    class names, no documentation URL, and not the rejected value, which is the caller's)."""
    said = []
    for item in error.errors():
        where = ".".join(str(part) for part in item.get("loc", ())) or "arguments"
        what = str(item.get("msg", "is not valid")).replace("Input should be", "should be", 1)
        said.append(f"{where} {what}")
    return f"Error executing tool {tool}: wrong argument: {'; '.join(dict.fromkeys(said))}"


class TriageServer(MCPServer):
    """The SDK's server, with arguments of the wrong type answered in the tool's own words."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            # Only the caller's arguments (a crash, UnexpectedToolError, keeps the SDK's generic words).
            if isinstance(exc.__cause__, ValidationError) and not isinstance(exc, UnexpectedToolError):
                raise ToolError(argument_words(name, exc.__cause__)) from exc.__cause__
            raise


def build_server(holder: TenantHolder) -> MCPServer:
    # Warnings only: at INFO the SDK would log every tool call and httpx every request line on stderr.
    server = TriageServer("runai-triage", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(annotations=READ_ONLY)
    async def diagnose_failed_workload(
        cluster_id: Annotated[str, Field(description="the cluster the workload runs on: its id or exact name "
                                                     "(always required)")],
        workload_id: Annotated[str | None, Field(description="Option A: the workload's UUID")] = None,
        workload_name: Annotated[str | None, Field(description="Option B: the workload name, with project")] = None,
        project: Annotated[str | None, Field(description="Option B: the project of workload_name")] = None,
        lookback: Annotated[str, Field(description="history window: 90m, 24h, 7d, 2w")] = DEFAULT_LOOKBACK,
        active: Annotated[bool, Field(description="Option B: a current crash loop or start failure instead of "
                                                  "the last terminal run")] = False,
    ) -> Report:
        """Diagnose one failed Run:ai workload, read-only: the category (or why it is out of scope), the cited
        evidence, what is missing, memory figures, recurrence over the lookback and the next action, as a
        runai-triage/report@1 object."""
        request = _request(cluster_id, workload_id, workload_name, project, lookback, active, holder.now())
        tenant = holder.tenant
        try:
            report = await run_to_report(request, tenant.runai, **tier2_for(holder.options, tenant))
        except DiagnosisFailed as exc:
            raise ToolError(f"no report could be produced: {str(exc).rstrip('.')}. {advice(exc, argument)}") from None
        return Report.model_validate(json_dict(report))

    @server.tool(annotations=READ_ONLY)
    async def list_workloads(
        cluster_id: Annotated[str, Field(description="the cluster to list: its id or exact name (always required)")],
        project: Annotated[str | None, Field(description="only this project (exact)")] = None,
        name: Annotated[str | None, Field(description="only this workload name (exact)")] = None,
        needs_attention: Annotated[bool, Field(description="only Failed / Stopped workloads and Pending / "
                                                           "Running ones whose events show a failing pod")] = False,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="rows in this page")] = 50,
        offset: Annotated[int, Field(ge=0, description="where the page starts (the `next` of the last one)")] = 0,
    ) -> dict[str, Any]:
        """List a cluster's workloads, newest phase change first, a page at a time (`next` continues)."""
        cluster, _ = _ids(cluster_id)
        runai = holder.tenant.runai
        try:  # a cluster's name, or an id in another case, lists what it names, as diagnose and scan take it
            cluster = await resolve_cluster(runai, cluster)
            # An unknown project is an error that lists the cluster's, as scan_failures says it: an empty page
            # would read as "nothing there".
            checked = await check_project(runai, cluster, project) if project else None
        except DiagnosisFailed as exc:
            raise ToolError(str(exc)) from None
        try:
            filters = [filter_item("clusterId", "==", cluster)]
            if project:
                filters.append(filter_item("projectName", "==", project))
            if name:
                filters.append(filter_item("name", "==", name))
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        try:
            if needs_attention:
                page = await read_attention_page(runai, filters + attention_filters(), "phaseUpdatedAt", "desc",
                                                 offset, limit, AttentionCache())
                rows, nxt, unreadable = [(w, page.why.get(w.id or "")) for w in page.rows], page.next_start, \
                    page.unreadable
            else:
                listed = await runai.list_workloads(filters=filters, sort_by="phaseUpdatedAt", sort_order="desc",
                                                    offset=offset, limit=limit)
                rows, nxt, unreadable = [(w, None) for w in listed.items], listed.next, \
                    len({p.index for p in listed.problems})
        except Exception as exc:
            raise ToolError(f"the list of workloads could not be read: {error_why(exc)}") from None
        # The server's filtering is checked again here (how it compares text is not verified).
        kept = [(w, why) for w, why in rows if (not project or w.project_name == project)
                and (not name or w.name == name) and (w.cluster_id or cluster).lower() == cluster.lower()]
        out: dict[str, Any] = {"workloads": [_row(w, why) for w, why in kept], "next": nxt,
                               "unreadableRows": unreadable}
        if checked:
            out["note"] = checked  # the project could not be checked: said, not taken for an empty project
        return out

    @server.tool(annotations=READ_ONLY)
    async def scan_failures(
        cluster_id: Annotated[str, Field(description="the cluster to scan: its id or exact name (always required)")],
        project: Annotated[str | None, Field(description="only this project")] = None,
        name_prefix: Annotated[str | None, Field(description="only names starting with this")] = None,
        since: Annotated[str, Field(description="the window: 90m, 24h, 7d, 2w")] = DEFAULT_SINCE,
        lookback: Annotated[str | None, Field(description="each diagnosis's history window (default: since)")]
        = None,
        concurrency: Annotated[int, Field(ge=1, le=MAX_DIAGNOSES, description="diagnoses at once")] = 4,
        max_workloads: Annotated[int, Field(ge=1, le=MAX_WORKLOADS, description="newest first, at most")]
        = MCP_SCAN_DEFAULT,
    ) -> dict[str, Any]:
        """Diagnose every workload of a cluster that failed (or needs attention) in a window, newest first,
        grouped by verdict with counts (runai-triage/scan@1, each workload's report@1 inside)."""
        cluster, _ = _ids(cluster_id)
        try:
            request = ScanRequest(cluster_id=cluster, project=project, name_prefix=name_prefix, since=since,
                                  lookback=lookback, concurrency=concurrency, max_workloads=max_workloads)
        except UsageError as exc:
            raise ToolError(tool_words(exc)) from None
        tenant = holder.tenant
        now = holder.now() or datetime.now(UTC)
        try:
            result = await scan(request, tenant.runai, **tier2_for(holder.options, tenant), now=now)
        except DiagnosisFailed as exc:
            raise ToolError(f"no scan could be produced: {exc}") from None
        return to_dict(result)

    return server


def listen(port: int) -> socket.socket:
    """The loopback socket the HTTP server will serve, bound now: a port in use is a message before anything
    starts (uvicorn, binding it itself, would log a traceback and exit 3). Raises OSError."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        raise
    return sock


async def _serve_http(server: MCPServer, sock: socket.socket, err: TextIO) -> None:
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    http = uvicorn.Server(config)
    task = asyncio.create_task(http.serve(sockets=[sock]))
    while not http.started and not task.done():
        await asyncio.sleep(0.02)
    if http.started:
        bound = sock.getsockname()[1]
        say(err, f"{PROG}: streamable HTTP at http://127.0.0.1:{bound}/mcp (Ctrl-C to stop)")
        err.flush()
    await task


def serve(options: StartOptions, *, http_port: int | None, err: TextIO) -> int:
    """Run until stopped (stdin closes, or Ctrl-C). stdout is the protocol's in stdio mode: nothing else is
    written there."""
    sock: socket.socket | None = None
    if http_port is not None:
        try:
            sock = listen(http_port)
        except OSError as exc:
            say(err, f"{PROG}: cannot listen on 127.0.0.1:{http_port}: {exc.strerror or exc}")
            say(err, "  Choose another port with --http PORT, or --http 0 for any free one.")
            return 1
    holder = TenantHolder(options)
    server = build_server(holder)

    async def main() -> None:
        async with holder.opened():
            if sock is None:
                await server.run_stdio_async()
            else:
                await _serve_http(server, sock, err)

    try:
        anyio.run(main)
    except StartProblem as exc:
        explain_start_problem(PROG, err, exc)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        if sock is not None:
            sock.close()
    return 0
