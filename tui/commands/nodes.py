"""`runai-triage nodes`: which node keeps killing workloads. Every node of a cluster with the workloads whose pods
ran on it in a window (live and deleted: the real denominator), how many failed, their verdicts, and the cause
they share; `--node N` narrows it to one node, and with `--format markdown` (or text) prints that node's
incident report. For cron: the exit status says whether a node crosses the threshold. Never loads Textual.

Exit status: 0 when the view ran and no node crosses the threshold; 4 when one does (`--fail-rate` of at least
`--min-workloads` workloads failed); 3 when none does but the cluster is not Connected or has not reported
lately (what Run:ai lists may be stale); 1 when it could not run; 2 for a usage error.
`--record FILE` also writes what the view read as a redacted case bundle, which `--case FILE` replays.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from core.diagnosis.request import UsageError
from core.plural import plural
from core.record import RecordingTap, recorded_bundle, write_bundle
from core.sim.bundle import BundleError, parse_bundle
from core.triage import nodes_incident
from core.triage.batch import MAX_DIAGNOSES, Politeness
from core.triage.nodes import DEFAULT_MAX_FAILURES, DEFAULT_SINCE, MAX_FAILURES, NodesRequest, NodesResult, nodes_view
from core.triage.nodes_render import NODES_RENDERERS
from core.triage.nodes_rows import Threshold
from core.triage.nodes_window import read_each_workload
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

PROG = "runai-triage nodes"
CROSSED_EXIT = 4
STALE_EXIT = 3


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "nodes",
        help="rank a cluster's nodes by the workloads that failed on them in a window, and why",
        description=(
            "List every node of one cluster with the workloads whose pods ran on it in a window (live and "
            "deleted pods), how many of them failed, their verdicts (each failure diagnosed as `diagnose` would) "
            "and its state now; a node whose failures share an infrastructure cause comes first, marked ⚑. "
            "--node N narrows it to one node; with --format markdown or text that is its incident report."
        ),
        epilog=epilog(
            [
                "runai-triage nodes --demo --cluster-id demo-east",
                "runai-triage nodes --demo --cluster-id demo-east --node gpu-e-23 --format markdown",
                "runai-triage nodes --demo --cluster-id demo-east --since 7d --node-pool default --format json",
                "runai-triage nodes --demo --cluster-id demo-east --fail-rate 30% --min-workloads 5",
            ],
            "  0  the view ran and no node crosses the threshold\n"
            "  1  it could not run: tenant unreachable, credentials refused, unknown cluster or node, the pods\n"
            "     of the window unreadable, unusable case bundle, a recording that could not be written\n"
            "  2  usage error: a missing or malformed option\n"
            f"  {STALE_EXIT}  no node crosses the threshold, but the cluster is not Connected or has not reported\n"
            "     lately: what Run:ai lists for it may be stale\n"
            f"  {CROSSED_EXIT}  a node crosses the threshold (--fail-rate of at least --min-workloads workloads\n"
            "     failed)",
            "Cost: a handful of list reads (the nodes, three lists of the window's pods, 500 a page, and the\n"
            "failures of the window), then each failure diagnosed (about ten reads each), at most --concurrency\n"
            "at once. It grows with the pods and failures of the window, not with the tenant's history.",
            TENANT_NOTE,
        ),
    )
    add_tenant_arguments(parser, "read")
    parser.add_argument("--cluster-id", metavar="CLUSTER", help="the cluster: its id or exact name (always required)")
    parser.add_argument(
        "--since", default=DEFAULT_SINCE, metavar="DURATION",
        help=f"the window, back from --now: 90m, 24h, 7d (default {DEFAULT_SINCE})",
    )
    parser.add_argument("--node-pool", metavar="POOL", help="only the nodes of this pool")
    parser.add_argument("--node", metavar="NODE", help="only this node (its incident report, in text or markdown)")
    add_now_argument(parser)
    parser.add_argument(
        "--fail-rate", default="0.5", metavar="RATE",
        help="a node crosses the threshold when this share of its workloads failed: 0.5 or 50%% (default 0.5)",
    )
    parser.add_argument(
        "--min-workloads", type=int, default=Threshold().min_workloads, metavar="N",
        help=f"... and at least N workloads ran there (default {Threshold().min_workloads})",
    )
    parser.add_argument(
        "--concurrency", type=int, default=Politeness().diagnoses, metavar="N",
        help=f"diagnoses at once, 1-{MAX_DIAGNOSES} (default {Politeness().diagnoses}; API reads in flight: 2N)",
    )
    parser.add_argument(
        "--max-failures", type=int, default=DEFAULT_MAX_FAILURES, metavar="N",
        help=f"diagnose at most N failures, newest first (default {DEFAULT_MAX_FAILURES}, at most {MAX_FAILURES})",
    )
    parser.add_argument("--format", choices=list(NODES_RENDERERS), default="text", help="output format (default text)")
    parser.add_argument("--record", metavar="FILE", help="also write what was read as a redacted case bundle")
    parser.add_argument("--force", action="store_true", help="with --record: overwrite FILE if it exists")
    parser.set_defaults(handler=run_nodes)


def fail_rate(text: str) -> float:
    """`0.5`, `50%`: a share of the workloads; UsageError when it is neither."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise UsageError(f"--fail-rate {text!r}: give a share of the workloads, such as 0.5 or 50%") from None
    return value


def request_from_args(args: argparse.Namespace) -> NodesRequest:
    return NodesRequest(
        cluster_id=(args.cluster_id or "").strip(),
        since=args.since,
        node_pool=args.node_pool,
        node=args.node,
        now=parse_now(args.now),
        threshold=Threshold(fail_rate=fail_rate(args.fail_rate), min_workloads=args.min_workloads),
        concurrency=args.concurrency,
        max_failures=args.max_failures,
    )


@dataclass(frozen=True)
class Ran:
    result: NodesResult
    secrets: tuple[str, ...] = ()


async def view_with(
    options: StartOptions, request: NodesRequest, progress: Callable[[int, int], None] | None = None,
    tap: RecordingTap | None = None,
) -> Ran:
    async with opened(options, tap=tap) as tenant:
        now = tenant_now(tenant, request.now) or datetime.now(UTC)
        request = dataclasses.replace(request, now=now)
        kube = tier2_for(options, tenant, recording=tap is not None)
        result = await nodes_view(request, tenant.runai, now=now, progress=progress, **kube)
        if tap is not None:  # a replay serves a pod only beside its workload: each is read once
            ran = {wid for row in result.rows for wid in row.ran}
            await read_each_workload(tenant.runai, sorted(ran), request.politeness.requests)
        return Ran(result, tenant.runai.tokens.secrets() if tap is not None else ())


def _record_path(args: argparse.Namespace) -> Path | None:
    if not args.record:
        if args.force:
            raise UsageError("--force only goes with --record FILE")
        return None
    path = Path(args.record).expanduser()
    if path.is_dir():
        raise UsageError(f"--record {path} is a directory; name a file, for example {path / 'nodes.json'}")
    if path.exists() and not args.force:
        raise UsageError(f"--record {path} exists; choose another file or pass --force to overwrite it")
    if not path.parent.is_dir():
        raise UsageError(f"--record {path}: the directory {path.parent} does not exist")
    return path


def _write_recording(path: Path, tap: RecordingTap, ran: Ran, force: bool, err: TextIO) -> bool:
    answers = tap.snapshot()
    now = ran.result.end
    bundle, notes = recorded_bundle(answers, kube=tap.kube_seen, captured_at=now, secrets=ran.secrets)
    try:
        parse_bundle(bundle, str(path))  # a recording that cannot be replayed is a bug, not a file to hand on
        write_bundle(path, bundle, force)
    except BundleError as exc:
        say(err, f"{PROG}: the bundle could not be written: {exc}")
        return False
    except OSError as exc:
        say(err, f"{PROG}: the bundle could not be written to {path}: {exc.strerror or exc}")
        return False
    held = f"{plural(len(bundle['workloads']), 'workload')}, {plural(len(bundle.get('nodes', [])), 'node')}"
    say(err, f"{PROG}: wrote {path}: {held}, {plural(len(answers), 'answer')} read, redacted. Replay: "
             f"runai-triage nodes --case {path} --cluster-id {ran.result.request.cluster_id} --since "
             f"{ran.result.request.since}")
    for note in notes:
        say(err, f"  note: {note}")
    return True


def render(result: NodesResult, fmt: str) -> str:
    """The view, or with --node in text or Markdown, the node's incident report."""
    if result.request.node and fmt in ("text", "markdown") and result.rows:
        incident = nodes_incident.to_markdown if fmt == "markdown" else nodes_incident.to_text
        return incident(result, result.rows[0])
    return NODES_RENDERERS[fmt](result, flag)


def run_nodes(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        request = request_from_args(args)
        record = _record_path(args)
    except UsageError as exc:
        return usage_failed(PROG, err, exc)
    tap = RecordingTap() if record is not None else None
    ran = run_or_explain(PROG, err, lambda: view_with(start_options(args), request, progress_bar(PROG, err), tap),
                         what="node view")
    if ran is None:
        return 1
    if record is not None and tap is not None and not _write_recording(record, tap, ran, args.force, err):
        return 1
    result = ran.result
    write_out(out, render(result, args.format))
    if result.crossing:
        return CROSSED_EXIT
    return STALE_EXIT if result.stale else 0
