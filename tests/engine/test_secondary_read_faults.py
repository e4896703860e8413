"""A broken secondary read is a stated gap, never a lost report (issue 8, item 1).

Every read the diagnosis makes besides the workload's own status read (and the list a lookup by name needs)
is broken in turn, on the simulator, with real faults: a connection reset, a hang past the client's timeout,
401, 403, 500, 503 (after the retries), a malformed body, a body nested too deeply to parse, a body of the
wrong shape. Each time a report comes out, with the verdict the other evidence supports and a missing entry
that names the read and why. The two reads everything depends on end the diagnosis with a clear message.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import httpx
import pytest

from core.diagnosis.engine import DiagnosisFailed, run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.report.render import json_dict, to_text
from core.sim.bundle import parse_bundle
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient
from core.tenant import open_bundle_tenant
from tests.paths import CASES

CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
WORKLOAD = "9c272e2c-4cbd-59c9-ad76-2b982958772c"
POD = "whisper-ft-0-0"
NODE = "gpu-node-a1"
TIMEOUT_S = 0.3

# What each fault does to the answer (status 0: no HTTP answer; with delayMs, a hang first).
FAULTS: dict[str, dict[str, Any]] = {
    "reset": {"status": 0},
    "hang": {"status": 0, "delayMs": 1500},
    "401": {"status": 401},
    "403": {"status": 403},
    "500": {"status": 500},
    "503": {"status": 503},
    "malformed": {"status": 200, "body": '{"records": [ {"meta": '},
    "deep": {"status": 200, "body": "[" * 5000 + "]" * 5000},
    "html": {"status": 200, "body": "<html><body>Sign in</body></html>"},
}
# Every secondary Run:ai read of example-oom (its workload names no namespace here, so the project is looked
# up), and the source and `what` of the gap it must leave.
RUNAI_READS: dict[str, tuple[str, str | None, str]] = {
    "events": ("GET /api/v1/workloads/{id}/events", "get_workload_status", "workload events"),
    "spec": ("GET /api/v1/workloads/trainings/{id}", "get_workload_spec", "kind-specific spec"),
    "pods": ("GET /api/v1/workloads/{id}/pods", "get_workload_pods", "pods"),
    "history": ("GET /api/v1/workloads/{id}/history", "get_workload_history", "history"),
    "metrics": ("GET /api/v1/workloads/{id}/metrics", "get_workload_metrics", "CPU-memory samples"),
    "project": ("GET /api/v1/org-unit/projects", None, "the project's namespace"),
}
KUBE_READS: dict[str, tuple[str, str]] = {
    "pod": (f"GET /api/v1/namespaces/{{ns}}/pods/{POD}", "kubectl describe pod"),
    "log": (f"GET /api/v1/namespaces/{{ns}}/pods/{POD}/log", "kubectl logs --previous"),
    "pod events": ("GET /api/v1/namespaces/{ns}/events", "kubectl get events"),
    "node events": ("GET /api/v1/events", "kubectl get events"),
}
# The Kubernetes client's own timeout is seconds long: its hang is not worth the wait here. A log is text, so
# any body of a 200 answer is a log (quoted as such), not a broken read.
KUBE_CASES = [
    (read, fault)
    for read in sorted(KUBE_READS)
    for fault in sorted(FAULTS)
    if fault != "hang" and not (read == "log" and FAULTS[fault]["status"] == 200)
]


class _NoSleep:
    """The client's retry back-off, recorded instead of slept (the retries themselves are real requests)."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def _bundle(faults: list[dict[str, Any]]) -> dict[str, Any]:
    data = copy.deepcopy(json.loads((CASES / "example-oom.json").read_text(encoding="utf-8")))
    data["workloads"][0]["workload"].pop("namespace", None)
    data["faults"] = faults
    return data


async def _diagnose(data: dict[str, Any], request: DiagnosisRequest | None = None) -> Report:
    async with open_bundle_tenant(parse_bundle(data, "faults"), label="faults") as tenant:
        assert tenant.control_plane is not None
        client = RunaiClient(
            tenant.runai.base_url,
            BearerToken(tenant.control_plane.issue_token()),
            sleep=_NoSleep(),
            timeout=httpx.Timeout(TIMEOUT_S),
        )
        try:
            request = request or DiagnosisRequest(cluster_id=CLUSTER, workload_id=WORKLOAD, now=tenant.captured_at)
            return await run_to_report(request, client, tenant.kube, tier2_unavailable=tenant.kube_unavailable)
        finally:
            await client.aclose()


def _gap(report: Report, source: str | None, what: str) -> str:
    gaps = [m for m in report.missing if m.source == source and m.what.startswith(what)]
    assert gaps, f"no gap for {what!r} ({source}) in {[(m.what, m.source) for m in report.missing]}"
    assert gaps[0].why.strip()
    return gaps[0].why


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("read", sorted(RUNAI_READS))
async def test_a_broken_runai_read_leaves_a_stated_gap(read: str, fault: str) -> None:
    match, source, what = RUNAI_READS[read]
    report = await _diagnose(_bundle([{"match": match, "times": 99, **FAULTS[fault]}]))
    # The kubelet's OOMKilled (status, pod, Kubernetes) still decides.
    assert (report.outcome, report.category) == ("diagnosed", "OOM_KILLED")
    why = _gap(report, source, what)
    if fault == "hang":
        assert "timed out" in why, why
    if fault == "reset":
        # The server accepted the connection, then dropped it mid-answer: reached, but no complete answer.
        assert "did not send a complete answer" in why and "not a network or VPN problem" in why, why
    if fault == "401":
        assert "credentials were refused" in why, why


@pytest.mark.parametrize(("read", "fault"), KUBE_CASES)
async def test_a_broken_kubernetes_read_leaves_a_stated_gap(read: str, fault: str) -> None:
    match, source = KUBE_READS[read]
    report = await _diagnose(_bundle([{"match": match, "times": 99, **FAULTS[fault]}]))
    assert (report.outcome, report.category) == ("diagnosed", "OOM_KILLED")
    assert [m for m in report.missing if m.source == source], [(m.what, m.source) for m in report.missing]


@pytest.mark.parametrize("fault", ["reset", "500", "malformed", "deep"])
async def test_a_broken_node_read_leaves_a_stated_gap(fault: str) -> None:
    rule = json.loads((CASES / "rules" / "conflict-137-and-node-notready.json").read_text(encoding="utf-8"))
    node = rule["kubernetes"]["nodes"][0]["metadata"]["name"]
    rule["faults"] = [{"match": f"GET /api/v1/nodes/{node}", "times": 99, **FAULTS[fault]}]
    async with open_bundle_tenant(parse_bundle(rule, "node"), label="node") as tenant:
        request = DiagnosisRequest(now=tenant.captured_at, **rule["request"])
        report = await run_to_report(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable)
    assert (report.outcome, report.category) == (rule["expect"]["outcome"], rule["expect"]["category"])
    assert [m for m in report.missing if m.source == "kubectl describe node"], report.missing


async def test_every_secondary_read_broken_at_once_still_gives_a_report() -> None:
    faults = [{"match": match, "times": 99, "status": 0} for match, _, _ in RUNAI_READS.values()]
    faults += [{"match": match, "times": 99, "status": 500} for match, _ in KUBE_READS.values()]
    report = await _diagnose(_bundle(faults))
    # Only the workload's own status is left: its phase message says OOMKilled.
    assert (report.outcome, report.category) == ("diagnosed", "OOM_KILLED")
    for _, source, what in RUNAI_READS.values():
        _gap(report, source, what)
    assert report.memory is not None and report.memory.peak_bytes is None
    assert not [e for e in report.evidence if e.signal == "no-samples"], "a failed read is not an empty series"


@pytest.mark.parametrize("fault", ["reset", "401", "500", "malformed"])
async def test_the_workload_read_itself_still_ends_the_diagnosis_clearly(fault: str) -> None:
    data = _bundle([{"match": "GET /api/v1/workloads/{id}", "times": 99, **FAULTS[fault]}])
    with pytest.raises(DiagnosisFailed) as failed:
        await _diagnose(data)
    assert str(failed.value).strip()


@pytest.mark.parametrize("fault", ["reset", "401", "500"])
async def test_the_list_for_a_lookup_by_name_still_ends_the_diagnosis_clearly(fault: str) -> None:
    data = _bundle([{"match": "GET /api/v1/workloads", "times": 99, **FAULTS[fault]}])
    request = DiagnosisRequest(
        cluster_id=CLUSTER, name="whisper-ft", project="speech", now=parse_bundle(data, "x").captured_at
    )
    with pytest.raises(DiagnosisFailed) as failed:
        await _diagnose(data, request)
    assert str(failed.value).strip()


# A record the history endpoint could answer with, and an item of the wrong shape beside it.
_GOOD_RECORD = {
    "meta": {"creationTimestamp": "2026-11-30T11:25:00Z", "type": "PhaseUpdate"},
    "spec": {"phaseUpdate": {"phase": "Failed", "phaseMessage": "OOMKilled"}},
}


@pytest.mark.parametrize(
    ("fault", "found"),
    [
        ({"status": 0}, "at least 1 OOM_KILLED failure"),
        ({"status": 500}, "at least 1 OOM_KILLED failure"),
        ({"status": 200, "body": json.dumps({"records": [_GOOD_RECORD, 5, "x"]})}, "at least 1 OOM_KILLED failure"),
        ({"status": 200, "body": json.dumps({"records": [_GOOD_RECORD], "next": 0})}, "at least 1 OOM_KILLED failure"),
    ],
    ids=["reset", "500", "unreadable records", "next that does not advance"],
)
async def test_a_history_not_read_whole_leaves_recurrence_unknown(fault: dict[str, Any], found: str) -> None:
    # The status shows this failure, so it counts; whether it happened before is unknown, not "one-off".
    report = await _diagnose(_bundle([{"match": RUNAI_READS["history"][0], "times": 99, **fault}]))
    assert (report.outcome, report.category) == ("diagnosed", "OOM_KILLED")
    rec = report.recurrence
    assert (rec.count, rec.complete, rec.recurring, rec.kind()) == (1, False, False, "recurrence unknown")
    assert json_dict(report)["recurrence"]["complete"] is False
    line = next(line for line in to_text(report).splitlines() if line.startswith("History:"))
    assert found in line and "one-off" not in line and "could not be read whole" in line, line


async def test_a_history_read_whole_counts_a_single_failure_as_a_one_off() -> None:
    report = await _diagnose(_bundle([]))
    rec = report.recurrence
    assert (rec.count, rec.complete, rec.kind()) == (1, True, "one-off")
    line = next(line for line in to_text(report).splitlines() if line.startswith("History:"))
    assert line.startswith("History: 1 OOM_KILLED failure in the last") and line.split(": ")[2].startswith("one-off")


async def test_events_with_nothing_the_diagnosis_reads_are_counted_as_missing() -> None:
    data = _bundle([])
    workload = data["workloads"][0]
    workload["events"] = [*workload.get("events", []), {"foo": 1}, {"id": "only-an-id"}]
    report = await _diagnose(data)
    assert (report.outcome, report.category) == ("diagnosed", "OOM_KILLED")  # the real events still decide
    assert "2 events had none of the fields the diagnosis reads" in _gap(report, "get_workload_status", "some workload")


async def test_ordinary_events_leave_no_such_gap() -> None:
    report = await _diagnose(_bundle([]))
    assert not [m for m in report.missing if m.what == "some workload events"], report.missing
