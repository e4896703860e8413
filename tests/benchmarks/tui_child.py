"""One launch timed by bench_tui, in a fresh process, headless: `app`, `app-empty` or `baseline`.

`python -m tests.benchmarks.tui_child MODE` prints two numbers and exits: the wall-clock time (`time.time()`) at
which the first rows of its table were painted (the parent subtracts the moment it started this process), and
the seconds from an action taken right then to what it opens, cold (nothing warmed up yet):
- `app` (`runai-triage --demo`): `enter` on a failed demo story, to the diagnosis screen holding its report,
  painted;
- `app-preloaded`: `app`, in a process that loaded what the first diagnosis loads before its app started;
- `app-empty`: the same app pushing an empty screen (one Static), to that screen's first paint;
- `baseline`: a minimal Textual app showing a 40-row DataTable; then it pushes the same empty screen.
`app` and `app-empty` start the app the way the program does (`launch`): first thing, before anything else
loads, `tui.cli` reads the options and calls `launch_app` as `runai-triage` does (the collector off for the
start-up, the demo tenant's simulator started in a process of its own), then the app's modules load and
`tui.app.program_app` builds the app `run_tui` runs; the first rows come from that process, as a user's do.
All run through `App.run_test` (the same headless driver) at the same size, and count "painted" the same way:
rows in the table, then one screen refresh after.
"""

from __future__ import annotations

import sys
import time
from typing import Any

SIZE = (120, 40)
DEADLINE_S = 60.0


async def _until(ready, what: str) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    deadline = time.monotonic() + DEADLINE_S
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not happen within {DEADLINE_S:.0f} s")
        await asyncio.sleep(0.001)


async def painted(app) -> None:  # type: ignore[no-untyped-def]
    """Wait for the screen's next refresh: what is on it now has been painted."""
    import asyncio

    done = asyncio.Event()
    app.screen.call_after_refresh(done.set)
    await asyncio.wait_for(done.wait(), DEADLINE_S)


def key(app, name: str, character: str) -> None:  # type: ignore[no-untyped-def]
    """Send one key the way the terminal driver does, without Pilot.press's waits for the app to go idle."""
    from textual import events

    event = events.Key(name, character)
    event.set_sender(app)
    app.post_message(event)


async def push_empty(app) -> float:  # type: ignore[no-untyped-def]
    """Seconds from pushing an empty screen (one Static) to its first paint."""
    from textual.app import ComposeResult
    from textual.screen import Screen
    from textual.widgets import Static

    mounted: list[float] = []

    class Empty(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Static("empty")

        def on_mount(self) -> None:
            mounted.append(time.perf_counter())

    start = time.perf_counter()
    app.push_screen(Empty())
    await _until(lambda: bool(mounted), "the empty screen")
    await painted(app)
    return time.perf_counter() - start


async def baseline() -> tuple[float, float]:
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    class Table(App[None]):
        def compose(self) -> ComposeResult:
            yield DataTable()

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns("name", "project", "phase", "age")
            table.add_rows([(f"workload-{i}", "nlp", "Failed", f"{i}m") for i in range(40)])

    app = Table()
    async with app.run_test(size=SIZE):
        await _until(lambda: app.query_one(DataTable).row_count == 40, "the baseline's rows")
        await painted(app)
        return time.time(), await push_empty(app)


def launch(argv: tuple[str, ...] = ("--demo",)) -> tuple[Any, Any]:
    """What `runai-triage` does before its app's modules load (tui/cli.py `main`): the options read, and the
    simulator's process started for them. Returns (options, the started process)."""
    from tui.cli import app_arguments, launch_app

    args = app_arguments(argv)
    assert args is not None, f"{argv} does not open the app"
    return args, launch_app(args)


async def triage(launched: tuple[Any, Any], empty: bool) -> tuple[float, float]:
    from tui.app import program_app
    from tui.screens.picker.screen import PickerScreen
    from tui.widgets.workload_table import WorkloadTable

    app = program_app(*launched, cursor_blink=False)
    app.animation_level = "none"

    def rows() -> bool:
        screen = app.screen
        if not isinstance(screen, PickerScreen) or not screen.first_answer or screen.loading:
            return False
        return screen.query_one(WorkloadTable).row_count > 0

    async with app.run_test(size=SIZE):
        await _until(rows, "the picker's first rows")
        await painted(app)
        shown = time.time()
        if empty:
            return shown, await push_empty(app)
        from core.sim.demo import demo_expectations  # the benchmark's own lookup, after the timed part

        story = {c["key"]: c for c in demo_expectations()}[STORY]["workloadId"]
        table = app.screen.query_one(WorkloadTable)
        table.move_cursor(row=[w.id for w in table.workloads].index(story))
        start = time.perf_counter()
        key(app, "enter", "\r")
        await _until(lambda: verdict_shown(app), "the verdict")
        await painted(app)
        return shown, time.perf_counter() - start


def preload() -> None:
    """What the first diagnosis loads (the app's warm-up loads the same, tui/app.py `_load_diagnosis`): its
    screen and the engine, the picker's verdict worker, the Kubernetes client, the models' validators."""
    import importlib

    for module in ("tui.screens.diagnosis.open", "core.triage.batch", "core.sources.kube"):
        importlib.import_module(module)
    from core.models.fast import prepare_all

    prepare_all()


def verdict_shown(app) -> bool:  # type: ignore[no-untyped-def]
    from tui.screens.diagnosis.screen import DiagnosisScreen  # loaded by the app by then: costs nothing here

    screen = app.screen
    return isinstance(screen, DiagnosisScreen) and screen.report is not None and not screen.running


# A failed story on the demo's first cluster, newest of the failed ones, so it is on the first page.
STORY = "crash-traceback"

if __name__ == "__main__":
    mode = sys.argv[1]
    launched = None if mode == "baseline" else launch()  # first thing, as the program does
    if mode == "app-preloaded":
        preload()
    import asyncio

    if launched is None:
        first, opened = asyncio.run(baseline())
    else:
        first, opened = asyncio.run(triage(launched, empty=mode == "app-empty"))
    print(f"{first:.6f} {opened:.6f}", flush=True)
