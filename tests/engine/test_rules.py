"""The seed's rules that need more than a verdict check: Option B selection and paging, history paging and
recurrence, the metrics window and peak, transient faults, and the report's shape. Real HTTP throughout."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from typing import Any

import httpx

from core.diagnosis.engine import run_to_report
from core.diagnosis.history_analysis import analyse_history
from core.diagnosis.request import DiagnosisRequest
from core.models.runai import HistoryRecord
from core.report.render import to_json, to_markdown, to_text
from core.sim.bundle import parse_bundle
from core.sim.control_plane import RecordedRequest
from core.sim.demo.kit import EAST, NOW, PROJECTS, Json, Story, cstatus, flat, node, terminated, ts, uid
from core.sources.credentials import BearerToken
from core.sources.runai import RunaiClient
from core.tenant import open_bundle_tenant
from tests.engine.test_rule_cases import (
    GI,
    bundle_of,
    diagnose_bundle,
    error_message,
    failed_app_exit,
    lifecycle,
    oom_message,
    oom_story,
    pending_story,
)


def _query(req: RecordedRequest) -> dict[str, str]:
    return dict(req.query)


def _lists(requests: list[RecordedRequest]) -> list[dict[str, str]]:
    return [_query(r) for r in requests if r.path == "/api/v1/workloads"]


def cheap_workload(name: str, project: str, phase: str, minutes_ago: float, n: int, **extra: Any) -> Json:
    """A minimal list entry: only the keys a bundle requires plus the phase times."""
    p = PROJECTS[project]
    w: Json = {
        "id": uid("cheap", name, str(n)),
        "name": name,
        "clusterId": p.cluster,
        "projectName": project,
        "projectId": p.id,
        "namespace": p.namespace,
        "type": "Training",
        "phase": phase,
        "phaseUpdatedAt": ts(minutes_ago),
        "createdAt": ts(minutes_ago + 10),
        **extra,
    }
    return {"workload": w}


# -- Option B -----------------------------------------------------------------------------------------------
async def test_option_b_sends_exact_filters_and_follows_pages_over_600_submissions() -> None:
    target = failed_app_exit("b-target", "sweep-run", code=1)
    target.phase_at = 30
    # 600 older submissions of the same name (Completed): the listing needs two pages of 500.
    others = [cheap_workload("sweep-run", "nlp", "Completed", 200 + i, i) for i in range(600)]
    bundle = bundle_of([target], extra_workloads=others)
    report, requests = await diagnose_bundle(bundle, cluster_id=EAST, name="sweep-run", project="nlp")
    assert (report.outcome, report.category) == ("diagnosed", "CRASH_APP_ERROR")
    assert report.workload.id == target.id
    lists = _lists(requests)
    # Every page of the live submissions, and the deleted ones beside them (deleted=true answers only those).
    pages = sorted((q["offset"], str(q.get("deleted"))) for q in lists)
    assert pages == [("0", "None"), ("0", "true"), ("500", "None")]
    for q in lists:
        assert q["filterBy"] == f"name==sweep-run,projectName==nlp,clusterId=={EAST}"
        assert (q["sortBy"], q["sortOrder"], q["limit"]) == ("phaseUpdatedAt", "desc", "500")
    selection = next(e.text for e in report.evidence if e.source == "list_workloads")
    assert "601 live submissions and 0 deleted" in selection


async def test_option_b_terminal_intent_picks_the_newest_terminal_not_the_newest_match() -> None:
    older = failed_app_exit("b-older-fail", "ft-job", code=2)
    older.phase_at, older.created = 300, 400
    newer = oom_story("b-newer-oom", "ft-job")
    newer.project = "nlp"
    running_now = Story("b-running", "ft-job", "nlp", "Running", phase_at=5, created=8, running_pods=1)
    bundle = bundle_of([older, newer, running_now])
    report, requests = await diagnose_bundle(bundle, cluster_id=EAST, name="ft-job", project="nlp", lookback="7d")
    assert report.workload.id == newer.id
    assert report.category == "OOM_KILLED"
    # The Running submission is newer but not terminal: its status was never read.
    assert not [r for r in requests if r.path == f"/api/v1/workloads/{running_now.id}"]


async def test_option_b_rechecks_the_name_exactly_when_the_server_filter_is_loose() -> None:
    # A server whose filter behaves like "starts with": the list answer (a raw fault body) holds a longer
    # name too, newest first. The client must keep only the exact name.
    exact = failed_app_exit("b-exact", "bert", code=1)
    longer = oom_story("b-longer", "bert-large")
    longer.project = "nlp"
    longer.phase_at = 10
    bundle = bundle_of([exact, longer])
    body = json.dumps({"workloads": [longer.workload_json(), exact.workload_json()], "next": None})
    bundle["faults"] = [{"match": "GET /api/v1/workloads", "status": 200, "times": 5, "body": body}]
    report, _ = await diagnose_bundle(bundle, cluster_id=EAST, name="bert", project="nlp")
    assert report.workload.id == exact.id
    assert report.workload.name == "bert"
    assert report.category == "CRASH_APP_ERROR"


async def test_option_b_rechecks_the_project_and_cluster_exactly() -> None:
    mine = failed_app_exit("b-mine", "shared-name", code=1)
    theirs = oom_story("b-theirs", "shared-name")  # project vision, newer
    theirs.phase_at = 5
    bundle = bundle_of([mine, theirs])
    body = json.dumps({"workloads": [theirs.workload_json(), mine.workload_json()]})
    bundle["faults"] = [{"match": "GET /api/v1/workloads", "status": 200, "times": 5, "body": body}]
    report, _ = await diagnose_bundle(bundle, cluster_id=EAST, name="shared-name", project="nlp")
    assert report.workload.id == mine.id


def _healthy_running(key: str, name: str, at: float) -> Story:
    s = Story(key, name, "nlp", "Running", phase_at=at, created=at + 2, running_pods=1)
    s.add_pod(node="gpu-e-40", created=at + 1, k8s_phase="Running", updated=at)
    s.add_event(at + 0.5, "Started", "Started container main", type_="Normal", pod=s.pod_name())
    return s


def _pull_pending(key: str, name: str, at: float) -> Story:
    s = Story(key, name, "nlp", "Pending", phase_at=at, created=at + 0.2)
    s.image = "nvcr.io/nvidia/pytorch:24.13-py3"
    s.add_pod(node="gpu-e-41", created=at, k8s_phase="Pending", updated=at)
    s.add_event(
        at - 0.1,
        "Failed",
        f'Failed to pull image "{s.image}": rpc error: code = NotFound desc = failed to pull and unpack image '
        f'"{s.image}": failed to resolve reference "{s.image}": {s.image}: not found',
        pod=s.pod_name(),
    )
    return s


async def test_option_b_active_intent_checks_running_and_pending_newest_first() -> None:
    healthy = _healthy_running("b-act-healthy", "svc", 2)
    pulling = _pull_pending("b-act-pull", "svc", 10)
    older_crash = Story("b-act-crash", "svc", "nlp", "Running", phase_at=50, created=60, running_pods=1)
    older_crash.add_event(49, "BackOff", "Back-off restarting failed container main in pod svc-0-0", pod="svc-0-0")
    failed = failed_app_exit("b-act-failed", "svc", code=1)
    failed.phase_at = 1
    bundle = bundle_of([healthy, pulling, older_crash, failed])
    report, requests = await diagnose_bundle(bundle, cluster_id=EAST, name="svc", project="nlp", active=True)
    assert report.workload.id == pulling.id
    assert report.category == "IMAGE_PULL_FAILED"
    status_reads = {r.path for r in requests if r.path.startswith("/api/v1/workloads/") and r.path.count("/") == 4}
    assert f"/api/v1/workloads/{healthy.id}" in status_reads  # checked, not confirmed
    assert f"/api/v1/workloads/{failed.id}" not in status_reads  # not Running/Pending: never a candidate


async def test_option_b_active_intent_with_nothing_confirmed_is_ambiguous() -> None:
    a = _healthy_running("b-amb-1", "chat", 3)
    b = _healthy_running("b-amb-2", "chat", 30)
    report, requests = await diagnose_bundle(
        bundle_of([a, b]), cluster_id=EAST, name="chat", project="nlp", active=True
    )
    assert (report.outcome, report.category, report.recurrence.count) == ("ambiguous", None, 0)
    assert not [r for r in requests if r.path.endswith(("/pods", "/history", "/metrics"))]


async def test_option_b_terminal_intent_with_only_active_matches_is_ambiguous() -> None:
    a = _healthy_running("b-amb-3", "chat2", 3)
    b = _healthy_running("b-amb-4", "chat2", 4)
    report, _ = await diagnose_bundle(bundle_of([a, b]), cluster_id=EAST, name="chat2", project="nlp")
    assert report.outcome == "ambiguous"
    # One match only: nothing to choose between, so its status decides (issue 27, point 9), never "ambiguous".
    report, _ = await diagnose_bundle(bundle_of([a]), cluster_id=EAST, name="chat2", project="nlp")
    assert report.outcome == "running" and report.workload.id == a.id


async def test_option_b_a_past_run_is_picked_among_live_and_deleted_submissions() -> None:
    # Run:ai makes a name free again by deleting the workload: the failed runs are deleted, a new one is live.
    gone = failed_app_exit("b-deleted", "cleanup-job", code=1)
    gone.deleted_at = 20
    live_now = Story("b-live-run", "cleanup-job", "nlp", "Running", phase_at=5, created=8, running_pods=1)
    report, requests = await diagnose_bundle(
        bundle_of([gone, live_now]), cluster_id=EAST, name="cleanup-job", project="nlp"
    )
    assert report.workload.id == gone.id and report.category == "CRASH_APP_ERROR"
    assert sorted(str(q.get("deleted")) for q in _lists(requests)) == ["None", "true"]
    assert any("deleted" in n for n in report.notes)

    # A live failed run older than a deleted one: the newest terminal run wins, deleted or not.
    live = failed_app_exit("b-live", "cleanup-job2", code=2)
    gone2 = oom_story("b-deleted2", "cleanup-job2")
    gone2.project, gone2.phase_at, gone2.deleted_at = "nlp", 5, 2
    report, _ = await diagnose_bundle(bundle_of([live, gone2]), cluster_id=EAST, name="cleanup-job2", project="nlp")
    assert report.workload.id == gone2.id and report.category == "OOM_KILLED"
    # The other submission, live, failed inside the lookback: counted apart from this workload's recurrence.
    others = report.recurrence.other_submissions
    assert others is not None and (others.failed, others.total) == (1, 1)


async def test_option_b_never_picks_a_submission_of_another_project_or_cluster() -> None:
    mine = failed_app_exit("b-mine", "shared-name", code=1)
    mine.phase_at = 60
    other_project = failed_app_exit("b-other-project", "shared-name", code=2)
    other_project.project, other_project.phase_at = "vision", 10
    other_cluster = failed_app_exit("b-other-cluster", "shared-name", code=3)
    other_cluster.project, other_cluster.phase_at, other_cluster.deleted_at = "robotics", 5, 4
    report, _ = await diagnose_bundle(
        bundle_of([mine, other_project, other_cluster]), cluster_id=EAST, name="shared-name", project="nlp"
    )
    assert report.workload.id == mine.id
    assert report.recurrence.other_submissions is not None and report.recurrence.other_submissions.total == 0


# -- Step 3: history ----------------------------------------------------------------------------------------
def _history_records(s: Story) -> list[HistoryRecord]:
    return [HistoryRecord.model_validate(r) for r in s.entry()["history"]]


def _oom_run(s: Story, end: float, *, backoffs: int = 0, in_events: bool = False) -> None:
    pod = s.pod_name()
    s.add_phase(end + 60, "Pending")
    s.add_phase(end + 55, "Running")
    for i in range(backoffs):
        s.add_event(
            end + 50 - i * (45 / max(backoffs, 1)),
            "BackOff",
            f"Back-off restarting failed container main in pod {pod}_{s.ns}({s.pod_uid(pod)})",
            pod=pod,
            in_events=in_events,
        )
    s.add_event(end + 0.05, "OOMKilled", "Container main was OOM killed", pod=pod, in_events=in_events)
    s.add_phase(end, "Failed", oom_message(pod))
    s.add_event(end - 0.5, "Killing", "Stopping container main", type_="Normal", pod=pod, in_events=in_events)


def test_analyse_history_is_independent_of_record_order() -> None:
    s = Story("h-order", "order-job", "nlp", "Failed", phase_at=30, created=4000)
    for end in (3000, 1500, 30):
        _oom_run(s, end, backoffs=5)
    records = _history_records(s)
    cutoff = NOW - timedelta(days=7)
    baseline = analyse_history(records, cutoff=cutoff, current_phase="Failed")
    assert len(baseline.occurrences) == 3
    for seed in range(5):
        shuffled = list(records)
        random.Random(seed).shuffle(shuffled)
        for variant in (shuffled, list(reversed(records))):
            got = analyse_history(variant, cutoff=cutoff, current_phase="Failed")
            assert [o.end for o in got.occurrences] == [o.end for o in baseline.occurrences]
            assert [len(o.observations) for o in got.occurrences] == [len(o.observations) for o in baseline.occurrences]


def test_analyse_history_counts_a_phase_update_and_its_events_once() -> None:
    s = Story("h-once", "once-job", "nlp", "Failed", phase_at=30, created=100)
    _oom_run(s, 30, backoffs=30)
    s.add_event(29.5, "OOMKilled", "Container main was OOM killed", pod=s.pod_name())  # a late duplicate
    got = analyse_history(_history_records(s), cutoff=NOW - timedelta(days=1), current_phase="Failed")
    assert len(got.occurrences) == 1


async def test_history_pages_of_500_and_split_occurrences_count_once_each() -> None:
    s = oom_story("h-long", "long-oom", at=30)
    s.history.clear()
    s.created = 6000
    # Three OOM runs inside 7 d, each with ~400 back-off records, so the 500-record pages cut through them.
    for end in (4000, 2000):
        _oom_run(s, end, backoffs=400)
    _oom_run(s, 30, backoffs=400)
    # One older OOM outside the lookback and a failure of another category inside it.
    _oom_run(s, 12000, backoffs=3)
    s.add_phase(1000, "Running")
    s.add_phase(990, "Failed", error_message(s.pod_name(), 1))
    assert len(s.history) > 1200
    report, requests = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id, lookback="7d")
    assert report.category == "OOM_KILLED"
    assert report.recurrence.count == 3 and report.recurrence.recurring
    pages = [_query(r) for r in requests if r.path.endswith("/history")]
    offsets = sorted(int(p["offset"]) for p in pages)
    # Pages of 500, each asked for once; later pages are asked for ahead, so one past the last (an empty
    # answer) may be asked for too, but none is missing.
    assert offsets[:3] == [0, 500, 1000] and len(offsets) == len(set(offsets))
    assert all(offset >= len(s.history) for offset in offsets[3:])
    assert {p["limit"] for p in pages} == {"500"}


async def test_history_stops_paging_at_the_lookback_cutoff() -> None:
    s = oom_story("h-cutoff", "cutoff-oom", at=30)
    s.history.clear()
    s.created = 20000
    for i in range(1500):
        s.add_event(60 + i * 10, "Started", "Started container main", type_="Normal", pod=s.pod_name(), in_events=False)
    _oom_run(s, 30)
    report, requests = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id, lookback="6h")
    pages = [_query(r)["offset"] for r in requests if r.path.endswith("/history")]
    # Records are 10 min apart: 6 h is about 36 of them, all on the first page.
    assert pages == ["0"]
    assert report.category == "OOM_KILLED" and report.recurrence.count == 1


# -- Step 4: metrics -------------------------------------------------------------------------------------
def _metrics_queries(requests: list[RecordedRequest]) -> list[dict[str, str]]:
    return [_query(r) for r in requests if r.path.endswith("/metrics")]


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_metrics_query_the_failed_runs_window_with_1000_samples_and_catch_a_spike() -> None:
    # The run lived from 300 to 40 minutes ago; usage sampled every 15 s, with one 15 s spike.
    s = oom_story("m-spike", "spike-job", at=40, mem=("48Gi", "48Gi"))
    s.history.clear()
    s.created = 305
    lifecycle(s, 300, 40, "Failed", s.phase_message)
    s.add_event(40.1, "OOMKilled", "Container main was OOM killed", pod=s.pod_name())
    points = [(300 - i * 0.25, 20 * GI) for i in range(int((300 - 41) / 0.25))]
    spike_at = 173.25
    points = [(t, 51_000_000_000 if abs(t - spike_at) < 1e-9 else v) for t, v in points]
    s.add_series("CPU_MEMORY_USAGE_BYTES", points)
    s.add_series("CPU_MEMORY_LIMIT_BYTES", flat(48 * GI, 300, 41))
    report, requests = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    queries = _metrics_queries(requests)
    assert queries, "metrics were not read on OOM evidence"
    for q in queries:
        assert q["numberOfSamples"] == "1000"
        assert "CPU_MEMORY_USAGE_BYTES" in q["metricType"]
    start = min(_at(q["start"]) for q in queries)
    end = max(_at(q["end"]) for q in queries)
    assert start == NOW - timedelta(minutes=300)
    assert NOW - timedelta(minutes=40) <= end <= NOW - timedelta(minutes=38)
    assert report.memory is not None
    assert report.memory.peak_bytes == 51_000_000_000
    assert report.memory.limit_bytes == 48 * GI
    assert report.memory.samples > 100


async def test_empty_metrics_say_no_peak_and_still_oom_from_the_direct_signal() -> None:
    s = oom_story("m-empty", "short-oom")
    s.add_series("CPU_MEMORY_USAGE_BYTES", [])
    report, requests = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    assert report.category == "OOM_KILLED"
    assert _metrics_queries(requests)
    assert report.memory is not None
    assert (report.memory.peak_bytes, report.memory.samples) == (None, 0)
    assert report.memory.limit_bytes == 16 * GI
    assert any(
        "no cpu-memory samples" in e.text.lower() and e.source == "get_workload_metrics" for e in report.evidence
    )
    assert any("peak" in m.what.lower() for m in report.missing)
    # The limit is never offered as a peak.
    assert "observed peak" not in (report.reason or "")


async def test_request_and_limit_are_reported_separately_and_compared_to_the_limit() -> None:
    s = oom_story("m-req-lt-lim", "req-lim", mem=("8Gi", "16Gi"))
    s.add_series("CPU_MEMORY_USAGE_BYTES", [(85 - i, (10 + i * 0.1) * GI) for i in range(54)])
    report, _ = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    assert report.memory is not None
    assert (report.memory.request_bytes, report.memory.limit_bytes) == (8 * GI, 16 * GI)
    peak = report.memory.peak_bytes
    assert peak is not None and peak == max(int((10 + i * 0.1) * GI) for i in range(54))
    assert "16 GiB" in (report.reason or "")
    peak_line = next(e.text for e in report.evidence if e.source == "get_workload_metrics")
    assert "of the 16 GiB limit" in peak_line
    assert not any("request equals" in n for n in report.notes)


async def test_no_metrics_and_no_node_read_without_their_evidence() -> None:
    s = failed_app_exit("m-none", "plain-crash", code=1)
    s.add_series("CPU_MEMORY_USAGE_BYTES", flat(4 * GI, 85, 31))
    report, requests = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    assert report.category == "CRASH_APP_ERROR"
    assert report.memory is None
    assert not _metrics_queries(requests)
    assert not [r for r in requests if r.path.startswith("/api/v1/nodes/")]
    # Tier 2 was read (container evidence): pod, events and the previous log.
    assert any(r.path.endswith(f"/pods/{s.pod_name()}") for r in requests)
    assert any(r.path.endswith("/log") for r in requests)


# -- transient faults -------------------------------------------------------------------------------------
class _FakeSleep:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


async def _diagnose_with(bundle: Json, timeout: float | None = None) -> tuple[Any, list[RecordedRequest], list[float]]:
    """Like diagnose_bundle, with a Run:ai client whose retry sleeps are recorded, not slept."""
    sleep = _FakeSleep()
    async with open_bundle_tenant(parse_bundle(bundle, "inline"), label="faults") as tenant:
        assert tenant.control_plane is not None
        client = RunaiClient(
            tenant.runai.base_url,
            BearerToken(tenant.control_plane.issue_token()),
            sleep=sleep,
            timeout=httpx.Timeout(timeout) if timeout else httpx.Timeout(10.0),
        )
        try:
            w = bundle["workloads"][0]["workload"]
            report = await run_to_report(
                DiagnosisRequest(cluster_id=w["clusterId"], workload_id=w["id"], now=tenant.captured_at),
                client,
                tenant.kube,
                tier2_unavailable=tenant.kube_unavailable,
            )
        finally:
            await client.aclose()
        return report, tenant.control_plane.requests, sleep.calls


def _oom_with_history() -> Story:
    s = oom_story("f-oom", "fault-oom")
    _oom_run(s, 600, backoffs=3)
    s.created = 700
    return s


async def test_transient_faults_do_not_change_the_verdict() -> None:
    s = _oom_with_history()
    baseline, _, _ = await _diagnose_with(bundle_of([s]))
    faulty = bundle_of([s])
    faulty["faults"] = [
        {"match": "GET /api/v1/workloads/{id}/pods", "status": 503, "times": 1},
        {"match": "GET /api/v1/workloads/{id}/history", "status": 429, "times": 1, "retryAfter": 3},
        {"match": "GET /api/v1/workloads/{id}/events", "status": 0, "times": 1, "delayMs": 700},
    ]
    report, requests, sleeps = await _diagnose_with(faulty, timeout=0.3)
    assert (report.outcome, report.category) == (baseline.outcome, baseline.category) == ("diagnosed", "OOM_KILLED")
    assert report.recurrence.count == baseline.recurrence.count == 2
    statuses = {p: [r.status for r in requests if r.path.endswith(p)] for p in ("/pods", "/history", "/events")}
    assert statuses["/pods"][:2] == [503, 200]
    assert statuses["/history"][:2] == [429, 200]
    assert 3 in [round(x) for x in sleeps]  # Retry-After honoured
    assert not [m for m in report.missing if "events" in m.what.lower()]


# -- report shape -------------------------------------------------------------------------------------------
async def test_report_renders_in_all_formats_with_category_first() -> None:
    s = _oom_with_history()
    report, _ = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    data = json.loads(to_json(report))
    assert data["schema"] == "runai-triage/report@1"
    for key in ("outcome", "category", "workload", "evidence", "missing", "memory", "recurrence", "recommendations"):
        assert key in data
    assert data["recurrence"] == {**data["recurrence"], "count": 2, "lookback": "24h", "recurring": True}
    assert to_text(report).splitlines()[0] == "Category: OOM_KILLED"
    assert "OOM_KILLED" in to_markdown(report).splitlines()[0].replace("\\", "")
    assert "lasting fix" in " ".join(report.recommendations)


async def test_node_failure_advice_follows_the_restart_policy() -> None:
    def story(key: str, policy: str) -> Story:
        s = Story(key, f"lost-{policy.lower()}", "vision", "Failed", phase_at=20, created=200, restart_policy=policy)
        pod = s.add_pod(node="gpu-e-50", created=198, k8s_phase="Unknown", updated=20, completed=20)
        s.phase_message = f"Workload failed: pod {pod.name} was lost (NodeLost)"
        lifecycle(s, 195, 20, "Failed", s.phase_message)
        s.add_event(26, "NodeNotReady", "Node is not ready", pod=pod.name)
        return s

    on_failure, _ = await diagnose_bundle(
        bundle_of([story("n-onf", "OnFailure")], kube=False),
        cluster_id=EAST,
        workload_id=story("n-onf", "OnFailure").id,
    )
    never, _ = await diagnose_bundle(
        bundle_of([story("n-never", "Never")], kube=False), cluster_id=EAST, workload_id=story("n-never", "Never").id
    )
    assert on_failure.category == never.category == "NODE_FAILURE"
    assert "healthy node" in on_failure.recommendations[0] and "OnFailure" in on_failure.recommendations[0]
    assert "Resubmit" in never.recommendations[0]


async def test_pending_start_failure_uses_tier2_container_state() -> None:
    s = pending_story("t2-config", "cfg-missing")
    pod = s.add_pod(node="gpu-e-51", created=19.5, k8s_phase="Pending", updated=18)
    s.add_event(18, "Failed", "Error: couldn't find key password in Secret runai-speech/db-creds", pod=pod.name)
    s.add_kube_pod(
        pod,
        [
            cstatus(
                "main",
                s.image,
                {
                    "waiting": {
                        "reason": "CreateContainerConfigError",
                        "message": "couldn't find key password in Secret runai-speech/db-creds",
                    }
                },
            )
        ],
        phase="Pending",
    )
    s.nodes.append(node("gpu-e-51"))
    report, _ = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    assert report.category == "DATASOURCE_MOUNT_FAILED"


def test_terminated_helper_is_real_shape() -> None:
    # Guard for the builders: a terminated state carries the fields the kubelet writes.
    state = terminated("Error", 1, 10, 5)["terminated"]
    assert set(state) >= {"reason", "exitCode", "startedAt", "finishedAt", "containerID"}
