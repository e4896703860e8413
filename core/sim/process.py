"""The handle on a simulator served from a process of its own (core.sim.child), for the terminal app.

`SimProcess.start` returns at once, after spawning the child; `ready()` waits, bounded, for the child's one line
(see core.sim.child) and returns where and how to connect, or raises SimProcessFailed saying what happened: a
bundle that cannot be used (its BundleError message), a child that exited, answered something else, or never
answered (then it is killed). core.tenant.open_served_tenant connects the real clients to it.

Only the standard library is imported here (and core.sim.child, which imports no more until it runs), so the
program can start the child before anything heavy loads.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO

from core.sim.child import BUNDLE_ERROR, READY_KEYS
from core.sim.live.settings import LiveSettings

READY_TIMEOUT_S = 30.0
STOP_WAIT_S = 2.0
_STDERR_TAIL = 2000
_LINE_LIMIT = 1 << 16  # a ready line is ~200 bytes; more than this is not one
# The type of each value of the child's ready line.
_READY = dict(zip(READY_KEYS, (str, str, (str, type(None)), str, bool), strict=True))
# The directory holding the `core` package this module belongs to: first on the child's path, so it runs the
# same code as its parent whatever the working directory holds.
_ROOT = str(Path(__file__).resolve().parents[2])


class SimProcessFailed(Exception):
    """The simulator's process cannot serve. `what`: in words; `stderr`: the end of what it wrote there (raw,
    untrusted); `bundle_problem`: the bundle itself cannot be used (`what` is then its BundleError message)."""

    def __init__(self, what: str, stderr: str = "", *, bundle_problem: bool = False) -> None:
        self.what = what
        self.stderr = stderr
        self.bundle_problem = bundle_problem
        super().__init__(what)


@dataclass(frozen=True)
class Served:
    """Where the child serves and with which credentials; `kube_token` None: the bundle has no kubernetes section."""

    url: str
    token: str
    kube_token: str | None
    captured_at: datetime


class SimProcess:
    """One child serving `case` (None: the demo tenant). Its stdin is a pipe this process holds open: closing it
    (`stop`), or this process ending however it ends, makes the child stop serving and exit."""

    def __init__(self, case: Path | None, command: list[str] | None = None, live: LiveSettings | None = None) -> None:
        """`command` replaces the child's command line (tests use it to stand in a misbehaving child); `live`
        makes the demo tenant move (core.sim.live), its clock started at `live.epoch`."""
        self.case = case
        self.live = live
        source = ["--demo"] if case is None else ["--case", str(case)]
        source += live.arguments() if live is not None else []
        self._command = command or [sys.executable, "-P", "-m", "core.sim.child", *source]
        self._stderr: IO[bytes] = tempfile.TemporaryFile(prefix="runai-triage-sim-")  # noqa: SIM115 - closed in stop
        self._lock = threading.Lock()
        self._answer: Served | SimProcessFailed | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._start_failed: OSError | None = None

    @classmethod
    def start(
        cls, case: Path | None = None, *, command: list[str] | None = None, live: LiveSettings | None = None
    ) -> SimProcess:
        """Spawn the child and return at once; a spawn that fails is reported by `ready()`."""
        handle = cls(case, command, live)
        env = dict(os.environ)
        env["PYTHONPATH"] = _ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            handle.process = subprocess.Popen(
                handle._command,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=handle._stderr, env=env,
            )
        except OSError as exc:
            handle._start_failed = exc
        return handle

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def ready(self, timeout: float = READY_TIMEOUT_S) -> Served:
        """Wait (at most `timeout` seconds) for the child's line; the same answer to every later call."""
        with self._lock:
            if self._answer is None:
                self._answer = self._wait(timeout)
                if isinstance(self._answer, SimProcessFailed):
                    self.stop()
        if isinstance(self._answer, SimProcessFailed):
            raise self._answer
        return self._answer

    def _wait(self, timeout: float) -> Served | SimProcessFailed:
        process = self.process
        if process is None or process.stdout is None:
            return SimProcessFailed(f"the simulator's process could not be started: {self._start_failed}")
        lines: list[bytes] = []
        reader = threading.Thread(
            target=lambda: lines.append(process.stdout.readline(_LINE_LIMIT)),  # type: ignore[union-attr]
            name="sim-process-ready",
            daemon=True,
        )
        reader.start()
        reader.join(timeout)
        if reader.is_alive():
            self._end()  # the read ends at EOF once the child is gone
            return SimProcessFailed(f"the simulator's process did not answer within {timeout:g} s", self.stderr_tail())
        line = lines[0] if lines else b""
        process.stdout.close()
        if not line:
            status = _wait_briefly(process)
            ended = "exited" if status is None else f"exited with status {status}"
            return SimProcessFailed(f"the simulator's process {ended} before it was ready", self.stderr_tail())
        return _parse(line, self.stderr_tail)

    def stderr_tail(self) -> str:
        """The end of what the child wrote on stderr so far (raw: clean it before showing it)."""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - _STDERR_TAIL))
            return self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):  # already closed
            return ""

    def stop(self) -> None:
        """Close the child's stdin and terminate it (it holds nothing to save), killing it if it lingers; closing
        the tenant calls this. Safe to call more than once and from any thread."""
        self._end()
        self._stderr.close()

    def _end(self) -> None:
        process = self.process
        if process is not None:
            if process.stdin is not None and not process.stdin.closed:
                with contextlib.suppress(OSError):  # the child is already gone: the pipe is broken
                    process.stdin.close()
            if process.poll() is None:
                process.terminate()
                if _wait_briefly(process) is None:
                    process.kill()
                    process.wait()


def _wait_briefly(process: subprocess.Popen[bytes]) -> int | None:
    try:
        return process.wait(STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        return None


def _parse(line: bytes, stderr_tail: Callable[[], str]) -> Served | SimProcessFailed:
    try:
        answer = json.loads(line)
    except ValueError:
        answer = None
    if isinstance(answer, dict) and answer.get("error") == BUNDLE_ERROR and isinstance(answer.get("message"), str):
        return SimProcessFailed(answer["message"], bundle_problem=True)
    if (
        isinstance(answer, dict)
        and all(isinstance(answer.get(k), kinds) for k, kinds in _READY.items())
        and (answer["kube_token"] is not None) == answer["kubernetes"]
    ):
        try:
            captured_at = datetime.fromisoformat(answer["captured_at"])
        except ValueError:
            pass
        else:
            return Served(answer["url"], answer["token"], answer["kube_token"], captured_at)
    shown = line[:200].decode("utf-8", "replace")
    return SimProcessFailed(
        f"the simulator's process answered something other than its ready line: {shown!r}", stderr_tail()
    )
