"""`runai-triage diagnose`: one diagnosis, headless, printed as text, Markdown or JSON. Never loads Textual.

Exit status (report-format.md): 0 when a report was produced, whatever its outcome; 1 when none could be
(unreachable, credentials refused, unreadable case); 2 for a usage error.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TextIO

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DEFAULT_LOOKBACK, IN_CASE_BUNDLE, DiagnosisRequest, UsageError
from core.models.report import AFTER_NOW, Report
from core.report.render import RENDERERS
from core.safety.untrusted import clean
from core.sources.runai_params import invalid_workload_id
from tui.commands.headless import (
    TENANT_NOTE,
    add_now_argument,
    add_tenant_arguments,
    command_parser,
    epilog,
    opened,
    parse_now,
    run_or_explain,
    say,
    start_options,
    tenant_now,
    tier2_for,
    usage_failed,
    write_out,
)
from tui.commands.start import StartOptions, flag


def add_diagnose_arguments(parser: argparse.ArgumentParser, verb: str = "diagnose") -> None:
    """Every option of `diagnose` (`record` takes the same ones)."""
    add_tenant_arguments(parser, verb)
    parser.add_argument(
        "--cluster-id",
        metavar="CLUSTER",
        help="the cluster the workload runs on: its id, or its exact name (always required)",
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
        "--lookback", default=DEFAULT_LOOKBACK, metavar="DURATION",
        help="history window for recurrence: 90m, 24h, 7d, 2w (default 24h)",
    )
    add_now_argument(parser)
    parser.add_argument(
        "--format", choices=sorted(RENDERERS), default="text", help="output format (default text)"
    )
    parser.add_argument(
        "--verbose", action="store_true",
        help="text and Markdown: every line (all the evidence, the memory figures, each pod in order, the notes) "
        "instead of the short report; JSON always holds everything",
    )


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "diagnose",
        help="diagnose one workload and print the report (text, markdown or json)",
        description="Diagnose one failed Run:ai workload, read-only, and print the report on stdout (problems "
        "go to stderr).",
        epilog=epilog(
            [
                "runai-triage diagnose --demo --cluster-id demo-east --name llama-ft-7b --project nlp",
                "runai-triage diagnose --demo --cluster-id 5b77e6d6-7b53-5206-9a65-c6331d0e09cc "
                "--workload-id 2f140366-5a08-54df-8691-3512ee5b24ff --format json",
                "runai-triage diagnose --demo --cluster-id demo-east --name asr-stream --project speech --active "
                "--lookback 7d --format markdown",
            ],
            DIAGNOSE_STATUS,
            TENANT_NOTE,
        ),
    )
    add_diagnose_arguments(parser)
    parser.set_defaults(handler=run_diagnose)


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
    for option, value in (("--name", args.name), ("--project", args.project)):
        if value is None:
            continue
        if len(value) > _MAX_NAME or any(not ch.isprintable() for ch in value):
            raise UsageError(
                f"{option} '{clean(value, max_len=60)}' is not a workload or project name: at most {_MAX_NAME} "
                "printable characters"
            )


PROG = "runai-triage diagnose"
DIAGNOSE_STATUS = (
    "  0  a report was produced, whatever its outcome (not-found, preempted, ... are reports too)\n"
    "  1  no report could be produced: tenant unreachable, credentials refused, unknown cluster, the workload\n"
    "     unreadable, unusable case bundle\n"
    "  2  usage error: a missing or malformed option"
)


def request_from_args(args: argparse.Namespace) -> DiagnosisRequest:
    """The engine request the options describe; raises UsageError naming what is missing or wrong."""
    now = parse_now(args.now)
    _check_identifiers(args)
    return DiagnosisRequest(
        cluster_id=(args.cluster_id or "").strip(),
        workload_id=args.workload_id.strip() if args.workload_id else args.workload_id,
        name=args.name,
        project=args.project,
        lookback=args.lookback,
        active=args.active,
        now=now,
        now_given=now is not None,
    )


async def diagnose_with(options: StartOptions, request: DiagnosisRequest) -> Report:
    """One diagnosis on the tenant `options` describe."""
    async with opened(options) as tenant:
        # A bundle describes one moment: diagnosing it "now" would push everything out of the lookback.
        request = dataclasses.replace(request, now=tenant_now(tenant, request.now))
        if options.mode == "case":
            request = dataclasses.replace(request, where=IN_CASE_BUNDLE)
        # The engine gives the whole diagnosis one time budget; each read also has its own deadline (README).
        return await run_to_report(request, tenant.runai, **tier2_for(options, tenant))


def run_diagnose(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    # Streams are looked up at call time, so a caller that swapped sys.stdout (a test, a wrapper) is honoured.
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        request = request_from_args(args)
    except UsageError as exc:
        return usage_failed(PROG, err, exc)
    report = run_or_explain(PROG, err, lambda: diagnose_with(start_options(args), request))
    if report is None:
        return 1
    write_out(out, RENDERERS[args.format](report, verbose=args.verbose, name=flag))
    late = next((note for note in report.notes if AFTER_NOW in note), None)
    if late is not None:  # a --now before the failure counts nothing: said where a person running it looks
        say(err, f"{PROG}: warning: {late}")
    return 0
