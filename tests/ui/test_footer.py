"""The footer shows the keys of what has the focus, and is rebuilt only when those keys change."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from tui.widgets.footer import KeysFooter


class _Deletes(Button):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "noop", "Extra key")]

    def action_noop(self) -> None:
        pass


class _Keys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield _Deletes("three", id="three")
        yield KeysFooter()


def _shown(app: App[None]) -> list[tuple[str, str]]:
    return [(k.key, k.description) for k in app.screen.query(FooterKey)]


async def test_the_footer_follows_the_focus_and_is_not_rebuilt_for_the_same_keys() -> None:
    app = _Keys()
    async with app.run_test(size=(80, 10)) as pilot:
        app.query_one("#one").focus()
        await pilot.pause()
        first = list(app.screen.query(FooterKey))
        assert ("q", "Quit") in _shown(app) and ("x", "Extra key") not in _shown(app)
        app.query_one("#two").focus()  # the same keys: the same footer, not a new one
        await pilot.pause()
        assert list(app.screen.query(FooterKey)) == first
        app.query_one("#three").focus()  # a key more: rebuilt, with it
        await pilot.pause()
        assert ("x", "Extra key") in _shown(app) and ("q", "Quit") in _shown(app)
        app.query_one("#one").focus()  # and without it again
        await pilot.pause()
        assert ("x", "Extra key") not in _shown(app)
