"""Case bundles that reach a verdict by a route the rule, infra and multi-pod corpora do not take
(tests/cases/probes/*.json), each diagnosed over real HTTP with the real clients.

Each probes a place where the evidence sits somewhere else than usual: a Pending workload whose status says
nothing (routed out by Step 1, its pods unread, as the seed's gate has it), a Stopped workload whose only record
of the stop is `desiredPhase`, a cluster whose status word says Connected beside a message with "failures" in it, an env
var's name/value pair in a log line. The `expect` block has the rule cases' keys (tests/engine/test_rule_cases.py)
plus `findings` (exactly these kinds), `reason` / `noReason` (fragments of the report's reason) and `nowhere`
(text that must not appear in any rendering). Regenerate with `.venv/bin/python -m tests.engine.test_probe_cases
--write`; the JSON on disk must equal what the builders produce.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.report.render import RENDERERS
from core.sim.demo.kit import DEMO_CLUSTERS, Json, Story, cstatus, node, terminated
from tests.engine.test_rule_cases import (
    TRACEBACK,
    assert_cases_on_disk,
    build_from,
    check,
    diagnose_bundle,
    lifecycle,
    write_built,
)

PROBE_CASES = Path(__file__).resolve().parents[1] / "cases" / "probes"
Case = tuple[list[Story], Json, Json]
# What Step 2 and later read: never asked for a workload Step 1 routes out.
NOTHING_BUT_PODS = [r"/history$", r"/metrics$", r"/workloads/(trainings|workspaces|inferences|distributed)/"]
HF_SECRET = "hf-plain-9f3c1e77aa"


def _req(s: Story, **extra: Any) -> Json:
    return {"cluster_id": s.cluster, "workload_id": s.id, **extra}


def _pending(key: str, name: str, k8s_phase: str) -> tuple[Story, Any]:
    """A Pending training with no events at all: only its pod's own status says anything."""
    s = Story(key, name, "nlp", "Pending", phase_at=20, created=25)
    s.add_phase(s.created, "Pending")
    pod = s.add_pod(node="gpu-e-31", created=24, k8s_phase=k8s_phase, updated=19)
    s.nodes.append(node("gpu-e-31"))
    return s, pod


# -- Step 1's gate: a Pending workload is routed out on what its status says, its pods unread ----------------
def case_pending_with_nothing_read_pods_waiting() -> Case:
    # Nothing says why it waits: routed out (the seed reads pods only once Step 1 confirms a failure), without
    # claiming scheduling evidence that was never read.
    s, _ = _pending("p-pending-nothing", "queue-wait", "Pending")
    return (
        [s],
        _req(s),
        {"outcome": "pending", "category": None, "recurrence": 0, "noPaths": [r"/pods$", *NOTHING_BUT_PODS],
         "noReason": ["only scheduling"], "bundle": {"kube": False}},
    )


def case_pending_scheduling_evidence_reads_no_pods() -> Case:
    # The seed's "Pending with only scheduling evidence": routed out on Step 1's evidence, pods not read.
    s, _ = _pending("p-pending-sched", "big-sweep", "ImagePullBackOff")
    s.add_event(19, "FailedScheduling", "0/8 nodes are available: 8 Insufficient nvidia.com/gpu.", source="kai")
    return (
        [s],
        _req(s),
        {"outcome": "pending", "category": None, "recurrence": 0, "noPaths": [r"/pods$", *NOTHING_BUT_PODS],
         "reason": ["Insufficient nvidia.com/gpu"], "bundle": {"kube": False}},
    )


def case_stopped_desired_phase_only() -> Case:
    s = Story("p-stopped-desired", "notebook-7", "nlp", "Stopped", phase_at=30, created=300, kind="Workspace",
              desired_phase="Stopped")
    s.add_phase(s.created, "Pending").add_phase(295, "Running").add_phase(30, "Stopped")
    s.add_pod(node="gpu-e-34", created=299, k8s_phase="Succeeded", updated=30, completed=30)
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "SCHEDULING_POLICY_TERMINATED", "evidence": ["Desired phase: Stopped"],
         "bundle": {"kube": False}},
    )


def case_failed_desired_stopped_keeps_the_crash() -> Case:
    # A stop asked for after a crash does not hide the crash: the policy row is the weakest.
    s = Story("p-failed-desired", "bert-ft", "nlp", "Failed", phase_at=30, created=90, desired_phase="Stopped")
    pod = s.add_pod(node="gpu-e-35", created=89, k8s_phase="Error", updated=30, completed=30)
    lifecycle(s, 85, 30, "Failed", f"Workload failed: pod {pod.name} container main terminated (Error), exit code 1")
    s.phase_message = s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"]
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 1, 85, 30))], phase="Failed")
    s.add_log(pod.name, TRACEBACK)
    s.nodes.append(node("gpu-e-35"))
    return [s], _req(s), {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "noEvidence": ["Desired phase"]}


# -- a phase the API does not document ----------------------------------------------------------------------
def case_phase_spelt_in_lower_case() -> Case:
    # Reported as it came (never mapped onto "Failed"), and the reason says so instead of "the workload is
    # failed, not in a failed state".
    s = Story("p-phase-lower", "bert-tiny", "nlp", "failed", phase_at=30, created=90)
    s.add_pod(node="gpu-e-38", created=89, k8s_phase="Error", updated=30, completed=30)
    return (
        [s],
        _req(s),
        {"outcome": "not-terminal", "category": None, "recurrence": 0, "noPaths": [r"/pods$", *NOTHING_BUT_PODS],
         "reason": ["not one the Run:ai API documents", "'Failed'"], "noReason": ["not in a failed state"],
         "bundle": {"kube": False, "off_spec": "phase 'failed' in lower case: the 2.24 phase enum is case-exact"}},
    )


# -- a cluster status word beside a message ------------------------------------------------------------------
def case_cluster_connected_message_with_failures() -> Case:
    s = Story("p-cluster-msg", "bert-base", "nlp", "Failed", phase_at=30, created=90)
    pod = s.add_pod(node="gpu-e-36", created=89, k8s_phase="Error", updated=30, completed=30)
    lifecycle(s, 85, 30, "Failed", f"Workload failed: pod {pod.name} container main terminated (Error), exit code 1")
    s.phase_message = s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"]
    # A Connected cluster whose condition's message mentions failures (none): no finding.
    connected = {"type": "Connected", "status": "True", "reason": "ClusterConnected",
                 "message": "all services up; 0 failures, 0 lost heartbeats",
                 "lastTransitionTime": "2026-11-01T08:00:00Z"}
    clusters = [
        {**c, "status": {"state": "Connected", "conditions": [connected]}, "lastLiveness": "2026-11-30T11:59:00Z"}
        for c in DEMO_CLUSTERS
    ]
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "findings": [],
         "bundle": {"kube": False, "clusters": clusters}},
    )


# -- a credential in the shape Kubernetes and Run:ai store env vars in ---------------------------------------
def case_env_pair_in_a_log_line() -> Case:
    s = Story("p-env-pair", "hf-push", "nlp", "Failed", phase_at=30, created=90)
    pod = s.add_pod(node="gpu-e-37", created=89, k8s_phase="Error", updated=30, completed=30)
    lifecycle(s, 85, 30, "Failed", f"Workload failed: pod {pod.name} container main terminated (Error), exit code 1")
    s.phase_message = s.history[-1]["spec"]["phaseUpdate"]["phaseMessage"]
    s.add_kube_pod(pod, [cstatus("main", s.image, terminated("Error", 1, 85, 30))], phase="Failed")
    log = (
        "uploading checkpoint\n"
        f'RuntimeError: upload refused with container env [{{"name": "HF_TOKEN", "value": "{HF_SECRET}"}}]\n'
    )
    s.add_log(pod.name, log)
    s.nodes.append(node("gpu-e-37"))
    return (
        [s],
        _req(s),
        {"outcome": "diagnosed", "category": "CRASH_APP_ERROR", "evidence": ["upload refused"],
         "nowhere": [HF_SECRET]},
    )


CASES: dict[str, Callable[[], Case]] = {
    name[len("case_") :].replace("_", "-"): fn for name, fn in globals().items() if name.startswith("case_")
}


def _build(make: Callable[[], Case]) -> Json:
    stories, request, expect = make()
    clusters = expect.get("bundle", {}).pop("clusters", None)
    bundle = build_from(lambda: (stories, request, expect))
    if clusters is not None:
        bundle["clusters"] = clusters
    return bundle


def build_case(name: str) -> Json:
    return _build(CASES[name])


def _write() -> None:
    write_built(PROBE_CASES, CASES, build_case)


# -- the tests ------------------------------------------------------------------------------------------
def test_probe_bundles_on_disk_match_their_builders() -> None:
    assert_cases_on_disk(PROBE_CASES, CASES, build_case, "tests.engine.test_probe_cases")


@pytest.mark.parametrize("path", sorted(PROBE_CASES.glob("*.json")), ids=lambda p: p.stem)
async def test_probe_case(path: Path) -> None:
    bundle = json.loads(path.read_text(encoding="utf-8"))
    expect = bundle["expect"]
    report, requests = await diagnose_bundle(bundle, **bundle["request"])
    check(report, requests, expect)
    if "findings" in expect:
        assert [f.kind for f in report.findings] == expect["findings"], report.findings
    for word in expect.get("reason", []):
        assert word.lower() in (report.reason or "").lower(), report.reason
    for word in expect.get("noReason", []):
        assert word.lower() not in (report.reason or "").lower(), report.reason
    for text in expect.get("nowhere", []):
        for render in RENDERERS.values():
            assert text not in render(report)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        _write()
        print(f"wrote {len(CASES)} bundles to {PROBE_CASES}")
