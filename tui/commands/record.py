"""`runai-triage record`: diagnose as `diagnose` does, and write every answer the diagnosis read as a redacted
`runai-triage/case@1` bundle, so `diagnose --case FILE` (same ids, same `--now`) gives the same verdict anywhere.

The report is printed as `diagnose` prints it; the bundle goes to `--out` (never over an existing file unless
`--force`), and a line on stderr says what it holds. When no report can be produced (the workload's own read
fails), the bundle is still written, so the failure itself can be replayed; the exit status is then 1.
Never loads Textual.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from core.diagnosis.engine import DiagnosisFailed, run_to_report
from core.diagnosis.request import DEFAULT_LOOKBACK, DiagnosisRequest, UsageError
from core.models.report import Report
from core.plural import plural
from core.record import RecordingTap, recorded_bundle, write_bundle
from core.report.render import RENDERERS
from core.sim.bundle import BundleError, parse_bundle
from tui.commands.diagnose import add_diagnose_arguments, request_from_args
from tui.commands.headless import (
    TENANT_NOTE,
    advice,
    command_parser,
    epilog,
    opened,
    run_or_explain,
    say,
    start_options,
    tenant_now,
    tier2_for,
    usage_failed,
    write_out,
)
from tui.commands.start import StartOptions, flag

PROG = "runai-triage record"


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "record",
        help="diagnose one workload and save what it read as a redacted case bundle (for a bug report)",
        description=(
            "Diagnose one workload as `diagnose` does and write every answer the diagnosis read (Run:ai and "
            "Kubernetes, failed reads as faults) to a redacted runai-triage/case@1 bundle. "
            "`runai-triage diagnose --case FILE` replays it offline. The report goes to stdout as `diagnose` "
            "prints it; a line on stderr says what the bundle holds."
        ),
        epilog=epilog(
            [
                "runai-triage record --demo --cluster-id demo-east --name llama-ft-7b --project nlp "
                "--out incident.json",
                "runai-triage diagnose --case incident.json --cluster-id demo-east --name llama-ft-7b --project nlp",
            ],
            "  0  the report was printed and the bundle written\n"
            "  1  no report could be produced (when the tenant answered, the bundle is still written so the\n"
            "     failure replays), or the bundle could not be written\n"
            "  2  usage error: a missing or malformed option, an --out that exists (without --force) or whose\n"
            "     directory does not",
            TENANT_NOTE,
        ),
    )
    add_diagnose_arguments(parser, verb="record")
    parser.add_argument("--out", metavar="FILE", required=True, help="where to write the case bundle (.json)")
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    parser.set_defaults(handler=run_record)


@dataclass(frozen=True)
class Recorded:
    """What a recording run produced: the report (or why none), the moment it ran at, the session's secrets."""

    report: Report | None
    failure: DiagnosisFailed | None
    now: datetime
    secrets: tuple[str, ...]


async def record_with(options: StartOptions, request: DiagnosisRequest, tap: RecordingTap) -> Recorded:
    async with opened(options, tap=tap) as tenant:
        # "Now" is fixed before the first read, so the bundle's capturedAt is exactly the moment diagnosed at.
        now = tenant_now(tenant, request.now) or datetime.now(UTC)
        request = dataclasses.replace(request, now=now)
        secrets = tenant.runai.tokens.secrets()
        try:
            report = await run_to_report(request, tenant.runai, **tier2_for(options, tenant, recording=True))
        except DiagnosisFailed as exc:  # no report; what was read (the failure included) is still worth keeping
            return Recorded(None, exc, now, secrets)
        return Recorded(report, None, now, secrets)


def replay_command(path: Path, request: DiagnosisRequest) -> str:
    """The `diagnose` command line that replays the bundle: the same workload, at the moment recorded (the
    bundle's capturedAt is its default `--now`), quoted for a POSIX shell."""
    words = ["runai-triage", "diagnose", "--case", str(path), "--cluster-id", request.cluster_id]
    if request.workload_id:
        words += ["--workload-id", request.workload_id]
    else:
        words += ["--name", request.name or "", "--project", request.project or ""]
    if request.active:
        words.append("--active")
    if request.lookback != DEFAULT_LOOKBACK:
        words += ["--lookback", request.lookback]
    return shlex.join(words)


def run_record(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    path = Path(args.out).expanduser()
    try:
        request = request_from_args(args)
        if path.is_dir():
            raise UsageError(f"--out {path} is a directory; name a file, for example {path / 'incident.json'}")
        if path.exists() and not args.force:
            raise UsageError(f"--out {path} exists; choose another file or pass --force to overwrite it")
        if not path.parent.is_dir():
            raise UsageError(f"--out {path}: the directory {path.parent} does not exist")
    except UsageError as exc:
        return usage_failed(PROG, err, exc)
    tap = RecordingTap()
    done = run_or_explain(PROG, err, lambda: record_with(start_options(args), request, tap))
    if done is None:
        return 1
    answers = tap.snapshot()
    bundle, notes = recorded_bundle(answers, kube=tap.kube_seen, captured_at=done.now, secrets=done.secrets)
    try:
        parse_bundle(bundle, str(path))  # a recording that cannot be replayed is a bug, not a file to hand on
        write_bundle(path, bundle, args.force)
    except BundleError as exc:
        say(err, f"{PROG}: the bundle could not be written: {exc}")
        return 1
    except OSError as exc:
        say(err, f"{PROG}: the bundle could not be written to {path}: {exc.strerror or exc}")
        say(err, "  Choose a file in a directory you can write to, with --out.")
        return 1
    if done.report is not None:
        write_out(out, RENDERERS[args.format](done.report, verbose=args.verbose, name=flag))
    faults = len(bundle.get("faults", []))
    held = ", ".join((plural(len(bundle["workloads"]), "workload"), plural(len(answers), "answer") + " read",
                      plural(faults, "failed read") + " kept as " + ("a fault" if faults == 1 else "faults")))
    say(err, f"{PROG}: wrote {path}: {held}, redacted. Replay: {replay_command(path, request)}")
    for note in notes:
        say(err, f"  note: {note}")
    if done.failure is not None:
        say(err, f"{PROG}: no report could be produced: {done.failure}")
        say(err, f"  {advice(done.failure)} The bundle holds what was read, to replay the failure.")
        return 1
    return 0
