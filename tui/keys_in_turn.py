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

import asyncio
import time
from collections import deque
from functools import partial

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.message import Message

# A focus that keeps moving (a handler moving it back and forth) ends the turn after this many markers.
MAX_MARKERS = 6


class KeyTurn(Message):
    """Follows a key along its path to the app (`lap` 1), then once through the app's own queue (`lap` 2);
    `where` is the screen and focus when it was sent."""

    def __init__(self, turn: int, markers: int, where: tuple[DOMNode, DOMNode | None], lap: int = 1) -> None:
        super().__init__()
        self.turn = turn
        self.markers = markers
        self.where = where
        self.lap = lap


class KeysInTurn(App[None]):
    """An app whose keys are handled one after another (see the module's docstring)."""

    # A marker lost with its widget ends the turn after this long; one that comes back ends it at once (within
    # milliseconds, or as long as the handlers on the key's path take).
    KEY_TURN_LIMIT_S: float = 1.0
    # While keys wait their turn the screen is not redrawn between them (as when Textual handed them all on at
    # once: a burst costs one redraw, not one a key), but at least this often, so a key held down on a busy
    # machine still shows where it has got to.
    KEY_BATCH_LIMIT_S: float = 0.1

    def __init__(self) -> None:
        super().__init__()
        self._waiting_keys: deque[events.Key] = deque()
        self._turn = 0
        self._in_turn = False
        self._turn_limit: asyncio.TimerHandle | None = None
        self._batch_since: float | None = None

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if not self._in_turn:
                await self._take_turn(event)
            elif self._has_priority(event.key):
                await super().on_event(event)  # at once, beside the turn under way
            else:
                self._waiting_keys.append(event)
                if self._batch_since is None:
                    self._batch_since = time.monotonic()
                    self._begin_batch()
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
            # The loop's own timer, not a Textual Timer (a task each): one is made for every key.
            limit = partial(self.call_later, self._turn_over, turn)
            self._turn_limit = asyncio.get_running_loop().call_later(self.KEY_TURN_LIMIT_S, limit)

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

    async def on_key_turn(self, message: KeyTurn) -> None:
        message.stop()
        if message.turn != self._turn or not self._in_turn or self._closing or not self.screen_stack:
            return  # its turn was ended by the time limit, or the app is closing
        if message.lap == 1:
            # One more pass of the app's queue: the focus moves the key's handling queued come first. (A message,
            # not `call_later`: Textual inspects a callback's signature each time, a cost on every key.)
            self.post_message(KeyTurn(message.turn, message.markers, message.where, lap=2))
            return
        where = self._where()
        if where != message.where and message.markers < MAX_MARKERS:
            self._send_marker(message.turn, message.markers + 1, where)  # moved: wait until it settles there
            return
        await self._turn_over(message.turn)

    async def _turn_over(self, turn: int) -> None:
        if turn != self._turn or not self._in_turn:
            return  # ended already (its marker came back, or its time ran out)
        if self._turn_limit is not None:
            self._turn_limit.cancel()
            self._turn_limit = None
        self._in_turn = False
        since = self._batch_since
        if since is not None and (not self._waiting_keys or time.monotonic() - since >= self.KEY_BATCH_LIMIT_S):
            self._batch_since = None
            self._end_batch()
        if self._waiting_keys:
            await self._take_turn(self._waiting_keys.popleft())
