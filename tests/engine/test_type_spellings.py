"""A workload `type` however a tenant spells it (issue 23, class 6): the client asks the kind's spec endpoint and
the simulator answers there, for the SDK's spelling (runapy 1.224.0 `WorkloadType`) and for the others tenants
send (spaces, dashes, underscores, any case, the plural, invisible characters)."""

from __future__ import annotations

import re

import pytest

from core.models.kinds import kind_of, spec_segment
from core.sim.demo.kit import Story
from tests.engine.ff_kind_cases import distributed_inference
from tests.engine.test_rule_cases import bundle_of, diagnose_bundle, failed_app_exit

SDK_KINDS = {  # WorkloadType's values and their endpoints (runai/api/*_api.py)
    "Training": "trainings",
    "Workspace": "workspaces",
    "Distributed": "distributed",
    "Inference": "inferences",
    "DistributedInference": "distributed-inferences",
}
DISTRIBUTED_INFERENCE = [
    "DistributedInference", "Distributed Inference", "distributed-inference", "distributed_inference",
    "DISTRIBUTED INFERENCE", "Distributed Inferences", "distributedinference", " Distributed\u00a0Inference ",
    "Distributed\u200bInference", "Distributed-Inference",
]


@pytest.mark.parametrize("spelling", DISTRIBUTED_INFERENCE)
def test_every_spelling_of_distributed_inference_names_its_endpoint(spelling: str) -> None:
    assert spec_segment(spelling) == "distributed-inferences"
    assert kind_of(spelling) == "distributedinference"


@pytest.mark.parametrize(("sdk", "segment"), SDK_KINDS.items())
def test_the_sdk_spellings_and_their_variants(sdk: str, segment: str) -> None:
    spaced = " ".join(re.split(r"(?<=[a-z])(?=[A-Z])", sdk))
    for spelling in (sdk, sdk.lower(), sdk.upper(), spaced, spaced.replace(" ", "-"), segment.replace("-", " ")):
        assert spec_segment(spelling) == segment, spelling


@pytest.mark.parametrize("other", ["PyTorchJob", "RayCluster", "NIMService", "Train", "", None, 42, "Inference Job"])
def test_a_type_that_names_no_kind_is_served_by_the_v2_document(other: object) -> None:
    assert spec_segment(other) is None


@pytest.mark.parametrize("spelling", DISTRIBUTED_INFERENCE[:6])
async def test_the_client_and_the_simulator_agree_on_every_spelling(spelling: str) -> None:
    s = distributed_inference(f"kind-{spelling!r}", "llama-405b-lws", spelling)
    report, requests = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    asked = [r for r in requests if r.path.startswith("/api/v1/workloads/distributed-inferences/")]
    assert [r.status for r in asked] == [200], [(r.path, r.status) for r in requests]
    assert not [m for m in report.missing if "spec" in m.what], report.missing
    assert report.category == "OOM_KILLED"


@pytest.mark.parametrize(("kind", "segment"), [("training", "trainings"), ("Work space", "workspaces"),
                                                 ("distributed_training", "distributed"), ("INFERENCE", "inferences"),
                                                 ("interactive", "workspaces")])
async def test_each_kind_spelt_otherwise_is_answered_at_its_endpoint(kind: str, segment: str) -> None:
    s: Story = failed_app_exit(f"kind-{kind}", "bert-cls")
    s.kind = kind
    _, requests = await diagnose_bundle(bundle_of([s]), cluster_id=s.cluster, workload_id=s.id)
    asked = [r for r in requests if r.path.startswith(f"/api/v1/workloads/{segment}/")]
    assert [r.status for r in asked] == [200], [(r.path, r.status) for r in requests]
