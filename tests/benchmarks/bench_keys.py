"""What handing keys on in turn costs (tui/keys_in_turn.py): a burst of keys, posted to the app together as the
terminal driver does, until the last has taken effect, against the same app handing each key on as it arrives
(Textual's own way), alternating in the same run.

Run: `.venv/bin/python -m tests.benchmarks.bench_keys [--reps N] [--chars N] [--rows N]`

1. Typing: `--chars` characters (default 200) into a focused field of a minimal app, to the field holding them.
2. The picker: `--rows` presses of j (default 20) on the demo tenant's first page (TriageApp, headless 120x40),
   once its background verdicts are done, to the cursor on that row (each press moves the cursor and redraws
   the row detail line).
No target (the issue sets none): the figures say what order costs a burst. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input

from core.sim.demo import load_demo_bundle
from core.tenant import open_bundle_tenant
from tests.benchmarks.harness import alternate, print_ratio
from tui.app import TriageApp
from tui.keys_in_turn import KeysInTurn
from tui.screens.picker.screen import PickerScreen
from tui.widgets.workload_table import WorkloadTable


class FieldInTurn(KeysInTurn):
    def compose(self) -> ComposeResult:
        yield Input(id="field")


class FieldOnArrival(App[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="field")


class PickerOnArrival(TriageApp):
    """The app as it was: each key handed to the widget focused when it arrives."""

    async def on_event(self, event: events.Event) -> None:
        await App.on_event(self, event)


def post_keys(app: App[Any], keys: list[tuple[str, str | None]]) -> None:
    for key, character in keys:
        app.post_message(events.Key(key, character))


async def _until(done: Callable[[], bool]) -> None:
    while not done():
        await asyncio.sleep(0.0005)


def time_typing(app_class: type[App[None]], chars: int) -> float:
    text = ("abcdefghij" * (chars // 10 + 1))[:chars]

    async def run() -> float:
        app = app_class()
        async with app.run_test() as pilot:
            field = app.query_one("#field", Input)
            app.set_focus(field)
            await pilot.pause()
            start = time.perf_counter()
            post_keys(app, [(c, c) for c in text])
            await _until(lambda: field.value == text)
            return time.perf_counter() - start

    return asyncio.run(run())


def time_rows(app_class: type[TriageApp], rows: int) -> float:
    bundle = load_demo_bundle()

    async def run() -> float:
        tenant = open_bundle_tenant(bundle, label="demo tenant")
        app = app_class(tenant=tenant, cursor_blink=False)
        app.animation_level = "none"
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                await _until(lambda: isinstance(app.screen, PickerScreen) and app.screen.first_answer)
                screen = app.screen
                assert isinstance(screen, PickerScreen)
                # The background verdicts of the page done first: the figure is the keys' own cost.
                await _until(lambda: not screen.loading and screen.verdicts_settled)
                table = screen.query_one(WorkloadTable)
                await pilot.pause()
                start = time.perf_counter()
                post_keys(app, [("j", "j")] * rows)
                await _until(lambda: table.cursor_row == rows)
                return time.perf_counter() - start
        finally:
            await tenant.aclose()

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--chars", type=int, default=200)
    parser.add_argument("--rows", type=int, default=20)
    args = parser.parse_args()

    print(f"Typing {args.chars} characters at once into a field ({args.reps} rounds):")
    typing = alternate(
        {"turn": lambda: time_typing(FieldInTurn, args.chars),
         "arrival": lambda: time_typing(FieldOnArrival, args.chars)},
        args.reps,
    )
    print_ratio("in turn", typing["turn"], "on arrival", typing["arrival"], None)

    print(f"{args.rows} presses of j at once on the picker ({args.reps} rounds):")
    rows = alternate(
        {"turn": lambda: time_rows(TriageApp, args.rows), "arrival": lambda: time_rows(PickerOnArrival, args.rows)},
        args.reps,
    )
    print_ratio("in turn", rows["turn"], "on arrival", rows["arrival"], None)


if __name__ == "__main__":
    main()
