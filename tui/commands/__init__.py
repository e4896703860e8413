"""The command line's own wing: each headless command in a module of its own, and what they share
(`headless.py`: options, output and failure; `start.py`: options to a tenant, for the app as well;
`app_args.py`: the app's own options). Nothing here loads Textual: the `headless-commands-without-textual`
import contract names this package whole, and tests/unit/test_layering.py imports every module in it.

A command is a module here with `add_parser(subparsers)` (its subparser, whose `handler` runs it) and a line in
`COMMANDS`; `tui.cli` reads the list, loading a command's module only when the parser is built.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Protocol

# The commands in the order `runai-triage --help` lists them: a name here is the module `tui.commands.<name>`.
COMMANDS: tuple[str, ...] = ("diagnose", "record", "scan", "nodes", "watch", "mcp", "serve")


class _Command(Protocol):
    def add_parser(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None: ...


def add_command_parsers(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Each command's subparser, in `COMMANDS` order."""
    for name in COMMANDS:
        module: _Command = importlib.import_module(f"{__name__}.{name}")  # type: ignore[assignment]
        module.add_parser(subparsers)
