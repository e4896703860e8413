"""A node the live demo tenant loses: at `at_s` seconds after its start, a GPU of one node falls off the bus (Xid
79), and every workload running there fails within `spread_s`, each with a CUDA error and exit 1, as the still
demo's gpu-e-23 did the evening before. Its victims are actors (core.sim.live.actors, kind `gpu-lost`) of
several projects of the first cluster, submitted between one and five hours before the tenant started, Running
on the node until then; the node is Ready, and from the loss on carries the failing GPU condition.

The victims, their projects and the moment each fails come from the seed alone, so a restarted process, and a
test on a stepped clock, see the same storm at the same moments. `victims` 0: no loss.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from core.sim.demo.world import EAST, PROJECTS
from core.sim.live.actors import Actor
from core.sim.live.settings import DEFAULT_LOSS_AT_S, DEFAULT_LOSS_VICTIMS, LiveSettings

LOSS_NODE = "gpu-e-31"
LOSS_SPREAD_S = 240.0
_FIRST_FAILS_S = 15.0  # the first process to touch the lost GPU fails this soon after it
_MODELS = ("llama", "mistral", "vit", "whisper", "moe", "sam", "t5", "conformer", "ssm", "detr")


@dataclass(frozen=True, slots=True)
class NodeLoss:
    node: str = LOSS_NODE
    at_s: float = DEFAULT_LOSS_AT_S
    victims: int = DEFAULT_LOSS_VICTIMS
    spread_s: float = LOSS_SPREAD_S

    @classmethod
    def of(cls, settings: LiveSettings) -> NodeLoss:
        return cls(at_s=settings.loss_at_s, victims=settings.loss_victims)

    def __post_init__(self) -> None:
        if not 0 <= self.victims <= 500:
            raise ValueError(f"a node loss takes 0 to 500 workloads, not {self.victims}")
        if self.spread_s < _FIRST_FAILS_S or self.at_s < 0:
            raise ValueError("a node loss starts at or after the tenant's start, its failures spread over 15 s or more")


def loss_actors(seed: int, loss: NodeLoss) -> list[Actor]:
    """The workloads the loss takes down, in order of submission (all before the tenant's start)."""
    rng = random.Random(f"runai-triage live node loss {seed}")
    projects = sorted(name for name, p in PROJECTS.items() if p.cluster == EAST)
    failing = sorted(rng.uniform(_FIRST_FAILS_S, loss.spread_s) for _ in range(loss.victims))
    if failing:
        failing[0] = _FIRST_FAILS_S
    out = []
    for i, after in enumerate(failing):
        start = -rng.uniform(3600.0, 5 * 3600.0)
        project = projects[i % len(projects)]
        model = _MODELS[rng.randrange(len(_MODELS))]
        # stages: Running from its start, the GPU lost at the loss, Failed `after` seconds later
        timeline = (0.0, loss.at_s - start, loss.at_s - start + after)
        out.append(Actor(-1 - i, "gpu-lost", start, f"live-{seed}-loss-{i}", f"{model}-pretrain-n{i + 1}", project,
                         loss.node, rng.randrange(1000), timeline))
    return sorted(out, key=lambda a: a.start)
