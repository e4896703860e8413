"""Every body the simulator answers, for the demo tenant and every case bundle we ship as well-formed, is one
Run:ai's own SDK (runapy 1.224.0, generated from the 2.24 OpenAPI document) accepts, and holds no field the
API's model does not define.

A failure names the endpoint, the workload and the field path. Bundles that are off-spec on purpose say so in
their `offSpec` key (a phase the seed names but the enum lacks, a malformed quantity, ...): they are left out
here, and must really be off-spec, so the mark cannot hide a bundle that became valid. The off-spec tenant
(core/sim/demo/stories/off_spec.py) is one such bundle.

Skipped: `GET /api/v1/org-unit/projects`. runapy 1.224.0's `Project` model is mis-generated (it wants the
`metadata`/`current` of a metrics body, not a project), so it refuses every real projects body and cannot judge
ours; the last test here shows it, so the skip ends when a fixed SDK accepts a project.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from core.sim.bundle import CaseBundle, load_bundle, parse_bundle
from core.sim.demo import load_demo_bundle, load_offspec_bundle
from core.sim.runai_routes import SPEC_KINDS
from tests.contract.oracle import ENDPOINT_MODELS, SKIPPED_ENDPOINTS, Failure, unknown_fields, validate
from tests.contract.walk import Answer, all_answers
from tests.paths import CASES

SHOWN = 40  # failures listed in a failing test's message (the count says how many there were)


def _bundles() -> list[Path]:
    return sorted(CASES.glob("*.json")) + sorted(CASES.glob("*/*.json"))


def _load(path: Path) -> tuple[CaseBundle, dict[str, Any]]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return parse_bundle(raw, str(path)), raw


WELL_FORMED = [p for p in _bundles() if "offSpec" not in json.loads(p.read_text(encoding="utf-8"))]
OFF_SPEC = [p for p in _bundles() if p not in WELL_FORMED]


def judge(answers: list[Answer]) -> tuple[int, list[Failure]]:
    """How many bodies were judged, and every field the SDK refuses or does not know."""
    judged = 0
    failures: list[Failure] = []
    for answer in answers:
        if answer.status not in (200, 207):
            continue
        judged += 1
        refused = validate(answer.endpoint, answer.body, answer.workload)
        failures += refused or unknown_fields(answer.endpoint, answer.body, answer.workload)
    return judged, failures


def _message(failures: list[Failure], judged: int) -> str:
    lines = [f.line() for f in failures[:SHOWN]]
    more = f"\n... and {len(failures) - SHOWN} more" if len(failures) > SHOWN else ""
    return f"{len(failures)} field(s) of {judged} bodies refused by the SDK:\n" + "\n".join(lines) + more


@pytest.fixture(scope="module")
def demo_answers() -> list[Answer]:
    return list(all_answers(load_demo_bundle()))


def test_the_demo_tenant_answers_what_the_sdk_accepts(demo_answers: list[Answer]) -> None:
    judged, failures = judge(demo_answers)
    assert not failures, _message(failures, judged)
    print(f"\nSDK contract: {judged} demo bodies judged, 0 refused")


def test_every_endpoint_and_every_demo_workload_was_judged(demo_answers: list[Answer]) -> None:
    """The walk reached every endpoint the SDK judges, and every workload of the demo tenant."""
    ok = [a for a in demo_answers if a.status in (200, 207)]
    by_endpoint = Counter(a.endpoint for a in ok)
    assert set(by_endpoint) == set(ENDPOINT_MODELS), set(ENDPOINT_MODELS) - set(by_endpoint)
    bundle = load_demo_bundle()
    seen = {a.workload for a in ok if a.endpoint == "/api/v1/workloads/{id}"}
    assert len(seen) == len(bundle.workloads) > 2000
    # The endpoints without their own body for a workload (a spec that is absent, events that fail) are the
    # bundle's way of saying so, not a body the walk missed.
    failed = [a for a in demo_answers if a.status not in (200, 207)]
    assert {(a.endpoint, a.status) for a in failed} <= {
        ("/api/v1/workloads/{id}/events", 500),
        *((f"/api/v1/workloads/{kind}/{{id}}", 404) for kind in SPEC_KINDS),
    }, failed


@pytest.mark.parametrize("path", WELL_FORMED, ids=lambda p: str(p.relative_to(CASES)))
def test_a_well_formed_case_bundle_answers_what_the_sdk_accepts(path: Path) -> None:
    bundle, _ = _load(path)
    judged, failures = judge(list(all_answers(bundle)))
    assert judged > 0
    assert not failures, _message(failures, judged)


@pytest.mark.parametrize("path", OFF_SPEC, ids=lambda p: str(p.relative_to(CASES)))
def test_a_bundle_marked_off_spec_is_off_spec(path: Path) -> None:
    bundle, raw = _load(path)
    _, failures = judge(list(all_answers(bundle)))
    assert failures, f"{path.name} says it is off-spec ({raw['offSpec']}), but the SDK accepts all of it"


def test_the_off_spec_tenant_says_so_and_is() -> None:
    bundle = load_offspec_bundle()
    assert "off-spec" in str(bundle.raw.get("offSpec"))
    _, failures = judge(list(all_answers(bundle)))
    refused = {(f.workload.split(" ")[0], f.path.rsplit(".", 1)[-1]) for f in failures}
    assert ("long-pretrain", "phase") in refused  # Suspended
    assert ("gemma-ft", "limit") in refused  # 24Gx


def test_the_projects_endpoint_is_skipped_because_the_sdk_project_model_is_misgenerated() -> None:
    from runai.models.project import Project

    assert "/api/v1/org-unit/projects" in SKIPPED_ENDPOINTS
    project = load_demo_bundle().projects[0]
    assert {"name", "id", "clusterId", "status"} <= set(project)
    # A project as the docs and every tenant give it: the SDK's model wants a metrics body's keys instead.
    with pytest.raises(ValidationError) as refused:
        Project.model_validate(project)
    assert {e["loc"][0] for e in refused.value.errors()} >= {"metadata", "current"}


def test_a_refused_field_is_reported_with_its_endpoint_workload_and_path() -> None:
    """The judge itself: a body with one wrong field gives exactly that field, where it is."""
    bundle = load_demo_bundle()
    entry = next(e for e in bundle.workloads if e["workload"]["type"] == "Training" and e.get("spec"))
    spec = json.loads(json.dumps(entry["spec"]))
    spec["spec"]["args"] = ""
    spec["spec"]["restartPolicy"] = "Sometimes"
    who = f"{entry['workload']['name']} ({entry['workload']['id']})"
    found = validate("/api/v1/workloads/trainings/{id}", spec, who)
    assert sorted(f.path for f in found) == ["spec.args", "spec.restartPolicy"]
    assert all(f.workload == who and f.endpoint == "/api/v1/workloads/trainings/{id}" for f in found)
    inference = next(e for e in bundle.workloads if e["workload"]["type"] == "Inference" and e.get("spec"))
    invented = json.loads(json.dumps(inference["spec"]))
    invented["spec"]["backoffLimit"] = 0
    extra = unknown_fields("/api/v1/workloads/inferences/{id}", invented, "x")
    assert [f.path for f in extra] == ["spec.backoffLimit"]


def test_a_case_bundle_file_loads_as_the_server_reads_it() -> None:
    """The bundles judged here are the ones the tests serve: read the way `--case` reads them."""
    for path in WELL_FORMED[:3]:
        assert load_bundle(path).workloads


def test_the_cluster_states_the_diagnosis_knows_are_the_sdks() -> None:
    """The control-plane signal decides on `status.state`: its list of states is the API's, all six."""
    from runai.models.cluster_state import ClusterState

    from core.diagnosis.signals.control_plane import CLUSTER_STATES, CONNECTED

    assert set(CLUSTER_STATES) == {state.value for state in ClusterState}
    assert ClusterState.CONNECTED.value == CONNECTED
