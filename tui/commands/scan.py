"""`runai-triage scan`: every workload of a cluster that failed (or needs attention) in a window, diagnosed and
grouped by verdict. For cron or CI: "what failed overnight, and why". Never loads Textual.

Exit status: 0 when the scan ran, whatever it found (a diagnosis that produced no report is one of its
results); 3 when it ran on a cluster that is not Connected or has not reported lately (its list may be stale:
cron can tell); 130 when Ctrl-C stopped it (the diagnoses that finished are printed); 1 when it could not run
(the tenant or its workload list unreadable, an unknown cluster or project); 2 for a usage error. A progress bar
goes to stderr, and only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TextIO

from core.diagnosis.request import UsageError
from core.triage.batch import MAX_DIAGNOSES, Politeness
from core.triage.scan import DEFAULT_MAX_WORKLOADS, DEFAULT_SINCE, MAX_WORKLOADS, ScanRequest, ScanResult, scan
from core.triage.scan_render import SCAN_RENDERERS
from tui.commands.headless import (
    TENANT_NOTE,
    add_now_argument,
    add_tenant_arguments,
    command_parser,
    epilog,
    flag,
    opened,
    parse_now,
    progress_bar,
    run_or_explain,
    say,
    start_options,
    tenant_now,
    tier2_for,
    usage_failed,
    write_out,
)
from tui.commands.start import StartOptions

PROG = "runai-triage scan"
# The scan ran on a cluster the control plane cannot see now: its findings may be stale (0 would read as
# "all clear" to cron).
STALE_EXIT = 3
# Ctrl-C, as a shell reports a program its SIGINT ended: what finished is printed all the same.
INTERRUPTED_EXIT = 130


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "scan",
        help="diagnose every workload that failed in a window and print them grouped by verdict",
        description=(
            "Diagnose every workload of one cluster that failed, or needs attention, in a window (newest "
            "first) and print them grouped by category, with counts, recurrence and the top line of evidence. "
            "The output goes to stdout; a progress bar goes to stderr, only when it is a terminal."
        ),
        epilog=epilog(
            [
                "runai-triage scan --demo --cluster-id demo-east",
                "runai-triage scan --demo --cluster-id demo-east --project nlp --since 7d --format markdown",
                "runai-triage scan --demo --cluster-id 5b77e6d6-7b53-5206-9a65-c6331d0e09cc --since 2h --format jsonl",
            ],
            "  0  the scan ran, whatever it found; a workload whose diagnosis produced no report is one of its\n"
            "     results (\"no report\", with the reason; in JSON Lines a runai-triage/scan-failure@1 line)\n"
            "  1  the scan could not run: tenant unreachable, credentials refused, unknown cluster or project,\n"
            "     the list of workloads unreadable, unusable case bundle\n"
            "  2  usage error: a missing or malformed option\n"
            f"  {STALE_EXIT}  the scan ran, but the cluster is not Connected or has not reported lately: what Run:ai\n"
            "     lists for it may be stale (the output says so, with its status and last report)\n"
            f"  {INTERRUPTED_EXIT}  interrupted (Ctrl-C): the diagnoses that finished are printed, the rest listed\n"
            "       as not made",
            TENANT_NOTE,
        ),
    )
    add_tenant_arguments(parser, "scan")
    parser.add_argument(
        "--cluster-id", metavar="CLUSTER", help="the cluster to scan: its id or exact name (always required)"
    )
    parser.add_argument("--project", metavar="NAME", help="only this project")
    parser.add_argument("--name-prefix", metavar="TEXT", help="only workloads whose name starts with TEXT")
    parser.add_argument(
        "--since", default=DEFAULT_SINCE, metavar="DURATION",
        help=f"the window, back from --now: 90m, 24h, 7d, 2w (default {DEFAULT_SINCE})",
    )
    parser.add_argument(
        "--lookback", metavar="DURATION",
        help="each diagnosis's history window, for recurrence (default: the --since window)",
    )
    add_now_argument(parser)
    parser.add_argument(
        "--concurrency", type=int, default=Politeness().diagnoses, metavar="N",
        help=f"diagnoses at once, 1-{MAX_DIAGNOSES} (default {Politeness().diagnoses}; API reads in flight: 2N)",
    )
    parser.add_argument(
        "--max-workloads", type=int, default=DEFAULT_MAX_WORKLOADS, metavar="N",
        help=f"scan at most N workloads, newest first (default {DEFAULT_MAX_WORKLOADS}, at most {MAX_WORKLOADS})",
    )
    parser.add_argument(
        "--format", choices=list(SCAN_RENDERERS), default="text", help="output format (default text)"
    )
    parser.set_defaults(handler=run_scan)


async def scan_with(
    options: StartOptions, request: ScanRequest, progress: Callable[[int, int], None] | None = None
) -> ScanResult:
    async with opened(options) as tenant:
        now = tenant_now(tenant, request.now) or datetime.now(UTC)
        request = dataclasses.replace(request, now=now)
        return await scan(request, tenant.runai, **tier2_for(options, tenant), now=now, progress=progress,
                          keep_on_interrupt=True)


def run_scan(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        request = ScanRequest(
            cluster_id=(args.cluster_id or "").strip(),
            project=args.project,
            name_prefix=args.name_prefix,
            since=args.since,
            lookback=args.lookback,
            now=parse_now(args.now),
            concurrency=args.concurrency,
            max_workloads=args.max_workloads,
        )
    except UsageError as exc:
        return usage_failed(PROG, err, exc)
    result = run_or_explain(PROG, err, lambda: scan_with(start_options(args), request, progress_bar(PROG, err)),
                            what="scan")
    if result is None:
        return 1
    write_out(out, SCAN_RENDERERS[args.format](result, flag))
    if result.interrupted:  # what finished is printed; the status says it is not the whole window
        say(err, f"{PROG}: interrupted; {len(result.entries)} diagnoses printed, the rest not made.")
        return INTERRUPTED_EXIT
    return STALE_EXIT if result.stale else 0
