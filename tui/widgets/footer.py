"""Textual's footer, rebuilt only when the keys it shows change.

Textual's `Footer` recomposes (a new `FooterKey` per key, each styled) after every bindings signal, and the
signal fires on every focus change: opening the diagnosis screen rebuilt it six times, ~100 ms of the push, for
the same keys. This one rebuilds at most once per refresh, and only when what it would show is different.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: tuple[object, ...] | None = None
        self._rebuild_due = False

    def _keys(self) -> tuple[object, ...]:
        """Everything `Footer.compose` reads from the bindings, so equal keys compose the same footer."""
        active = self.screen.active_bindings
        keys = tuple(
            (
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                (binding.group.description, binding.group.compact) if binding.group else None,
                enabled,
                tooltip,
                binding.tooltip,
            )
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        shown_palette = self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
        return (*keys, (shown_palette, palette[1].key if palette else None, palette[2] if palette else None))

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._rebuild_due:
            self._rebuild_due = True
            self.call_after_refresh(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_due = False
        if not self.is_attached:
            return
        keys = self._keys()
        if keys != self._shown:
            self._shown = keys
            await self.recompose()
