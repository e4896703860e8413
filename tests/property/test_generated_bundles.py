"""Properties of whole diagnoses over generated bundles and server answers.

Each example takes the OOM case and replaces a few values anywhere in it (the workload, its events, spec,
pods, history, metrics, and the Kubernetes pod, log and node) with wrong types, unknown enum values, huge and
deep values, timestamps at the calendar's edges or hostile text, optionally under an injected fault on one
endpoint. It is then served on loopback and diagnosed with both tiers. Asserted every time:

- never a traceback: the bundle loader refuses with a BundleError naming the place, or the engine gives a report,
  or (only when the workload read itself failed) DiagnosisFailed with a message;
- a report whenever the workload itself was readable;
- bounded time per example, and bounded memory over the run (peak RSS printed);
- no control character in any rendering (text, Markdown, JSON strings).
"""

from __future__ import annotations

import copy
import json
import resource
import time
import unicodedata
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from core.diagnosis.engine import DiagnosisFailed, run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.report.render import RENDERERS
from core.sim.bundle import BundleError, parse_bundle
from core.sources.budget import time_budget
from tests.integration.fault_rig import ENDPOINTS, FAULTS, OOM_CASE, OOM_CLUSTER, OOM_ID, served
from tests.property.strategies import PROPERTY_SETTINGS, json_paths, set_path, wrong_values

BASE: dict[str, Any] = json.loads(OOM_CASE.read_text(encoding="utf-8"))


def _loader_accepts(path: tuple[Any, ...]) -> bool:
    for value in (None, [["x"]], {"x": 1}):
        bundle = copy.deepcopy(BASE)
        set_path(bundle, path, value)
        try:
            parse_bundle(bundle)
        except BundleError:
            return False
    return True


# Every place under the workload entry and the Kubernetes section, where a server's answers come from, that
# the bundle loader leaves free (it checks only what the simulator needs: ids, phases, times it sorts by).
PATHS = [p for p in json_paths(BASE) if p[0] in ("workloads", "kubernetes") and len(p) > 3 and _loader_accepts(p)]
# Faults that end quickly under the rig's short deadlines (a hang or trickle would only cost time here).
QUICK_FAULTS = sorted(f for f in FAULTS if f not in ("hang", "trickle", "trickle head"))
EXAMPLE_BOUND_S = 12.0
_stats = {"tried": 0, "bundles refused": 0, "reports": 0, "failed": 0, "worst": 0.0}


def _control_characters(text: str) -> list[str]:
    return [repr(ch) for ch in text if ch not in "\n\t" and unicodedata.category(ch) in ("Cc", "Cf", "Cs")]


def _strings(value: Any) -> list[str]:
    found: list[str] = []
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            found.append(current)
        elif isinstance(current, dict):
            stack.extend(current.keys())
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return found


def _assert_clean(report: Report) -> None:
    for name, render in RENDERERS.items():
        text = render(report)
        if name == "json":
            for string in _strings(json.loads(text)):
                assert not _control_characters(string), (name, string[:120])
        else:
            assert not _control_characters(text), (name, _control_characters(text)[:5])


async def _diagnose(bundle: dict[str, Any]) -> Report | DiagnosisFailed:
    with served(bundle) as s:
        tenant = s.tenant()
        try:
            request = DiagnosisRequest(cluster_id=OOM_CLUSTER, workload_id=OOM_ID, now=s.plane.bundle.captured_at)
            with time_budget(8.0):
                return await run_to_report(request, tenant.runai, tenant.kube, tier2_unavailable=None)
        except DiagnosisFailed as exc:
            return exc
        finally:
            await tenant.aclose()


def _workload_readable(bundle: dict[str, Any], fault: str | None, faulted: str | None) -> bool:
    workload = bundle["workloads"][0]["workload"]
    if faulted == "workload" and fault not in ("deep JSON", "huge page"):
        return False
    return isinstance(workload, dict) and workload.get("id") == OOM_ID


@PROPERTY_SETTINGS
@given(
    changes=st.lists(st.tuples(st.sampled_from(PATHS), wrong_values), min_size=1, max_size=4),
    fault=st.one_of(st.none(), st.tuples(st.sampled_from(QUICK_FAULTS), st.sampled_from(ENDPOINTS[1:11]))),
)
async def test_generated_bundles_give_a_report_or_a_named_refusal(
    changes: list[tuple[tuple[Any, ...], Any]], fault: tuple[str, Any] | None
) -> None:
    bundle = copy.deepcopy(BASE)
    for path, value in changes:
        try:
            set_path(bundle, path, value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change replaced the container this path runs through
    fault_name = faulted = None
    if fault is not None:
        fault_name, endpoint = fault
        faulted = endpoint.name
        bundle["faults"] = [{"match": endpoint.match, "times": 9, **FAULTS[fault_name]}]
    _stats["tried"] += 1
    try:
        parse_bundle(json.loads(json.dumps(bundle, default=str)))
    except BundleError as exc:
        _stats["bundles refused"] += 1
        event("bundle refused")
        assert not _control_characters(str(exc)), str(exc)
        return
    bundle = json.loads(json.dumps(bundle, default=str))
    started = time.monotonic()
    outcome = await _diagnose(bundle)
    elapsed = time.monotonic() - started
    _stats["worst"] = max(_stats["worst"], elapsed)
    assert elapsed < EXAMPLE_BOUND_S, elapsed
    if isinstance(outcome, DiagnosisFailed):
        _stats["failed"] += 1
        event("no report")
        assert not _workload_readable(bundle, fault_name, faulted), f"no report although the workload was: {outcome}"
        assert str(outcome) and not _control_characters(str(outcome))
        return
    _stats["reports"] += 1
    event(f"report: {outcome.outcome}")
    _assert_clean(outcome)


def test_property_counts(capsys: pytest.CaptureFixture[str]) -> None:
    # Runs after the property above in a plain run; alone (or on another worker) it has nothing to print.
    if not _stats["tried"]:
        pytest.skip("the generated-bundle property did not run in this process")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with capsys.disabled():
        print(
            f"\n[property] {_stats['tried']} bundles tried, {_stats['bundles refused']} refused by the loader, "
            f"{_stats['reports']} reports kept, {_stats['failed']} without a report (workload unreadable), "
            f"worst time {_stats['worst']:.2f} s, peak RSS {rss:.0f} MiB"
        )
    assert _stats["reports"] > 0
