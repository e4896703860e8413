"""The Textual app: opens the tenant in a worker, then shows the picker (or the problem screen). `run_tui` runs
it for the command line, which imports this module only when no subcommand is given.

Diagnosis is reached through one seam, `TriageApp.open_diagnosis`, called for a `WorkloadChosen` message and
for `--workload-id` / `--name --project` at start-up; the diagnosis screen plugs in there.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.filter import LineFilter, Monochrome, NoColor
from textual.theme import Theme
from textual.widgets import Static

import styles
from core.safety.untrusted import clean
from core.sources.kube_types import KUBE_OFF
from core.tenant import Tenant
from tui.clock import Clock, frozen_clock, system_clock
from tui.commands.start import (
    CONNECT_HINTS,
    OpenedTenant,
    ServedOpener,
    StartOptions,
    StartProblem,
    UsageError,
    open_tenant,
    options_from_args,
)
from tui.keys_in_turn import KeysInTurn
from tui.messages import DiagnosisTarget, StartFailed, TenantOpened, WorkloadChosen
from tui.screens.help import HelpScreen, KeysProvider, key_entries
from tui.screens.picker.pace import refresh_interval
from tui.screens.picker.screen import PickerScreen
from tui.screens.problem import ProblemScreen
from tui.settings import config_dir as settings_dir
from tui.settings import load_settings, update_settings
from tui.widgets.footer import KeysFooter
from tui.widgets.top_bar import TopBar

if TYPE_CHECKING:  # the engine loads after the first page (see _warm_up)
    from core.diagnosis.progress import ProgressEvent
    from core.sim.process import SimProcess

STYLES_DIR = Path(styles.__file__).parent
ATTENTION_NOTE = (
    "a (needs attention) lists Failed and Stopped workloads, and Pending, Running or Degraded ones whose status "
    "or recent events show a failing pod. The server drops the phases that never need a diagnosis; whether a "
    "Pending or Running row has a failing pod is checked here, row by row, as the diagnosis's first step does "
    "(one events read per such row), so its pages are walked in order and the last page is not known ahead."
)


class TriageApp(KeysInTurn):
    CSS_PATH: ClassVar[list[str | Path]] = [
        STYLES_DIR / "app.tcss",
        STYLES_DIR / "picker.tcss",
        STYLES_DIR / "dialogs.tcss",
        STYLES_DIR / "nodes.tcss",
    ]
    TITLE = "runai-triage"
    COMMANDS = App.COMMANDS | {KeysProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "help", key_display="?", tooltip="Every key of this screen"),
        Binding("colon", "command_palette", "commands", key_display=":", tooltip="Search every command"),
        Binding("q", "quit", "quit", tooltip="Leave runai-triage"),
        Binding("ctrl+c", "quit", "quit", show=False, priority=True),
        # While the tenant opens nothing can be diagnosed yet: enter says so rather than vanish.
        Binding("enter", "still_opening", "still opening", show=False),
    ]

    def __init__(
        self,
        options: StartOptions | None = None,
        *,
        tenant: Tenant | None = None,
        opener: Callable[[], OpenedTenant] | None = None,
        clock: Clock | None = None,
        env: Mapping[str, str] | None = None,
        debounce_s: float = 0.4,
        cursor_blink: bool = True,
        config_dir: Path | None = None,
        freeze_after_open: bool = False,
    ) -> None:
        """`tenant`: use this one (the caller closes it). `opener`: how to open one (the app closes it).
        Neither: open what `options` describe. `clock` overrides "now" (default: the bundle's capture time
        for demo and case tenants, the wall clock for a real one). `config_dir` holds the user's settings
        (default: the platform's config directory, `$XDG_CONFIG_HOME/runai-triage` when that is set).
        `freeze_after_open` (the program sets it; tests, which open many apps in one process, do not): once the
        tenant is open, what start-up loaded (its modules; a bundle served from this process) goes to the
        collector's permanent generation, so no later collection walks it again; and the collector, which the
        program turns off for its start-up (tui.cli.launch_app), is on again from the warm-up, or from a failed
        start."""
        super().__init__()
        self.options = options or StartOptions()
        self._given = tenant
        self._env = env if env is not None else os.environ
        self._opener = opener or (lambda: open_tenant(self.options, self._env))
        self._clock_override = clock
        self._debounce_s = debounce_s
        self._cursor_blink = cursor_blink
        self._owns_tenant = False
        self.tenant: Tenant | None = None
        self.clock: Clock = clock or system_clock
        self.diagnosis_requests: list[DiagnosisTarget] = []
        self.config_dir = config_dir if config_dir is not None else settings_dir(self._env)
        self.settings_problem: str | None = None
        self.saved_refresh_s: float | None = None  # the picker's refresh interval from the settings, if saved
        self._no_colour_filters = (NoColor(), Monochrome())
        self._freeze_after_open = freeze_after_open

    @property
    def kube_off(self) -> str | None:
        """Why Tier 2 is not read although the tenant could offer it (`--no-kube` with --demo or --case), with the
        option named as the user gave it (the app's start-up options are flags)."""
        if self.options.kube.enabled:
            return None
        return KUBE_OFF.worded(self.options.kube.named)

    def compose(self) -> ComposeResult:
        yield TopBar(f"opening {self.options.describe()}")
        yield Static(Text(clean(f"Opening {self.options.describe()}…", one_line=True)), id="start-message")
        yield KeysFooter()

    def on_mount(self) -> None:
        self._restore_theme()
        if self._given is not None:
            self.post_message(TenantOpened(OpenedTenant(self._given, self.options.cluster_id)))
        else:
            self._open_tenant()

    async def on_unmount(self) -> None:
        if self.tenant is not None and self._owns_tenant:
            await self.tenant.aclose()
        if isinstance(self._opener, ServedOpener):
            self._opener.close()  # a simulator started for this app that it never came to use

    def get_line_filters(self) -> Sequence[LineFilter]:
        filters = super().get_line_filters()
        if not self.no_color:
            return filters
        # With NO_COLOR, Textual picks "no colour" or "monochrome" once, for the theme the app starts with; an
        # ANSI theme chosen later under monochrome turns every colour black. Follow the theme in use instead.
        no_colour, monochrome = self._no_colour_filters
        kept = [f for f in filters if not isinstance(f, Monochrome | NoColor)]
        return [*kept, no_colour if self.native_ansi_color else monochrome]

    # -- settings -----------------------------------------------------------------------------------------
    def _restore_theme(self) -> None:
        saved, problem = load_settings(self.config_dir)
        self.settings_problem = problem
        self.saved_refresh_s = saved.refresh_s
        if saved.theme and saved.theme in self.available_themes:
            self.theme = saved.theme
        # Subscribed after the restore, so only a theme the user picks is written back.
        self.theme_changed_signal.subscribe(self, self._save_theme)

    def _save_theme(self, theme: Theme) -> None:
        problem = update_settings(self.config_dir, theme=theme.name)
        if problem is not None:
            self.notify(problem, title="theme not kept", severity="warning", markup=False)

    # -- start-up -----------------------------------------------------------------------------------------
    @work(thread=True, group="app-open", exclusive=True, exit_on_error=False)
    def _open_tenant(self) -> None:
        # Opening reads files and may start a loopback server: done in a thread so the UI paints at once.
        try:
            opened = self._opener()
        except StartProblem as problem:
            self.post_message(StartFailed(problem))
            return
        except Exception as exc:  # an unexpected failure still gets the problem screen, not a traceback
            detail = clean(f"{type(exc).__name__}: {exc}", max_len=600)
            self.post_message(StartFailed(StartProblem("Start-up failed", detail, CONNECT_HINTS)))
            return
        if self._freeze_after_open:
            gc.freeze()  # the demo bundle alone is ~600,000 objects, freshly made: never worth walking
        self.post_message(TenantOpened(opened))

    def on_tenant_opened(self, message: TenantOpened) -> None:
        tenant = message.opened.tenant
        self.tenant = tenant
        self._owns_tenant = self._given is None
        if self._clock_override is not None:
            self.clock = self._clock_override
        elif tenant.live_clock is not None:  # a live demo: the simulator's own moving clock
            self.clock = tenant.live_clock
        elif tenant.captured_at is not None:
            self.clock = frozen_clock(tenant.captured_at)
        else:
            self.clock = system_clock
        cluster = message.opened.cluster_id or self.options.cluster_id
        picker = PickerScreen(
            tenant,
            self.clock,
            cluster_id=cluster,
            live_clock=self._clock_override is None and (tenant.captured_at is None or tenant.live_clock is not None),
            debounce_s=self._debounce_s,
            cursor_blink=self._cursor_blink,
            refresh_s=refresh_interval(self.options.refresh_s, self.saved_refresh_s, tenant),
        )
        self._show(picker)
        # While the user looks at the first page, load what a diagnosis needs (the diagnosis screen and the
        # engine, then the Kubernetes client), so the first diagnosis need not wait; a second later, so it does
        # not compete with fetching and showing that page. Daemon threads: quitting never waits for them.
        self.set_timer(1.0, self._warm_up)
        if self.options.wants_diagnosis:
            o = self.options
            self.open_diagnosis(DiagnosisTarget(o.cluster_id, o.workload_id, o.name, o.project))

    def _warm_up(self) -> None:
        freeze = self._freeze_after_open
        if freeze:
            gc.enable()  # off since the program started (tui.cli.launch_app): the first page is shown by now
        threading.Thread(target=_load_diagnosis, args=(freeze,), name="diagnosis-warm-up", daemon=True).start()
        if self.kube_off is None and self.tenant is not None:
            opening = self.tenant.start_opening_kube()
            if freeze:  # the kubernetes client is ~300 modules of long-lived objects, like the engine's
                opening.add_done_callback(lambda _: gc.freeze())

    def on_start_failed(self, message: StartFailed) -> None:
        if self._freeze_after_open:
            gc.enable()  # as the warm-up would have (see _warm_up)
        self._show(ProblemScreen(message.problem, f"not connected · {self.options.describe()}"))

    def _show(self, screen: PickerScreen | ProblemScreen) -> None:
        if isinstance(self.screen, ProblemScreen):
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "still_opening":
            return self.tenant is None and len(self.screen_stack) == 1  # the start-up screen alone
        return True

    def action_still_opening(self) -> None:
        self.notify(
            f"Still opening {self.options.describe()}: enter diagnoses the highlighted workload once the list "
            "shows.",
            timeout=3,
            markup=False,
        )

    def action_restart(self) -> None:
        """Try opening the tenant again (from the problem screen, after fixing the environment)."""
        if self.tenant is None:
            self._open_tenant()

    # -- diagnosis seam -----------------------------------------------------------------------------------
    def on_workload_chosen(self, message: WorkloadChosen) -> None:
        self.open_diagnosis(
            DiagnosisTarget(message.cluster_id, message.workload_id, message.name, message.project), message.replay
        )

    def open_diagnosis(self, target: DiagnosisTarget, replay: tuple[ProgressEvent, ...] = ()) -> None:
        """Push the live diagnosis of `target` on `self.tenant`, with `self.clock` as "now" (or, with `replay`,
        the picker's background diagnosis of it, at once)."""
        self.diagnosis_requests.append(target)
        if self.tenant is not None:
            # Loaded on first use (or by the warm-up below, if it came first): the first page need not wait.
            from core.diagnosis.request import IN_CASE_BUNDLE
            from tui.screens.diagnosis.open import show_diagnosis

            where = IN_CASE_BUNDLE if self.options.mode == "case" else None
            show_diagnosis(self, self.tenant, target, self.clock, kube_off=self.kube_off, replay=replay, where=where)

    # -- help ---------------------------------------------------------------------------------------------
    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        extra = ATTENTION_NOTE if isinstance(self.screen, PickerScreen) else ""
        self.push_screen(HelpScreen(key_entries(self.screen, self), extra))


def _load_diagnosis(freeze: bool) -> None:
    """What the first diagnosis would otherwise load when `enter` is pressed: its screen and the engine, and the
    validators of the models it reads. With `freeze` (the program), what that loaded goes to the collector's
    permanent generation, as start-up's did: left in the young generations, it made every full collection of a
    later diagnosis walk it again (a tenth of a second each, mid-diagnosis)."""
    from tui.loading import load

    load("tui.screens.diagnosis.open")  # for its side effect: the modules are ready on first use
    load("core.models.fast").prepare_all()
    if freeze:
        gc.freeze()


def program_app(args: argparse.Namespace, simulator: SimProcess | None, **overrides: bool) -> TriageApp:
    """The app as the program runs it, on the simulator `tui.cli.launch_app` started for `--demo` or `--case`
    (None: what the options describe, opened in this process). Raises UsageError for options that do not fit
    together (the simulator is stopped then). `overrides`: TriageApp options (tests, benchmarks)."""
    try:
        options = options_from_args(args)
    except UsageError:
        if simulator is not None:
            simulator.stop()
        raise
    opener = ServedOpener(options, simulator) if simulator is not None else None
    return TriageApp(options, opener=opener, **({"freeze_after_open": True} | overrides))


def run_tui(args: argparse.Namespace, simulator: SimProcess | None = None) -> int:
    """Run the interactive app for parsed arguments; returns the process exit status."""
    try:
        app = program_app(args, simulator)
    except UsageError as exc:
        print(f"runai-triage: error: {exc}", file=sys.stderr)
        return 2
    app.run()
    return int(app.return_code or 0)
