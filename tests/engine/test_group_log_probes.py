"""Fault probes on the logs read beside a first failure that says nothing of its own (core/diagnosis/group_logs.py).

A 4-pod PyTorchJob: master-0 exits 1 first with an empty log, the workers one, two and three seconds later,
each with its NCCL watchdog timeout (unless a probe says otherwise). Each probe breaks the peers' reads or
their contents in one way, over real HTTP with short deadlines (tests/integration/fault_rig.py), and checks
that the report still comes out, every extra read is cited with its pod named or stated missing, and nothing
read from the cluster is obeyed.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import time
from collections.abc import Callable
from typing import Any

from core.diagnosis.engine import run_to_report
from core.diagnosis.group_logs import MAX_GROUP_LOGS
from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.report.render import RENDERERS, json_dict
from core.sim.control_plane import RecordedRequest
from core.sim.demo.kit import Story, node
from tests.engine.ff_node_cases import NCCL_VICTIM
from tests.engine.ff_rank_cases import _exited, _job
from tests.engine.test_multipod_cases import S
from tests.engine.test_rule_cases import bundle_of
from tests.integration.fault_rig import KUBE_DEADLINE_S, served

Json = dict[str, Any]
_LOG = re.compile(r"^/api/v1/namespaces/[^/]+/pods/([^/]+)/log$")
MASTER = "falcon-pt-master-0"
HANG_MS = 8000


def _victim(rank: int, second: int = 0) -> str:
    return NCCL_VICTIM.format(r=rank, clock=f"11:50:{second:02d}.900")


def _story(logs: list[str | None], after: list[float] | None = None, master_log: str | None = "") -> Story:
    """master-0 ends at 11:50:00; worker i `after[i]` seconds later (i + 1 by default) with `logs[i]`."""
    s = _job("grp-probe-01", "falcon-pt", len(logs) + 1, phase_at=9.5)
    _exited(s, "master", 0, "gpu-p-00", 10.0, master_log)
    for i, log in enumerate(logs):
        _exited(s, "worker", i, f"gpu-p-{i + 1:02d}", 10.0 - (after[i] if after else i + 1) * S, log)
    s.phase_message = f"Workload failed: pod {MASTER} container main terminated (Error), exit code 1"
    s.add_phase(9.5, "Failed", s.phase_message)
    s.nodes += [node("gpu-p-00")]
    return s


def _three() -> list[str | None]:
    return [_victim(8 * (i + 1), i) for i in range(3)]


async def _diagnose(
    s: Story, faults: list[Json] | None = None, mutate: Callable[[Json], None] | None = None
) -> tuple[Report, list[RecordedRequest], float]:
    bundle = bundle_of([s], faults=faults)
    if mutate is not None:
        mutate(bundle)
    with served(bundle) as srv:
        tenant = srv.tenant()
        started = time.perf_counter()
        report = await run_to_report(
            DiagnosisRequest(now=srv.plane.bundle.captured_at, cluster_id=s.cluster, workload_id=s.id),
            tenant.runai,  # type: ignore[arg-type]  # RunaiClient vs the Tier1 protocol: as in test_rule_cases
            tenant.kube,
        )
        elapsed = time.perf_counter() - started
        await tenant.aclose()
        return report, list(srv.plane.requests), elapsed


def _log_fault(s: Story, pod: str, **fault: Any) -> Json:
    return {"match": f"GET /api/v1/namespaces/{s.ns}/pods/{pod}/log", "times": 99, **fault}


def _first(report: Report) -> list[str]:
    return [e.pod for e in report.termination_order if e.first]


def _logs_read(requests: list[RecordedRequest]) -> list[str]:
    return [m.group(1) for r in requests if r.kube and (m := _LOG.match(r.path))]


def _accounted(report: Report, requests: list[RecordedRequest]) -> None:
    """Every peer log asked for is cited with its pod named, or its read is missing: none dropped silently."""
    cited = "\n".join(e.text for e in report.evidence)
    missing = "\n".join(m.what for m in report.missing)
    for pod in set(_logs_read(requests)) - {MASTER}:
        assert f"Pod {pod}: " in cited or f"log of container main in pod {pod}" in missing, (pod, cited, missing)


async def test_a_peer_deleted_between_list_and_log_read_is_missing_and_the_next_rank_decides() -> None:
    s = _story(_three())
    gone = ('{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \\"falcon-pt-worker-0\\" '
            'not found","reason":"NotFound","code":404}')
    report, requests, _ = await _diagnose(s, [_log_fault(s, "falcon-pt-worker-0", status=404, body=gone)])
    assert _first(report) == ["falcon-pt-worker-1"], report.termination_order
    assert any(m.what == "log of container main in pod falcon-pt-worker-0" and "404" in m.why for m in report.missing)
    assert any("(1 of them could not be read" in n for n in report.notes), report.notes
    _accounted(report, requests)


async def test_hung_peer_log_reads_end_at_their_deadline_side_by_side_and_each_is_missing() -> None:
    s = _story(_three())
    faults = [_log_fault(s, f"falcon-pt-worker-{i}", status=0, delayMs=HANG_MS) for i in range(3)]
    report, requests, elapsed = await _diagnose(s, faults)
    # Side by side, each bounded by its deadline: well under one hang, let alone three in a row.
    assert elapsed < HANG_MS / 1000 - KUBE_DEADLINE_S, elapsed
    assert _first(report) == [MASTER]  # nothing read changes the order
    gaps = {m.what for m in report.missing}
    assert {f"log of container main in pod falcon-pt-worker-{i}" for i in range(3)} <= gaps, gaps
    assert any("(3 of them could not be read" in n for n in report.notes), report.notes
    _accounted(report, requests)


async def test_a_trickling_peer_log_is_missing_and_the_others_still_decide() -> None:
    s = _story(_three())
    report, requests, _ = await _diagnose(
        s, [_log_fault(s, "falcon-pt-worker-0", status=200, kind="trickle", intervalMs=300)]
    )
    assert _first(report) == ["falcon-pt-worker-1"], report.termination_order
    assert any(m.what == "log of container main in pod falcon-pt-worker-0" for m in report.missing), report.missing
    _accounted(report, requests)


async def test_huge_binary_and_garbage_peer_logs_are_read_within_bounds_and_the_timeout_is_found() -> None:
    rnd = random.Random(7)
    garbage = gzip.compress(bytes(rnd.randrange(256) for _ in range(20000))).decode("latin-1")
    huge = "step 1 loss 2.0\n" * (50 * 1024 * 1024 // 16) + _victim(8)
    one_line = "A" * (5 * 1024 * 1024)
    report, requests, _ = await _diagnose(_story([garbage, one_line, huge], after=[1, 2, 3]))
    # The garbage and the one huge line explain nothing; the 50 MB log's tail holds the timeout.
    assert _first(report) == ["falcon-pt-worker-2"], report.termination_order
    cited = "\n".join(e.text for e in report.evidence)
    assert "Pod falcon-pt-worker-0: The log of container main" in cited, cited
    assert "Pod falcon-pt-worker-1: The log of container main" in cited, cited
    assert max(len(e.text) for e in report.evidence) < 4000
    _accounted(report, requests)


async def test_hostile_peer_text_is_quoted_never_obeyed() -> None:
    hostile = (
        "\x1b[31mred\x1b[0m [bold]bold[/bold] \u202eevil\u202c\n"
        "Category: OOM_KILLED\n"
        "First failure: falcon-pt-worker-9\n"
        "\x1b]8;;http://evil\x07link\x1b]8;;\x07 [link=http://evil]x[/link]\n"
    )
    report, requests, _ = await _diagnose(_story([hostile, hostile, _victim(24, 2)]))
    assert report.category == "CRASH_APP_ERROR", report.category
    assert _first(report) == ["falcon-pt-worker-2"], report.termination_order
    for kind in ("text", "markdown"):
        out = RENDERERS[kind](report)
        assert not {"\x1b", "\x07", "\u202e", "\u202c"} & set(out), kind
    assert "Category: OOM_KILLED" not in json.dumps(json_dict(report))
    _accounted(report, requests)


async def test_peer_end_times_missing_future_or_unparseable_do_not_break_the_order() -> None:
    def worker0(b: Json, finished: str | None, completed: str | None) -> None:
        pod = next(p for p in b["kubernetes"]["pods"] if p["metadata"]["name"] == "falcon-pt-worker-0")
        state = pod["status"]["containerStatuses"][0]["state"]["terminated"]
        if finished is None:
            state.pop("finishedAt")
        else:
            state["finishedAt"] = finished
        runai = next(p for p in b["workloads"][0]["pods"] if p["name"] == "falcon-pt-worker-0")
        runai["completedAt"] = completed if completed != "keep" else runai["completedAt"]

    for finished, completed in [(None, None), ("2027-06-01T00:00:00Z", "2027-06-01T00:00:00Z"),
                                ("not-a-time", "keep")]:
        report, requests, _ = await _diagnose(
            _story(_three()), mutate=lambda b, f=finished, c=completed: worker0(b, f, c)  # type: ignore[misc]
        )
        assert _first(report) and _first(report) != [MASTER], (finished, report.termination_order)
        _accounted(report, requests)


async def test_a_job_of_one_pod_reads_no_other_log() -> None:
    report, requests, _ = await _diagnose(_story([]))
    assert _logs_read(requests) == [MASTER]
    assert not any("no cause of its own" in n for n in report.notes), report.notes


async def test_200_pods_ended_at_once_read_a_bounded_number_and_the_same_report_twice() -> None:
    s = _story([_victim(8 * (i + 1)) for i in range(199)], after=[0.0] * 199)
    report, requests, _ = await _diagnose(s)
    assert len(_logs_read(requests)) == 1 + MAX_GROUP_LOGS, _logs_read(requests)
    assert any(f"{199 - MAX_GROUP_LOGS} more pods ended with it" in n for n in report.notes), report.notes
    _accounted(report, requests)
    again, requests_again, _ = await _diagnose(s)
    assert json_dict(again) == json_dict(report)
    assert sorted(_logs_read(requests_again)) == sorted(_logs_read(requests))


async def test_the_report_does_not_depend_on_the_order_the_apis_list_the_pods_in() -> None:
    """The Run:ai and Kubernetes lists promise no order: a 31-pod job that ended at once, listed three ways,
    gives one report (the pods cited, the logs read, the first failure)."""
    s = _story([_victim(8 * (i + 1)) for i in range(30)], after=[0.0] * 30)
    reports = []
    for seed in (0, 1, 2):
        def shuffle(b: Json, seed: int = seed) -> None:
            rnd = random.Random(seed)
            if seed:
                rnd.shuffle(b["workloads"][0]["pods"])
                rnd.shuffle(b["kubernetes"]["pods"])

        report, requests, _ = await _diagnose(s, mutate=shuffle)
        _accounted(report, requests)
        reports.append(json_dict(report))
    assert reports[1] == reports[0]
    assert reports[2] == reports[0]
