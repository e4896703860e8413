"""How fast the terminal app answers on the demo tenant, against a minimal Textual app timed in the same run.

Run: `.venv/bin/python -m tests.benchmarks.bench_tui [--rounds N] [--pages N]`

Every figure is a median of N rounds, the app's and the baseline's alternating (a slow moment of the shared
machine hits both alike):
- first rows, from process start: `runai-triage --demo` in a fresh process until the picker's first rows are
  painted; baseline: a fresh process running a minimal Textual app until its 40-row DataTable is painted (both
  through the same headless driver, `tests/benchmarks/tui_child.py`). The app starts as the program does: the
  simulator's process first (tui/cli.py `launch_app`), then the app's modules, so the rows are what a user
  gets. Target <= 2x;
- enter -> verdict, cold: in a fresh app, `enter` on a failed demo story as soon as the first rows show
  (nothing warmed up yet: what the first diagnosis needs loads on first use), to the diagnosis screen holding its
  report, painted (a full engine run over real HTTP, Tier 2 included); baseline: a fresh app pushing an empty
  screen (one Static) as soon as its first rows show, to that screen's first paint;
- the same, modules loaded first: the cold figure in a process that imported all the first diagnosis loads
  (its screen, the engine, the Kubernetes client, the models' validators) before its app started: what is
  left (the screen's first mount, the run, the paint) is the least any warm-up in the app's process could
  leave (no target: it tells what the cold target would need);
- enter -> verdict, warm: the same again in an app whose every background warm-up has finished (waited for,
  so the timing never races one), the picker's verdict column included: the row's verdict is known, so the
  screen shows that diagnosis's events at once (no read); baseline: that app pushing the empty screen. Target
  <= 5x, cold or warm;
- r -> verdict again, warm: on that screen, `r` (a full engine run over real HTTP, everything loaded), to the
  new report painted; the same baseline (no target: what a diagnosis itself costs, warm);
  (The minimal app's push of the same empty screen is printed beside: the app's own cost of a screen);
- page switch: from `]` to the table showing different rows, with the 2,160-workload demo tenant; baseline:
  a key that updates a label, to the label showing the new text;
- needs attention: from `a` to the first page of that view (one events read per Pending / Running candidate,
  made by the app); baseline: the same label update;
- memory chart: drawing the Memory tab's chart (tui.widgets.memory.canvas) of the OOM story's 983 samples at 120x30;
  baseline: rendering Textual's Sparkline of the same samples at the same width (what the tab drew before).
Every app here (in a fresh process or in this one) serves the demo tenant from the simulator's own process, as
the program does. Prints a table; never asserts a time (the machine is shared, so numbers are only comparable
within a run).

Before the first round this checkout's modules are compiled to bytecode, as installing the package does (and as
the baseline's Textual already is): where PYTHONDONTWRITEBYTECODE is set (this machine sets it) every fresh
process would otherwise compile the app's ~300 modules from source, a cost no installed copy pays.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from rich.console import Console
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.renderables.sparkline import Sparkline
from textual.screen import Screen
from textual.widgets import Static

from core.sim.demo import demo_expectations, load_demo_bundle
from tests.benchmarks.harness import ROOT, python_env
from tests.benchmarks.tui_child import launch, painted, push_empty
from tui.app import program_app
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.picker.screen import PickerScreen
from tui.widgets.memory.canvas import draw
from tui.widgets.memory.plot import plot_spec
from tui.widgets.workload_table import WorkloadTable

SIZE = (120, 40)
# A failed story on the demo's first cluster, newest of the failed ones, so it is on the first page.
STORY = "crash-traceback"
POLL_S = 0.001
DEADLINE_S = 30.0


async def until(ready: Callable[[], bool], what: str) -> None:
    """Yield to the app until `ready()` holds; the same fine-grained poll for the app and the baseline."""
    deadline = time.perf_counter() + DEADLINE_S
    while not ready():
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{what} did not happen within {DEADLINE_S:.0f} s")
        await asyncio.sleep(POLL_S)


def key(app: App[Any], name: str, character: str) -> None:
    """Send one key the way the terminal driver does, without Pilot.press's waits for the app to go idle
    (which would add the same tens of milliseconds to both sides and flatten the ratios)."""
    event = events.Key(name, character)
    event.set_sender(app)
    app.post_message(event)


# -- the minimal app --------------------------------------------------------------------------------------
class _Pushed(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("pushed", id="pushed")

    def on_mount(self) -> None:
        self.app.pushed_at = time.perf_counter()  # type: ignore[attr-defined]


class MinimalApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "bump", "bump"),
        Binding("enter", "push", "push"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.mounted_at: float | None = None
        self.pushed_at: float | None = None
        self.count = 0

    def compose(self) -> ComposeResult:
        yield Static("0", id="label")

    def on_mount(self) -> None:
        self.mounted_at = time.perf_counter()

    def action_bump(self) -> None:
        self.count += 1
        self.query_one("#label", Static).update(str(self.count))

    def action_push(self) -> None:
        self.push_screen(_Pushed())


def _label(app: App[Any]) -> str:
    return str(app.screen.query_one("#label", Static).content)


async def baseline_round() -> dict[str, float]:
    app = MinimalApp()
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.mounted_at is not None, "the minimal app's mount")
        await pilot.pause()

        switches: list[float] = []
        for expected in ("1", "2", "3"):
            t0 = time.perf_counter()
            key(app, "n", "n")
            await until(lambda e=expected: _label(app) == e, "the label update")
            switches.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        key(app, "enter", "\r")
        await until(lambda: app.pushed_at is not None, "the pushed screen")
        await painted(app)
        push = time.perf_counter() - t0
    return {"verdict": push, "page": min(switches), "attention": min(switches)}


def launch_round(mode: str) -> dict[str, float]:
    """One fresh process (tui_child): its first rows from process start, then a key pressed at once."""
    start = time.time()
    done = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.tui_child", mode],
        cwd=ROOT, env=python_env(), capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"tui_child {mode} exited {done.returncode}: {done.stderr[-2000:]}")
    painted, opened = (float(x) for x in done.stdout.split())
    return {"first": painted - start, "cold": opened}


# -- the app ----------------------------------------------------------------------------------------------
def _picker(app: App[Any]) -> PickerScreen | None:
    screen = app.screen
    return screen if isinstance(screen, PickerScreen) else None


def _rows(app: App[Any]) -> list[str]:
    picker = _picker(app)
    # Before its first answer the picker may still be composing, with no table to ask.
    if picker is None or not picker.first_answer or picker.loading:
        return []
    return [w.id or "" for w in picker.query_one(WorkloadTable).workloads]


def _verdict(app: App[Any]) -> bool:
    screen = app.screen
    return isinstance(screen, DiagnosisScreen) and screen.report is not None and not screen.running


async def app_round(pages: int, story_id: str) -> dict[str, float]:
    app = program_app(*launch(), cursor_blink=False)  # as the program runs it: the simulator in its own process
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: bool(_rows(app)), "the picker's first rows")
        # Let the total count land so it does not compete with what is timed next.
        await app.workers.wait_for_complete()
        await pilot.pause()

        switches: list[float] = []
        for _ in range(pages):
            before = _rows(app)
            t0 = time.perf_counter()
            key(app, "right_square_bracket", "]")
            await until(lambda b=before: bool(_rows(app)) and _rows(app) != b, "the next page")
            switches.append(time.perf_counter() - t0)
        for _ in range(pages):
            before = _rows(app)
            key(app, "left_square_bracket", "[")
            await until(lambda b=before: bool(_rows(app)) and _rows(app) != b, "the previous page")

        picker = _picker(app)
        assert picker is not None
        table = picker.query_one(WorkloadTable)
        ids = [w.id for w in table.workloads]
        if story_id not in ids:
            raise RuntimeError(f"{STORY} is not on the first page of the demo picker")
        table.focus()
        table.move_cursor(row=ids.index(story_id))
        # Warm: the first diagnosis has run, and every warm-up the app starts has finished (waited for here, so
        # the timing below never races one).
        key(app, "enter", "\r")
        await until(lambda: _verdict(app), "the first verdict")
        key(app, "escape", "\x1b")
        await until(lambda: _picker(app) is not None, "the picker again")
        assert app.tenant is not None
        if hasattr(app.tenant, "start_opening_kube"):
            await asyncio.wrap_future(app.tenant.start_opening_kube())
        else:  # a checkout from before Tier 2 opened in its own thread
            await asyncio.to_thread(app.tenant.warm_kube)
        for thread in threading.enumerate():  # the app's warm-up of the engine (started a second after launch)
            if thread.name == "diagnosis-warm-up":
                await asyncio.to_thread(thread.join)
        await app.workers.wait_for_complete()
        # The verdict column's diagnoses of this page (paused while the first diagnosis was on top) finish too.
        await until(lambda: picker.verdicts_settled, "the verdict column")
        await app.workers.wait_for_complete()
        await pilot.pause()
        empty = await push_empty(app)
        app.pop_screen()
        await until(lambda: _picker(app) is not None, "the picker again")
        await pilot.pause()

        t0 = time.perf_counter()
        key(app, "enter", "\r")
        await until(lambda: _verdict(app), "the verdict")
        await painted(app)
        verdict = time.perf_counter() - t0
        screen = app.screen
        assert isinstance(screen, DiagnosisScreen)
        t0 = time.perf_counter()
        key(app, "r", "r")
        await until(lambda s=screen: s.running or s.report is None, "the rerun")
        await until(lambda: _verdict(app), "the rerun's verdict")
        await painted(app)
        rerun = time.perf_counter() - t0
        key(app, "escape", "\x1b")
        await until(lambda: _picker(app) is not None, "the picker again")
        picker = _picker(app)
        assert picker is not None
        t0 = time.perf_counter()
        key(app, "a", "a")
        await until(lambda: bool(_rows(app)) and picker.picker_query.attention, "the needs-attention page")
        attention = time.perf_counter() - t0
        page = picker._page
        reads = page.attention.event_reads if page is not None and page.attention is not None else 0
    return {
        "verdict": verdict, "rerun": rerun, "empty": empty, "page": min(switches), "attention": attention,
        "reads": reads,
    }


def chart_round() -> dict[str, float]:
    """The memory chart's cost: drawing the chart into cells, against rendering a Sparkline of the same data."""
    bundle = load_demo_bundle()
    case = {c["key"]: c for c in demo_expectations()}["oom-rising"]
    entry = next(e for e in bundle.workloads if e["workload"]["id"] == case["workloadId"])
    series = next(m for m in entry["metrics"] if m["type"] == "CPU_MEMORY_USAGE_BYTES")
    samples = [(datetime.fromisoformat(v["timestamp"].replace("Z", "+00:00")), int(float(v["value"])))
               for v in series["values"]]
    width, height = 120, 30
    t0 = time.perf_counter()
    spec = plot_spec(samples, 48 * 1024**3, 48 * 1024**3)
    assert spec is not None
    assert draw(spec, width, height) is not None
    chart = time.perf_counter() - t0
    with open(os.devnull, "w", encoding="utf-8") as sink:
        console = Console(width=width, file=sink, force_terminal=True)
        t0 = time.perf_counter()
        console.print(Sparkline([float(v) for _, v in samples], width=width))
        spark = time.perf_counter() - t0
    return {"chart": chart, "spark": spark}


# -- report -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    key: str
    what: str
    baseline: str
    target: float | None = None


ROWS = (
    Row("first", "first picker rows (--demo)", "40-row DataTable shown", 2.0),
    Row("cold", "enter -> verdict, cold", "app: empty screen push", 5.0),
    Row("floor", "  same, modules loaded first", "app: empty screen push", None),
    Row("verdict", "enter -> verdict, warm", "app: empty screen push", 5.0),
    Row("rerun", "r -> verdict again, warm", "app: empty screen push"),
    Row("page", "] -> next page rows (2,160 wl)", "key -> label updated"),
    Row("attention", "a -> needs-attention rows", "key -> label updated"),
)


def medians(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {name: statistics.median(r[name] for r in rounds) for name in rounds[0]}


def compile_checkout() -> int:
    """Bytecode for this checkout's packages, written where imports look for it; the number of files."""
    import compileall

    packages = [ROOT / name for name in ("core", "tui", "styles", "tests")]
    results = [compileall.compile_dir(str(p), quiet=1) for p in packages if p.is_dir()]
    if not all(results):
        raise RuntimeError("this checkout did not compile")
    return sum(1 for p in packages for _ in p.rglob("*.py"))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each app (median is reported)")
    parser.add_argument("--pages", type=int, default=3, help="page switches timed per round")
    args = parser.parse_args()
    story = {c["key"]: c for c in demo_expectations()}[STORY]
    rounds = max(1, args.rounds)
    compiled = compile_checkout()

    launches: dict[str, list[dict[str, float]]] = {"app": [], "app-preloaded": [], "app-empty": [], "baseline": []}
    base_rounds: list[dict[str, float]] = []
    app_rounds: list[dict[str, float]] = []
    for _ in range(rounds):
        # Interleaved so a slow moment of the shared machine hits both sides alike.
        for mode, launched in launches.items():
            launched.append(launch_round(mode))
        base_rounds.append(asyncio.run(baseline_round()))
        app_rounds.append(asyncio.run(app_round(max(1, args.pages), story["workloadId"])))
    minimal, ours = medians(base_rounds), medians(app_rounds)
    first_app, first_base = medians(launches["app"]), medians(launches["baseline"])
    floor = medians(launches["app-preloaded"])["cold"]
    ours |= {"first": first_app["first"], "cold": first_app["cold"], "floor": floor}
    empty_cold = medians(launches["app-empty"])["cold"]
    base = minimal | {
        "first": first_base["first"], "cold": empty_cold, "floor": empty_cold, "verdict": ours["empty"],
        "rerun": ours["empty"],
    }

    print(f"terminal app vs a minimal Textual app, headless {SIZE[0]}x{SIZE[1]}, median of {rounds}")
    print(f"{'measure':32s} {'app':>9s}   {'baseline':22s} {'baseline':>9s} {'ratio':>7s}")
    for row in ROWS:
        ratio = ours[row.key] / base[row.key] if base[row.key] > 0 else float("nan")
        target = "" if row.target is None else f"  target <= {row.target:g}x: " + (
            "meets" if ratio <= row.target else "MISSES"
        )
        print(
            f"{row.what:32s} {ours[row.key] * 1000:7.1f}ms   {row.baseline:22s} "
            f"{base[row.key] * 1000:7.1f}ms {ratio:6.1f}x{target}"
        )
    print("(first rows: from process start, in a fresh process each; cold verdict: in that same process)")
    print("(modules loaded first: the cold verdict in a process that imported everything the first diagnosis loads")
    print(" before its app started, so what is left is the screen's first mount, the run and its paint: the floor")
    print(" for the cold figure of any warm-up done in this process)")
    print(f"(the minimal app pushes the same empty screen in {first_base['cold'] * 1000:.1f} ms cold, "
          f"{minimal['verdict'] * 1000:.1f} ms warm)")
    print(f"(bytecode of this checkout's {compiled} modules compiled before the first round, as an install does)")
    print(f"(the needs-attention page made {int(app_rounds[-1]['reads'])} events reads)")
    charts = [chart_round() for _ in range(rounds)]
    drawn = statistics.median(c["chart"] for c in charts)
    spark = statistics.median(c["spark"] for c in charts)
    print(
        f"{'memory chart, 983 samples 120x30':32s} {drawn * 1000:7.1f}ms   {'Sparkline, same data':22s} "
        f"{spark * 1000:7.1f}ms {drawn / spark:6.1f}x"
    )


if __name__ == "__main__":
    main()
