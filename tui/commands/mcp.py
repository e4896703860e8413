"""`runai-triage mcp`: the command line of the MCP server. The server (tui.commands.mcp_server) needs the optional MCP
SDK (`pip install 'runai-triage[mcp]'`); this module does not, so the rest of the command line never needs it
and a missing SDK is a message, not a traceback. Never loads Textual.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from tui.commands.headless import TENANT_NOTE, add_tenant_arguments, command_parser, epilog, say, start_options

PROG = "runai-triage mcp"
INSTALL_HINT = "pip install 'runai-triage[mcp]'  (the MCP Python SDK, mcp 2.x)"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "mcp",
        help="serve the diagnosis to AI agents over the Model Context Protocol (stdio, or --http PORT)",
        description=(
            "An MCP server (stdio by default) with the tools diagnose_failed_workload, list_workloads and "
            "scan_failures, read-only, on the tenant chosen as for `diagnose`. In stdio mode stdout carries the "
            "protocol only; messages go to stderr."
        ),
        epilog=epilog(
            [
                "runai-triage mcp --demo",
                "runai-triage mcp --demo --http 8765",
            ],
            "  0  stopped: stdin closed (stdio) or Ctrl-C\n"
            "  1  could not start: the tenant could not be opened, the port is in use, the MCP SDK is missing\n"
            "  2  usage error: a malformed option",
            "An agent host starts the first (stdio); the second serves streamable HTTP at\n"
            "http://127.0.0.1:8765/mcp, loopback only, without authentication.",
            TENANT_NOTE,
        ),
    )
    add_tenant_arguments(parser, "serve")
    parser.add_argument(
        "--http", type=int, metavar="PORT",
        help="serve streamable HTTP on 127.0.0.1:PORT (path /mcp; 0 picks a free port) instead of stdio",
    )
    parser.set_defaults(handler=run_mcp)


def run_mcp(args: argparse.Namespace, err: TextIO | None = None) -> int:
    err = err if err is not None else sys.stderr
    if args.http is not None and not 0 <= args.http <= 65535:
        say(err, f"{PROG}: error: --http {args.http} is not a TCP port (0-65535)")
        return 2
    try:
        from tui.commands.mcp_server import serve  # the SDK loads only for this command
    except ImportError as exc:
        say(err, f"{PROG}: the MCP server needs the MCP Python SDK, which is not installed ({exc}).")
        say(err, f"  Install it with: {INSTALL_HINT}")
        return 1
    return serve(start_options(args), http_port=args.http, err=err)
