"""A workload phase as coloured text that also carries a symbol and the word, so colour is never the only
signal (colour-blind users, monochrome terminals, screenshots in tickets).

Colours come from the active theme's variables, so a theme switch recolours phases like everything else.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum

from rich.style import Style
from rich.text import Text
from textual.color import Color, ColorParseError

from core.safety.untrusted import clean


class PhaseGroup(Enum):
    FAILED = "failed"
    STOPPED = "stopped"
    WAITING = "waiting"
    RUNNING = "running"
    DONE = "done"
    OTHER = "other"


PHASE_GROUPS: dict[str, PhaseGroup] = {
    "Failed": PhaseGroup.FAILED,
    "Crashed": PhaseGroup.FAILED,
    "Degraded": PhaseGroup.FAILED,
    "Stopped": PhaseGroup.STOPPED,
    "Stopping": PhaseGroup.STOPPED,
    "Terminating": PhaseGroup.STOPPED,
    "Deleting": PhaseGroup.STOPPED,
    "Suspended": PhaseGroup.STOPPED,
    "Pending": PhaseGroup.WAITING,
    "Creating": PhaseGroup.WAITING,
    "Initializing": PhaseGroup.WAITING,
    "Resuming": PhaseGroup.WAITING,
    "Updating": PhaseGroup.WAITING,
    "Running": PhaseGroup.RUNNING,
    "Completed": PhaseGroup.DONE,
    "Succeeded": PhaseGroup.DONE,
}

_SYMBOLS: dict[PhaseGroup, str] = {
    PhaseGroup.FAILED: "✗",
    PhaseGroup.STOPPED: "■",
    PhaseGroup.WAITING: "◷",
    PhaseGroup.RUNNING: "▶",
    PhaseGroup.DONE: "✓",
    PhaseGroup.OTHER: "?",
}

# Theme variable per group; "text-muted"-like fallbacks keep unknown phases readable but unstressed.
_THEME_VARIABLE: dict[PhaseGroup, str] = {
    PhaseGroup.FAILED: "error",
    PhaseGroup.STOPPED: "warning",
    PhaseGroup.WAITING: "primary",
    PhaseGroup.RUNNING: "success",
    PhaseGroup.DONE: "foreground-muted",
    PhaseGroup.OTHER: "foreground-muted",
}


def phase_group(phase: str | None) -> PhaseGroup:
    return PHASE_GROUPS.get(phase or "", PhaseGroup.OTHER)


def theme_colour(theme: Mapping[str, str], variable: str) -> Color | None:
    """A theme variable as an opaque colour (translucent ones blended onto the background); None if unusable."""
    try:
        colour = Color.parse(theme[variable])
        if colour.a < 1 and "background" in theme:
            colour = Color.parse(theme["background"]) + colour
    except (KeyError, ColorParseError):
        return None
    return colour


def _rich_colour(theme: Mapping[str, str], variable: str) -> str | None:
    colour = theme_colour(theme, variable)
    return colour.hex6 if colour is not None else None


def phase_text(phase: str | None, theme: Mapping[str, str] | None = None) -> Text:
    """`✗ Failed` etc. styled with the theme's colour for the phase's group; `? (no phase)` when missing."""
    group = phase_group(phase)
    word = clean(phase, one_line=True, max_len=24) if phase else "(no phase)"
    colour = _rich_colour(theme or {}, _THEME_VARIABLE[group])
    return Text(f"{_SYMBOLS[group]} {word}", style=Style(color=colour, bold=group is PhaseGroup.FAILED))
