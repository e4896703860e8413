"""The interactive app's command-line options, read before anything heavy loads.

`runai-triage` with no command opens the terminal app; `--demo` and `--case` then start the simulator's own
process at once (see tui/cli.py), so it loads the tenant while this process loads the app. Reading the options
for that must not load the commands (the diagnosis engine) or the models: this module imports argparse alone.
Option destinations are prefixed `tui_` so they cannot collide with a subcommand's options of the same name.
"""

from __future__ import annotations

import argparse
import typing
from collections.abc import Sequence


def add_tui_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of the interactive app to the top-level `runai-triage` parser."""
    group = parser.add_argument_group(
        "interactive app (runai-triage with no command; given before a command, they are that command's)"
    )
    source = group.add_mutually_exclusive_group()
    source.add_argument("--demo", dest="tui_demo", action="store_true", help="open the built-in demo tenant")
    source.add_argument("--case", dest="tui_case", metavar="FILE", help="open a runai-triage/case@1 bundle")
    group.add_argument(
        "--base-url", dest="tui_base_url", metavar="URL", help="Run:ai tenant URL (default: $RUNAI_BASE_URL)"
    )
    group.add_argument("--kubeconfig", dest="tui_kubeconfig", metavar="FILE", help="kubeconfig for Tier 2")
    group.add_argument("--kube-context", dest="tui_kube_context", metavar="NAME", help="kubeconfig context")
    group.add_argument(
        "--no-kube", dest="tui_no_kube", action="store_true", help="do not read Kubernetes (Tier 1 only)"
    )
    group.add_argument(
        "--cluster-id", dest="tui_cluster_id", metavar="CLUSTER", help="cluster to show first: its id or exact name"
    )
    group.add_argument(
        "--workload-id",
        dest="tui_workload_id",
        metavar="ID",
        help="open straight into this workload's diagnosis",
    )
    group.add_argument(
        "--name", dest="tui_name", metavar="NAME", help="workload name to diagnose (with --project)"
    )
    group.add_argument("--project", dest="tui_project", metavar="NAME", help="project of --name")
    group.add_argument(
        "--live", dest="tui_live", action="store_true",
        help="with --demo: a moving tenant, where workloads start, crash, restart and fail on a schedule",
    )
    group.add_argument(
        "--seed", dest="tui_seed", type=int, metavar="N", help="with --demo --live: which schedule (default 1)"
    )
    group.add_argument(
        "--refresh", dest="tui_refresh", type=float, metavar="SECONDS",
        help="read the picker's page again every SECONDS (default 5 for a tenant that can change; 0 turns it off)",
    )


class _NotTheApp(Exception):
    """The arguments are not the app's alone: the full parser reads them (and says what is wrong, if anything)."""


class _AppParser(argparse.ArgumentParser):
    def error(self, message: str) -> typing.NoReturn:
        raise _NotTheApp(message)


def app_arguments(argv: Sequence[str]) -> argparse.Namespace | None:
    """The parsed options when `argv` opens the app (no command, no --help or --version, nothing wrong);
    None otherwise. The namespace is the one the full parser would give (`command` None)."""
    parser = _AppParser(prog="runai-triage", add_help=False)
    add_tui_arguments(parser)
    try:
        args, rest = parser.parse_known_args(list(argv))
    except _NotTheApp:
        return None
    if rest:  # a command, --help, --version, or an option the app does not take
        return None
    args.command = None
    return args


def option_text(args: argparse.Namespace, name: str) -> str | None:
    """An option's value, stripped; None when it was not given or is blank."""
    value = getattr(args, name, None)
    if value is None:
        return None
    value = str(value).strip()
    return value or None

