"""What the headless commands (diagnose, record, scan, mcp) share: the tenant options, `--now`, messages on
stderr, and how a failure to open the tenant or to produce a result becomes words and an exit status.

Exit status (report-format.md): 0 when the command produced its result, whatever it found; 1 when it could not
(unreachable, credentials refused, unreadable case); 2 for a usage error. Never a traceback. No Textual here.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, TextIO, TypeVar

from core.diagnosis.engine import DiagnosisFailed, UnknownCluster
from core.diagnosis.request import UsageError
from core.models.base import out_of_range
from core.safety.untrusted import clean
from core.sources.errors import ApiError, ApiTimeout, AuthError, ForbiddenError, MalformedResponse
from core.sources.kube_types import KUBE_OFF
from core.sources.tap import Tap
from core.tenant import Tenant
from core.triage.scan_scope import UnknownProject
from core.usage import Namer, Sentence, Worded
from tui.commands.start import StartOptions, StartProblem, flag, open_tenant, tenant_options

T = TypeVar("T")


class CapturedAtUnusable(Exception):
    """A bundle whose capturedAt cannot serve as the time of a diagnosis."""


TENANT_NOTE = (
    "The tenant: --demo, --case FILE, or a real one: --base-url (else $RUNAI_BASE_URL, else the Run:ai CLI\n"
    "session) with RUNAI_CLIENT_ID + RUNAI_CLIENT_SECRET, or RUNAI_BEARER_TOKEN, or the CLI session's token.\n"
    "Kubernetes (Tier 2): --kubeconfig, else $KUBECONFIG, else ~/.kube/config or the in-cluster account."
)


def epilog(examples: Sequence[str], status: str, *notes: str) -> str:
    """A command's help ending: examples that run as pasted, its notes, and what its exit status means."""
    lines = ["examples:", *(f"  {example}" for example in examples), ""]
    for note in notes:
        lines += [note, ""]
    return "\n".join([*lines, "exit status:", status])


class _HelpFormatter(argparse.HelpFormatter):
    """The description wrapped to the terminal as usual; the epilog (examples, exit status) kept as written,
    so every example stays one line that can be pasted."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def command_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, **kwargs: Any
) -> argparse.ArgumentParser:
    return subparsers.add_parser(name, formatter_class=_HelpFormatter, **kwargs)


def add_tenant_arguments(parser: argparse.ArgumentParser, verb: str) -> None:
    """--case / --demo / --base-url and the Tier 2 options; `verb` completes "... from a bundle"."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--case", metavar="FILE", help=f"{verb} from a runai-triage/case@1 bundle")
    source.add_argument("--demo", action="store_true", help=f"{verb} from the built-in demo tenant")
    source.add_argument(
        "--base-url", metavar="URL", help="Run:ai tenant URL (default: $RUNAI_BASE_URL or CLI session)"
    )
    parser.add_argument("--kubeconfig", metavar="FILE", help="kubeconfig for Tier 2 (default: $KUBECONFIG)")
    parser.add_argument("--kube-context", metavar="NAME", help="kubeconfig context for Tier 2")
    parser.add_argument("--no-kube", action="store_true", help="do not read Kubernetes (Tier 1 only)")


def add_now_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--now", metavar="ISO8601",
        help="the moment to diagnose at (default: now; for a case bundle, its capturedAt)",
    )


def start_options(args: argparse.Namespace) -> StartOptions:
    """The tenant a command's options name, by the app's own path (tui.commands.start.tenant_options)."""
    return tenant_options(args)


def tier2_for(options: StartOptions, tenant: Tenant, *, recording: bool = False) -> dict[str, Any]:
    """How a headless command's diagnoses read Tier 2: opened in its own thread by the first diagnosis that gets
    past Step 1, or not at all with --no-kube (a demo or case tenant serves Tier 2 whatever the flag). A
    `recording` opens it now, before the first read, so the recording sees every answer."""
    if not options.kube.enabled:
        return {"tier2_unavailable": KUBE_OFF.worded(options.kube.named)}
    if recording:
        return {"tier2": tenant.kube, "tier2_unavailable": tenant.kube_unavailable}
    return {"open_tier2": tenant.open_tier2}


@contextlib.asynccontextmanager
async def opened(options: StartOptions, *, tap: Tap | None = None) -> AsyncIterator[Tenant]:
    """The tenant the options describe, open for one command's work and closed after it, whatever happens."""
    tenant = open_tenant(options, tap=tap).tenant
    try:
        yield tenant
    finally:
        await tenant.aclose()


def parse_now(text: str | None) -> datetime | None:
    if text is None:
        return None
    shown = clean(text, max_len=80)
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--now '{shown}' is not an ISO-8601 time (for example 2026-11-30T12:00:00Z)") from None
    value = value if value.tzinfo else value.replace(tzinfo=UTC)
    problem = out_of_range(value)
    if problem:
        raise UsageError(f"--now '{shown}' cannot be the time of a diagnosis: {problem}")
    return value


def tenant_now(tenant: Tenant, now: datetime | None) -> datetime | None:
    """`now` as given, else a bundle's capturedAt (a bundle describes one moment), else None (the wall clock)."""
    if now is not None or tenant.captured_at is None:
        return now
    problem = out_of_range(tenant.captured_at)
    if problem:
        raise CapturedAtUnusable(
            f"the case bundle's capturedAt ({tenant.captured_at.isoformat()}) cannot be the time of a "
            f"diagnosis: {problem}"
        )
    return tenant.captured_at


def say(err: TextIO, text: object) -> None:
    # Messages can quote a server's answer or a file's content: cleaned like any other cluster text.
    print(clean(text, max_len=4000), file=err)


def tolerant(stream: TextIO) -> None:
    # A terminal that cannot show some character gets a visible \uXXXX instead of a UnicodeEncodeError;
    # in JSON output that is still a valid escape of the same character.
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="backslashreplace")


def usage_words(exc: BaseException) -> str:
    """An error's message in the command line's words: the options it names (a usage error's, a state file's),
    as flags."""
    return exc.worded(flag) if isinstance(exc, Worded) else str(exc)


def usage_failed(prog: str, err: TextIO, exc: Exception) -> int:
    say(err, f"{prog}: error: {usage_words(exc)}")
    say(err, f"  See `{prog} --help` for the options.")
    return 2


def advice(failure: DiagnosisFailed, namer: Namer = flag) -> str:
    """What to try, from the error the failure came from: a server that answered badly is not a network problem.
    `namer` names the options to try again with (the command line's flags unless an MCP tool says otherwise)."""
    hint = getattr(failure, "hint", None)  # a failure that knows what to try says it itself
    if isinstance(hint, Sentence):
        return hint.worded(namer)
    if isinstance(hint, str):
        return hint
    if isinstance(failure, UnknownCluster):
        return f"Run it again with one of the cluster ids (or names) above in {namer('cluster_id')}."
    if isinstance(failure, UnknownProject):
        return f"Run it again with one of the project names above in {namer('project')}."
    cause: BaseException | None = failure.__cause__
    if isinstance(cause, AuthError):
        return "The credentials were refused: set a fresh RUNAI_BEARER_TOKEN, or RUNAI_CLIENT_ID and " \
            "RUNAI_CLIENT_SECRET of a valid access key, then try again."
    if isinstance(cause, ForbiddenError):
        return "The access key was accepted but may not read this: ask the Run:ai administrator for a role " \
            "that can read workloads (README, Connecting to a real tenant)."
    if isinstance(cause, ApiError) and cause.status is not None and cause.status >= 500:
        return "The tenant answered with a server error. Try again later; if it persists, tell the Run:ai " \
            "administrator, with this message."
    if isinstance(cause, MalformedResponse):  # also BrokenAnswer and BodyTooLarge
        return (
            "The tenant was reached but its answer could not be used. If a proxy or gateway sits in between, "
            "check it; otherwise tell the Run:ai administrator, with this message."
        )
    if isinstance(cause, ApiTimeout):
        return "The tenant answered too slowly. Try again later; if it persists, tell the Run:ai administrator."
    return "Check the tenant URL, the credentials and the network, then try again."


def explain_start_problem(prog: str, err: TextIO, problem: StartProblem) -> None:
    """Why the tenant could not be opened, and what to set. The start-up hints are written for the app; here
    the demo is an option of this command."""
    say(err, f"{prog}: {problem.title}: {problem.detail}")
    for hint in problem.hints:
        say(err, f"  {hint.replace('To try the app', 'To try it').replace('runai-triage --demo', f'{prog} --demo')}")


def run_or_explain(prog: str, err: TextIO, work: Callable[[], Awaitable[T]], *, what: str = "report") -> T | None:
    """Run `work` to completion; any failure becomes a message on `err` and None (exit status 1, no traceback)."""
    try:
        return asyncio.run(work())  # type: ignore[arg-type]
    except StartProblem as exc:
        explain_start_problem(prog, err, exc)
    except DiagnosisFailed as exc:
        say(err, f"{prog}: no {what} could be produced: {exc}")
        say(err, f"  {advice(exc)}")
    except CapturedAtUnusable as exc:
        say(err, f"{prog}: {exc}")
        say(err, "  Pass --now with the moment the bundle describes (for example 2026-11-30T12:00:00Z).")
    except KeyboardInterrupt:
        say(err, f"{prog}: interrupted; no {what} was produced.")
    except Exception as exc:  # the contract: a clear message and status 1, never a traceback
        say(err, f"{prog}: internal error, no {what} could be produced: {type(exc).__name__}: {exc}")
        say(err, "  Please report this, with the case bundle or the command line that caused it.")
    return None


def progress_bar(prog: str, err: TextIO, width: int = 24) -> Callable[[int, int], None] | None:
    """A one-line bar of a command's diagnoses redrawn in place on stderr, or None when stderr is not a terminal
    (cron, CI, a pipe)."""
    isatty = getattr(err, "isatty", None)
    if isatty is None or not isatty():
        return None

    def show(done: int, total: int) -> None:
        filled = width * done // total if total else width
        end = "\n" if done >= total else ""
        err.write(f"\r{prog}: diagnosing [{'#' * filled}{'.' * (width - filled)}] {done}/{total}{end}")
        err.flush()

    return show


def write_out(out: TextIO, text: str) -> None:
    """Write `text` whole. To a file descriptor it goes with os.write until every byte is out: a signal (Ctrl-C,
    SIGTERM) that meets a full pipe interrupts a blocking write part-way, and the buffered text layer can then
    drop the rest of what it held (seen with `watch` piped to a slow reader), while a partial os.write simply
    says how much went."""
    tolerant(out)
    try:
        fd = out.fileno() if os.name == "posix" else None
    except (AttributeError, OSError, ValueError):  # a StringIO, pytest's capture: no descriptor
        fd = None
    try:
        if fd is None:
            out.write(text)
            out.flush()
            return
        out.flush()  # whatever the text layer still holds goes first
        view = memoryview(text.encode(getattr(out, "encoding", None) or "utf-8", "backslashreplace"))
        while view:
            view = view[os.write(fd, view):]
    except BrokenPipeError:
        pass  # the reader (`| head`) went away; the result was produced, and nothing is left to say
