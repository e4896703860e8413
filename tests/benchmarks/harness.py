"""What every benchmark shares: alternating repetitions, medians, ratio lines, and a simulator in its own process.

A ratio is only meaningful against a baseline measured in the same run on the same (shared, noisy) machine, so
the measured thing and its baseline run one after the other, repetition after repetition, and each side keeps
the median of its repetitions. Nothing here asserts a time.
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def alternate(sides: Mapping[str, Callable[[], float]], reps: int, *, warmup: int = 1) -> dict[str, list[float]]:
    """Run each side in turn, `reps` times (after `warmup` unrecorded rounds); each call returns its own figure."""
    samples: dict[str, list[float]] = {name: [] for name in sides}
    for round_no in range(warmup + max(1, reps)):
        for name, run in sides.items():
            value = run()
            if round_no >= warmup:
                samples[name].append(value)
    return samples


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def ratio(value: float, base: float) -> float:
    return value / base if base > 0 else float("nan")


def verdict(value: float, target: float) -> str:
    return "meets" if value <= target else "MISSES"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def spread(values: list[float]) -> str:
    """min..max of the repetitions, so a reader sees how noisy the machine was."""
    return f"[{min(values) * 1000:.0f}..{max(values) * 1000:.0f} ms]" if values else ""


def print_ratio(
    what: str, measured: list[float], baseline_what: str, baseline: list[float], target: float | None
) -> float:
    """One line per figure: medians, the ratio, the target and whether it is met (None: a figure the issue sets
    no target for, printed for information)."""
    value, base = median(measured), median(baseline)
    r = ratio(value, base)
    print(f"  {what}: {ms(value)} {spread(measured)}")
    print(f"  {baseline_what}: {ms(base)} {spread(baseline)}")
    print(f"  ratio {r:6.2f}x   " + (f"target <= {target:g}x: {verdict(r, target)}" if target else "(no target)"))
    return r


def write_json(data: Any, directory: Path, name: str) -> Path:
    path = directory / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


_URL = re.compile(r" at (http://127\.0\.0\.1:\d+)")
_TOKEN = re.compile(r"RUNAI_BEARER_TOKEN=(\S+)")


@dataclass
class ServedCase:
    """`runai-triage serve` in a process of its own: the client measured here shares no CPU or GIL with it.

    `requests()` reads the server's request log (written every 0.2 s), so it waits for the next write first.
    """

    case: Path | None = None  # None: the demo tenant
    latency_ms: float = 0.0
    url: str = ""
    token: str = ""
    kubeconfig: Path = field(default_factory=Path)
    _proc: subprocess.Popen[str] | None = None
    _tmp: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> ServedCase:
        self._tmp = tempfile.TemporaryDirectory(prefix="runai-bench-")
        tmp = Path(self._tmp.name)
        self.kubeconfig = tmp / "kubeconfig"
        source = ["--demo"] if self.case is None else ["--case", str(self.case)]
        command = [
            sys.executable, "-m", "tui.cli", "serve", *source,
            "--latency-ms", str(self.latency_ms),
            "--request-log", str(tmp / "requests.jsonl"),
            "--kubeconfig-out", str(self.kubeconfig),
        ]
        self._proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        deadline = time.monotonic() + 120
        for line in self._proc.stdout:
            if (m := _URL.search(line)) is not None:
                self.url = m.group(1)
            if (m := _TOKEN.search(line)) is not None:
                self.token = m.group(1)
            if line.startswith("Press Ctrl-C") or time.monotonic() > deadline:
                break
        if not self.url or not self.token:
            self.__exit__(None, None, None)
            raise RuntimeError("the simulator did not start (see its output above)")
        return self

    def requests(self) -> list[dict[str, Any]]:
        assert self._tmp is not None
        time.sleep(0.45)
        path = Path(self._tmp.name) / "requests.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._proc is not None and self._proc.stdout is not None:
            self._proc.stdout.close()
        if self._tmp is not None:
            self._tmp.cleanup()


def python_env(root: Path = ROOT) -> dict[str, str]:
    """The environment for a child Python: `root` (this checkout, or another one to compare with) first on the
    path, no inherited Tier 2 settings."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("KUBECONFIG", None)
    return env


def timed_run(command: list[str], root: Path = ROOT) -> float:
    """Wall time of one child process (run in `root`) from spawn to exit; its output is discarded, a failure
    raises."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=python_env(root), capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    return elapsed
