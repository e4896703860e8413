"""The routine workloads that make the demo tenant look like a real one: about two thousand mostly Completed
and Running submissions spread over thirty days, drawn from a seeded random generator so every run draws the
same ones. They carry a workload object, a spec and their pods on healthy nodes (the Nodes view's denominator),
nothing a diagnosis would need.

Where each pod ran is drawn from a generator of its own per workload, so the draws that make the workloads
stay what they were before the pods came.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from core.sim.demo.story import Story
from core.sim.demo.world import EAST, PROJECTS, ROUTINE_PROJECTS, WEST

SEED = 20261130
ROUTINE_COUNT = 2100
WINDOW_SECONDS = 30 * 24 * 3600

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


# The nodes routine work runs on, per connected cluster: all healthy. gpu-e-23 is the node storm's
# (stories/node_storm.py): nothing routine ran there.
ROUTINE_NODES: dict[str, tuple[str, ...]] = {
    EAST: tuple(f"gpu-e-{n:02d}" for n in range(1, 41) if n != 23),
    WEST: tuple(f"gpu-w-{n:02d}" for n in range(1, 31)),
}


def _place(s: Story, rng: random.Random) -> None:
    """The workload's pods: none placed while Pending; running, completed, failed, or deleted with a stop."""
    nodes = rng.sample(ROUTINE_NODES[PROJECTS[s.project].cluster], s.requested_pods)
    ended = s.phase in ("Completed", "Failed", "Stopped")
    phase = {"Pending": "Pending", "Running": "Running", "Failed": "Failed"}.get(s.phase, "Succeeded")
    for index, node in enumerate(nodes):
        placed = s.phase != "Pending"
        s.add_pod(
            node=node if placed else None,
            created=s.created - (0.3 if placed else 0.0),
            k8s_phase=phase,
            # Never newer than the phase change: the workload's updatedAt stays its own.
            updated=s.phase_at if placed else s.created,
            index=index,
            completed=s.phase_at if ended else None,
            deleted=s.phase_at if s.phase == "Stopped" else None,
        )


def _pick(rng: random.Random, weighted: Iterable[tuple[str, int]]) -> str:
    items = list(weighted)
    return rng.choices([v for v, _ in items], weights=[w for _, w in items], k=1)[0]


def routine_stories(rng: random.Random, taken_seconds: set[int]) -> list[Story]:
    """Ordinary workloads: mostly Completed and Running, with distinct phaseUpdatedAt seconds."""
    pool = [s for s in range(90, WINDOW_SECONDS) if s not in taken_seconds]
    seconds = rng.sample(pool, ROUTINE_COUNT)
    counters: dict[str, int] = {}
    projects = list(ROUTINE_PROJECTS)
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
        _place(s, random.Random(f"{SEED}/pods/{i}"))
        out.append(s)
    return out
