"""Assembling the demo tenant: every family's stories plus the routine workloads become one
`runai-triage/case@1` bundle, and the stories' expectations become `demo-expectations.json`.

Both files are written with a fixed layout (stories in registry order, compact ASCII JSON, gzip mtime 0), so
a fresh generation is byte-identical to the committed one, which a test checks.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

from core.sim.demo.files import (
    BUNDLE_FILE,
    EXPECTATIONS_FILE,
    OFFSPEC_BUNDLE_FILE,
    OFFSPEC_EXPECTATIONS_FILE,
    demo_bundle_path,
)
from core.sim.demo.fleet import runai_nodes
from core.sim.demo.routine import SEED, routine_stories
from core.sim.demo.stories import OFF_SPEC_FAMILIES, ROUTINE_DRAWN_AROUND, all_stories, family_expectations
from core.sim.demo.story import Story
from core.sim.demo.world import DEMO_CAPTURED_AT, PROJECTS, TENANT_CLUSTERS, Json, project_json

FORMAT = "runai-triage/case@1"


def _merge_nodes(stories: list[Story]) -> list[Json]:
    nodes: dict[str, Json] = {}
    for s in stories:
        for n in s.nodes:
            name = n["metadata"]["name"]
            if name in nodes and nodes[name] != n:
                raise ValueError(f"demo stories disagree about node {name} (story {s.key})")
            nodes[name] = n
    return [nodes[k] for k in sorted(nodes)]


def _kubernetes(stories: list[Story]) -> Json:
    pods: list[Json] = []
    seen: set[tuple[str, str]] = set()
    events: dict[str, Json] = {}
    logs: list[Json] = []
    for s in stories:
        for p in s.kube_pods:
            ident = (p["metadata"]["namespace"], p["metadata"]["name"])
            if ident in seen:
                raise ValueError(f"demo story {s.key}: Kubernetes pod {ident} already exists")
            seen.add(ident)
            pods.append(p)
        for e in s.kube_events:
            events.setdefault(e["metadata"]["uid"], e)
        logs += s.logs
    return {
        "pods": pods,
        "events": sorted(events.values(), key=lambda e: e["lastTimestamp"]),
        "nodes": _merge_nodes(stories),
        "logs": logs,
    }


# What the off-spec tenant says about itself (its bundle's `offSpec` key): a reader of the file is told.
OFF_SPEC_NOTE = (
    "deliberately off-spec: data a Run:ai 2.24 control plane does not send (a phase outside its enum, a "
    "quantity its pattern refuses), kept to test the readers' tolerance; not part of the demo tenant"
)


def _assemble(stories: list[Story], routine: list[Story]) -> tuple[Json, list[Json]]:
    kubernetes = _kubernetes(stories)
    bundle: Json = {
        "format": FORMAT,
        "capturedAt": DEMO_CAPTURED_AT,
        "clusters": TENANT_CLUSTERS,
        "projects": [project_json(PROJECTS[name]) for name in sorted(PROJECTS)],
        "workloads": [s.entry() for s in stories] + [s.entry() for s in routine],
        "kubernetes": kubernetes,
        "faults": [f for s in stories for f in s.faults],
        "nodes": runai_nodes([*stories, *routine], kubernetes["nodes"]),
    }
    return bundle, [e for s in stories for e in s.expectations]


def _second(s: Story) -> int:
    return round(s.phase_at * 60)


def _build() -> tuple[Json, list[Json]]:
    stories = all_stories()
    # Routine workloads never share a phaseUpdatedAt second with a story (the off-spec tenant's included, so
    # moving a story there leaves every routine workload as it was), so "newest first" has one answer. Their
    # seconds were drawn around the families they came after; a later family keeps clear of them instead.
    drawn = all_stories(ROUTINE_DRAWN_AROUND)
    taken = {_second(s) for s in [*drawn, *all_stories(OFF_SPEC_FAMILIES)]}
    routine = routine_stories(random.Random(SEED), taken)
    routine_seconds = {_second(r) for r in routine}
    earlier = {s.key for s in drawn}
    clash = [s.key for s in stories if s.key not in earlier and _second(s) in routine_seconds]
    if clash:
        raise ValueError(f"demo stories {clash} change phase in the same second as a routine workload: move them")
    bundle, expectations = _assemble(stories, routine)
    return bundle, expectations + family_expectations()


def _build_offspec() -> tuple[Json, list[Json]]:
    bundle, expectations = _assemble(all_stories(OFF_SPEC_FAMILIES), [])
    return {"offSpec": OFF_SPEC_NOTE, **bundle}, expectations


def build_offspec_bundle() -> dict[str, Any]:
    """The off-spec tenant (stories/off_spec.py) as a case bundle, beside the demo tenant and apart from it."""
    return _build_offspec()[0]


def build_offspec_expectations() -> list[dict[str, Any]]:
    return _build_offspec()[1]


def build_demo_bundle() -> dict[str, Any]:
    """The whole demo tenant as a case bundle (a fresh object each call, identical every time)."""
    return _build()[0]


def build_demo_expectations() -> list[dict[str, Any]]:
    """The verdicts for every hand-shaped case, built from the stories (what the shipped file holds)."""
    return _build()[1]


def _bundle_bytes(bundle: Json) -> bytes:
    text = json.dumps(bundle, ensure_ascii=True, separators=(",", ":"))
    return gzip.compress(text.encode("ascii"), compresslevel=9, mtime=0)


def _expectations_bytes(expectations: list[Json]) -> bytes:
    return (json.dumps(expectations, ensure_ascii=True, indent=2) + "\n").encode("ascii")


def write_demo_bundle(path: str | Path) -> None:
    """Write the gzip-compressed bundle (gzip mtime 0, fixed JSON layout: same bytes on every run)."""
    Path(path).write_bytes(_bundle_bytes(build_demo_bundle()))


def write_demo_expectations(path: str | Path) -> None:
    Path(path).write_bytes(_expectations_bytes(build_demo_expectations()))


def demo_bundle_bytes() -> bytes:
    """The bytes `write_demo_bundle` writes, without touching the disk."""
    return _bundle_bytes(build_demo_bundle())


def demo_expectations_bytes() -> bytes:
    return _expectations_bytes(build_demo_expectations())


def offspec_bytes() -> tuple[bytes, bytes]:
    """The off-spec tenant's two files, as `main` writes them."""
    bundle, expectations = _build_offspec()
    return _bundle_bytes(bundle), _expectations_bytes(expectations)


def main(argv: list[str] | None = None) -> int:
    """Regenerate both shipped data files (or write them into the directory given as the only argument)."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else demo_bundle_path().parent
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for (bundle, expectations), (bundle_file, expectations_file) in (
        (_build(), (BUNDLE_FILE, EXPECTATIONS_FILE)),
        (_build_offspec(), (OFFSPEC_BUNDLE_FILE, OFFSPEC_EXPECTATIONS_FILE)),
    ):
        (target / bundle_file).write_bytes(_bundle_bytes(bundle))
        (target / expectations_file).write_bytes(_expectations_bytes(expectations))
        written.append(
            f"{target / bundle_file} ({len(bundle['workloads'])} workloads) and "
            f"{target / expectations_file} ({len(expectations)} expectations)"
        )
    print("wrote " + "; ".join(written))
    return 0
