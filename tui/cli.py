"""The `runai-triage` command line. Kept free of Textual so headless commands start fast and stay light.

With no command (the terminal app), the options are read first by a parser that loads nothing else
(tui.commands.app_args), and a demo or case tenant's simulator is started in a process of its own before the
app's modules load (`launch_app`), so the two load side by side. The commands (tui/commands/, listed in its
`COMMANDS`) load only when a command is named. This module stays at the top of tui/: it is the one part of the
command line that may start the Textual app.
"""

from __future__ import annotations

import argparse
import difflib
import gc
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from core import __version__
from tui.commands.app_args import add_tui_arguments, app_arguments, option_text

if TYPE_CHECKING:
    from core.sim.live.settings import LiveSettings
    from core.sim.process import SimProcess


class ToolParser(argparse.ArgumentParser):
    """Every usage error gets the tool's own two lines, as every value the commands check themselves does: what
    was wrong (an unknown option with the nearest the command has, a bad or missing value) and where the options
    are; never argparse's usage block, which buries the one line that matters."""

    def error(self, message: str) -> NoReturn:
        hint = _nearest(self, message)
        self.exit(2, f"{self.prog}: error: {message}{hint}\n  See `{self.prog} --help` for the options.\n")


def _nearest(parser: argparse.ArgumentParser, message: str) -> str:
    """`(did you mean --since?)` for an unknown option close to one the parser has."""
    prefix = "unrecognized arguments: "
    if not message.startswith(prefix):
        return ""
    known = [flag for action in parser._actions for flag in action.option_strings if flag.startswith("--")]
    guesses = []
    for word in message.removeprefix(prefix).split():
        flag = word.split("=", 1)[0]
        if flag.startswith("--") and (close := difflib.get_close_matches(flag, known, n=1, cutoff=0.7)):
            guesses.append(close[0])
    return f" (did you mean {' or '.join(dict.fromkeys(guesses))}?)" if guesses else ""


def join_dash_values(argv: list[str]) -> list[str]:
    """`--lookback -5d` as `--lookback=-5d`: argparse takes a value that starts with a dash for an option and
    says only "expected one argument"; no option starts with a dash and a digit, so such a value is the option's
    (and is then checked, and refused, in the tool's own words)."""
    out: list[str] = []
    for token in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and len(token) > 1 and token[0] == "-" \
                and token[1].isdigit():
            out[-1] = f"{out[-1]}={token}"
        else:
            out.append(token)
    return out


def build_parser() -> argparse.ArgumentParser:
    # The commands' modules load here, not at start: they load the diagnosis engine, which the terminal app
    # loads only after its first page.
    from tui.commands import add_command_parsers

    parser = ToolParser(
        prog="runai-triage",
        description=(
            "Diagnose failed NVIDIA Run:ai workloads, read-only. With no command, opens the terminal app "
            "(--demo for the built-in demo tenant)."
        ),
        epilog="`runai-triage COMMAND --help` shows a command's options, examples and exit status.",
    )
    parser.add_argument("--version", action="version", version=f"runai-triage {__version__}")
    add_tui_arguments(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ToolParser)
    add_command_parsers(subparsers)
    for command in subparsers.choices.values():
        # An option a command does not know is that command's usage error, shown with its own usage.
        command.set_defaults(command_parser=command)
    return parser


# The app's options a command takes too (the destination without its `tui_` prefix): given before the command
# (`runai-triage --demo diagnose ...`), as kubectl's global flags may be, they are the command's.
_SHARED_OPTIONS = (
    "demo", "case", "base_url", "kubeconfig", "kube_context", "no_kube", "cluster_id", "workload_id", "name",
    "project", "live", "seed", "refresh",
)
_SOURCES = ("demo", "case", "base_url")


def carry_app_options(args: argparse.Namespace) -> str | None:
    """Give the command the app's options that came before it; why not, when one cannot be taken."""
    command = args.command

    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")

    for name in _SHARED_OPTIONS:
        before = getattr(args, f"tui_{name}", None)
        if before is None or before is False:
            continue
        if not hasattr(args, name):
            return f"{flag(name)} is not an option of `runai-triage {command}` (see runai-triage {command} --help)"
        after = getattr(args, name)
        if after is not None and after is not False and after != before:
            return f"{flag(name)} is given twice, before and after `{command}`, with different values"
        setattr(args, name, before)
    chosen = [flag(name) for name in _SOURCES if getattr(args, name, None) not in (None, False)]
    if len(chosen) > 1:
        return f"{' and '.join(chosen)} cannot be used together: they name different tenants"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = join_dash_values(list(sys.argv[1:] if argv is None else argv))
    args = app_arguments(argv)
    if args is None:  # a command, help, or something wrong: the full parser reads it
        parser = build_parser()
        args, unknown = parser.parse_known_args(argv)
        if unknown:
            getattr(args, "command_parser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
        if args.command is not None:
            problem = carry_app_options(args)
            if problem is not None:
                parser.error(problem)
            return int(args.handler(args))
    simulator = launch_app(args)
    from tui.app import run_tui  # Textual loads only for the interactive app

    return run_tui(args, simulator)


def launch_app(args: argparse.Namespace) -> SimProcess | None:
    """What the program does first for the terminal app, before its modules load: the cyclic garbage collector
    off until the app's warm-up turns it on again (TriageApp with `freeze_after_open`): start-up makes next to
    no cyclic garbage, and the collector's passes over what it has just loaded were ~7% of the time to the
    first rows; then the simulator's process for `--demo` / `--case` (None for a real tenant)."""
    gc.disable()
    return start_simulator(args)


def start_simulator(args: argparse.Namespace) -> SimProcess | None:
    """For `--demo` and `--case`, the simulator's own process, started now (returns at once): it loads the
    tenant on another core while this process loads the app, and then serves it without taking the app's GIL."""
    from core.sim.process import SimProcess  # the headless commands never need it

    if getattr(args, "tui_demo", False):
        # A live demo's clock starts now; the app reads the same clock (core.tenant.open_served_tenant).
        live = getattr(args, "tui_live", False)
        seed = getattr(args, "tui_seed", None)
        return SimProcess.start(live=_live_now(seed) if live else None)
    case = option_text(args, "tui_case")
    return SimProcess.start(Path(case).expanduser()) if case else None


def _live_now(seed: int | None) -> LiveSettings:
    import time

    from core.sim.live.settings import DEFAULT_SEED, LiveSettings

    return LiveSettings(seed=DEFAULT_SEED if seed is None else seed, epoch=time.time())


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
