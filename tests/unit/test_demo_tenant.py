"""The shipped demo tenant: reproducible, valid, and rich enough for the engine demo tests to mean much."""

from __future__ import annotations

import gzip
import importlib
import json
import pkgutil
from collections import Counter
from typing import Any

import httpx
import pytest

from core.models.quantity import QuantityError, quantity_to_bytes
from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.demo import (
    DEMO_CAPTURED_AT,
    TENANT_CLUSTERS,
    demo_bundle_path,
    demo_expectations,
    demo_expectations_path,
    load_demo_bundle,
    load_offspec_bundle,
    offspec_bundle_path,
    offspec_expectations,
    stories,
)
from core.sim.demo.build import build_demo_bundle, demo_bundle_bytes, main, offspec_bytes, write_demo_bundle
from core.sim.demo.stories import FAMILIES, OFF_SPEC_FAMILIES, all_stories
from core.sim.demo.story import Family, Story
from core.sim.transport import SimSyncTransport

CATEGORIES = {
    "CRASH_APP_ERROR",
    "OOM_KILLED",
    "IMAGE_PULL_FAILED",
    "INIT_FAILED",
    "DATASOURCE_MOUNT_FAILED",
    "NODE_FAILURE",
    "SCHEDULING_POLICY_TERMINATED",
    "UNKNOWN",
}
OUTCOMES = {
    "diagnosed",
    "preempted",
    "pending",
    "suspended",
    "succeeded",
    "running",
    "not-terminal",
    "cluster-mismatch",
    "not-found",
    "ambiguous",
}


@pytest.fixture(scope="module")
def bundle() -> dict[str, Any]:
    return build_demo_bundle()


@pytest.fixture(scope="module")
def expectations() -> list[dict[str, Any]]:
    return demo_expectations()


def _interesting(bundle: dict[str, Any]) -> list[dict[str, Any]]:
    # Routine workloads carry nothing beyond the workload object, its spec and its pods.
    keys = {"history", "metrics"}
    return [
        e
        for e in bundle["workloads"]
        if keys & e.keys()
        or e.get("events")
        or e.get("spec") is None
        or not e["workload"]["name"].startswith(f"{e['workload']['projectName']}-")
    ]


def test_committed_bundle_equals_a_fresh_generation_and_is_small() -> None:
    data = demo_bundle_bytes()
    assert data == demo_bundle_path().read_bytes()
    assert len(data) < 1_500_000
    assert gzip.decompress(data)[:1] == b"{"


def test_write_demo_bundle_writes_the_same_bytes(tmp_path: Any) -> None:
    write_demo_bundle(tmp_path / "again.json.gz")
    assert (tmp_path / "again.json.gz").read_bytes() == demo_bundle_path().read_bytes()


def test_main_regenerates_every_committed_file(tmp_path: Any, capsys: Any) -> None:
    assert main([str(tmp_path)]) == 0
    assert (tmp_path / "demo-tenant.json.gz").read_bytes() == demo_bundle_path().read_bytes()
    assert (tmp_path / "demo-expectations.json").read_bytes() == demo_expectations_path().read_bytes()
    assert (tmp_path / "offspec-tenant.json.gz").read_bytes() == offspec_bundle_path().read_bytes()
    assert "demo-tenant.json.gz" in capsys.readouterr().out


def test_the_off_spec_tenant_is_apart_and_says_so() -> None:
    """The stories whose data a 2.24 control plane does not send live in a bundle of their own, not the demo."""
    data, expectations = offspec_bytes()
    assert data == offspec_bundle_path().read_bytes()
    off_spec = load_offspec_bundle()
    assert "off-spec" in off_spec.raw["offSpec"] and "offSpec" not in load_demo_bundle().raw
    assert [e["key"] for e in json.loads(expectations)] == [e["key"] for e in offspec_expectations()]
    ids = {e["workload"]["id"] for e in off_spec.workloads}
    assert ids == {e["workloadId"] for e in offspec_expectations()}
    assert not ids & {e["workload"]["id"] for e in load_demo_bundle().workloads}


def test_shipped_bundle_parses_with_the_bundle_reader(bundle: dict[str, Any]) -> None:
    parsed = parse_bundle(json.loads(json.dumps(bundle)), source="demo")
    assert parsed.captured_at.isoformat() == "2026-11-30T12:00:00+00:00"
    loaded = load_demo_bundle()
    assert len(loaded.workloads) == len(bundle["workloads"])
    assert loaded.kubernetes is not None and loaded.kubernetes["pods"]
    assert len(loaded.faults) == 2


def test_counts(bundle: dict[str, Any]) -> None:
    assert bundle["capturedAt"] == DEMO_CAPTURED_AT
    assert len(bundle["clusters"]) >= 3 and bundle["clusters"] == TENANT_CLUSTERS
    assert len(bundle["projects"]) >= 5
    cluster_ids = {c["uuid"] for c in bundle["clusters"]}
    assert {p["clusterId"] for p in bundle["projects"]} == cluster_ids
    interesting = _interesting(bundle)
    assert len(interesting) >= 44
    assert len(bundle["workloads"]) - len(interesting) >= 2000
    assert {e["workload"]["clusterId"] for e in bundle["workloads"]} == cluster_ids


def test_a_project_namespace_is_not_the_default(bundle: dict[str, Any]) -> None:
    odd = [p for p in bundle["projects"] if p["status"]["namespace"] != f"runai-{p['name']}"]
    assert odd
    odd_names = {p["name"] for p in odd}
    assert any(e["workload"]["projectName"] in odd_names and e.get("pods") for e in bundle["workloads"])


def test_ids_are_unique_and_phase_times_distinct(bundle: dict[str, Any]) -> None:
    ids = [e["workload"]["id"] for e in bundle["workloads"]]
    assert len(ids) == len(set(ids))
    interesting_ids = {e["workload"]["id"] for e in _interesting(bundle)}
    routine = [e["workload"] for e in bundle["workloads"] if e["workload"]["id"] not in interesting_ids]
    # Sorting by phaseUpdatedAt must be meaningful: no two routine workloads tie, none ties with a story, and
    # submissions sharing a name never tie.
    routine_times = [w["phaseUpdatedAt"] for w in routine]
    assert len(set(routine_times)) == len(routine_times)
    story_times = {
        e["workload"]["phaseUpdatedAt"] for e in bundle["workloads"] if e["workload"]["id"] in interesting_ids
    }
    assert not story_times & set(routine_times)
    by_name: dict[tuple[str, str], list[str]] = {}
    for e in bundle["workloads"]:
        by_name.setdefault((e["workload"]["name"], e["workload"]["projectName"]), []).append(
            e["workload"]["phaseUpdatedAt"]
        )
    assert all(len(set(t)) == len(t) for t in by_name.values())
    assert Counter(w["phase"] for w in routine).most_common(2)[0][0] in {"Completed", "Running"}
    assert {w["type"] for w in routine} == {"Training", "Workspace", "Distributed", "Inference"}


def test_every_category_and_outcome_is_expected(expectations: list[dict[str, Any]]) -> None:
    # A suspended workload's phase is off-spec for 2.24: that outcome is the off-spec tenant's.
    assert {e["outcome"] for e in expectations} == OUTCOMES - {"suspended"}
    assert {e["outcome"] for e in offspec_expectations()} <= OUTCOMES
    assert {e["category"] for e in expectations if e["outcome"] == "diagnosed"} == CATEGORIES
    assert all(e["category"] is None for e in expectations if e["outcome"] != "diagnosed")
    keys = [e["key"] for e in expectations]
    assert len(keys) == len(set(keys))
    for e in expectations:
        assert e["intent"] in {"terminal", "active"} and e["lookup"] in {"id", "name"}
        assert isinstance(e["why"], str) and e["why"] and "\n" not in e["why"]
        assert e["recurrence"] is None or isinstance(e["recurrence"], int)


def test_expectations_point_at_real_workloads(
    bundle: dict[str, Any], expectations: list[dict[str, Any]]
) -> None:
    by_id = {e["workload"]["id"]: e["workload"] for e in bundle["workloads"]}
    for exp in expectations:
        if exp["workloadId"] is None:
            assert exp["outcome"] in {"not-found", "ambiguous"}
            continue
        wl = by_id[exp["workloadId"]]
        assert (wl["name"], wl["projectName"]) == (exp["name"], exp["project"])
        assert (wl["clusterId"] != exp["clusterId"]) == (exp["outcome"] == "cluster-mismatch")
    missing = next(e for e in expectations if e["outcome"] == "not-found")
    assert not any(
        w["name"] == missing["name"] and w["projectName"] == missing["project"] for w in by_id.values()
    )


def test_ambiguous_name_has_several_live_candidates(
    bundle: dict[str, Any], expectations: list[dict[str, Any]]
) -> None:
    amb = next(e for e in expectations if e["outcome"] == "ambiguous")
    phases = [
        e["workload"]["phase"]
        for e in bundle["workloads"]
        if e["workload"]["name"] == amb["name"] and e["workload"]["projectName"] == amb["project"]
    ]
    assert len(phases) >= 2 and set(phases) <= {"Running", "Pending"}


def test_a_name_submitted_three_times_picks_the_newest_terminal(
    bundle: dict[str, Any], expectations: list[dict[str, Any]]
) -> None:
    groups = Counter((e["workload"]["name"], e["workload"]["projectName"]) for e in bundle["workloads"])
    repeated = [k for k, n in groups.items() if n >= 3]
    assert repeated
    by_name = [
        e for e in expectations if e["lookup"] == "name" and e["intent"] == "terminal" and e["workloadId"]
    ]
    checked = 0
    for exp in by_name:
        same = [
            e["workload"]
            for e in bundle["workloads"]
            if (e["workload"]["name"], e["workload"]["projectName"]) == (exp["name"], exp["project"])
        ]
        terminal = [w for w in same if w["phase"] in {"Failed", "Completed", "Stopped"}]
        newest = max(terminal, key=lambda w: w["phaseUpdatedAt"])
        assert newest["id"] == exp["workloadId"]
        checked += len(same) >= 3
    assert checked >= 1
    names = Counter(name for name, _ in groups)
    assert any(n >= 2 and len({p for nm, p in groups if nm == name}) >= 2 for name, n in names.items())


def test_deleted_failed_workload_and_special_entries(bundle: dict[str, Any]) -> None:
    entries = bundle["workloads"]
    assert any(e["workload"]["deletedAt"] and e["workload"]["phase"] == "Failed" for e in entries)
    assert any("events" in e and e["events"] is None for e in entries)
    assert any(e.get("spec", {}) is None and e.get("pods") for e in entries)
    assert max(len(e.get("history", [])) for e in entries) >= 1200
    quantities = {e["workload"]["podsRequestedResources"]["cpuMemory"].get("limit") for e in entries}
    assert "24Gx" not in quantities  # a malformed quantity is the off-spec tenant's
    off_spec = load_offspec_bundle().workloads
    assert "24Gx" in {e["workload"]["podsRequestedResources"]["cpuMemory"].get("limit") for e in off_spec}
    assert any(m["values"] == [] for e in entries for m in e.get("metrics", []))


def test_kubernetes_side_is_time_consistent(bundle: dict[str, Any]) -> None:
    kube = bundle["kubernetes"]
    # The API server keeps events one hour: nothing older may appear.
    assert all(ev["lastTimestamp"] >= "2026-11-30T11:00:00Z" for ev in kube["events"])
    assert any(
        ev["involvedObject"]["kind"] == "Node" and ev["reason"] == "OOMKilling" for ev in kube["events"]
    )
    node_names = {n["metadata"]["name"] for n in kube["nodes"]}
    assert all(p["spec"]["nodeName"] in node_names for p in kube["pods"] if p["spec"]["nodeName"])
    pods = {(p["metadata"]["namespace"], p["metadata"]["name"]) for p in kube["pods"]}
    assert all((log["namespace"], log["pod"]) in pods for log in kube["logs"])
    statuses = json.dumps(kube["pods"])
    for reason in (
        "OOMKilled",
        "CrashLoopBackOff",
        "InvalidImageName",
        "ImagePullBackOff",
        "Evicted",
        "NodeLost",
        "PreemptionByScheduler",
    ):
        assert reason in statuses


def _strings(value: object) -> list[str]:
    """Every string value in a JSON document (JSON text escapes control characters, so search the values)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_hostile_text_is_present(bundle: dict[str, Any]) -> None:
    text = "\n".join(_strings(bundle))
    for needle in (
        "\x1b[2J",
        "\x1b]52;c;",
        "\x1b]8;;",
        "\x9b",
        "\u202e",
        "\u200b",
        "[@click=app.quit]",
        "[link=file:///etc/passwd]",
        "[/bold]",
        "IGNORE PREVIOUS INSTRUCTIONS",
    ):
        assert needle in text, repr(needle)
    longest = max(len(ev["message"]) for e in bundle["workloads"] for ev in (e.get("events") or []))
    assert longest >= 64 * 1024


def test_planted_secrets_are_present(bundle: dict[str, Any]) -> None:
    entries = bundle["workloads"]
    env_names = {name for e in entries for name in e["workload"].get("environmentVariables", {})}
    assert {"HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "WANDB_API_KEY"} <= env_names
    text = json.dumps(bundle)
    for needle in (
        "--password=hunter2",
        "https://user:pa55@",
        "--token eyJ",
        "ghp_",
        "hf_",
        "AKIA",
        '\\"auth\\": \\"',
        "-----BEGIN RSA PRIVATE KEY-----",
    ):
        assert needle in text, needle
    messages = " ".join(ev["message"] for e in entries for ev in (e.get("events") or []))
    logs = " ".join(log["text"] for log in bundle["kubernetes"]["logs"])
    for needle in ("ghp_", "hf_", "AKIA"):
        assert needle in messages and needle in logs


def test_memory_expectations_agree_with_the_quantity_parser(expectations: list[dict[str, Any]]) -> None:
    checked = 0
    for exp in [*expectations, *offspec_expectations()]:
        memory = exp.get("memory")
        if memory is None:
            continue
        for text_key, bytes_key in (("request", "requestBytes"), ("limit", "limitBytes")):
            try:
                parsed: int | None = quantity_to_bytes(memory[text_key])
            except QuantityError:
                parsed = None
            assert parsed == memory[bytes_key], (exp["key"], text_key)
            checked += 1
    assert checked >= 10


def test_served_demo_hides_deleted_workloads_and_injects_the_pods_fault(bundle: dict[str, Any]) -> None:
    plane = ControlPlane(load_demo_bundle(), audited=False)
    deleted = next(e["workload"] for e in bundle["workloads"] if e["workload"]["deletedAt"])
    with httpx.Client(base_url="http://demo.invalid", transport=SimSyncTransport(plane)) as client:
        token = client.post("/api/v2/token", data={"grant_type": "client_credentials", "client_id": "demo",
                                                   "client_secret": "demo"}).json()["access_token"]
        client.headers["Authorization"] = f"Bearer {token}"
        name_filter = {"filterBy": f"name=={deleted['name']},projectName=={deleted['projectName']}"}
        listed = client.get("/api/v1/workloads", params=name_filter).json()["workloads"]
        assert deleted["id"] not in {w["id"] for w in listed}
        gone = client.get("/api/v1/workloads", params={**name_filter, "deleted": "true"}).json()["workloads"]
        assert deleted["id"] in {w["id"] for w in gone}
        assert client.get(f"/api/v1/workloads/{deleted['id']}").status_code == 200
        fault_path = bundle["faults"][0]["match"].split(" ", 1)[1]
        assert client.get(fault_path).status_code == 503
        assert client.get(fault_path).status_code == 200


# -- the story registry ----------------------------------------------------------------------------------------
def _plain(key: str) -> Story:
    return Story(key, f"job-{key}", "nlp", "Failed", phase_at=10, created=20)


def test_a_family_builds_its_stories_in_order_and_flattens_groups() -> None:
    family = Family("pair", stories=(lambda: [_plain("a"), _plain("b")], lambda: _plain("c")))
    assert [s.key for s in family.build()] == ["a", "b", "c"]


def test_a_story_key_used_by_two_families_fails_the_generation() -> None:
    # Ids derive from the key, so a second story with it would overwrite the first one's objects.
    twin = Family("twins", stories=(lambda: _plain("oom-rising"),))
    with pytest.raises(ValueError, match="'oom-rising' is used twice: oom and twins"):
        all_stories((*FAMILIES, twin))


def test_every_family_module_is_registered_once() -> None:
    # A module under stories/ whose FAMILY is missing from FAMILIES would silently drop out of the tenant.
    modules = [importlib.import_module(f"{stories.__name__}.{m.name}") for m in pkgutil.iter_modules(stories.__path__)]
    families = (*FAMILIES, *OFF_SPEC_FAMILIES)
    assert sorted(m.FAMILY.name for m in modules) == sorted(f.name for f in families)
    assert len({f.name for f in families}) == len(families)


def test_the_hand_shaped_workloads_come_family_by_family(bundle: dict[str, Any]) -> None:
    ids = [s.id for s in all_stories()]
    assert [e["workload"]["id"] for e in bundle["workloads"][: len(ids)]] == ids
