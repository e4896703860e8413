"""How soon the program's simulator process serves: `runai-triage --demo` starts it before the app's modules load
(core/sim/process.py), so it competes with the app for the same cores until it prints its ready line.

Run: `.venv/bin/python -m tests.benchmarks.bench_sim_start [--reps N] [--compare DIR]`

Each repetition starts `python -P -m core.sim.child --demo` as `SimProcess` does, times it from spawn to its ready
line, then closes its stdin (it exits). The baseline is a fresh `python -c 'import json'` run to exit, the least a
child Python costs. `--compare DIR` starts another checkout's child in the same rounds (the code before a change).
Medians of N alternating repetitions; also the child's peak memory (ru_maxrss of the children, last round). Prints
only; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from tests.benchmarks.harness import ROOT, alternate, median, python_env, ratio, spread, timed_run


def ready_time(root: Path) -> float:
    """Spawn to the ready line of the demo's simulator child run from `root`."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-P", "-m", "core.sim.child", "--demo"],
        cwd=root, env=python_env(root), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stdin is not None
    line = child.stdout.readline()
    elapsed = time.perf_counter() - start
    child.stdin.close()
    child.wait(30)
    if not line.startswith(b"{"):
        raise RuntimeError(f"the simulator from {root} did not say it was ready: {line[:200]!r}")
    return elapsed


def peak_mib(root: Path) -> float:
    """Peak RSS of one simulator child from `root` (ru_maxrss of children is a running maximum: measured alone)."""
    code = (
        "import resource, subprocess, sys; "
        "c = subprocess.Popen([sys.executable, '-P', '-m', 'core.sim.child', '--demo'], stdin=subprocess.PIPE, "
        "stdout=subprocess.PIPE); c.stdout.readline(); c.stdin.close(); c.wait(); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=python_env(root), capture_output=True,
                          text=True, check=True)
    return int(done.stdout.split()[-1]) / 1024  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=11, help="repetitions (median kept; default 11)")
    parser.add_argument("--compare", metavar="DIR", type=Path, help="also start this other checkout's simulator")
    args = parser.parse_args()
    roots = {"this checkout": ROOT} | ({"compared": args.compare.resolve()} if args.compare else {})
    sides = {"baseline": lambda: timed_run([sys.executable, "-c", "import json"])}
    sides |= {name: (lambda r=root: ready_time(r)) for name, root in roots.items()}
    samples = alternate(sides, args.reps)
    base = median(samples["baseline"])
    print(f"simulator process (demo), spawn to ready line, median of {args.reps} alternating repetitions")
    print(f"  baseline python -c 'import json': {base * 1000:7.1f} ms {spread(samples['baseline'])}")
    for name, root in roots.items():
        value = median(samples[name])
        print(f"  {name} ({root}): {value * 1000:7.1f} ms {spread(samples[name])}   ratio {ratio(value, base):5.2f}x"
              f"   peak {peak_mib(root):5.1f} MiB")


if __name__ == "__main__":
    main()
