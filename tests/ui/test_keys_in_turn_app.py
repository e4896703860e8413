"""The mechanism of tui/keys_in_turn.py on a minimal app: a long burst reaches the focused field whole and in
order; a key that moves the focus sends the keys after it to the new place (a field it focuses, a screen it
pushes); a marker that never comes back holds the next key only until the turn's limit; a priority key never
waits."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from tui.keys_in_turn import KeysInTurn, KeyTurn


async def until(pilot: Pilot[None], done: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for a state, not for idleness (a loaded machine makes the app look idle between two keys)."""
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        await pilot.pause(0.02)


def burst(app: KeysInTurn, text: str) -> None:
    """Post one key per character at once, as the driver does for keys read from the terminal together."""
    for character in text:
        app.post_message(events.Key(character, character))


class Swallower(Vertical, can_focus=True):
    """A widget that stops the marker behind each key, so it never comes back; it counts the keys it sees."""

    def __init__(self) -> None:
        super().__init__(id="swallower")
        self.seen: list[tuple[str, float]] = []

    def on_key(self, event: events.Key) -> None:
        self.seen.append((event.key, time.monotonic()))

    def on_key_turn(self, message: KeyTurn) -> None:
        message.stop()


class FieldScreen(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Input(id="pushed")


class Keys(KeysInTurn):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "focus_field", "field"),
        Binding("o", "open_screen", "screen"),
        Binding("ctrl+t", "urgent", "urgent", priority=True),
    ]
    KEY_TURN_LIMIT_S = 0.3

    def __init__(self, swallow: bool = False) -> None:
        super().__init__()
        self.swallow = swallow
        self.urgent_at = 0.0

    def compose(self) -> ComposeResult:
        yield Swallower() if self.swallow else Vertical(id="plain")
        yield Input(id="field")

    def on_mount(self) -> None:
        self.set_focus(self.query_one("#swallower" if self.swallow else "#field"))

    def action_focus_field(self) -> None:
        self.query_one("#field", Input).focus()  # Textual moves the focus later: the keys after must follow

    def action_open_screen(self) -> None:
        self.push_screen(FieldScreen())

    def action_urgent(self) -> None:
        self.urgent_at = time.monotonic()


async def test_a_long_burst_reaches_the_focused_field_whole_and_in_order() -> None:
    app = Keys()
    text = "the quick brown fox jumps over the lazy dog 0123456789 " * 3
    async with app.run_test() as pilot:
        field = app.query_one("#field", Input)
        burst(app, text)
        await until(pilot, lambda: len(field.value) >= len(text))
        assert field.value == text
        await until(pilot, lambda: not app._batch_count)
        assert not app._batch_count, "the screen is not drawn again after the burst"


async def test_keys_after_one_that_focuses_a_field_go_into_it() -> None:
    app = Keys()
    async with app.run_test() as pilot:
        app.set_focus(None)
        await pilot.pause()
        field = app.query_one("#field", Input)
        burst(app, "fof")  # f focuses the field: "of" are text there, not the bindings o and f
        await until(pilot, lambda: field.value == "of" or len(app.screen_stack) > 1)
        assert field.value == "of"
        assert len(app.screen_stack) == 1


async def test_keys_after_one_that_pushes_a_screen_go_to_that_screen() -> None:
    app = Keys()
    async with app.run_test() as pilot:
        app.set_focus(None)
        await pilot.pause()
        burst(app, "ofo")
        await until(pilot, lambda: isinstance(app.screen, FieldScreen) and app.screen.query_one(Input).value == "fo")
        assert isinstance(app.screen, FieldScreen)
        assert app.screen.query_one("#pushed", Input).value == "fo"


async def test_a_marker_that_never_comes_back_holds_the_next_key_only_until_the_limit() -> None:
    app = Keys(swallow=True)
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, "xy")
        swallower = app.query_one(Swallower)
        await until(pilot, lambda: len(swallower.seen) == 2)
        assert [key for key, _ in swallower.seen] == ["x", "y"]
        (_, x_at), (_, y_at) = swallower.seen
        assert y_at - x_at >= 0.9 * Keys.KEY_TURN_LIMIT_S  # held by the turn of x, then let go


async def test_a_priority_key_never_waits_behind_other_keys() -> None:
    app = Keys(swallow=True)
    async with app.run_test() as pilot:
        await pilot.pause()
        app.post_message(events.Key("x", "x"))
        app.post_message(events.Key("y", "y"))
        app.post_message(events.Key("ctrl+t", None))  # as ctrl+c quits: a priority binding of the app
        swallower = app.query_one(Swallower)
        await until(pilot, lambda: len(swallower.seen) == 2 and app.urgent_at > 0)
        assert [key for key, _ in swallower.seen] == ["x", "y"]
        assert 0 < app.urgent_at < swallower.seen[1][1]  # acted while y still waited for the turn of x


async def test_an_app_that_closes_with_keys_in_turn_closes_cleanly() -> None:
    app = Keys()
    async with app.run_test():
        burst(app, "typed while the app closes")
    # run_test raises here when a handler failed; the last turn's marker lands after the screens are gone
