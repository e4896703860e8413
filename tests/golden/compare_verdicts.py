"""Whether two sets of golden reports say the same things, whatever their wording: for a change meant to touch
presentation only (issue 24), every verdict-bearing field must be equal and every piece of evidence kept.

Run: `.venv/bin/python -m tests.golden.compare_verdicts OLD_DIR [NEW_DIR]` (NEW_DIR defaults to this checkout's
tests/golden/reports; OLD_DIR is another checkout's, e.g. `git archive main tests/golden/reports | tar -x -C
/tmp/old` then `/tmp/old/tests/golden/reports`). Compares outcome, category, recurrence (count, recurring,
complete; the occurrences as the newest 50 of the old list, with `occurrencesCut` when it was longer), memory,
workload, missing, findings, recommendations, reason, notes, history, terminationOrder, the reads and calls made,
and that each old evidence (text, source) is still there, as an item or one of its `reads`. Prints what differs;
exit status 1 when anything does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.golden.make_golden import GOLDEN

Json = dict[str, Any]
RECORD_KEYS = ("case", "request", "reads", "calls", "failed")
REPORT_KEYS = (
    "schema", "outcome", "category", "workload", "missing", "memory", "findings", "recommendations", "reason",
    "nextAction", "notes", "history", "terminationOrder", "generatedAt", "lookbackStart",
)
LISTED = 50


def _evidence_kept(old: list[Json], new: list[Json]) -> list[str]:
    kept = {(r["source"], r["text"]) for item in new for r in item.get("reads") or ()}
    kept |= {(item["source"], item["text"]) for item in new}
    return [f"{e['source']}: {e['text'][:80]}" for e in old if (e["source"], e["text"]) not in kept]


def differences(old: Json, new: Json) -> list[str]:
    """What differs between two golden records, in verdict terms."""
    found = [key for key in RECORD_KEYS if old.get(key) != new.get(key)]
    if "json" not in old or "json" not in new:
        return found + (["report"] if ("json" in old) != ("json" in new) else [])
    before, after = json.loads("\n".join(old["json"])), json.loads("\n".join(new["json"]))
    found += [key for key in REPORT_KEYS if before.get(key) != after.get(key)]
    rec_old, rec_new = dict(before["recurrence"]), dict(after["recurrence"])
    times_old, times_new = rec_old.pop("occurrences", []), rec_new.pop("occurrences", [])
    cut = rec_new.pop("occurrencesCut", False)
    rec_old.pop("occurrencesCut", None)
    # A key the old report did not have is an added key (issue 34's `crashLoop`), not a changed verdict.
    if rec_old != {key: value for key, value in rec_new.items() if key in rec_old}:
        found.append("recurrence")
    if times_new != times_old[:LISTED] or cut != (len(times_old) > LISTED):
        found.append("recurrence.occurrences")
    found += [f"evidence lost: {lost}" for lost in _evidence_kept(before["evidence"], after["evidence"])]
    return found


def compare(old_dir: Path, new_dir: Path) -> dict[str, list[str]]:
    changed: dict[str, list[str]] = {}
    for path in sorted(old_dir.glob("*/*.json")):
        key = f"{path.parent.name}/{path.name}"
        other = new_dir / path.parent.name / path.name
        if not other.is_file():
            changed[key] = ["missing in the new set"]
            continue
        diff = differences(json.loads(path.read_text("utf-8")), json.loads(other.read_text("utf-8")))
        if diff:
            changed[key] = diff
    return changed


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    old_dir, new_dir = Path(argv[0]), Path(argv[1]) if len(argv) > 1 else GOLDEN
    changed = compare(old_dir, new_dir)
    count = len(list(old_dir.glob("*/*.json")))
    print(f"{count} golden records compared; {len(changed)} with a changed verdict field or lost evidence")
    for key, diff in changed.items():
        print(f"  {key}: {'; '.join(diff)}")
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
