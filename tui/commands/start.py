"""Start-up of the terminal app: the command-line options of `runai-triage` (no subcommand, see tui.commands.app_args)
and how they turn into a tenant.

Kept free of Textual (and of `tui.app`, which imports this module) so `tui/cli.py` and the headless commands
can use these options without loading the UI; `tui.app.run_tui` runs the app. The program opens a demo or case
tenant from the simulator's own process (`ServedOpener`); `open_tenant` serves it from this process (the
headless commands, and the app as tests build it).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from core.sim.live.settings import LiveSettings
from core.sim.process import SimProcess, SimProcessFailed
from core.sources.credentials import (
    CliSession,
    Credentials,
    CredentialsProblem,
    base_url_from_env,
    credentials_from_env,
    load_cli_session,
)
from core.sources.errors import clean_text
from core.sources.kube_types import KubeSettings
from core.sources.runai_params import invalid_workload_id
from core.sources.tap import Tap
from core.tenant import (
    DEMO_LABEL,
    LIVE_DEMO_LABEL,
    Tenant,
    case_label,
    open_case_tenant,
    open_demo_tenant,
    open_real_tenant,
    open_served_tenant,
)
from core.usage import UsageError
from tui.commands.app_args import option_text

Mode = Literal["env", "demo", "case"]

# What to tell a user with no working connection; shown on the problem screen.
CONNECT_HINTS: tuple[str, ...] = (
    "export RUNAI_BASE_URL=https://<tenant>.run.ai",
    "and either RUNAI_CLIENT_ID + RUNAI_CLIENT_SECRET (an access key) or RUNAI_BEARER_TOKEN (a ready token),",
    "or log in with the Run:ai CLI (`runai login`) so its session can be borrowed.",
    "To try the app without a tenant: runai-triage --demo",
)
# The same, for a user who named the tenant with --base-url: the URL is theirs to fix there, not in the
# environment.
URL_GIVEN_HINTS: tuple[str, ...] = (
    "Set either RUNAI_CLIENT_ID + RUNAI_CLIENT_SECRET (an access key) or RUNAI_BEARER_TOKEN (a ready token),",
    CONNECT_HINTS[2],
    CONNECT_HINTS[3],
)
BAD_URL_HINTS: tuple[str, ...] = (
    "Give --base-url the tenant's own address, for example --base-url https://acme.run.ai",
    *URL_GIVEN_HINTS,
)
BUNDLE_HINTS: tuple[str, ...] = (
    "Fix the bundle (format runai-triage/case@1, as `runai-triage record --out FILE` writes one) or pass another "
    "with --case FILE.",
    "To try the app without a bundle: runai-triage --demo",
)
SIMULATOR_HINTS: tuple[str, ...] = (
    "Press r to start it again.",
    "`runai-triage serve --demo` (or `--case FILE`) runs the same simulator in the foreground and shows what "
    "stops it.",
)


class StartProblem(Exception):
    """Why the app could not open a tenant, in words for the user: what happened and what to set."""

    def __init__(self, title: str, detail: str, hints: tuple[str, ...] = ()) -> None:
        self.title = title
        self.detail = detail
        self.hints = hints
        super().__init__(f"{title}: {detail}")


@dataclass(frozen=True)
class StartOptions:
    mode: Mode = "env"
    case_path: Path | None = None
    base_url: str | None = None
    kube: KubeSettings = field(default_factory=KubeSettings)
    cluster_id: str | None = None
    workload_id: str | None = None
    name: str | None = None
    project: str | None = None
    # The demo tenant, moving (--demo --live): its seed; None for a still tenant.
    live: LiveSettings | None = None
    # --refresh: seconds between the picker's reads of its page (0: never); None: the default for the tenant.
    refresh_s: float | None = None

    @property
    def wants_diagnosis(self) -> bool:
        """True when the options name one workload to open straight into."""
        return self.workload_id is not None or self.name is not None

    def describe(self) -> str:
        """The tenant being opened, for the start-up screen."""
        if self.mode == "demo":
            return "the demo tenant" + (", live" if self.live is not None else "")
        if self.mode == "case":
            return f"case bundle {self.case_path}"
        return self.base_url or "the Run:ai tenant named by the environment or the CLI session"


@dataclass(frozen=True)
class OpenedTenant:
    """A ready tenant plus the cluster to select first (from --cluster-id or the CLI session), if any."""

    tenant: Tenant
    cluster_id: str | None = None


def options_from_args(args: argparse.Namespace) -> StartOptions:
    """Check the options of `add_tui_arguments` against each other; raises UsageError naming the clash."""
    workload_id = option_text(args, "tui_workload_id")
    name = option_text(args, "tui_name")
    project = option_text(args, "tui_project")
    cluster_id = option_text(args, "tui_cluster_id")
    if workload_id and (name or project):
        raise UsageError("give either --workload-id or --name/--project, not both")
    if (name is None) != (project is None):
        raise UsageError("--name and --project go together (a name is only unique within a project)")
    if (workload_id or name) and not cluster_id:
        raise UsageError(
            "--workload-id and --name/--project need --cluster-id (the cluster the workload runs on)"
        )
    problem = invalid_workload_id(workload_id) if workload_id else None
    if problem:  # checked before the app starts, as the diagnose command does, so nothing odd is ever sent
        raise UsageError(f"--workload-id: {problem}")
    tenant = tenant_options(args, prefix="tui_")
    live = live_settings(tenant.mode, bool(getattr(args, "tui_live", False)), getattr(args, "tui_seed", None))
    refresh = getattr(args, "tui_refresh", None)
    check_refresh(refresh)
    return dataclasses.replace(
        tenant, cluster_id=cluster_id, workload_id=workload_id, name=name, project=project, live=live,
        refresh_s=refresh,
    )


def flag(option: str) -> str:
    """An option as the command line names it: its flag (`max_workloads` -> `--max-workloads`)."""
    return "--" + option.replace("_", "-")


def tenant_options(args: argparse.Namespace, *, prefix: str = "") -> StartOptions:
    """The tenant the options name (`--demo`, `--case`, `--base-url`, and how Kubernetes is read): the one path
    from options to a tenant, for the app (`prefix` "tui_", its own parser's names) and every command. Raises
    UsageError when two options name different tenants."""
    case = option_text(args, f"{prefix}case")
    mode: Mode = "demo" if getattr(args, f"{prefix}demo", False) else "case" if case else "env"
    base_url = option_text(args, f"{prefix}base_url")
    if base_url and mode != "env":
        raise UsageError(f"--base-url cannot be used with --{mode}: the {mode} tenant has its own address")
    kubeconfig = option_text(args, f"{prefix}kubeconfig")
    kube = KubeSettings(
        kubeconfig=Path(kubeconfig).expanduser() if kubeconfig else None,
        context=option_text(args, f"{prefix}kube_context"),
        enabled=not getattr(args, f"{prefix}no_kube", False),
        named=flag,  # given on a command line, the app's as much as a command's: a reason says them as flags
    )
    return StartOptions(mode=mode, case_path=Path(case).expanduser() if case else None, base_url=base_url, kube=kube)


# The least time between two reads of one list: a user cannot read faster, and a tenant need not answer faster.
MIN_REFRESH_S = 1.0
MAX_REFRESH_S = 3600.0


def check_refresh(seconds: float | None) -> None:
    """--refresh: 0 (off) or 1 to 3600 seconds; raises UsageError otherwise."""
    if seconds is None or seconds == 0:
        return
    if not MIN_REFRESH_S <= seconds <= MAX_REFRESH_S:  # NaN fails this too
        raise UsageError(
            f"--refresh {seconds:g}: give seconds from {MIN_REFRESH_S:g} to {MAX_REFRESH_S:g}, or 0 to read the list "
            "only when asked (r)"
        )


def live_settings(mode: str, live: bool, seed: int | None) -> LiveSettings | None:
    """--live and --seed: the settings of a moving demo tenant; raises UsageError when they do not fit."""
    if not live:
        if seed is not None:
            raise UsageError("--seed chooses the schedule of a live demo tenant: give it with --demo --live")
        return None
    if mode != "demo":
        raise UsageError("--live goes with --demo: only the demo tenant moves (a recorded case stays as recorded)")
    return LiveSettings() if seed is None else LiveSettings(seed=seed)


def started_now(live: LiveSettings | None) -> LiveSettings | None:
    """The settings with the live clock starting now (the moment a simulator's process is started)."""
    return None if live is None else dataclasses.replace(live, epoch=time.time())


def _problem_lines(problems: list[CredentialsProblem]) -> str:
    return "\n".join(f"- {problem}" for problem in problems)


def url_problem(value: str) -> str | None:
    """Why `value` cannot be a tenant URL (not http(s), or no host), or None."""
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        shown = clean_text(value, 120)
        return f"--base-url {shown!r} is not an http(s) URL with a host name (for example https://acme.run.ai)"
    return None


def _real_connection(
    options: StartOptions, env: Mapping[str, str]
) -> tuple[str, Credentials, CliSession | None]:
    if options.base_url is not None and (bad := url_problem(options.base_url)):
        # Said before anything else: with a URL that cannot be a tenant, missing credentials are beside the point.
        raise StartProblem("The Run:ai tenant URL is not usable", bad, BAD_URL_HINTS)
    problems: list[CredentialsProblem] = []
    base_url = options.base_url or base_url_from_env(env, problems=problems)
    credentials: Credentials | None = credentials_from_env(env, problems=problems)
    session: CliSession | None = None
    if credentials is None or base_url is None:
        # The CLI session supplies what the environment lacks: a token, the tenant URL, or both.
        session = load_cli_session(env=env, problems=problems)
    if credentials is None and session is not None:
        credentials = session
    if base_url is None and session is not None and session.base_url:
        base_url = session.base_url
    if base_url is None or credentials is None:
        if base_url is None and credentials is None:
            title, missing = "No Run:ai tenant configured", "a tenant URL or credentials"
        elif base_url is None:
            title, missing = "No Run:ai tenant URL", "a tenant URL"
        else:
            title, missing = "No Run:ai credentials", f"credentials for {base_url}"
        raise StartProblem(
            title,
            f"runai-triage could not find {missing}. What it looked at:\n{_problem_lines(problems)}",
            URL_GIVEN_HINTS if options.base_url is not None else CONNECT_HINTS,
        )
    return base_url, credentials, session


def open_tenant(
    options: StartOptions, env: Mapping[str, str] = os.environ, *, tap: Tap | None = None
) -> OpenedTenant:
    """Open the tenant the options describe (`tap`, for `record`, sees every answer its clients read).
    Raises StartProblem (never anything else for bad input)."""
    if options.mode == "demo":
        return OpenedTenant(open_demo_tenant(tap=tap, live=options.live), options.cluster_id)
    if options.mode == "case":
        assert options.case_path is not None
        from core.sim.bundle import BundleError  # loaded with the bundle it names, not by the program's app

        try:
            return OpenedTenant(open_case_tenant(options.case_path, tap=tap), options.cluster_id)
        except BundleError as exc:
            raise StartProblem("The case bundle cannot be used", str(exc), BUNDLE_HINTS) from None
    base_url, credentials, session = _real_connection(options, env)
    try:
        tenant = open_real_tenant(base_url, credentials, options.kube, tap=tap)
    except ValueError as exc:
        hints = BAD_URL_HINTS if options.base_url is not None else CONNECT_HINTS
        raise StartProblem("The Run:ai tenant URL is not usable", str(exc), hints) from None
    cluster = options.cluster_id or (session.cluster_uuid if session is not None else None)
    return OpenedTenant(tenant, cluster)


class ServedOpener:
    """How the program opens a demo or case tenant: from the simulator's own process (core.sim.process), which
    `first` is when the program started it before loading the app. A retry (`r` on the problem screen) starts
    a new one, so a bundle file fixed meanwhile is read again. Raises StartProblem, as `open_tenant` does."""

    def __init__(self, options: StartOptions, first: SimProcess | None = None) -> None:
        self.options = options
        self._next = first
        self._lock = threading.Lock()

    def __call__(self) -> OpenedTenant:
        with self._lock:
            process, self._next = self._next, None
        case = self.options.case_path if self.options.mode == "case" else None
        if process is None:
            process = SimProcess.start(case, live=started_now(self.options.live) if case is None else None)
        try:
            label = case_label(case) if case is not None else LIVE_DEMO_LABEL if process.live else DEMO_LABEL
            tenant = open_served_tenant(process, label=label)
        except SimProcessFailed as failed:
            raise served_problem(failed) from None
        return OpenedTenant(tenant, self.options.cluster_id)

    def close(self) -> None:
        """Stop a process started for the app that never came to use it (the app ended first)."""
        with self._lock:
            process, self._next = self._next, None
        if process is not None:
            process.stop()


def served_problem(failed: SimProcessFailed) -> StartProblem:
    """What to show when the simulator's process cannot serve: a bundle's problem exactly as `open_tenant`
    words it, anything else with what the process wrote last (cleaned: it is shown as it is)."""
    if failed.bundle_problem:
        return StartProblem("The case bundle cannot be used", failed.what, BUNDLE_HINTS)
    detail = failed.what[:1].upper() + failed.what[1:] + "."
    if failed.stderr:
        # The end says most (a traceback's last line): keep that, cleaned.
        detail += f" What it wrote last: {clean_text(failed.stderr[-600:], 600)}"
    return StartProblem("The simulated tenant did not start", detail, SIMULATOR_HINTS)
