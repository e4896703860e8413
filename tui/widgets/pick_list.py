"""A `Select` that settles while a key is handled, for keys typed faster than the screen answers (issue 38).

Textual's `Select` closes its list from a message the list posts for later (`OptionSelected`, then
`UpdateSelection`) and moves the focus with `Widget.focus`, so a key typed right after enter or esc still finds
the open list (and is taken as a search in it). Here enter, a click on an option and esc choose, close and give
the focus back in the handler of that key, so the app's next key (tui.keys_in_turn) finds the list closed.
Options read again while the list is open keep the highlight on the option the user is on."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Select
from textual.widgets._select import NoSelection, SelectCurrent, SelectOverlay

T = TypeVar("T", bound=Hashable)


class PickOverlay(SelectOverlay):
    """The open list: enter (and a click, which goes through the same action) picks now; esc closes now."""

    def action_select(self) -> None:
        index = self.highlighted
        parent = self.parent
        if index is None or self.get_option_at_index(index).disabled or not isinstance(parent, PickList):
            return
        parent.pick(index)

    def action_dismiss(self) -> None:
        parent = self.parent
        if isinstance(parent, PickList):
            parent.close()


def _plain(label: RenderableType) -> object:
    return label.plain if isinstance(label, Text) else label


class PickList(Select[T], Generic[T]):
    def compose(self) -> ComposeResult:
        yield SelectCurrent(self.prompt)
        yield PickOverlay(type_to_search=self._type_to_search).data_bind(compact=Select.compact)

    def pick(self, index: int) -> None:
        """The option at `index` chosen: the value set, the keys back with this box and the list closed."""
        # The focus first: whoever watches `expanded` may hand the keys on from here, and must not be undone.
        self.screen.set_focus(self)
        value = self._options[index][1]
        if value != self.value:
            self.value = value
        self.expanded = False

    def close(self) -> None:
        """Closed without a choice (esc): the keys back with this box."""
        self.screen.set_focus(self)
        self.expanded = False

    def replace_options(self, options: Sequence[tuple[RenderableType, T]], value: T | NoSelection) -> None:
        """New options and the value among them. The same options again change nothing on screen; while the
        list is open the highlight stays on the option it was on (the user's Down is not undone)."""
        offered = [(_plain(label), v) for label, v in self._options if not isinstance(v, NoSelection)]
        if offered == [(_plain(label), v) for label, v in options] and value == self.value:
            return
        overlay = self.query_one(SelectOverlay)
        index = overlay.highlighted
        on = self._options[index][1] if self.expanded and index is not None and index < len(self._options) else None
        self.set_options(options)
        self.value = value
        if on is not None:
            kept = next((i for i, (_, v) in enumerate(self._options) if v == on), None)
            if kept is not None:
                overlay.select(kept)
