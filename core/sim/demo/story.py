"""A `Story`: one hand-shaped workload of the demo tenant (a `StoryRecord`) together with the Run:ai API's
view of it, and the `Family` a story module registers its stories with.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.sim.demo import runai
from core.sim.demo.record import PodPlan, StoryRecord
from core.sim.demo.world import Json

__all__ = ["Family", "Json", "PodPlan", "Story", "StoryBuilder"]


class Story(StoryRecord):
    """A recorded workload that can also answer as the Run:ai API would (see core.sim.demo.runai)."""

    def workload_json(self) -> Json:
        return runai.workload_json(self)

    def spec_json(self) -> Json:
        return runai.spec_json(self)

    def pods_json(self) -> list[Json]:
        return runai.pods_json(self)

    def entry(self) -> Json:
        """The bundle's workload entry; absent parts are left out so the endpoints answer as documented."""
        return runai.entry(self)


StoryBuilder = Callable[[], "Story | list[Story]"]


@dataclass(frozen=True)
class Family:
    """One story family: its builders in bundle order (a builder may return several stories that belong
    together), and expectations that belong to no single story (a lookup that finds nothing)."""

    name: str
    stories: tuple[StoryBuilder, ...]
    expectations: tuple[Callable[[], Json], ...] = ()

    def build(self) -> list[Story]:
        out: list[Story] = []
        for make in self.stories:
            made = make()
            out.extend(made if isinstance(made, list) else [made])
        return out
