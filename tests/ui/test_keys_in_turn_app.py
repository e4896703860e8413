"""The mechanism of tui/keys_in_turn.py on a minimal app: a long burst reaches the focused field whole and in
order; a key that moves the focus sends the keys after it to the new place (a field it focuses, a screen it
pushes); a marker that never comes back holds the next key only until the turn's limit."""

from __future__ import annotations

import time
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input

from tui.keys_in_turn import KeysInTurn, KeyTurn


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
    ]
    KEY_TURN_LIMIT_S = 0.3

    def __init__(self, swallow: bool = False) -> None:
        super().__init__()
        self.swallow = swallow

    def compose(self) -> ComposeResult:
        yield Swallower() if self.swallow else Vertical(id="plain")
        yield Input(id="field")

    def on_mount(self) -> None:
        self.set_focus(self.query_one("#swallower" if self.swallow else "#field"))

    def action_focus_field(self) -> None:
        self.query_one("#field", Input).focus()  # Textual moves the focus later: the keys after must follow

    def action_open_screen(self) -> None:
        self.push_screen(FieldScreen())


async def test_a_long_burst_reaches_the_focused_field_whole_and_in_order() -> None:
    app = Keys()
    text = "the quick brown fox jumps over the lazy dog 0123456789 " * 3
    async with app.run_test() as pilot:
        burst(app, text)
        await pilot.pause()
        assert app.query_one("#field", Input).value == text


async def test_keys_after_one_that_focuses_a_field_go_into_it() -> None:
    app = Keys()
    async with app.run_test() as pilot:
        app.set_focus(None)
        await pilot.pause()
        burst(app, "fof")  # f focuses the field: "of" are text there, not the bindings o and f
        await pilot.pause()
        assert app.query_one("#field", Input).value == "of"
        assert len(app.screen_stack) == 1


async def test_keys_after_one_that_pushes_a_screen_go_to_that_screen() -> None:
    app = Keys()
    async with app.run_test() as pilot:
        app.set_focus(None)
        await pilot.pause()
        burst(app, "ofo")
        await pilot.pause()
        assert isinstance(app.screen, FieldScreen)
        assert app.screen.query_one("#pushed", Input).value == "fo"


async def test_a_marker_that_never_comes_back_holds_the_next_key_only_until_the_limit() -> None:
    app = Keys(swallow=True)
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, "xy")
        await pilot.pause(3 * Keys.KEY_TURN_LIMIT_S)
        swallower = app.query_one(Swallower)
        assert [key for key, _ in swallower.seen] == ["x", "y"]
        (_, x_at), (_, y_at) = swallower.seen
        assert y_at - x_at >= 0.9 * Keys.KEY_TURN_LIMIT_S  # held by the turn of x, then let go
