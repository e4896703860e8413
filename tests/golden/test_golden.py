"""Every golden report, regenerated in memory and compared with the committed file byte for byte.

A failure shows the first lines that differ. When a change of output is intended, regenerate with
`.venv/bin/python -m tests.golden.make_golden` and say in the commit which reports changed and why.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from core.tenant import Tenant, open_demo_tenant
from tests.golden.make_golden import FORMATS, GOLDEN, GoldenCase, Json, case_tenant, dump, golden_cases, run_case

CASES = golden_cases()
REGENERATE = "regenerate with: .venv/bin/python -m tests.golden.make_golden"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def demo() -> AsyncIterator[Tenant]:
    async with open_demo_tenant() as tenant:
        yield tenant


def _difference(expected: Json, actual: Json) -> str:
    """The first part of the record that differs, as a unified diff of its lines."""
    for key in ("failed", "reads", "calls", *FORMATS):
        if expected.get(key) != actual.get(key):
            before = expected.get(key)
            after = actual.get(key)
            lines_before = before if isinstance(before, list) else [repr(before)]
            lines_after = after if isinstance(after, list) else [repr(after)]
            diff = difflib.unified_diff(lines_before, lines_after, "golden", "now", lineterm="", n=1)
            return f"{key} differs:\n" + "\n".join(list(diff)[:40])
    return "the records differ outside the compared keys"


def test_every_case_has_a_golden_file_and_no_file_is_stale() -> None:
    expected = sorted(case.path.relative_to(GOLDEN).as_posix() for case in CASES)
    on_disk = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.glob("*/*.json"))
    assert on_disk == expected, REGENERATE
    # The groups are all there: a group silently enumerating nothing would pass everything else.
    groups = {"demo", "offspec", "examples", "rules", "infra", "firstfailure", "multipod", "probes"}
    assert {case.group for case in CASES} == groups


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
async def test_report_bytes_and_reads_match_the_golden(case: GoldenCase, demo: Tenant) -> None:
    if case.group == "demo":
        actual = await run_case(case, demo)
    else:
        async with case_tenant(case) as tenant:
            actual = await run_case(case, tenant)
    golden_text = case.path.read_text(encoding="utf-8")
    if dump(actual) != golden_text:
        pytest.fail(f"{case.id}: {_difference(json.loads(golden_text), actual)}\n{REGENERATE}")


def test_every_golden_report_lists_its_pods_in_time_order() -> None:
    """Issue 23: whatever the case (demo story, rule, infrastructure or first-failure bundle), the pods of a
    workload are listed in the order of the times recorded for them."""
    checked = 0
    for path in sorted(GOLDEN.glob("*/*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if "json" not in record:
            continue
        order = json.loads("\n".join(record["json"])).get("terminationOrder") or []
        times = [entry["at"] for entry in order if entry.get("at")]
        assert times == sorted(times), (path.name, order)
        checked += len(order) > 1
    assert checked >= 10  # the multi-pod stories and bundles are among them
