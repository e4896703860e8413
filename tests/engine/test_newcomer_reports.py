"""What a newcomer met in the reports (issue 34), each on the demo story that showed it, through the real engine
over real HTTP: a crash loop said as one, not as a "one-off", wherever recurrence is shown (the report, `scan`
and `watch`, which print the same entry)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.report.render import to_json, to_markdown, to_text
from core.sim.demo import demo_expectations
from core.sim.demo.kit import Story, cstatus, lifecycle, node, oom_message, terminated, waiting
from core.tenant import Tenant, open_demo_tenant
from core.triage.entry_render import entry_lines, top_line
from core.triage.scan import ScanRequest, scan
from tests.engine.test_rule_cases import build_from, diagnose_bundle

module_loop = pytest.mark.asyncio(loop_scope="module")
STORIES = {case["key"]: case for case in demo_expectations()}


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


# -- point 1: a crash loop is not a one-off ----------------------------------------------------------------------
@module_loop
@pytest.mark.parametrize(
    ("key", "said"),
    [
        ("crash-running-crashloop", "crash loop: 7 restarts in 40 min"),  # Running, 7 restarts since 11:20
        ("init-crashloop", "crash loop: 5 restarts in 16 min"),  # an init container, Pending, since 11:44
    ],
)
async def test_a_crash_loop_is_said_beside_the_count_never_one_off(demo: Tenant, key: str, said: str) -> None:
    report = await story(demo, key)
    rec = report.recurrence
    assert rec.count == 1 and rec.crash_loop is not None
    assert rec.kind() == said
    text = to_text(report)
    [history] = [line for line in text.splitlines() if line.startswith("History: ")]
    assert said in history and "one-off" not in history, history
    assert "one-off" not in to_markdown(report)
    assert '"crashLoop"' in to_json(report)
    # `scan` and `watch` print the same entry head.
    case = STORIES[key]
    assert demo.captured_at is not None
    result = await scan(ScanRequest(cluster_id=case["clusterId"], since="24h"), demo.runai, demo.kube,
                        now=demo.captured_at)
    [entry] = [e for e in result.entries if e.workload.id == case["workloadId"]]
    head = entry_lines(entry)[0]
    assert "once in 24h" in head and said in head, head


@module_loop
async def test_a_single_failure_without_restarts_is_still_a_one_off(demo: Tenant) -> None:
    report = await story(demo, "oom-rising")
    assert report.recurrence.crash_loop is None and report.recurrence.kind() == "one-off"


# -- point 5: the one line that says why ------------------------------------------------------------------------
@module_loop
async def test_scan_says_an_ooms_peak_and_a_pulls_cause_within_the_first_columns(demo: Tenant) -> None:
    assert demo.captured_at is not None
    result = await scan(ScanRequest(cluster_id=STORIES["oom-rising"]["clusterId"], since="24h"), demo.runai, demo.kube,
                        now=demo.captured_at)
    why = {e.workload.name: top_line(e)[0] for e in result.entries}
    # llama-ft-7b's peak against its limit, not a pod line cut before the numbers.
    assert why["llama-ft-7b"] == "OOM-killed: peak 47.9 GiB = 99.7% of the 48 GiB limit", why["llama-ft-7b"]
    causes = {"bert-serve": "not found", "asr-stream": "no such host", "sam-finetune": "401 Unauthorized"}
    for name, cause in causes.items():
        assert cause in why[name][:80], why[name]


# -- point 6: what repeats ------------------------------------------------------------------------------------
@module_loop
async def test_a_policy_refusal_is_quoted_once_and_not_filed_under_faults_under_the_workload(demo: Tenant) -> None:
    report = await story(demo, "webhook-denied")
    text = to_text(report)
    assert text.count("denied the request") == 1, text  # the evidence quotes it; reason and finding point to it
    assert text.count("GPU pods must select an approved GPU product") <= 2, text  # the finding's summary, the quote
    assert "Findings (what stopped the workload from outside its code" in text
    assert "faults under the workload" not in text
    # The JSON keeps every field whole.
    assert "denied the request" in (report.reason or "") and "denied the request" in report.findings[0].text


@module_loop
async def test_a_crash_opens_on_its_failing_log_line(demo: Tenant) -> None:
    report = await story(demo, "crash-traceback")
    evidence = text_evidence(to_text(report))
    assert evidence[0].startswith('- Log line 7 of container main (current instance): "KeyError: \'labels\'"')
    assert "Error (exit 1)" in evidence[1]


def text_evidence(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("Evidence:") + 1
    return lines[start : lines.index("", start)]


@module_loop
async def test_the_phase_since_is_said_on_the_workload_line_not_again_below(demo: Tenant) -> None:
    report = await story(demo, "pull-not-found")
    lines = to_text(report).splitlines()
    assert lines[1] == "Workload: bert-serve | Phase: Pending since 2026-11-30 11:47:00 UTC | Project: nlp"
    assert not any(line.startswith("- Phase: Pending since") for line in lines)
    assert "Phase: Pending since 2026-11-30T11:47:00+00:00" in to_text(report, verbose=True)


# -- point 7: words and numbers ---------------------------------------------------------------------------------
@module_loop
async def test_old_events_are_days_old_not_a_hundred_hours(demo: Tenant) -> None:
    report = await story(demo, "resnet-bench-2")
    whys = " ".join(m.why for m in report.missing)
    assert "is 5 days old" in whys and not re.search(r"\d{3} h \d+ min", whys), whys


@module_loop
async def test_a_peak_is_dated_by_its_own_samples_not_the_window_asked_for(demo: Tenant) -> None:
    report = await story(demo, "oom-rising")
    [peak] = [e.text for e in report.evidence if e.signal == "memory-peak"]
    window = report.memory.windows[0] if report.memory and report.memory.windows else {}
    m = re.search(r"(\d+) samples from (\S+) to (\S+)$", peak)
    assert m is not None, peak
    assert m[2] != window["start"], "the first sample, not where the query began"
    assert int(m[1]) == report.memory.samples  # type: ignore[union-attr]


@module_loop
async def test_an_exit_code_read_as_a_tools_says_what_named_the_tool(demo: Tenant) -> None:
    report = await story(demo, "init-crashloop")
    [exit_line] = [e.text for e in report.evidence if "Error (exit 2)" in e.text]
    assert "(the AWS CLI exit status 2), read from its image docker.io/amazon/aws-cli:2.17.0" in exit_line


@module_loop
async def test_markdown_quotes_a_log_line_in_advice_as_one_code_span(demo: Tenant) -> None:
    report = await story(demo, "crash-argparse")
    advice = to_markdown(report).split("### Recommendation", 1)[1].split("<details>", 1)[0]
    assert "`pretrain.py: error: unrecognized arguments: --lr-schedule cosine`" in advice, advice


# -- point 8: a tenant that contradicts itself is said to --------------------------------------------------------
def _oom_on_a_node_gone_not_ready() -> tuple[list[Story], dict[str, Any], dict[str, Any]]:
    s = Story("odd-node-01", "tts-ft", "speech", "Failed", phase_at=20, created=120, mem=("24Gi", "24Gi"))
    pod = s.add_pod(node="gpu-t-07", created=118, k8s_phase="OOMKilled", updated=20, completed=20)
    s.phase_message = oom_message(pod.name)
    lifecycle(s, 115, 20, "Failed", s.phase_message)
    s.add_event(20.1, "OOMKilled", "Container main was OOM killed", pod=pod.name)
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("OOMKilled", 137, 115, 20))], phase="Failed")
    s.nodes.append(node("gpu-t-07", ready="Unknown", ready_since=25))  # NotReady five minutes before the kill
    s.add_node_event(25, "gpu-t-07", "NodeNotReady", "Node gpu-t-07 status is now: NodeNotReady", type_="Normal")
    return [s], {"cluster_id": s.cluster, "workload_id": s.id}, {}


def _init_restarts_under_never() -> tuple[list[Story], dict[str, Any], dict[str, Any]]:
    s = Story("odd-policy-01", "vit-eval", "vision", "Pending", phase_at=18, created=18.5, restart_policy="Never")
    pod = s.add_pod(node="gpu-t-08", created=18, k8s_phase="Init:CrashLoopBackOff", updated=1)
    s.add_phase(s.created, "Pending")
    back_off = f"Back-off restarting failed container fetch in pod {pod.name}_{s.ns}({pod.uid})"
    s.add_event(16, "BackOff", back_off, pod=pod.name)
    s.add_kube_pod(pod, [cstatus("main", s.image, waiting("PodInitializing"))], phase="Pending",
                   init_containers=["fetch"],
                   init_statuses=[cstatus("fetch", "busybox:1.36", waiting("CrashLoopBackOff", back_off),
                                          last=terminated("Error", 1, 4, 3.9), restarts=4)])
    return [s], {"cluster_id": s.cluster, "workload_id": s.id}, {}


async def test_an_oom_on_a_node_that_went_not_ready_first_says_whether_the_node_matters() -> None:
    bundle = build_from(_oom_on_a_node_gone_not_ready)
    report, _ = await diagnose_bundle(bundle, **bundle["request"])
    assert report.category == "OOM_KILLED"
    said = [r for r in report.recommendations if r.startswith("Node gpu-t-07 was NotReady from")]
    assert said and "5 min before this failure" in said[0] and "rests on the workload's own signal" in said[0]
    assert said[0] in to_text(report)


async def test_restarts_under_a_never_policy_are_said() -> None:
    bundle = build_from(_init_restarts_under_never)
    report, _ = await diagnose_bundle(bundle, **bundle["request"])
    assert report.category == "INIT_FAILED"
    assert any("restart policy is Never, yet container fetch restarted 4 times" in r for r in report.recommendations)


@module_loop
async def test_the_demo_no_longer_contradicts_itself(demo: Tenant) -> None:
    """The stories the newcomer caught: each is consistent now, so the report has nothing odd to say of it."""
    for key in ("long-history", "init-crashloop"):
        report = await story(demo, key)
        odd = [r for r in report.recommendations if "NotReady from" in r or "restart policy is Never" in r
               or "restart policy submitted is Never" in r]
        assert not odd, (key, odd)
