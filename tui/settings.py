"""The user's settings for the terminal app (the chosen theme, how often the picker reads its page again), kept
between runs.

They live in `settings.json` under the platform's config directory for `runai-triage`: `$XDG_CONFIG_HOME/
runai-triage` when that variable is set, else what platformdirs says for the platform (`~/.config/runai-triage`
on Linux, `~/Library/Application Support/runai-triage` on macOS, `%APPDATA%\\runai-triage` on Windows).

A settings file is the user's own, but it can still be broken or hand-edited: anything unreadable is ignored
(the defaults apply) and the problem is returned in words, never raised. Saving is best effort for the same
reason: a read-only home directory must not stop the app.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

APP_NAME = "runai-triage"
FILE_NAME = "settings.json"
MAX_BYTES = 64 * 1024  # a settings file is a few bytes; anything this big is not ours


@dataclass(frozen=True, slots=True)
class Settings:
    theme: str | None = None
    # Seconds between the picker's reads of its page (0: only when asked); None: the default for the tenant.
    refresh_s: float | None = None


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the settings live; `XDG_CONFIG_HOME` in `env` wins on every platform."""
    environ = os.environ if env is None else env
    xdg = (environ.get("XDG_CONFIG_HOME") or "").strip()
    if xdg:
        return Path(xdg).expanduser() / APP_NAME
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def load_settings(directory: Path) -> tuple[Settings, str | None]:
    """The saved settings, and why they could not be read (None when they were, or when none exist)."""
    path = directory / FILE_NAME
    try:
        if path.stat().st_size > MAX_BYTES:
            return Settings(), f"{path} is larger than {MAX_BYTES // 1024} KiB, so it was not read"
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Settings(), None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return Settings(), f"{path} could not be read ({type(exc).__name__}); the defaults apply"
    if not isinstance(data, dict):
        return Settings(), f"{path} does not hold a JSON object; the defaults apply"
    theme = data.get("theme")
    refresh = data.get("refreshSeconds")
    usable = isinstance(refresh, int | float) and not isinstance(refresh, bool) and math.isfinite(refresh)
    return Settings(
        theme=theme if isinstance(theme, str) and 0 < len(theme) <= 100 else None,
        refresh_s=float(refresh) if usable and (refresh == 0 or 1 <= refresh <= 3600) else None,
    ), None


def save_settings(directory: Path, settings: Settings) -> str | None:
    """Write the settings (atomically, through a temporary file); returns why it failed, or None."""
    path = directory / FILE_NAME
    data: dict[str, Any] = {"theme": settings.theme}
    if settings.refresh_s is not None:
        data["refreshSeconds"] = settings.refresh_s
    body = json.dumps(data, indent=2) + "\n"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(".json.tmp")
        scratch.write_text(body, encoding="utf-8")
        scratch.replace(path)
    except OSError as exc:
        return f"the settings could not be saved to {path}: {exc.strerror or exc}"
    return None


def update_settings(directory: Path, **changes: Any) -> str | None:
    """Change some settings and keep the rest as saved (an unreadable file is replaced); why it failed, or None."""
    saved, _problem = load_settings(directory)
    return save_settings(directory, dataclasses.replace(saved, **changes))
