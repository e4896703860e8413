"""How fast the terminal app answers on the demo tenant, against a minimal Textual app timed in this process.

Run: `.venv/bin/python -m tests.benchmarks.bench_tui [--rounds N] [--pages N]`

Measured headless (`App.run_test`), with `time.perf_counter`, best of N rounds:
- first rows: from creating the app (`--demo`: the bundle is read and served on loopback) to the picker
  showing its first page of rows; baseline: a one-Static app from creation to that Static's mount;
- verdict: from `enter` on a failed demo story's row to the diagnosis screen holding its report (a full
  engine run over real HTTP); baseline: a key that pushes a one-Static screen, to that screen's mount;
- page switch: from `]` to the table showing different rows, with the 2,160-workload demo tenant; baseline:
  a key that updates a label, to the label showing the new text;
- needs attention: from `a` to the first page of that view (one events read per Pending / Running candidate,
  made by the app); baseline: the same label update;
- memory chart: building the Memory tab's textual-plotext chart of the OOM story's 983 samples at 120x30;
  baseline: rendering Textual's Sparkline of the same samples at the same width (what the tab drew before).
Prints a table; never asserts a time (the machine is shared, so numbers are only comparable within a run).
"""

from __future__ import annotations

import argparse
import asyncio
import os
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
from textual_plotext.plot import Plot

from core.sim.demo import demo_expectations, load_demo_bundle
from tui.app import TriageApp
from tui.screens.diagnosis import DiagnosisScreen
from tui.screens.picker import PickerScreen
from tui.start import StartOptions
from tui.widgets.memory_plot import plot_spec
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
    start = time.perf_counter()
    app = MinimalApp()
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.mounted_at is not None, "the minimal app's mount")
        assert app.mounted_at is not None
        first = app.mounted_at - start
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
        push = time.perf_counter() - t0
    return {"first": first, "verdict": push, "page": min(switches), "attention": min(switches)}


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


async def app_round(pages: int, story_id: str) -> dict[str, float]:
    start = time.perf_counter()
    app = TriageApp(StartOptions(mode="demo"), cursor_blink=False)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: bool(_rows(app)), "the picker's first rows")
        first = time.perf_counter() - start
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
        await pilot.pause()

        def done() -> bool:
            screen = app.screen
            return isinstance(screen, DiagnosisScreen) and screen.report is not None and not screen.running

        t0 = time.perf_counter()
        key(app, "enter", "\r")
        await until(done, "the verdict")
        verdict = time.perf_counter() - t0
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
    return {"first": first, "verdict": verdict, "page": min(switches), "attention": attention, "reads": reads}


def chart_round() -> dict[str, float]:
    """The memory chart's cost: plotext building the chart, against rendering a Sparkline of the same data."""
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
    plot = Plot()
    plot.plotsize(width, height)
    plot.plot(spec.xs, spec.ys, marker="braille")
    plot.plot([spec.xs[0], spec.xs[-1]], [spec.limit] * 2, marker="braille")
    plot.xticks(spec.x_ticks, spec.x_labels)
    plot.yticks(spec.y_ticks, spec.y_labels)
    plot.build()
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


ROWS = (
    Row("first", "first picker rows (--demo)", "minimal app mounted"),
    Row("verdict", "enter -> verdict (demo story)", "key -> screen pushed"),
    Row("page", "] -> next page rows (2,160 wl)", "key -> label updated"),
    Row("attention", "a -> needs-attention rows", "key -> label updated"),
)


def best(rounds: list[dict[str, float]]) -> dict[str, float]:
    # Every number is a time except the app's event-read count, which is the same in every round.
    return {name: min(r[name] for r in rounds) for name in rounds[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each app (best is reported)")
    parser.add_argument("--pages", type=int, default=3, help="page switches timed per round")
    args = parser.parse_args()
    story = {c["key"]: c for c in demo_expectations()}[STORY]

    base_rounds: list[dict[str, float]] = []
    app_rounds: list[dict[str, float]] = []
    for _ in range(max(1, args.rounds)):
        # Interleaved so a slow moment of the shared machine hits both sides alike.
        base_rounds.append(asyncio.run(baseline_round()))
        app_rounds.append(asyncio.run(app_round(max(1, args.pages), story["workloadId"])))
    base, ours = best(base_rounds), best(app_rounds)
    loads: list[float] = []
    for _ in range(max(1, args.rounds)):
        t0 = time.perf_counter()
        load_demo_bundle()
        loads.append(time.perf_counter() - t0)

    print(f"terminal app vs a minimal Textual app, headless {SIZE[0]}x{SIZE[1]}, best of {args.rounds}")
    print(f"{'measure':32s} {'app':>9s}   {'baseline':22s} {'baseline':>9s} {'ratio':>7s}")
    for row in ROWS:
        ratio = ours[row.key] / base[row.key] if base[row.key] > 0 else float("nan")
        print(
            f"{row.what:32s} {ours[row.key] * 1000:7.1f}ms   {row.baseline:22s} "
            f"{base[row.key] * 1000:7.1f}ms {ratio:6.1f}x"
        )
    print(f"(first rows include reading and validating the demo bundle: {min(loads) * 1000:.1f} ms alone)")
    print(f"(the needs-attention page made {int(app_rounds[-1]['reads'])} events reads)")
    charts = [chart_round() for _ in range(max(1, args.rounds))]
    plotext, spark = min(c["chart"] for c in charts), min(c["spark"] for c in charts)
    print(
        f"{'memory chart, 983 samples 120x30':32s} {plotext * 1000:7.1f}ms   {'Sparkline, same data':22s} "
        f"{spark * 1000:7.1f}ms {plotext / spark:6.1f}x"
    )


if __name__ == "__main__":
    main()
