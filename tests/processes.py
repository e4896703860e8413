"""Waiting for a process to end, for tests of the simulator's own process (it must never outlive its parent)."""

from __future__ import annotations

import os
import time
from pathlib import Path

DEADLINE_S = 15.0


def gone(pid: int) -> bool:
    """True once no process `pid` runs (a zombie waiting to be reaped has ended too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def wait_gone(pid: int) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not gone(pid):
        assert time.monotonic() < deadline, f"the simulator's process {pid} was still running {DEADLINE_S:.0f} s on"
        time.sleep(0.05)
