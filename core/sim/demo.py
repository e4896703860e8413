"""The demo tenant: a deterministic `runai-triage/case@1` bundle shipped with the package, and the verdicts a
correct engine must give for its hand-shaped workloads.

The bundle holds two clusters, seven projects, the hand-shaped stories of demo_cases*.py and a couple of
thousand routine workloads that make the picker look like a real tenant. Everything derives from a fixed seed
and the fixed capture instant, so `python -m core.sim.demo` rewrites byte-identical files.

Expectation entries (`demo-expectations.json`) carry, besides the keys the engine tests need (key, workloadId,
clusterId, name, project, intent, outcome, category, why, recurrence):
- `lookup`: "id" (Option A, ask with workloadId) or "name" (Option B, ask with name + project);
- `lookback`: the window the recurrence count uses; chosen so the diagnosed failure lies inside it;
- `recurrence`: distinct failures of the category in the workload's own history within `lookback` (an event
  and the phase update of one termination count once); 0 for routed-out outcomes, null where there is no
  single workload (ambiguous, not-found) or where the seed leaves the count open (a live crash loop, whose
  restarts the history does not enumerate);
- optional `memory` (request/limit as submitted, their byte values or null when unreadable, the measured peak
  or null) and `detail` (the sub-kind that should steer the recommendation, e.g. "rate-limit", "OnFailure").
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.sim.demo_cases import FAILURE_STORIES
from core.sim.demo_cases_hostile import HOSTILE_STORIES
from core.sim.demo_cases_routes import EXTRA_EXPECTATIONS, ROUTE_GROUPS, ROUTE_STORIES
from core.sim.demo_kit import (
    DEMO_CAPTURED_AT,
    DEMO_CLUSTERS,
    PROJECTS,
    Json,
    Story,
    project_json,
)

if TYPE_CHECKING:
    from core.sim.bundle import CaseBundle

__all__ = [
    "DEMO_CAPTURED_AT",
    "DEMO_CLUSTERS",
    "ROUTINE_COUNT",
    "build_demo_bundle",
    "build_demo_expectations",
    "demo_bundle_path",
    "demo_expectations",
    "demo_expectations_path",
    "load_demo_bundle",
    "write_demo_bundle",
    "write_demo_expectations",
]

FORMAT = "runai-triage/case@1"
SEED = 20261130
ROUTINE_COUNT = 2100
WINDOW_SECONDS = 30 * 24 * 3600
BUNDLE_FILE = "demo-tenant.json.gz"
EXPECTATIONS_FILE = "demo-expectations.json"

_MODELS: dict[str, tuple[str, ...]] = {
    "nlp": ("bert", "t5", "llama", "gpt2", "roberta"),
    "vision": ("resnet50", "vit", "yolo", "detr", "sam"),
    "speech": ("whisper", "wav2vec", "conformer", "hubert"),
    "research": ("moe", "ssm", "gnn", "diffusion"),
    "robotics": ("ppo", "sac", "bc", "vla"),
    "genai": ("sdxl", "llama3", "mistral", "gemma"),
    "recsys": ("dlrm", "deepfm", "twotower", "dien"),
}
_USERS = (
    "alice@example.com",
    "bob@example.com",
    "priya@example.com",
    "marco@example.com",
    "kenji@example.com",
    "sofia@example.com",
    "dmitri@example.com",
    "lena@example.com",
    "svc-pipeline@example.com",
    "omar@example.com",
)
_KINDS = (("Training", 55), ("Workspace", 15), ("Distributed", 12), ("Inference", 18))
_PHASES: dict[str, tuple[tuple[str, int], ...]] = {
    "Training": (("Completed", 68), ("Running", 17), ("Pending", 6), ("Failed", 7), ("Stopped", 2)),
    "Distributed": (("Completed", 66), ("Running", 18), ("Pending", 7), ("Failed", 7), ("Stopped", 2)),
    "Workspace": (("Running", 55), ("Stopped", 35), ("Pending", 5), ("Failed", 5)),
    "Inference": (("Running", 85), ("Pending", 5), ("Failed", 5), ("Stopped", 5)),
}
_MEMORY = (
    ("8Gi", "8Gi"),
    ("16Gi", "16Gi"),
    ("32Gi", "32Gi"),
    ("64Gi", "64Gi"),
    ("16Gi", "32Gi"),
    ("500M", "2G"),
)
_GPUS = (0.5, 1, 1, 1, 2, 4, 8)
_IMAGES = (
    "nvcr.io/nvidia/pytorch:24.05-py3",
    "nvcr.io/nvidia/pytorch:24.10-py3",
    "nvcr.io/nvidia/tensorflow:24.05-tf2-py3",
    "vllm/vllm-openai:v0.6.4",
    "jupyter/pytorch-notebook:2026-10",
)


def _pick(rng: random.Random, weighted: Iterable[tuple[str, int]]) -> str:
    items = list(weighted)
    return rng.choices([v for v, _ in items], weights=[w for _, w in items], k=1)[0]


# -- hand-shaped stories -------------------------------------------------------------------------------------
def _stories() -> list[Story]:
    stories: list[Story] = [make() for make in FAILURE_STORIES]
    stories += [make() for make in ROUTE_STORIES]
    for group in ROUTE_GROUPS:
        stories += group()
    stories += [make() for make in HOSTILE_STORIES]
    return stories


# -- routine workloads ---------------------------------------------------------------------------------------
def _routine(rng: random.Random, taken_seconds: set[int]) -> list[Story]:
    """Ordinary workloads: mostly Completed and Running, with distinct phaseUpdatedAt seconds."""
    pool = [s for s in range(90, WINDOW_SECONDS) if s not in taken_seconds]
    seconds = rng.sample(pool, ROUTINE_COUNT)
    counters: dict[str, int] = {}
    projects = sorted(PROJECTS)
    out: list[Story] = []
    for i, age in enumerate(seconds):
        project = projects[i % len(projects)] if i < len(projects) else rng.choice(projects)
        model = rng.choice(_MODELS[project])
        counters[f"{project}-{model}"] = counters.get(f"{project}-{model}", 0) + 1
        name = f"{project}-{model}-{counters[f'{project}-{model}']}"
        kind = _pick(rng, _KINDS)
        phase = _pick(rng, _PHASES[kind])
        phase_at = age / 60
        ran = rng.randint(5, 3 * 24 * 60)
        created = phase_at if phase == "Pending" else min(phase_at + ran, WINDOW_SECONDS / 60 + 60)
        pods = rng.randint(2, 4) if kind == "Distributed" else 1
        s = Story(
            f"routine-{i:04d}",
            name,
            project,
            phase,
            phase_at=phase_at,
            created=created,
            kind=kind,
            submitted_by=rng.choice(_USERS),
            image=rng.choice(_IMAGES),
            mem=rng.choice(_MEMORY),
            gpu=rng.choice(_GPUS),
            requested_pods=pods,
            running_pods=pods if phase == "Running" else 0,
            command="python train.py" if kind != "Inference" else "python serve.py",
            desired_phase="Stopped" if phase == "Stopped" else "Running",
            completed_at=phase_at if phase == "Completed" else None,
            running_seconds=int((created - phase_at) * 60)
            if phase in ("Completed", "Failed", "Stopped")
            else int(phase_at * 60)
            if phase == "Running"
            else 0,
        )
        out.append(s)
    return out


# -- assembly ------------------------------------------------------------------------------------------------
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


def _faults(stories: list[Story]) -> list[Json]:
    by_key = {s.key: s.id for s in stories}
    return [
        {"match": f"GET /api/v1/workloads/{by_key['pull-rate-limit']}/pods", "status": 503, "times": 1},
        {
            "match": f"GET /api/v1/workloads/{by_key['long-history']}/history",
            "status": 429,
            "times": 1,
            "retryAfter": 1,
        },
    ]


def _build() -> tuple[Json, list[Json]]:
    stories = _stories()
    taken = {round(s.phase_at * 60) for s in stories}
    routine = _routine(random.Random(SEED), taken)
    bundle: Json = {
        "format": FORMAT,
        "capturedAt": DEMO_CAPTURED_AT,
        "clusters": DEMO_CLUSTERS,
        "projects": [project_json(PROJECTS[name]) for name in sorted(PROJECTS)],
        "workloads": [s.entry() for s in stories] + [s.entry() for s in routine],
        "kubernetes": _kubernetes(stories),
        "faults": _faults(stories),
    }
    expectations = [e for s in stories for e in s.expectations] + [make() for make in EXTRA_EXPECTATIONS]
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


def _data_file(name: str) -> Path:
    return Path(str(resources.files("core.sim").joinpath("data", name)))


def demo_bundle_path() -> Path:
    """Where the shipped demo bundle lives inside the installed package."""
    return _data_file(BUNDLE_FILE)


def demo_expectations_path() -> Path:
    return _data_file(EXPECTATIONS_FILE)


def load_demo_bundle() -> CaseBundle:
    """The shipped demo bundle, read and validated by core.sim.bundle."""
    from core.sim.bundle import load_bundle

    return load_bundle(demo_bundle_path())


def demo_expectations() -> list[dict[str, Any]]:
    """The shipped expectations (a list of dicts, one per hand-shaped case)."""
    data: list[dict[str, Any]] = json.loads(demo_expectations_path().read_text(encoding="utf-8"))
    return data


def main(argv: list[str] | None = None) -> int:
    """Regenerate both data files next to this module (or into the directory given as the only argument)."""
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


if __name__ == "__main__":
    raise SystemExit(main())
