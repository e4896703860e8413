"""`runai-triage watch`: diagnose every workload of a cluster that newly fails or newly needs attention, as it
happens, and print (or post) each report as it is ready. Never loads Textual.

This module reads the options; watch_run runs the watch (core.triage.watch sweeps, core.notify.deliveries
delivers, watch_delivery words it), and ends with a summary line on Ctrl-C or SIGTERM. The exit status is watch_run's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import re
import signal
import sys
from pathlib import Path
from typing import TextIO

from core.diagnosis.request import UsageError
from core.notify.deliveries import PostTarget
from core.notify.dialects import DIALECTS
from core.notify.ledger_versions import STATE_VERSIONS
from core.notify.state_file import StateFile, StateProblem
from core.notify.storms import Grouping
from core.notify.webhook import check_url
from core.triage.entry_render import ENTRY_RENDERERS
from core.triage.pacing import DEFAULT_INTERVAL_S
from core.triage.watch import DEFAULT_MAX_PER_MINUTE, MAX_PER_MINUTE, WatchRequest
from tui.commands.headless import TENANT_NOTE, add_tenant_arguments, command_parser, epilog, start_options, usage_failed
from tui.commands.start import live_settings
from tui.commands.watch_run import PROG, WatchRun, default_state_path

FORMATS = tuple(ENTRY_RENDERERS)  # text, jsonl, markdown
DEFAULT_GROUP_WINDOW = "5m"
DEFAULT_COOLDOWN = "30m"
_DURATION = re.compile(r"^(\d{1,7})([smhd])$")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_GROUP_WINDOW_S = 24 * 3600
MAX_COOLDOWN_S = 7 * 86400

__all__ = ["FORMATS", "WatchRun", "add_parser", "default_state_path", "run_watch"]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "watch",
        help="diagnose every workload that newly fails, as it happens, and print or post each report",
        description=(
            "Poll one cluster (or one of its projects) and diagnose every workload that newly fails or newly "
            "needs attention, once per phase change, as it happens. Each report goes to stdout as it is ready "
            "(and, as a short chat message, to each incoming webhook given with --post); progress and problems go "
            "to stderr. Each destination keeps its own record of what it received (--state), so a restart "
            "delivers to each what it lacks, once; a post that fails waits in an outbox and is tried again, in "
            "order, for as long as the watch runs. Ctrl-C stops it with a summary line."
        ),
        epilog=epilog(
            [
                "runai-triage watch --demo --live --cluster-id demo-east",
                "runai-triage watch --demo --cluster-id demo-east --since 1h --once --format jsonl",
                "runai-triage watch --base-url https://runai.example.com --cluster-id gpu-prod --project nlp "
                "--post https://hooks.slack.com/services/...",
            ],
            "  0  stopped as asked: Ctrl-C, SIGTERM, or the end of a --once that delivered everything\n"
            "  1  could not run: no tenant to open (missing credentials, an unusable case), unknown cluster or\n"
            "     project, the one sweep of --once failed, a --state file that is another watch's, in use by\n"
            "     another watch, unreadable (and no readable .bak) or of a newer version (a tenant that cannot\n"
            "     be reached is tried again, backing off, until it answers or the watch is stopped)\n"
            "  2  usage error: a missing or malformed option, a --state that is a directory or cannot be written\n"
            "  4  --once left something undelivered (a post that failed): kept in the state file, and the next\n"
            "     run delivers it first",
            TENANT_NOTE,
            "Storms: failures that share a cause (the same node with an infrastructure finding or a node failure,\n"
            "the same infrastructure finding, the same image that cannot be pulled) less than --group-window\n"
            "apart are one storm: one post names the cause and lists the workloads, a minute after the first was\n"
            "diagnosed; what joins later goes into one follow-up a window after the storm's last post. With the\n"
            "defaults (5m), a node whose workloads all fail and are diagnosed within eleven minutes of the first\n"
            "gives at most three posts, however many workloads (the list is cut, saying how many more, past\n"
            "about 30 names). A workload that fails again within --cooldown (30m) of its last post is counted,\n"
            "not posted; the count goes with its next post. Stdout still prints every report.",
            "API politeness: one list request per sweep (more only when over 500 workloads changed phase in ten\n"
            "minutes), each sent once, the next sweep --refresh seconds after the last ended, twice as long after\n"
            "each failure (429, 5xx) and never before its Retry-After; an events read per Pending or Running row\n"
            "at most once a minute; diagnoses two at a time, four reads in flight, --max-per-minute started a\n"
            "minute.",
        ),
    )
    add_tenant_arguments(parser, "watch")
    parser.add_argument(
        "--live", action="store_true", help="with --demo: a moving tenant (workloads fail as you watch)"
    )
    parser.add_argument("--seed", type=int, metavar="N", help="with --demo --live: which schedule (default 1)")
    parser.add_argument("--cluster-id", metavar="CLUSTER", help="the cluster to watch: its id or exact name (required)")
    parser.add_argument("--project", metavar="NAME", help="only this project")
    parser.add_argument(
        "--since", metavar="DURATION",
        help="at the start, also diagnose what failed this far back (90m, 24h, 7d); default: from the last run "
        "(--state), else from now",
    )
    parser.add_argument("--lookback", default="24h", metavar="DURATION",
                        help="each diagnosis's history window, for recurrence (default 24h)")
    parser.add_argument("--refresh", type=float, default=DEFAULT_INTERVAL_S, metavar="SECONDS",
                        help=f"seconds between sweeps, 1-3600 (default {DEFAULT_INTERVAL_S:g})")
    parser.add_argument(
        "--max-per-minute", type=int, default=DEFAULT_MAX_PER_MINUTE, metavar="N",
        help=f"start at most N diagnoses a minute, 1-{MAX_PER_MINUTE} (default {DEFAULT_MAX_PER_MINUTE}); the rest "
        "wait",
    )
    parser.add_argument("--once", action="store_true",
                        help="one sweep and one try of each outbox, then exit (for cron; 4 when a post waits)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="how each report is printed (default text)")
    parser.add_argument("--post", metavar="URL", action="append", default=[],
                        help="also post each failure, as a short chat message, to this incoming webhook (Slack, "
                        "Mattermost, any receiver of a JSON text); give it again for more webhooks")
    parser.add_argument("--post-format", choices=DIALECTS, metavar="{" + ",".join(DIALECTS) + "}",
                        help="the chat's dialect (default: from the URL's host where it says, hooks.slack.com or "
                        "a host named mattermost; else markdown)")
    parser.add_argument(
        "--group-window", default=DEFAULT_GROUP_WINDOW, metavar="DURATION",
        help=f"failures with a shared cause less than this apart are one storm, posted once with follow-ups at "
        f"most this often (30s, 5m, 1h; 0: no storms, each failure its own post; default {DEFAULT_GROUP_WINDOW})",
    )
    parser.add_argument(
        "--cooldown", default=DEFAULT_COOLDOWN, metavar="DURATION",
        help=f"a workload that fails again this soon after its last post is counted, not posted (0: post every "
        f"failure; default {DEFAULT_COOLDOWN})",
    )
    parser.add_argument("--state", metavar="FILE",
                        help="where the watch keeps what it delivered (default: a file per tenant, cluster and "
                        "project under the platform's state directory)")
    parser.set_defaults(handler=run_watch)


def run_watch(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        request = WatchRequest(
            cluster_id=(args.cluster_id or "").strip(),
            project=args.project,
            since=args.since,
            lookback=args.lookback,
            interval_s=args.refresh,
            max_per_minute=args.max_per_minute,
        )
        options = start_options(args)
        live = live_settings(options.mode, bool(args.live), args.seed)
        options = dataclasses.replace(options, live=live)
        urls = [check_url(url) for url in args.post]
        if len(set(urls)) < len(urls):
            raise UsageError("--post: the same URL twice would post every failure twice")
        if args.post_format and not urls:
            raise UsageError("--post-format goes with --post")
        posts = [PostTarget.of(url, args.post_format) for url in urls]
        grouping = Grouping(duration("--group-window", args.group_window, MAX_GROUP_WINDOW_S),
                            duration("--cooldown", args.cooldown, MAX_COOLDOWN_S))
        state = Path(args.state).expanduser() if args.state else None
        if state is not None:  # a state file that cannot be kept is said now, before anything is read or sent
            StateFile(state, STATE_VERSIONS).prepare()
    except (UsageError, ValueError, StateProblem) as exc:
        return usage_failed(PROG, err, exc)
    run = WatchRun(request, options, args.format, posts, state, bool(args.once), out, err, grouping=grouping)
    return _run_until_stopped(run)


def duration(flag: str, text: str, most_s: int) -> float:
    """`0`, or a whole number and a unit s, m, h or d, up to `most_s` seconds; UsageError otherwise."""
    value = (text or "").strip()
    if value == "0":
        return 0.0
    match = _DURATION.match(value)
    if match is None:
        raise UsageError(f"{flag} {value[:40]!r}: give 0 or a whole number and a unit s, m, h or d (30s, 5m, 1h)")
    seconds = int(match.group(1)) * _SECONDS[match.group(2)]
    if seconds > most_s:
        raise UsageError(f"{flag} {value}: at most {most_s // 3600} hours")
    return float(seconds)


def _run_until_stopped(run: WatchRun) -> int:
    """Run the watch; Ctrl-C or SIGTERM cancels it, and it ends with its summary line."""

    async def main() -> int:
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()
        assert task is not None
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not on this platform
                loop.add_signal_handler(signum, task.cancel)
        try:
            return await run.run()
        except asyncio.CancelledError:
            return 0

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:  # where signal handlers cannot be set: the summary was said on the way out
        return 0
