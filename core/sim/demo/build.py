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

from core.sim.demo.files import BUNDLE_FILE, EXPECTATIONS_FILE, demo_bundle_path
from core.sim.demo.routine import SEED, routine_stories
from core.sim.demo.stories import all_stories, family_expectations
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


def _build() -> tuple[Json, list[Json]]:
    stories = all_stories()
    # Routine workloads never share a phaseUpdatedAt second with a story, so "newest first" has one answer.
    taken = {round(s.phase_at * 60) for s in stories}
    routine = routine_stories(random.Random(SEED), taken)
    bundle: Json = {
        "format": FORMAT,
        "capturedAt": DEMO_CAPTURED_AT,
        "clusters": TENANT_CLUSTERS,
        "projects": [project_json(PROJECTS[name]) for name in sorted(PROJECTS)],
        "workloads": [s.entry() for s in stories] + [s.entry() for s in routine],
        "kubernetes": _kubernetes(stories),
        "faults": [f for s in stories for f in s.faults],
    }
    expectations = [e for s in stories for e in s.expectations] + family_expectations()
    return bundle, expectations


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


def main(argv: list[str] | None = None) -> int:
    """Regenerate both shipped data files (or write them into the directory given as the only argument)."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else demo_bundle_path().parent
    target.mkdir(parents=True, exist_ok=True)
    bundle, expectations = _build()
    (target / BUNDLE_FILE).write_bytes(_bundle_bytes(bundle))
    (target / EXPECTATIONS_FILE).write_bytes(_expectations_bytes(expectations))
    print(
        f"wrote {target / BUNDLE_FILE} ({len(bundle['workloads'])} workloads) and "
        f"{target / EXPECTATIONS_FILE} ({len(expectations)} expectations)"
    )
    return 0
