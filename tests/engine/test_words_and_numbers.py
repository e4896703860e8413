"""Words and numbers a new user tripped over (issue 27, point 9), each on the demo story that showed it, through
the real engine over real HTTP: ages in units a person reads, one non-terminal match checked rather than called
ambiguous, a name absent from a case bundle said as such, a --now before the failure, preemption advice that
claims only what was read, a policy refusal for the submitter, one missing entry per malformed quantity, and
UNKNOWN advice that says what to read next and who can."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import IN_CASE_BUNDLE, DiagnosisRequest
from core.models.report import Report
from core.plural import duration
from core.report.render import to_text
from core.sim.demo import demo_expectations, load_offspec_bundle, offspec_expectations
from core.tenant import Tenant, open_bundle_tenant, open_demo_tenant
from tests.integration.test_record import _cli
from tests.paths import CASES

module_loop = pytest.mark.asyncio(loop_scope="module")
STORIES = {case["key"]: case for case in demo_expectations()}
OFF_SPEC = {case["key"]: case for case in offspec_expectations()}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def demo() -> AsyncIterator[Tenant]:
    async with open_demo_tenant() as tenant:
        yield tenant


async def story(tenant: Tenant, key: str, **extra: Any) -> Report:
    case = STORIES[key]
    kwargs: dict[str, Any] = {"cluster_id": case["clusterId"], "lookback": case.get("lookback") or "24h",
                              "now": tenant.captured_at, **extra}
    if case.get("lookup") == "id":
        kwargs["workload_id"] = case["workloadId"]
    else:
        kwargs.update(name=case["name"], project=case["project"])
    return await run_to_report(DiagnosisRequest(**kwargs), tenant.runai, tenant.kube)


def test_ages_are_said_in_the_unit_a_person_reads() -> None:
    assert duration(6038 * 60) == "4 days"
    assert duration(178 * 60) == "2 h 58 min"
    assert duration(45 * 60) == "45 min"
    assert duration(3 * 3600) == "3 h"
    assert duration(30 * 86400) == "4 weeks"


@module_loop
async def test_a_stale_cluster_says_how_long_ago_in_words(demo: Tenant) -> None:
    report = await story(demo, "disconnected-cluster")
    [finding] = [f for f in report.findings if f.kind == "control-plane"]
    assert "(2 h 58 min before now)" in finding.text, finding.text


@module_loop
async def test_one_match_still_running_is_checked_not_called_ambiguous(demo: Tenant) -> None:
    case = STORIES["running-healthy"]
    request = DiagnosisRequest(cluster_id=case["clusterId"], name=case["name"], project=case["project"],
                               now=demo.captured_at)
    report = await run_to_report(request, demo.runai, demo.kube)
    assert report.outcome == "running" and report.workload.id == case["workloadId"]
    # Several matches, none terminal, stay ambiguous: there is a choice to make.
    crowd = STORIES["ambiguous-chat-agent"]
    report = await story(demo, "ambiguous-chat-agent")
    assert report.outcome == "ambiguous", crowd


@module_loop
async def test_a_now_before_the_failure_counts_nothing_after_it(demo: Tenant) -> None:
    report = await story(demo, "oom-rising", now=datetime(2020, 1, 1, tzinfo=UTC), now_given=True)
    assert report.category == "OOM_KILLED" and report.recurrence.count == 0
    assert any("after the moment given as now" in note for note in report.notes), report.notes


@module_loop
async def test_a_moment_nobody_gave_is_not_called_given(demo: Tenant) -> None:
    """The same late failure against a clock's moment (a case's capture, this machine's time): two clocks disagree;
    nobody gave --now, so neither the note nor the History line may say so."""
    report = await story(demo, "oom-rising", now=datetime(2020, 1, 1, tzinfo=UTC))
    assert report.recurrence.count == 0
    assert not any("given as now" in note for note in report.notes), report.notes
    late = [note for note in report.notes if "is after the moment the diagnosis took as now" in note]
    assert late and "not given by the user" in late[0] and "off by more than 5 min" in late[0], report.notes
    history = to_text(report).split("History: ", 1)[1].splitlines()[0]
    assert "--now" not in history and "two clocks disagree" in history, history


@module_loop
async def test_a_failure_stamped_while_the_diagnosis_read_is_counted(demo: Tenant) -> None:
    """A failure stamped seconds after "now" was fixed (it happened during the reads, or the control plane's clock
    runs ahead) is the failure diagnosed, and it counts; one an hour later is after the moment and does not."""
    failed_at = (await story(demo, "oom-rising")).recurrence.occurrences[0]
    report = await story(demo, "oom-rising", now=failed_at - timedelta(seconds=20), now_given=True)
    assert report.recurrence.count >= 1 and failed_at in report.recurrence.occurrences
    assert not any("after the moment given as now" in note for note in report.notes), report.notes
    report = await story(demo, "oom-rising", now=failed_at - timedelta(hours=1), now_given=True)
    assert failed_at not in report.recurrence.occurrences
    assert any("after the moment given as now" in note for note in report.notes), report.notes


@module_loop
async def test_preemption_advice_names_the_taker_only_when_an_event_does(demo: Tenant) -> None:
    named = await story(demo, "preempt-priority")
    assert "The events read name the workload that took the resources: runai-nlp/pg-chat-serving-0." in \
        named.recommendations[0]
    unnamed = await story(demo, "preempt-disruption")
    assert "took the resources:" not in unnamed.recommendations[0]
    assert "do not name what took the resources" in unnamed.recommendations[0]


@module_loop
async def test_a_policy_refusal_of_the_spec_is_for_the_submitter(demo: Tenant) -> None:
    report = await story(demo, "webhook-denied")
    [finding] = report.findings
    assert finding.kind == "admission" and finding.owner == "user"
    assert "nodeSelector nvidia.com/gpu.product" in finding.text  # what to change, not cut away
    assert report.recommendations[0].startswith("For the submitter:")
    assert not any(r.startswith("For the administrator") for r in report.recommendations)


@module_loop
async def test_one_malformed_quantity_is_one_missing_entry_said_once() -> None:
    case = OFF_SPEC["malformed-quantity"]  # a value no real API sends: the off-spec tenant holds it
    async with open_bundle_tenant(load_offspec_bundle(), label="off-spec") as tenant:
        request = DiagnosisRequest(cluster_id=case["clusterId"], workload_id=case["workloadId"], now=tenant.captured_at)
        report = await run_to_report(request, tenant.runai, tenant.kube)
    bad = [m for m in report.missing if "'24Gx'" in m.why]
    assert len(bad) == 1, [m.why for m in report.missing]
    assert bad[0].what == "CPU-memory request and limit"
    assert bad[0].why.count("is not a Kubernetes quantity") == 1
    assert "spec.compute.cpuMemoryLimit" in bad[0].why and "podsRequestedResources.cpuMemory.request" in bad[0].why
    assert not [m for m in report.missing if m.what == "CPU-memory limit"]  # set but unreadable, said above


@module_loop
@pytest.mark.parametrize("key", ["unknown-no-signals", "unknown-137"])
async def test_unknown_says_what_to_read_next_and_who_can(demo: Tenant, key: str) -> None:
    report = await story(demo, key)
    assert report.category == "UNKNOWN"
    advice = " ".join(report.recommendations)
    assert len(report.recommendations) >= 2
    assert "read next" in advice and "(the cluster administrator)" in advice and "(the submitter)" in advice
    assert report.recommendations[-1] == "Do not rerun unchanged until the cause is known."


def test_a_name_absent_from_a_case_bundle_says_the_bundle_lacks_it(tmp_path: Path) -> None:
    case = CASES / "example-oom.json"
    cluster = json.loads(case.read_text(encoding="utf-8"))["workloads"][0]["workload"]["clusterId"]
    code, out, err = _cli(["diagnose", "--case", str(case), "--cluster-id", cluster, "--name", "no-such-job",
                           "--project", "x"])
    assert code == 0, err
    assert f"no workload named no-such-job in project x {IN_CASE_BUNDLE}" in out
    assert "on this cluster" not in out
