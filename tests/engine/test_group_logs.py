"""The logs read beside a first failure that says nothing of its own (core/diagnosis/group_logs.py), counted.

A 64-pod job whose pods all ended within a few seconds: master-0 first, its log empty, and every worker's log
holding the NCCL watchdog timeout. Only MAX_GROUP_LOGS of the workers' logs are read, the earliest to end
first, whatever the job's size; the first failure is the earliest of those that timed out. When master-0's log
explains its own exit, no other log is read at all. Real HTTP to the simulator; its requests are counted.
"""

from __future__ import annotations

import re

from core.diagnosis.group_logs import MAX_GROUP_LOGS
from core.diagnosis.steps.multipod import MAX_DESCRIBED
from core.models.report import Report
from core.report.render import RENDERERS
from core.sim.control_plane import RecordedRequest
from core.sim.demo.kit import Story, node
from tests.engine.ff_node_cases import NCCL_VICTIM
from tests.engine.ff_rank_cases import _exited, _job
from tests.engine.test_multipod_cases import S
from tests.engine.test_rule_cases import TRACEBACK, bundle_of, diagnose_bundle

WORKERS = 63
_LOG = re.compile(r"^/api/v1/namespaces/[^/]+/pods/([^/]+)/log$")
_POD = re.compile(r"^/api/v1/namespaces/[^/]+/pods/([^/]+)$")


def _all_at_once(master_log: str) -> Story:
    """master-0 ends at 11:50:00; worker i one to eight seconds later, the highest-numbered workers first
    (workers 55-62 at 11:50:01, ..., workers 0-6 at 11:50:08), each with its NCCL watchdog timeout in its log."""
    s = _job("grp-64-01", "falcon-pt", WORKERS + 1, phase_at=9.5)
    _exited(s, "master", 0, "gpu-p-00", 10.0, master_log)
    for i in range(WORKERS):
        after = 1 + (WORKERS - 1 - i) // 8
        _exited(s, "worker", i, f"gpu-p-{i + 1:02d}", 10.0 - after * S,
                NCCL_VICTIM.format(r=8 * (i + 1), clock=f"11:50:0{after - 1}.900"))
    s.phase_message = f"Workload failed: pod {s.name}-master-0 container main terminated (Error), exit code 1"
    s.add_phase(9.5, "Failed", s.phase_message)
    s.nodes += [node("gpu-p-00")]
    return s


async def _diagnose(master_log: str) -> tuple[Report, list[RecordedRequest]]:
    s = _all_at_once(master_log)
    return await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)


def _asked(requests: list[RecordedRequest], pattern: re.Pattern[str]) -> list[str]:
    return [m.group(1) for r in requests if r.kube and (m := pattern.match(r.path))]


async def test_a_64_pod_job_reads_at_most_eight_more_logs_the_earliest_first() -> None:
    report, requests = await _diagnose("")
    logs = _asked(requests, _LOG)
    earliest = [f"falcon-pt-worker-{i}" for i in range(55, 63)]
    assert len(logs) == 1 + MAX_GROUP_LOGS, logs
    assert sorted(logs) == sorted(["falcon-pt-master-0", *earliest]), logs
    # Describes: the earliest pods side by side, then those of the eight not described yet, each once.
    described = _asked(requests, _POD)
    assert len(described) == len(set(described)) <= MAX_DESCRIBED + MAX_GROUP_LOGS, described
    assert set(earliest) <= set(described), described
    first = [e.pod for e in report.termination_order if e.first]
    assert first == ["falcon-pt-worker-55"], report.termination_order
    notes = "\n".join(report.notes)
    assert "55 more pods ended with it and were left unread" in notes, notes
    cited = "\n".join(e.text for e in report.evidence)
    for name in earliest:
        assert f"Pod {name}: Log line 3 of container main" in cited, cited
    assert "falcon-pt-worker-54:" not in cited


async def test_the_reads_and_the_report_are_the_same_every_time() -> None:
    first, first_requests = await _diagnose("")
    again, again_requests = await _diagnose("")
    assert RENDERERS["text"](first) == RENDERERS["text"](again)
    assert sorted(_asked(first_requests, _LOG)) == sorted(_asked(again_requests, _LOG))
    assert len(first_requests) == len(again_requests)


async def test_a_first_failure_whose_log_explains_it_reads_no_other_log() -> None:
    report, requests = await _diagnose(TRACEBACK)
    assert _asked(requests, _LOG) == ["falcon-pt-master-0"]
    assert [e.pod for e in report.termination_order if e.first] == ["falcon-pt-master-0"]
    assert not any("ended first and shows no cause of its own" in n for n in report.notes), report.notes
