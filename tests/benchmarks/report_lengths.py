"""How long the text report a person reads is, and how often it cites one message twice (issue 24's numbers).

Run: `.venv/bin/python -m tests.benchmarks.report_lengths [--golden [DIR]] [--each]`

By default every golden case (demo stories, shared examples, rule, infrastructure, first-failure, multi-pod and
probe bundles) is diagnosed now, over real HTTP against the simulator, and its default text report
measured. `--golden` measures the text stored in golden records instead (`DIR`, default tests/golden/reports:
another checkout's folder gives its numbers, e.g. the code before a change). Prints the median and longest
report in lines, the median number of evidence lines, how many evidence lines quote a message another line
already quoted, and how many quoted messages of the JSON evidence the text neither shows nor counts in its
"and N more lines". `--each` lists every report's numbers. Asserts nothing (tests/golden/test_report_shape.py
does, over the golden reports).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from tests.golden.make_golden import GOLDEN, generate, golden_cases
from tests.golden.report_shape import Shape, measure, summarise


def stored(folder: Path) -> dict[str, Shape]:
    """The shape of every golden record under `folder`, from its stored text and JSON."""
    shapes: dict[str, Shape] = {}
    for path in sorted(folder.glob("*/*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if "text" not in record:
            continue  # a case that produced no report
        doc = json.loads("\n".join(record["json"]))
        shapes[f"{path.parent.name}/{path.stem}"] = measure("\n".join(record["text"]), doc["evidence"])
    return shapes


async def _diagnosed() -> dict[str, Shape]:
    shapes: dict[str, Shape] = {}
    for case, record in await generate(golden_cases()):
        if "text" in record:
            shapes[case.id] = measure("\n".join(record["text"]), json.loads("\n".join(record["json"]))["evidence"])
    return shapes


def report(shapes: dict[str, Shape], each: bool) -> list[str]:
    s = summarise(shapes)
    lines = [
        f"{s.reports} text reports: median {s.median_lines:g} lines, longest {s.max_lines} ({s.longest}); "
        f"median {s.median_evidence:g} evidence lines",
        f"evidence lines quoting a message another line quoted: {s.duplicates}",
        f"quoted messages of the JSON evidence neither shown nor counted as left out: {s.unseen}",
    ]
    if each:
        for key, shape in sorted(shapes.items(), key=lambda kv: -kv[1].lines):
            lines.append(
                f"  {shape.lines:4d} lines, {shape.evidence:3d} evidence, {shape.duplicates:3d} repeated  {key}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--golden", nargs="?", const=GOLDEN, type=Path, metavar="DIR",
        help="measure the text stored in golden records (default folder: this checkout's)",
    )
    parser.add_argument("--each", action="store_true", help="list every report's numbers, longest first")
    args = parser.parse_args()
    shapes: dict[str, Any] = stored(args.golden) if args.golden else asyncio.run(_diagnosed())
    print("\n".join(report(shapes, args.each)))


if __name__ == "__main__":
    main()
