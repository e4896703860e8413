"""Wall time of a whole headless `runai-triage diagnose --case`, process start to exit, against importing httpx and
pydantic in a fresh interpreter (the least any Python client of this API could cost).

Run: `.venv/bin/python -m tests.benchmarks.bench_headless [--reps N] [--compare DIR]`

Each repetition runs, one after the other: the baseline `python -c 'import httpx, pydantic'`, the diagnosis of
the shared OOM example with Tier 2 (the case is served on loopback in the same process, the kubernetes client
reads pod, log and events), the same with `--no-kube`, and the preempted example (routed out after Step 1, so it
never needs the kubernetes client). Medians of N repetitions; target <= 4x for the OOM example with Tier 2.
`--compare DIR` also runs the same commands from another checkout (the code before a change) in the same
rounds. Prints only; asserts nothing about time.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.benchmarks.harness import ROOT, alternate, median, print_ratio, ratio, spread, timed_run
from tests.paths import CASES

TARGET = 4.0
CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
OOM = "9c272e2c-4cbd-59c9-ad76-2b982958772c"


def _diagnose(case: str, workload_id: str, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "tui.cli", "diagnose", "--case", str(CASES / case),
        "--cluster-id", CLUSTER, "--workload-id", workload_id, *extra,
    ]


def _preempted_id() -> str:
    import json

    data = json.loads((CASES / "example-preempted.json").read_text(encoding="utf-8"))
    return str(data["workloads"][0]["workload"]["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="repetitions of each command (median kept; default 7)")
    parser.add_argument("--compare", metavar="DIR", type=Path, help="also time this other checkout's commands")
    args = parser.parse_args()
    commands = {
        "oom": _diagnose("example-oom.json", OOM),
        "oom-no-kube": _diagnose("example-oom.json", OOM, "--no-kube"),
        "preempted": _diagnose("example-preempted.json", _preempted_id()),
    }
    roots = {"": ROOT} | ({"compared ": args.compare.resolve()} if args.compare else {})
    sides = {"baseline": lambda: timed_run([sys.executable, "-c", "import httpx, pydantic"])}
    for prefix, root in roots.items():
        sides |= {prefix + name: (lambda c=command, r=root: timed_run(c, r)) for name, command in commands.items()}
    samples = alternate(sides, args.reps)
    base = samples["baseline"]
    print(f"headless diagnose, process start to exit, median of {args.reps} alternating repetitions")
    for prefix, root in roots.items():
        print(f"{prefix or 'this '}checkout: {root}")
        print_ratio(
            "diagnose --case example-oom.json (Tier 2)", samples[prefix + "oom"],
            "python -c 'import httpx, pydantic'", base, TARGET,
        )
        for name, what in (("oom-no-kube", "same with --no-kube"), ("preempted", "example-preempted (routed out)")):
            values = samples[prefix + name]
            print(f"  {what}: {median(values) * 1000:8.1f} ms {spread(values)}"
                  f"   ratio {ratio(median(values), median(base)):6.2f}x")


if __name__ == "__main__":
    main()
