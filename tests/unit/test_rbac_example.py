"""The shipped RBAC example grants exactly the reads Tier 2 makes, and nothing on secrets or any write."""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

RBAC = resources.files("core.sources") / "rbac" / "runai-triage-reader.yaml"
EXPECTED = {
    ("", "pods", "get"), ("", "pods", "list"), ("", "pods", "watch"),
    ("", "pods/log", "get"), ("", "pods/log", "list"), ("", "pods/log", "watch"),
    ("", "events", "get"), ("", "events", "list"), ("", "events", "watch"),
    ("", "nodes", "get"),
}
READ_VERBS = {"get", "list", "watch"}


def _documents() -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(RBAC.read_text(encoding="utf-8")) if doc is not None]


def _rules(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [rule for doc in docs if doc["kind"] in ("Role", "ClusterRole") for rule in doc.get("rules") or []]


def _triples(rules: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {
        (group, resource, verb)
        for rule in rules
        for group in rule.get("apiGroups") or []
        for resource in rule.get("resources") or []
        for verb in rule.get("verbs") or []
    }


def test_rules_are_exactly_the_reads_tier2_makes() -> None:
    assert _triples(_rules(_documents())) == EXPECTED


def _violations(rules: list[dict[str, Any]]) -> list[str]:
    """Everything in ``rules`` that goes beyond reading: secrets, wildcards, write verbs, raw URLs."""
    found: list[str] = []
    for index, rule in enumerate(rules):
        verbs = set(rule.get("verbs") or [])
        if not verbs <= READ_VERBS:
            found.append(f"rule {index}: verbs {sorted(verbs - READ_VERBS)}")
        for resource in rule.get("resources") or []:
            if "secret" in resource.lower() or "*" in resource:
                found.append(f"rule {index}: resource {resource}")
        if "*" in (rule.get("apiGroups") or []):
            found.append(f"rule {index}: every API group")
        if "nonResourceURLs" in rule or "resourceNames" in rule:
            found.append(f"rule {index}: nonResourceURLs/resourceNames")
    return found


def test_no_rule_names_secrets_a_wildcard_or_a_write_verb() -> None:
    rules = _rules(_documents())
    assert rules
    assert _violations(rules) == []


def test_nodes_are_granted_by_a_cluster_role_that_is_bound() -> None:
    docs = _documents()
    cluster_roles = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ClusterRole"}
    assert any(("", "nodes", "get") in _triples(d["rules"]) for d in cluster_roles.values())
    bindings = [d for d in docs if d["kind"] in ("ClusterRoleBinding", "RoleBinding")]
    assert bindings
    for binding in bindings:
        ref = binding["roleRef"]
        assert ref["kind"] == "ClusterRole" and ref["name"] in cluster_roles
        assert binding["subjects"], binding


def test_the_checks_above_catch_a_widened_role() -> None:
    widened = [
        *_rules(_documents()),
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]},
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["delete", "get"]},
        {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
    ]
    assert _triples(widened) != EXPECTED
    found = _violations(widened)
    assert any("secrets" in item for item in found)
    assert any("delete" in item for item in found)
    assert any("every API group" in item for item in found)
