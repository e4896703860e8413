"""Numbers that cannot be true are named, never believed: a memory request or limit of zero or below, or more than
any machine holds, a memory sample below zero or beyond any machine, a GPU count below zero. Each is one Missing
entry naming the value and every field holding it; no figure, percentage or advice is computed from it.

And the names Kubernetes' own wording quotes (`secret "ngc-key-2" not found`) reach the evidence as they are,
the same name the advice gives.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.diagnosis.memory import PLAUSIBLE_MEMORY
from core.models.report import Report
from core.report.render import to_json, to_markdown, to_text
from core.sim.demo.kit import ramp
from tests.engine.test_rule_cases import GI, bundle_of, diagnose_bundle, oom_story, pending_story


def _outputs(report: Report) -> str:
    return "\n".join((to_text(report, verbose=True), to_markdown(report), to_json(report)))


async def _oom(mem: tuple[str, str], peak: float = 21 * GI, low: float = 14 * GI) -> Report:
    s = oom_story("r-impossible", "impossible-mem", mem=mem)
    s.add_series("CPU_MEMORY_USAGE_BYTES", ramp(low, peak, 89, 30.5))
    report, _ = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    return report


@pytest.mark.parametrize(
    ("value", "shown", "why"),
    [
        ("-24Gi", "-24 GiB", "below zero"),
        ("-1", "-1 B", "below zero"),
        ("0", None, "it is zero"),
        ("200Pi", "200 PiB", "more than any machine holds"),
        ("1e30", None, "more than any machine holds"),
    ],
)
async def test_an_impossible_request_and_limit_are_named_and_never_used(
    value: str, shown: str | None, why: str
) -> None:
    report = await _oom((value, value))
    assert report.category == "OOM_KILLED"
    assert report.memory is not None
    assert report.memory.limit_bytes is None and report.memory.request_bytes is None
    [gap] = [m for m in report.missing if f"'{value}'" in m.why]
    assert gap.what == "CPU-memory request and limit" and why in gap.why
    assert "spec.compute.cpuMemoryLimit" in gap.why and "podsRequestedResources.cpuMemory.request" in gap.why
    text = _outputs(report)
    if shown is not None:
        assert shown not in text  # never a figure made from it
    assert not re.search(r"% of (the|its) ", text)
    assert report.memory.peak_bytes == 21 * GI  # the measurement stays a measurement
    advice = " ".join(report.recommendations)
    assert "Raise the" not in advice and value not in advice


async def test_a_sample_beyond_any_machine_is_not_a_peak() -> None:
    report = await _oom(("24Gi", "24Gi"), peak=1e18, low=1e18)
    assert report.memory is not None and report.memory.peak_bytes is None
    [gap] = [m for m in report.missing if m.what == "CPU-memory peak"]
    assert "1000000000000000000 bytes" in gap.why and "not measurements" in gap.why
    text = _outputs(report)
    assert "EiB" not in text and "% of the" not in text
    assert "no sample read could be a measurement" in to_text(report, verbose=True)
    assert "had no samples" not in text


async def test_samples_below_zero_are_left_out_of_the_peak_and_counted() -> None:
    report = await _oom(("24Gi", "24Gi"), peak=20 * GI, low=-4 * GI)
    assert report.memory is not None and report.memory.peak_bytes == 20 * GI
    [gap] = [m for m in report.missing if m.what == "some CPU-memory samples"]
    assert "below zero" in gap.why and re.search(r"\d+ of the samples", gap.why)


def test_the_bound_is_beyond_every_machine_and_below_a_petabyte() -> None:
    assert 48 * 1024**4 < PLAUSIBLE_MEMORY < 1024**5


async def test_a_gpu_count_below_zero_is_named_once_with_every_field() -> None:
    s = oom_story("r-neg-gpu", "neg-gpu")
    bundle = bundle_of([s])
    entry: dict[str, Any] = bundle["workloads"][0]
    entry["workload"]["podsRequestedResources"]["gpu"] = {"request": -2}
    entry["pods"][0]["requestedResources"]["gpu"] = {"request": -2}
    entry["spec"]["spec"]["compute"]["gpuDevicesRequest"] = -2
    report, _ = await diagnose_bundle(bundle, cluster_id=s.cluster, workload_id=s.id)
    [gap] = [m for m in report.missing if m.what == "GPU count"]
    assert gap.why.startswith("'-2' is below zero")
    for where in ("podsRequestedResources.gpu.request", "requestedResources.gpu.request", "gpuDevicesRequest"):
        assert where in gap.why


@pytest.mark.parametrize(
    "message",
    [
        'MountVolume.SetUp failed for volume "ngc" : secret "ngc-key-2" not found',
        "Error: couldn't find key token in Secret runai-nlp/ngc-key-2",
    ],
)
async def test_the_secret_kubernetes_names_is_shown_in_the_evidence_as_in_the_advice(message: str) -> None:
    s = pending_story("r-mount-secret", "needs-ngc-key")
    pod = s.add_pod(node="gpu-e-25", created=19.5, k8s_phase="Pending", updated=19)
    s.add_event(18, "FailedMount", message, pod=pod.name)
    report, _ = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    assert report.category == "DATASOURCE_MOUNT_FAILED"
    text = _outputs(report)
    assert "<redacted" not in text
    assert any(message in e.text for e in report.evidence)
    assert any("ngc-key-2" in r for r in report.recommendations)
