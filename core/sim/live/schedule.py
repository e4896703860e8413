"""Which workloads of a live demo tenant move, and when: drawn from the seed, one actor after another.

Actors come in blocks of one of each kind (core.sim.live.actors.KINDS). The first block fails early (an OOM,
then a crash loop), so a demo shows a failure within half a minute whatever the seed; later blocks are shuffled.
Each actor is submitted 10-20 s after the one before, on a connected cluster (three in four on the first one,
the picker's first choice), in one of its projects, on one of its nodes. The same seed gives the same actors at
the same moments, so a run can be repeated, and a restarted process sees the same workloads again.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from core.sim.demo.world import EAST, PROJECTS
from core.sim.live.actors import KINDS, Actor

FIRST_AT_S = 4.0
GAP_S = (10.0, 20.0)
FIRST_BLOCK = ("oom", "crash-loop", "completes", "image-pull", "recovers")
_TASKS = {"crash-loop": "train", "oom": "ft", "image-pull": "nb", "completes": "eval", "recovers": "serve"}
_MODELS = {
    "nlp": ("llama", "bert", "t5", "mistral"),
    "vision": ("vit", "sam", "yolo", "detr"),
    "speech": ("whisper", "conformer", "hubert"),
    "research": ("moe", "ssm", "diffusion"),
    "robotics": ("vla", "ppo", "diffusion-policy"),
    "genai": ("sdxl", "llama3", "gemma"),
    "recsys": ("dlrm", "twotower", "dien"),
}


def _projects(cluster: str) -> list[str]:
    return sorted(name for name, p in PROJECTS.items() if p.cluster == cluster and name in _MODELS)


# (east?, node number) of a node the recorded demo shows NotReady -> the node a live workload uses instead.
DOWN_SPARE = {(True, 11): 17}


def actors(seed: int) -> Iterator[Actor]:
    """Every actor of the tenant `seed` draws, in order of submission (an endless series)."""
    rng = random.Random(f"runai-triage live {seed}")
    east = _projects(EAST)
    west = [name for name in _MODELS if name not in east]
    at = FIRST_AT_S
    number = 0
    block: list[str] = list(FIRST_BLOCK)
    while True:
        if not block:
            block = list(KINDS)
            rng.shuffle(block)
        kind = block.pop(0)
        on_east = rng.random() < 0.75
        project = rng.choice(east if on_east else west)
        index = rng.randint(1, 16 if on_east else 8)
        # Never a node the recorded demo has NotReady (gpu-e-11 since 11:34): a workload running there later
        # would contradict it. Drawn as before, so a seed's schedule is otherwise unchanged.
        index = DOWN_SPARE.get((on_east, index), index)
        node = f"gpu-{'e' if on_east else 'w'}-{index:02d}"
        model = rng.choice(_MODELS[project])
        key = f"live-{seed}-{number}"
        yield Actor(number, kind, at, key, f"{model}-{_TASKS[kind]}-{number + 1}", project, node,
                    rng.randrange(1000))
        number += 1
        at += rng.uniform(*GAP_S)
