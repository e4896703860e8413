"""The `runai-triage` command line. Kept free of Textual so headless commands start fast and stay light."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence

from core import __version__
from tui.diagnose_cmd import add_diagnose_parser
from tui.mcp_cmd import add_mcp_parser
from tui.record_cmd import add_record_parser
from tui.scan_cmd import add_scan_parser
from tui.serve import add_serve_parser
from tui.start import add_tui_arguments


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="runai-triage",
        description=(
            "Diagnose failed NVIDIA Run:ai workloads, read-only. With no command, opens the terminal app "
            "(--demo for the built-in demo tenant)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"runai-triage {__version__}")
    add_tui_arguments(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_diagnose_parser(subparsers)
    add_record_parser(subparsers)
    add_scan_parser(subparsers)
    add_mcp_parser(subparsers)
    add_serve_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from tui.app import run_tui  # Textual loads only for the interactive app

        return run_tui(args)
    return int(args.handler(args))


def run() -> None:
    """The `runai-triage` program: `main`, then out of the process without the interpreter's last collections."""
    status = main()
    # Everything still alive is about to go at once. Moved to the permanent generation, it is not walked by
    # the full collections the interpreter runs while it shuts down (a third of a second with the demo tenant
    # loaded); reference counting still frees it all.
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    run()
