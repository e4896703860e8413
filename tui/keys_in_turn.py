"""Keys are handled in turn: each goes where the keys before it left the focus.

Textual hands a key to the widget focused when the key *arrives* at the app, and a key's handler moves the focus
later (`Widget.focus` queues the move; a pushed screen focuses its first widget once it has mounted). Keys that
arrive together (a fast typist, or a busy app reading them from the terminal in one go) are therefore all given
to the widget focused before the first was handled: `p`, Down, Enter opened the project list and then moved the
table's cursor and diagnosed that row. Here the app hands a key on only once the one before it has been handled
and the focus it moved has landed, so the next key finds the list, the field or the screen the last one opened.

How "handled" is known: a `KeyTurn` marker is posted right behind the key to the widget it went to and bubbles to
the app along the key's own path; queues are first in, first out, so when the marker arrives every widget on the
way has finished with the key (the app's binding for it included). The focus moves that handling queued are in
the app's queue by then, so the turn ends one pass of that queue later. If the key moved the focus or the
screen, a new marker follows it there, until a marker comes back with nothing moved. A marker that cannot come
back (its widget went away) ends the turn after `KEY_TURN_LIMIT_S`, so no key is held for longer than that.

Handlers that move the focus must move it while the key is handled (or with `Widget.focus`), not from a message
they post for later: the next key may already be on its way by then (see tui.widgets.pick_list).
"""

from __future__ import annotations

from collections import deque
from functools import partial

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.timer import Timer

# A focus that keeps moving (a handler moving it back and forth) ends the turn after this many markers.
MAX_MARKERS = 6


class KeyTurn(Message):
    """Follows a key along its path to the app; `where` is the screen and focus when it was sent."""

    def __init__(self, turn: int, markers: int, where: tuple[DOMNode, DOMNode | None]) -> None:
        super().__init__()
        self.turn = turn
        self.markers = markers
        self.where = where


class KeysInTurn(App[None]):
    """An app whose keys are handled one after another (see the module's docstring)."""

    # A marker lost with its widget ends the turn after this long; one that comes back ends it at once (within
    # milliseconds, or as long as the handlers on the key's path take).
    KEY_TURN_LIMIT_S: float = 1.0

    def __init__(self) -> None:
        super().__init__()
        self._waiting_keys: deque[events.Key] = deque()
        self._turn = 0
        self._in_turn = False
        self._turn_limit: Timer | None = None

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if not self._in_turn:
                await self._take_turn(event)
            elif self._has_priority(event.key):
                await super().on_event(event)  # at once, beside the turn under way
            else:
                self._waiting_keys.append(event)
            return
        await super().on_event(event)

    async def _take_turn(self, key: events.Key) -> None:
        self._turn += 1
        self._in_turn = True
        where = self._where()
        await super().on_event(key)  # the app's priority bindings, then the focused widget (or the screen)
        turn = self._turn
        self._send_marker(turn, 1, where)
        if self._in_turn and self._turn == turn:
            limit = partial(self._turn_over, turn)
            self._turn_limit = self.set_timer(self.KEY_TURN_LIMIT_S, limit, name="key-turn-limit")

    def _has_priority(self, key: str) -> bool:
        # A priority binding (ctrl+c quits) acts at once whatever is focused: it never waits behind other keys.
        chain = self.screen._binding_chain  # what Textual's own priority check walks
        return any(binding.priority for _, bindings in chain for binding in bindings.key_to_bindings.get(key, ()))

    def _where(self) -> tuple[DOMNode, DOMNode | None]:
        screen = self.screen
        return screen, screen.focused

    def _send_marker(self, turn: int, markers: int, where: tuple[DOMNode, DOMNode | None]) -> None:
        target = self.focused or self.screen
        if not target.post_message(KeyTurn(turn, markers, where)):
            self.call_later(self._turn_over, turn)  # the widget is closing: nothing more will come of this key

    def on_key_turn(self, message: KeyTurn) -> None:
        message.stop()
        if message.turn == self._turn and self._in_turn:
            # One more pass of the app's queue: the focus moves the key's handling queued come first.
            self.call_later(self._marker_back, message)

    async def _marker_back(self, message: KeyTurn) -> None:
        where = self._where()
        if where != message.where and message.markers < MAX_MARKERS:
            if message.turn == self._turn and self._in_turn:
                self._send_marker(message.turn, message.markers + 1, where)  # moved: wait until it settles there
            return
        await self._turn_over(message.turn)

    async def _turn_over(self, turn: int) -> None:
        if turn != self._turn or not self._in_turn:
            return  # ended already (its marker came back, or its time ran out)
        if self._turn_limit is not None:
            self._turn_limit.stop()
            self._turn_limit = None
        self._in_turn = False
        if self._waiting_keys:
            await self._take_turn(self._waiting_keys.popleft())
