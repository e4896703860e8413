"""The committed screenshots are what `screenshots/make_screenshots.py` draws today, byte for byte, and the
README shows every one of them. A change to a screen that is not followed by a fresh run of the script
fails here instead of leaving the README with pictures of an older app."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
SHOTS_DIR = REPO / "screenshots"
FIX = "run `python3 screenshots/make_screenshots.py screenshots`, review the SVGs and commit them"


def _script() -> ModuleType:
    # The script is a file, not a package module: loaded from its path, as `python screenshots/...` runs it.
    spec = importlib.util.spec_from_file_location("make_screenshots", SHOTS_DIR / "make_screenshots.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: its dataclass looks its own module up while being defined.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_committed_screenshots_match_a_fresh_run(capsys: pytest.CaptureFixture[str]) -> None:
    script = _script()
    before = {p.name: p.read_bytes() for p in SHOTS_DIR.glob("*.svg")}
    # As the README says to run it, with no directory: into a fresh one of its own, never over the committed files.
    assert script.main([]) == 0
    wrote = [Path(line.split()[1]) for line in capsys.readouterr().out.splitlines() if line.startswith("wrote ")]
    assert wrote and all(p.parent != SHOTS_DIR for p in wrote)
    assert {p.name: p.read_bytes() for p in SHOTS_DIR.glob("*.svg")} == before
    assert [p.name for p in wrote] == [shot.name for shot in script.SHOTS]
    stale = [
        p.name
        for p in wrote
        if not (SHOTS_DIR / p.name).is_file() or (SHOTS_DIR / p.name).read_bytes() != p.read_bytes()
    ]
    assert not stale, f"screenshots missing or out of date: {', '.join(stale)}; {FIX}"
    extra = sorted(
        p.name for p in SHOTS_DIR.glob("*.svg") if p.name not in {shot.name for shot in script.SHOTS}
    )
    assert not extra, f"SVGs in screenshots/ that the script no longer makes: {', '.join(extra)}"


def test_readme_shows_every_screenshot() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    missing = [shot.name for shot in _script().SHOTS if f"](screenshots/{shot.name})" not in readme]
    assert not missing, f"README.md does not show: {', '.join(missing)}"
