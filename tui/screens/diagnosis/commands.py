"""The diagnosis screen's command palette entries: what the keys cannot say in one press, a rerun with a chosen
lookback and a jump to any pane. (The screen's keys themselves come from the app's keys provider.)"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Protocol

from textual.command import DiscoveryHit, Hit, Hits, Provider

from core.diagnosis.request import DEFAULT_LOOKBACK

# `b` cycles through these. The first is the engine's default, which the picker's background verdicts use: a
# verdict made there is shown again as this screen's first run, so the two must agree.
LOOKBACKS: tuple[str, ...] = (DEFAULT_LOOKBACK, "7d", "2w")
TABS: tuple[tuple[str, str], ...] = (
    ("tab-evidence", "Evidence"),
    ("tab-missing", "Missing"),
    ("tab-history", "History"),
    ("tab-memory", "Memory"),
    ("tab-pod", "Pod"),
    ("tab-events", "Events"),
    ("tab-log", "Log"),
    ("tab-node", "Node"),
)


class Rerunnable(Protocol):
    def rerun_with(self, lookback: str) -> None: ...

    def show_tab(self, pane_id: str) -> None: ...


class DiagnosisCommands(Provider):
    """What the keys cannot say in one press: a rerun with a chosen lookback, and jumping to a pane.
    (The screen's keys themselves are listed by the app's keys provider.)"""

    def _target(self) -> Rerunnable | None:
        # The diagnosis screen under the palette (duck-typed: that screen module imports this one).
        for screen in reversed(self.app.screen_stack):
            if hasattr(screen, "rerun_with") and hasattr(screen, "show_tab"):
                return screen  # type: ignore[return-value]
        return None

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        screen = self._target()
        if screen is None:
            return []
        out: list[tuple[str, Callable[[], object], str]] = [
            (
                f"Rerun with lookback {lb}",
                partial(screen.rerun_with, lb),
                f"Diagnose this workload again, counting failures over the last {lb}",
            )
            for lb in (*LOOKBACKS, "30d")
        ]
        out += [
            (f"Show the {label} pane", partial(screen.show_tab, pane), f"The {label} tab (key {n})")
            for n, (pane, label) in enumerate(TABS, start=1)
        ]
        return out

    async def discover(self) -> Hits:
        for title, run, help_text in self._commands():
            yield DiscoveryHit(title, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, run, help_text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), run, help=help_text)
