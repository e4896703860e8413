"""`runai-triage diagnose`: one diagnosis, headless, printed as text, Markdown or JSON. Never loads Textual.

Exit status (report-format.md): 0 when a report was produced, whatever its outcome; 1 when none could be
(unreachable, credentials refused, unreadable case); 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from core.diagnosis.engine import DiagnosisFailed, run_to_report
from core.diagnosis.request import DEFAULT_LOOKBACK, DiagnosisRequest, UsageError
from core.models.base import out_of_range
from core.models.report import Report
from core.report.render import RENDERERS
from core.safety.untrusted import clean
from core.sources.errors import ApiTimeout, MalformedResponse
from core.sources.kube_types import KubeSettings
from core.sources.runai_params import invalid_workload_id
from core.tenant import KUBE_OFF
from tui.start import StartOptions, StartProblem, open_tenant


def add_diagnose_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "diagnose",
        help="diagnose one workload and print the report (text, markdown or json)",
        description="Diagnose one failed Run:ai workload, read-only, and print the report.",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--case", metavar="FILE", help="diagnose from a runai-triage/case@1 bundle")
    source.add_argument("--demo", action="store_true", help="diagnose from the built-in demo tenant")
    source.add_argument(
        "--base-url", metavar="URL", help="Run:ai tenant URL (default: $RUNAI_BASE_URL or CLI session)"
    )
    parser.add_argument(
        "--cluster-id", metavar="UUID", help="the cluster the workload runs on (always required)"
    )
    parser.add_argument("--workload-id", metavar="ID", help="Option A: the workload's UUID")
    parser.add_argument("--name", metavar="NAME", help="Option B: the workload name (with --project)")
    parser.add_argument("--project", metavar="NAME", help="Option B: the project of --name")
    parser.add_argument(
        "--active",
        action="store_true",
        help="Option B: diagnose a current crash loop or start failure instead of the last terminal run",
    )
    parser.add_argument(
        "--lookback", default=DEFAULT_LOOKBACK, help="history window: 90m, 24h, 7d, 2w (default 24h)"
    )
    parser.add_argument(
        "--now", metavar="ISO8601", help="the moment to diagnose at (default: a bundle's capturedAt)"
    )
    parser.add_argument(
        "--format", choices=sorted(RENDERERS), default="text", help="output format (default text)"
    )
    parser.add_argument("--kubeconfig", metavar="FILE", help="kubeconfig for Tier 2 (default: $KUBECONFIG)")
    parser.add_argument("--kube-context", metavar="NAME", help="kubeconfig context for Tier 2")
    parser.add_argument("--no-kube", action="store_true", help="do not read Kubernetes (Tier 1 only)")
    parser.set_defaults(handler=run_diagnose)


def _parse_now(text: str | None) -> datetime | None:
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


# Names and projects are Kubernetes-style names; anything near this long, or holding control characters, is not
# one, and would only end up in a filter the API refuses.
_MAX_NAME = 253


def _check_identifiers(args: argparse.Namespace) -> None:
    """Usage errors for identifiers that cannot be sent as they are (path characters, escapes, huge values)."""
    if args.workload_id is not None and args.workload_id.strip():
        problem = invalid_workload_id(args.workload_id.strip())
        if problem:
            raise UsageError(f"--workload-id: {problem}")
    if args.cluster_id is not None and args.cluster_id.strip():
        problem = invalid_workload_id(args.cluster_id.strip(), "cluster id")
        if problem:
            raise UsageError(f"--cluster-id: {problem}")
    for flag, value in (("--name", args.name), ("--project", args.project)):
        if value is None:
            continue
        if len(value) > _MAX_NAME or any(not ch.isprintable() for ch in value):
            raise UsageError(
                f"{flag} '{clean(value, max_len=60)}' is not a workload or project name: at most {_MAX_NAME} "
                "printable characters"
            )


PROG = "runai-triage diagnose"


def _say(err: TextIO, text: object) -> None:
    # Messages can quote a server's answer or a file's content: cleaned like any other cluster text.
    print(clean(text, max_len=4000), file=err)


def _tolerant(stream: TextIO) -> None:
    # A terminal that cannot show some character gets a visible \uXXXX instead of a UnicodeEncodeError;
    # in JSON output that is still a valid escape of the same character.
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        with contextlib.suppress(ValueError, OSError):
            reconfigure(errors="backslashreplace")


def run_diagnose(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    # Streams are looked up at call time, so a caller that swapped sys.stdout (a test, a wrapper) is honoured.
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        now = _parse_now(args.now)
        _check_identifiers(args)
        request = DiagnosisRequest(
            cluster_id=(args.cluster_id or "").strip(),
            workload_id=args.workload_id.strip() if args.workload_id else args.workload_id,
            name=args.name,
            project=args.project,
            lookback=args.lookback,
            active=args.active,
            now=now,
        )
    except UsageError as exc:
        _say(err, f"{PROG}: error: {exc}")
        _say(err, f"  See `{PROG} --help` for the options.")
        return 2
    options = StartOptions(
        mode="demo" if args.demo else "case" if args.case else "env",
        case_path=Path(args.case).expanduser() if args.case else None,
        base_url=args.base_url,
        kube=KubeSettings(
            kubeconfig=Path(args.kubeconfig).expanduser() if args.kubeconfig else None,
            context=args.kube_context,
            enabled=not args.no_kube,
        ),
    )
    try:
        report = asyncio.run(_diagnose(options, request))
    except StartProblem as exc:
        _say(err, f"{PROG}: {exc.title}: {exc.detail}")
        for hint in exc.hints:
            # The start-up hints are written for the app; here the demo is a diagnose option.
            _say(err, f"  {hint.replace('runai-triage --demo', 'runai-triage diagnose --demo ...')}")
        return 1
    except DiagnosisFailed as exc:
        _say(err, f"{PROG}: no report could be produced: {exc}")
        _say(err, f"  {_advice(exc)}")
        return 1
    except CapturedAtUnusable as exc:
        _say(err, f"{PROG}: {exc}")
        _say(err, "  Pass --now with the moment the bundle describes (for example 2026-11-30T12:00:00Z).")
        return 1
    except KeyboardInterrupt:
        _say(err, f"{PROG}: interrupted; no report was produced.")
        return 1
    except Exception as exc:  # the contract: a clear message and status 1, never a traceback
        _say(err, f"{PROG}: internal error, no report could be produced: {type(exc).__name__}: {exc}")
        _say(err, "  Please report this, with the case bundle or the command line that caused it.")
        return 1
    _tolerant(out)
    try:
        out.write(RENDERERS[args.format](report))
        out.flush()
    except BrokenPipeError:
        # The reader (`| head`) went away; the report was produced, and nothing is left to say.
        return 0
    return 0


async def _diagnose(options: StartOptions, request: DiagnosisRequest) -> Report:
    opened = open_tenant(options)
    tenant = opened.tenant
    try:
        if request.now is None and tenant.captured_at is not None:
            # A bundle describes one moment: diagnosing it "now" would push everything out of the lookback.
            problem = out_of_range(tenant.captured_at)
            if problem:
                raise CapturedAtUnusable(
                    f"the case bundle's capturedAt ({tenant.captured_at.isoformat()}) cannot be the time of a "
                    f"diagnosis: {problem}"
                )
            request = dataclasses.replace(request, now=tenant.captured_at)
        # The engine gives the whole diagnosis one time budget; each read also has its own deadline (README).
        if not options.kube.enabled:  # a demo or case tenant serves Tier 2 whatever the flag: not read here
            return await run_to_report(request, tenant.runai, None, tier2_unavailable=KUBE_OFF)
        # Tier 2 opens in its own thread while Step 1 reads, and only a diagnosis that goes on waits for it.
        return await run_to_report(request, tenant.runai, open_tier2=tenant.open_tier2)
    finally:
        await tenant.aclose()


def _advice(failure: DiagnosisFailed) -> str:
    """What to try, from the error the failure came from: a server that answered badly is not a network problem."""
    cause: BaseException | None = failure.__cause__
    if isinstance(cause, MalformedResponse):  # also BrokenAnswer and BodyTooLarge
        return (
            "The tenant was reached but its answer could not be used. If a proxy or gateway sits in between, "
            "check it; otherwise tell the Run:ai administrator, with this message."
        )
    if isinstance(cause, ApiTimeout):
        return "The tenant answered too slowly. Try again later; if it persists, tell the Run:ai administrator."
    return "Check the tenant URL, the credentials and the network, then try again."


class CapturedAtUnusable(Exception):
    """A bundle whose capturedAt cannot serve as the time of a diagnosis."""
