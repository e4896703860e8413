"""`runai-triage watch`: diagnose every workload of a cluster that newly fails or newly needs attention, as it
happens, and print (or post) each report as it is ready. Never loads Textual.

The loop is core.triage.watch; this module reads the options, prints each entry in the chosen format, posts
it with `--post` (core.notify.webhook), keeps the state file, and ends with a summary line on Ctrl-C or SIGTERM.

Exit status: 0 when it stopped as asked (Ctrl-C, SIGTERM, the end of `--once`); 1 when it could not run (the
tenant could not be opened, an unknown cluster, the one sweep of `--once` failed, a state file of another
watch); 2 for a usage error. A tenant that cannot be reached is tried again, backing off, until it answers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import hashlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import platformdirs

from core.diagnosis.engine import DiagnosisFailed
from core.diagnosis.request import UsageError
from core.notify.webhook import WebhookPoster, check_url
from core.report.render import md_code, md_escape, to_markdown
from core.safety.untrusted import clean
from core.tenant import Tenant
from core.triage.pacing import DEFAULT_INTERVAL_S
from core.triage.scan import ScanEntry, resolve_cluster
from core.triage.scan_render import entry_jsonl, watch_lines
from core.triage.watch import DEFAULT_MAX_PER_MINUTE, MAX_PER_MINUTE, Watcher, WatchRequest
from core.triage.watch_state import StateOfAnotherWatch, WatchState, load_state
from tui.headless import (
    TENANT_NOTE,
    add_tenant_arguments,
    advice,
    command_parser,
    epilog,
    explain_start_problem,
    say,
    start_options,
    tier2_for,
    usage_failed,
    write_out,
)
from tui.start import StartOptions, StartProblem, live_settings, open_tenant

PROG = "runai-triage watch"
FORMATS = ("text", "jsonl", "markdown")
APP_NAME = "runai-triage"
# A post that failed is tried again at the next sweeps, this many times in all, then said and left for a restart.
POST_ROUNDS = 3
Sleep = Callable[[float], Awaitable[None]]


def add_watch_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_parser(
        subparsers,
        "watch",
        help="diagnose every workload that newly fails, as it happens, and print or post each report",
        description=(
            "Poll one cluster (or one of its projects) and diagnose every workload that newly fails or newly "
            "needs attention, once per phase change, as it happens. Each report goes to stdout as it is ready "
            "(and to an incoming webhook with --post); progress and problems go to stderr. Ctrl-C stops it "
            "with a summary line; a restart does not deliver again what it delivered before (--state)."
        ),
        epilog=epilog(
            [
                "runai-triage watch --demo --live --cluster-id demo-east",
                "runai-triage watch --demo --cluster-id demo-east --since 1h --once --format jsonl",
                "runai-triage watch --base-url https://runai.example.com --cluster-id gpu-prod --project nlp "
                "--post https://hooks.slack.com/services/...",
            ],
            "  0  stopped as asked: Ctrl-C, SIGTERM, or the end of --once\n"
            "  1  could not run: no tenant to open (missing credentials, an unusable case), unknown cluster, the\n"
            "     one sweep of --once failed, a --state file of another watch (a tenant that cannot be reached\n"
            "     is tried again, backing off, until it answers or the watch is stopped)\n"
            "  2  usage error: a missing or malformed option",
            TENANT_NOTE,
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
    parser.add_argument("--once", action="store_true", help="one sweep, then exit (for cron)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="how each report is printed (default text)")
    parser.add_argument("--post", metavar="URL",
                        help='also post each report\'s Markdown to an incoming webhook, as {"text": ...} (Slack, '
                        "Mattermost)")
    parser.add_argument("--state", metavar="FILE",
                        help="where the watch keeps what it delivered (default: a file per tenant, cluster and "
                        "project under the platform's state directory)")
    parser.set_defaults(handler=run_watch)


def default_state_path(scope: str, env: Mapping[str, str] | None = None) -> Path:
    """The state file of a watch of `scope`: under `$XDG_STATE_HOME/runai-triage/watch` when that is set, else the
    platform's state directory (platformdirs)."""
    environ = os.environ if env is None else env
    xdg = (environ.get("XDG_STATE_HOME") or "").strip()
    base = Path(xdg).expanduser() / APP_NAME if xdg else Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))
    return base / "watch" / f"{hashlib.sha256(scope.encode()).hexdigest()[:16]}.json"


def render(entry: ScanEntry, fmt: str) -> str:
    if fmt == "jsonl":
        return entry_jsonl(entry)
    if fmt == "markdown":
        return post_text(entry) + "\n---\n\n"
    return "\n".join(watch_lines(entry)) + "\n\n"


def headline(entry: ScanEntry) -> str:
    """The first line of a post, what a channel's preview shows: the workload, its phase since when, the verdict."""
    w = entry.workload
    name = md_escape(clean(w.name or "(no name)", one_line=True, max_len=120))
    project = md_escape(clean(w.project_name or "no project", one_line=True, max_len=80))
    phase = md_escape(clean(w.phase or "no phase", one_line=True, max_len=40))
    since = md_code(w.phase_updated_at.isoformat()) if w.phase_updated_at else "an unknown time"
    return (f"**runai-triage watch**: {name} ({project}) {phase} since {since}: **{md_escape(entry.label)}** · "
            f"id {md_code(clean(w.id or '', one_line=True, max_len=80))}")


def post_text(entry: ScanEntry) -> str:
    """The Markdown a webhook gets: a headline, then the report whole, or why there is none."""
    report = entry.verdict.report
    if report is not None:
        return f"{headline(entry)}\n\n{to_markdown(report)}"
    return f"{headline(entry)}\n\n{md_escape(clean(entry.verdict.failure or 'no report', max_len=1000))}\n"


@dataclass
class _Outbox:
    """Posts that failed, tried again at the next sweeps (never holding up the reports behind them)."""

    poster: WebhookPoster
    waiting: list[tuple[ScanEntry, str, int]] = field(default_factory=list)
    posted: int = 0
    failed: int = 0


@dataclass
class WatchRun:
    """One watch, in-process: what the command runs (tests give it a clock, a sleep and a stop)."""

    request: WatchRequest
    options: StartOptions
    fmt: str = "text"
    post_url: str | None = None
    state_path: Path | None = None
    once: bool = False
    out: TextIO = sys.stdout
    err: TextIO = sys.stderr
    clock: Callable[[], datetime] | None = None
    sleep: Sleep = asyncio.sleep
    post_transport: Any = None
    opener: Callable[[], Tenant] | None = None  # how to open the tenant (default: what `options` describe)
    watcher: Watcher | None = None
    outbox: _Outbox | None = None
    status: int = 0

    async def run(self) -> int:
        """Open the tenant, watch until stopped (cancelled) or `--once` is done; returns the exit status."""
        try:
            tenant = self.opener() if self.opener is not None else open_tenant(self.options).tenant
        except StartProblem as problem:
            explain_start_problem(PROG, self.err, problem)
            return 1
        poster = WebhookPoster(self.post_url, transport=self.post_transport) if self.post_url else None
        try:
            return await self._watch(tenant, poster)
        except asyncio.CancelledError:
            return 0
        finally:
            self.summary()
            if poster is not None:
                await poster.aclose()
            await tenant.aclose()

    async def _watch(self, tenant: Tenant, poster: WebhookPoster | None) -> int:
        try:  # the tenant's own id for the cluster, so a name and an id share one state file
            cluster = await resolve_cluster(tenant.runai, self.request.cluster_id)
        except DiagnosisFailed as exc:
            say(self.err, f"{PROG}: cannot watch: {exc}")
            say(self.err, f"  {advice(exc)}")
            return 1
        request = dataclasses.replace(self.request, cluster_id=cluster)
        scope = request.scope(tenant.label)
        path = self.state_path or default_state_path(scope)
        try:
            state, problem = load_state(path, scope)
        except StateOfAnotherWatch as exc:
            say(self.err, f"{PROG}: {exc}")
            return 1
        if problem is not None:
            say(self.err, f"{PROG}: {problem}; starting without it (it will be written again)")
        clock = self.clock or tenant.live_clock or _frozen_or_wall(tenant)
        self.watcher = watcher = Watcher(request, tenant.runai, state, clock, tier2_for(self.options, tenant),
                                         single_attempt=not self.once, resolved=True)
        self.outbox = _Outbox(poster) if poster is not None else None
        await watcher.begin()
        start = watcher.window_start
        said_start = start.strftime("%Y-%m-%d %H:%M:%S UTC") if start else "now"
        where = f" and posting to {poster.where}" if poster else ""
        project = self.request.project or "all projects"
        # `--once` makes one sweep: no interval to speak of.
        verb, pace = ("one sweep of", "") if self.once else ("watching", f" every {self.request.interval_s:g} s")
        say(self.err, f"{PROG}: {verb} cluster {watcher.request.cluster_id} ({project}){pace} from "
                      f"{said_start}{where}; state in {path}")
        while True:
            try:
                async for entry in watcher.sweep():
                    await self._deliver(entry)
                wait = watcher.pacer.succeeded()
                self._save(state)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the list could not be read: said, and the next sweep waits longer
                watcher.counts.failed_sweeps += 1
                if self.once:
                    say(self.err, f"{PROG}: the sweep could not be made: {clean(str(exc), max_len=400)}")
                    return 1
                wait = watcher.pacer.failed(exc)
                say(self.err, f"{PROG}: sweep failed ({clean(type(exc).__name__, max_len=60)}: "
                              f"{clean(str(exc), max_len=200)}); next try in {wait:.0f} s")
            await self._retry_posts()
            if self.once:
                return 0
            await self.sleep(wait)

    async def _deliver(self, entry: ScanEntry) -> None:
        watcher = self.watcher
        assert watcher is not None
        write_out(self.out, render(entry, self.fmt))
        if self.outbox is None:
            watcher.delivered(entry)
            self._save(watcher.state)
            return
        result = await self.outbox.poster.post(post_text(entry))
        if result.ok:
            self.outbox.posted += 1
            watcher.delivered(entry)
            self._save(watcher.state)
            return
        watcher.not_delivered(entry)
        self.outbox.waiting.append((entry, post_text(entry), 1))
        say(self.err, f"{PROG}: could not post {self._name(entry)}: {result.problem}; tried again at the next sweep")

    async def _retry_posts(self) -> None:
        box, watcher = self.outbox, self.watcher
        if box is None or watcher is None or not box.waiting:
            return
        waiting, box.waiting = box.waiting, []
        for entry, text, rounds in waiting:
            result = await box.poster.post(text)
            if result.ok:
                box.posted += 1
                watcher.delivered(entry)
                self._save(watcher.state)
            elif rounds + 1 < POST_ROUNDS:
                box.waiting.append((entry, text, rounds + 1))
            else:
                box.failed += 1
                say(self.err, f"{PROG}: gave up posting {self._name(entry)}: {result.problem} (a restart tries again)")

    def _save(self, state: WatchState) -> None:
        problem = state.save()
        if problem is not None:
            say(self.err, f"{PROG}: {problem}")

    @staticmethod
    def _name(entry: ScanEntry) -> str:
        return clean(entry.workload.name or entry.workload.id or "a workload", one_line=True, max_len=80)

    def summary(self) -> None:
        watcher = self.watcher
        if watcher is None or not (watcher.counts.sweeps or watcher.counts.failed_sweeps):
            return
        c = watcher.counts
        parts = [f"{c.sweeps} sweep{'s' if c.sweeps != 1 else ''}"]
        if c.failed_sweeps:
            parts.append(f"{c.failed_sweeps} failed")
        line = f"{PROG}: stopped after {', '.join(parts)}: {c.delivered} delivered"
        if self.outbox is not None:
            line += f", {self.outbox.posted} posted, {len(self.outbox.waiting) + self.outbox.failed} not posted"
        if c.deferred:
            line += f", {c.deferred} left for a later sweep"
        say(self.err, line)


def _frozen_or_wall(tenant: Tenant) -> Callable[[], datetime]:
    # A still bundle describes one moment (its capture); a real tenant lives now.
    captured = tenant.captured_at
    return (lambda: captured) if captured is not None else (lambda: datetime.now(UTC))


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
        post = check_url(args.post) if args.post else None
    except (UsageError, ValueError) as exc:
        return usage_failed(PROG, err, exc)
    run = WatchRun(request, options, args.format, post, Path(args.state).expanduser() if args.state else None,
                   bool(args.once), out, err)
    return _run_until_stopped(run)


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
