"""Golden reports: every demo story, off-spec story, shared example, rule bundle and infrastructure-finding
bundle, diagnosed and rendered three ways.

Each case is diagnosed over real HTTP against the simulator, as `runai-triage diagnose` would, at the bundle's
captured time, and its record holds the text, Markdown and JSON renderings (split into lines, so a change
reads as a diff), the number of reads the engine counted, and every call it made on its two sources (sorted:
concurrent reads start in varying order). Calls are recorded when they start, not when they answer: a read
still in flight when a late route-out ends the diagnosis is cancelled, and whether its request reached the
server first is a race, so neither finished reads nor HTTP requests would be a stable count.
`tests/golden/test_golden.py` regenerates every record in memory and compares it with the file, so a
restructuring of the engine must keep every byte.

Write the files: `.venv/bin/python -m tests.golden.make_golden` (only when a change of output is intended;
say which reports changed and why in the commit).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from core.diagnosis.engine import DiagnosisFailed, diagnose
from core.diagnosis.progress import VerdictReady
from core.diagnosis.request import DiagnosisRequest
from core.report.render import RENDERERS
from core.sim.bundle import load_bundle, parse_bundle
from core.sim.demo import demo_expectations, offspec_bundle_path, offspec_expectations
from core.tenant import Tenant, open_bundle_tenant, open_demo_tenant
from tests.paths import CASES
from tui.commands.start import flag

GOLDEN = Path(__file__).resolve().parent / "reports"
RULES = CASES / "rules"
# Case bundles that carry their own `request` (rule bundles, infrastructure-finding bundles, and issue 23's
# first-failure bundles).
# The multi-pod and probe bundles too (issue 34): every bundle of the suite is measured by test_report_shape.
BUNDLE_GROUPS = {
    "rules": RULES, "infra": CASES / "infra", "firstfailure": CASES / "firstfailure",
    "multipod": CASES / "multipod", "probes": CASES / "probes",
}
FORMATS = ("text", "markdown", "json")

Json = dict[str, Any]


@dataclass(frozen=True)
class GoldenCase:
    group: str  # "demo", "offspec", "examples", "rules" or "infra": which tenant serves it
    key: str
    request: Json  # DiagnosisRequest keyword arguments, without `now` (the bundle's capturedAt)
    bundle: Path | None = None  # None for the demo tenant

    @property
    def path(self) -> Path:
        return GOLDEN / self.group / f"{self.key}.json"

    @property
    def id(self) -> str:
        return f"{self.group}/{self.key}"


def _demo_request(story: Json) -> Json:
    request: Json = {"cluster_id": story["clusterId"], "lookback": story.get("lookback") or "24h"}
    if story.get("lookup") == "id" and story.get("workloadId"):
        request["workload_id"] = story["workloadId"]
    else:
        request.update(name=story["name"], project=story["project"], active=story.get("intent") == "active")
    return request


def _example_request(path: Path) -> Json:
    # A shared example holds one workload: diagnose it on its own cluster by id.
    workload = json.loads(path.read_text(encoding="utf-8"))["workloads"][0]["workload"]
    return {"cluster_id": workload["clusterId"], "workload_id": workload["id"]}


def golden_cases() -> list[GoldenCase]:
    cases = [GoldenCase("demo", story["key"], _demo_request(story)) for story in demo_expectations()]
    # The off-spec tenant (data a 2.24 control plane does not send), served from its own bundle.
    cases += [
        GoldenCase("offspec", story["key"], _demo_request(story), offspec_bundle_path())
        for story in offspec_expectations()
    ]
    cases += [
        GoldenCase("examples", path.stem, _example_request(path), path) for path in sorted(CASES.glob("example-*.json"))
    ]
    cases += [
        GoldenCase(group, path.stem, json.loads(path.read_text(encoding="utf-8"))["request"], path)
        for group, folder in BUNDLE_GROUPS.items()
        for path in sorted(folder.glob("*.json"))
    ]
    return cases


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _arg(value: object) -> str:
    if value is None or isinstance(value, str | int | float | bool | datetime):
        return str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_arg(v) for v in value) + "]"
    return type(value).__name__  # a model object (a pod, a namespace choice): its type says enough


class CallLog:
    """Wraps a source and notes each call as it starts, then delegates to the real client unchanged."""

    def __init__(self, source: Any, label: str, calls: list[str]) -> None:
        self._source, self._label, self._calls = source, label, calls

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._source, name)
        if not callable(method):
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            shown = [_arg(a) for a in args] + [f"{k}={_arg(v)}" for k, v in sorted(kwargs.items())]
            self._calls.append(f"{self._label}.{name}({', '.join(shown)})")
            return method(*args, **kwargs)

        return call


async def run_case(case: GoldenCase, tenant: Tenant) -> Json:
    """Diagnose one case on `tenant` and return its golden record."""
    request = DiagnosisRequest(now=tenant.captured_at, **case.request)
    calls: list[str] = []
    tier1 = CallLog(tenant.runai, "tier1", calls)
    kube = tenant.kube
    tier2 = CallLog(kube, "tier2", calls) if kube is not None else None
    record: Json = {"case": case.id, "request": case.request}
    try:
        async for event in diagnose(request, tier1, tier2, tier2_unavailable=tenant.kube_unavailable):  # type: ignore[arg-type]
            if isinstance(event, VerdictReady):
                record["reads"] = event.reads
                # As `diagnose` prints them: the options a report names, as the command line's flags.
                record.update({fmt: _lines(RENDERERS[fmt](event.report, name=flag)) for fmt in FORMATS})
    except DiagnosisFailed as exc:
        record["failed"] = str(exc)
    record["calls"] = sorted(calls)
    return record


@asynccontextmanager
async def case_tenant(case: GoldenCase) -> AsyncIterator[Tenant]:
    """The tenant a case is served from (the rule bundles carry `request`/`expect` keys the server ignores)."""
    assert case.bundle is not None
    if case.group in BUNDLE_GROUPS:
        bundle = parse_bundle(json.loads(case.bundle.read_text(encoding="utf-8")), "inline")
    else:
        bundle = load_bundle(case.bundle)
    async with open_bundle_tenant(bundle, label=f"golden {case.id}") as tenant:
        yield tenant


async def generate(cases: list[GoldenCase]) -> list[tuple[GoldenCase, Json]]:
    """Every case's record; demo stories share one demo tenant, as the app's users do."""
    out: list[tuple[GoldenCase, Json]] = []
    demo = [c for c in cases if c.group == "demo"]
    if demo:
        async with open_demo_tenant() as tenant:
            for case in demo:
                out.append((case, await run_case(case, tenant)))
    for case in cases:
        if case.group != "demo":
            async with case_tenant(case) as tenant:
                out.append((case, await run_case(case, tenant)))
    return out


def dump(record: Json) -> str:
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    cases = golden_cases()
    for stale in GOLDEN.glob("*/*.json"):
        stale.unlink()
    for case, record in asyncio.run(generate(cases)):
        case.path.parent.mkdir(parents=True, exist_ok=True)
        case.path.write_text(dump(record), encoding="utf-8")
    size = sum(p.stat().st_size for p in GOLDEN.glob("*/*.json"))
    print(f"wrote {len(cases)} golden reports to {GOLDEN} ({size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
