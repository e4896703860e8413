"""Suite-wide fixtures and plugins: the read-only audit over every simulated server the tests started (see
tests/read_only_audit.py; it judges at the end of the session, also across pytest-xdist workers), and each test's
own state, data and config directories."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["tests.read_only_audit"]


@pytest.fixture(autouse=True)
def _own_platform_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A watch's state file, exported reports and settings go under a directory of this test's own, so no test
    reads what another one (or the user's own runs) left there. Subprocesses inherit it through the environment."""
    base: Path = tmp_path_factory.mktemp("platform")
    for name in ("XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(base / name.lower()))
