"""Crash loops dated from their last crash (issue 23, class 4): a workload Running for two days whose container
has restarted thousands of times, its last crash seconds, minutes or hours before the diagnosis. No report
says events "expired" for a failure under the API server's hour; every report older than that does; every
report dates the failure by the last crash, never by "Running since"."""

from __future__ import annotations

from datetime import timedelta

import pytest

from core.report.render import RENDERERS
from core.sim.demo.kit import NOW, Story, cstatus, node, terminated, waiting
from tests.engine.test_rule_cases import bundle_of, diagnose_bundle

LOG = "Traceback (most recent call last):\n  File \"/app/serve.py\", line 9, in <module>\nKeyError: 'MODEL_DIR'\n"


def looping(minutes_ago: float, *, kube_events: bool) -> Story:
    s = Story(f"loop-age-{minutes_ago}", "batch-api", "nlp", "Running", phase_at=2 * 24 * 60, created=2 * 24 * 60 + 2,
              kind="Workspace", running_pods=1, restart_policy="Always")
    s.add_phase(s.created, "Pending").add_phase(s.phase_at, "Running")
    pod = s.add_pod(node="gpu-d-01", created=s.created - 1, k8s_phase="CrashLoopBackOff", updated=minutes_ago)
    message = f"Back-off restarting failed container main in pod {pod.name}_{s.ns}({pod.uid})"
    for i in range(3):
        s.add_event(minutes_ago + i * 5, "BackOff", message, pod=pod.name, obj_uid=pod.uid)
    state = waiting("CrashLoopBackOff", f"back-off 5m0s restarting failed container=main pod={pod.name}")
    s.add_kube_pod(pod, [cstatus("main", s.image, state, terminated("Error", 1, minutes_ago + 0.2, minutes_ago),
                                 restarts=3120)], phase="Running")
    if kube_events:
        s.add_kube_event(minutes_ago, "BackOff", message, pod=pod.name, count=3119, first=2 * 24 * 60 - 3)
    s.add_log(pod.name, LOG, previous=True)
    s.nodes.append(node("gpu-d-01"))
    return s


@pytest.mark.parametrize("minutes_ago", [10 / 60, 45 / 60, 5, 30, 59, 61, 180, 26 * 60])
async def test_a_crash_loop_is_dated_from_its_last_crash(minutes_ago: float) -> None:
    s = looping(minutes_ago, kube_events=minutes_ago <= 60)
    report, _ = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    rendered = "\n".join(RENDERERS[fmt](report) for fmt in ("text", "markdown", "json"))
    assert report.category == "CRASH_APP_ERROR"
    last = (NOW - timedelta(seconds=round(minutes_ago * 60))).isoformat()
    evidence = "\n".join(item.text for item in report.evidence)
    assert f"last crash {last}" in evidence and "restarted 3120 times" in evidence, evidence
    assert ("expired" in rendered) == (minutes_ago > 60), rendered
    # Dated by its last crash, not by "Running since" (two days ago, past the 24 h lookback).
    assert ("older than the 24h lookback" in rendered) == (minutes_ago > 24 * 60), rendered
    assert report.recurrence.count == (0 if minutes_ago > 24 * 60 else 1)
