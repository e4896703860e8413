"""What the headless commands (diagnose, record, scan, mcp) share: the tenant options, `--now`, messages on
stderr, and how a failure to open the tenant or to produce a result becomes words and an exit status.

Exit status (report-format.md): 0 when the command produced its result, whatever it found; 1 when it could not
(unreachable, credentials refused, unreadable case); 2 for a usage error. Never a traceback. No Textual here.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO, TypeVar

from core.diagnosis.engine import DiagnosisFailed, UnknownCluster
from core.diagnosis.request import UsageError
from core.models.base import out_of_range
from core.safety.untrusted import clean
from core.sources.errors import ApiTimeout, MalformedResponse
from core.sources.kube_types import KubeSettings
from core.tenant import KUBE_OFF, Tenant
from tui.start import StartOptions, StartProblem

T = TypeVar("T")


class CapturedAtUnusable(Exception):
    """A bundle whose capturedAt cannot serve as the time of a diagnosis."""


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
        "--now", metavar="ISO8601", help="the moment to diagnose at (default: a bundle's capturedAt)"
    )


def start_options(args: argparse.Namespace) -> StartOptions:
    return StartOptions(
        mode="demo" if args.demo else "case" if args.case else "env",
        case_path=Path(args.case).expanduser() if args.case else None,
        base_url=args.base_url,
        kube=KubeSettings(
            kubeconfig=Path(args.kubeconfig).expanduser() if args.kubeconfig else None,
            context=args.kube_context,
            enabled=not args.no_kube,
        ),
    )


def tier2_for(options: StartOptions, tenant: Tenant) -> dict[str, Any]:
    """How a headless command's diagnoses read Tier 2: opened in its own thread by the first diagnosis that gets
    past Step 1, or not at all with --no-kube (a demo or case tenant serves Tier 2 whatever the flag)."""
    if not options.kube.enabled:
        return {"tier2_unavailable": KUBE_OFF}
    return {"open_tier2": tenant.open_tier2}


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


def usage_failed(prog: str, err: TextIO, exc: Exception) -> int:
    say(err, f"{prog}: error: {exc}")
    say(err, f"  See `{prog} --help` for the options.")
    return 2


def advice(failure: DiagnosisFailed) -> str:
    """What to try, from the error the failure came from: a server that answered badly is not a network problem."""
    if isinstance(failure, UnknownCluster):
        return "Run it again with one of the cluster ids (or names) above in --cluster-id."
    cause: BaseException | None = failure.__cause__
    if isinstance(cause, MalformedResponse):  # also BrokenAnswer and BodyTooLarge
        return (
            "The tenant was reached but its answer could not be used. If a proxy or gateway sits in between, "
            "check it; otherwise tell the Run:ai administrator, with this message."
        )
    if isinstance(cause, ApiTimeout):
        return "The tenant answered too slowly. Try again later; if it persists, tell the Run:ai administrator."
    return "Check the tenant URL, the credentials and the network, then try again."


def run_or_explain(prog: str, err: TextIO, work: Callable[[], Awaitable[T]], *, what: str = "report") -> T | None:
    """Run `work` to completion; any failure becomes a message on `err` and None (exit status 1, no traceback)."""
    try:
        return asyncio.run(work())  # type: ignore[arg-type]
    except StartProblem as exc:
        say(err, f"{prog}: {exc.title}: {exc.detail}")
        for hint in exc.hints:
            # The start-up hints are written for the app; here the demo is an option of this command.
            say(err, f"  {hint.replace('runai-triage --demo', f'{prog} --demo ...')}")
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


def write_out(out: TextIO, text: str) -> None:
    tolerant(out)
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:
        pass  # the reader (`| head`) went away; the result was produced, and nothing is left to say
