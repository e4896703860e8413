"""Issue 23's corpus (tests/cases/firstfailure/*.json): where the first failure hides, by class.

1. a node lost under the pod that failed first (tests/engine/ff_node_cases.py);
2. a failure in a pod since replaced, and one order by time (ff_order_cases.py);
3. an inference whose newest revision fails while an older one serves (ff_revision_cases.py);
4. crash loops dated from their last crash (ff_loop_cases.py);
5. the log line that explains a crash, in the log shapes of the servers users run (ff_log_cases.py);
6. every spelling of a workload's `type` reaching its spec (ff_kind_cases.py);
and issue 37's log lines as a terminal writes them and the program that ended the container
(ff_terminal_cases.py), issue 31's logs on another clock and the JVM's shapes (ff_clock_cases.py), and logs
whose stamps carry no year, vLLM's and glog's (ff_stamp_cases.py).

Issue 31's classes join them: a signal a later event took back (ff_resolved_cases.py), a preemption followed by
a resume (ff_resume_cases.py), the rank a collective timeout waited for (ff_rank_cases.py), the probe that killed
(ff_probe_cases.py) and a start failure of the node under a Pending pod (ff_start_cases.py). Their `expect` adds
`superseded` (items the report's `superseded` must hold; an empty list: none) and `reason` / `noReason`
(fragments of the report's reason).

Each bundle carries its request and its `expect` block (the checks of test_multipod_cases, plus the ones below);
the files must equal what the builders make: `.venv/bin/python -m tests.engine.test_first_failure_cases --write`.
The golden reports pick these bundles up (tests/golden/make_golden.py).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.models.report import Report
from core.report.render import RENDERERS
from core.sim.control_plane import RecordedRequest
from tests.engine import (
    ff_clock_cases,
    ff_kind_cases,
    ff_log_cases,
    ff_loop_cases,
    ff_node_cases,
    ff_order_cases,
    ff_probe_cases,
    ff_rank_cases,
    ff_resolved_cases,
    ff_resume_cases,
    ff_revision_cases,
    ff_stamp_cases,
    ff_start_cases,
    ff_terminal_cases,
)
from tests.engine.test_multipod_cases import check_multipod
from tests.engine.test_rule_cases import assert_cases_on_disk, build_from, diagnose_case_file, write_cases

CASES_DIR = Path(__file__).resolve().parents[1] / "cases" / "firstfailure"
Json = dict[str, Any]
CASES: dict[str, Callable[[], Any]] = {
    **ff_node_cases.CASES,
    **ff_order_cases.CASES,
    **ff_revision_cases.CASES,
    **ff_loop_cases.CASES,
    **ff_log_cases.CASES,
    **ff_kind_cases.CASES,
    **ff_resolved_cases.CASES,
    **ff_resume_cases.CASES,
    **ff_probe_cases.CASES,
    **ff_start_cases.CASES,
    **ff_rank_cases.CASES,
    **ff_terminal_cases.CASES,
    **ff_clock_cases.CASES,
    **ff_stamp_cases.CASES,
}


def check_first_failure(report: Report, requests: list[RecordedRequest], expect: Json) -> None:
    check_multipod(report, requests, expect)
    if expect.get("orderSorted"):
        times = [e.at for e in report.termination_order]
        assert None not in times and times == sorted(times), report.termination_order
    for wanted in expect.get("findings", []):
        assert any(all(getattr(f, k) == v for k, v in wanted.items()) for f in report.findings), report.findings
    for wanted in expect.get("superseded", []):
        assert any(all(getattr(s, k) == v for k, v in wanted.items()) for s in report.superseded), report.superseded
    for word in expect.get("reason", []):
        assert word.lower() in (report.reason or "").lower(), report.reason
    for word in expect.get("noReason", []):
        assert word.lower() not in (report.reason or "").lower(), report.reason
    if "superseded" in expect and not expect["superseded"]:
        assert not report.superseded, report.superseded
    for path_pattern, query_part in expect.get("noQueries", []):
        sent = [r for r in requests if re.search(path_pattern, r.path) and query_part in {k for k, _ in r.query}]
        assert not sent, f"{path_pattern} was asked with {query_part}: {[(r.path, r.query) for r in sent]}"
    missing = "\n".join(f"{m.what}: {m.why}" for m in report.missing)
    for word in expect.get("noMissing", []):
        assert word.lower() not in missing.lower(), missing
    rendered = "\n".join(RENDERERS[fmt](report) for fmt in ("text", "markdown"))
    for word in expect.get("text", []):
        assert word.lower() in rendered.lower(), rendered
    for word in expect.get("noText", []):
        assert word.lower() not in rendered.lower(), rendered


def test_first_failure_bundles_on_disk_match_their_builders() -> None:
    assert_cases_on_disk(
        CASES_DIR, CASES, lambda name: build_from(CASES[name]), "tests.engine.test_first_failure_cases"
    )


@pytest.mark.parametrize("path", sorted(CASES_DIR.glob("*.json")), ids=lambda p: p.stem)
async def test_first_failure_case(path: Path) -> None:
    check_first_failure(*await diagnose_case_file(path))


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write_cases(CASES, CASES_DIR)
    print(f"wrote {len(CASES)} bundles to {CASES_DIR}")
