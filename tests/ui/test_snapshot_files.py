"""Every committed SVG snapshot belongs to a snapshot test that exists. Run alone, syrupy fails a session that
leaves a snapshot unused; under pytest-xdist it cannot tell (each worker sees part of the tests), so this
check stands in for it whichever way the suite runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOTS = Path(__file__).resolve().parent / "__snapshots__"


def _collected(modules: list[Path]) -> list[str]:
    # Collected in a subprocess, so a `-k` or a worker's share of this run does not narrow the list.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + [str(m) for m in modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_every_snapshot_file_has_its_test() -> None:
    folders = sorted(p for p in SNAPSHOTS.iterdir() if p.is_dir())
    modules = [SNAPSHOTS.parent / f"{folder.name}.py" for folder in folders]
    assert all(m.is_file() for m in modules), [m.name for m in modules if not m.is_file()]
    expected = {
        f"{Path(file).stem}/{test}.svg" for file, test in (node_id.split("::", 1) for node_id in _collected(modules))
    }
    committed = {f"{p.parent.name}/{p.name}" for folder in folders for p in folder.glob("*.svg")}
    assert committed - expected == set(), "snapshots without a test: remove them, or run pytest --snapshot-update"
    assert expected - committed == set(), "snapshot tests without a snapshot: run pytest --snapshot-update"
