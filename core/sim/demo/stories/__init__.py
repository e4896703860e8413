"""The story families of the demo tenant, in the order their workloads appear in the bundle.

The order is part of the shipped bytes: a new family goes at the end (see core/sim/demo/__init__.py).
"""

from __future__ import annotations

from core.sim.demo.stories import (
    admission,
    control_plane,
    crash,
    data_quality,
    distributed,
    fabric,
    gpu_faults,
    hostile,
    image_pull,
    init_container,
    liveness,
    lookup,
    many_submissions,
    mount,
    node_failure,
    node_pressure,
    node_storm,
    off_spec,
    oom,
    policy,
    preemption,
    routed_out,
    serving,
    terminal,
    third_party,
    unknown,
)
from core.sim.demo.story import Family, Json, Story

# The routine workloads' phase-change seconds were drawn around these families' (core.sim.demo.build). A family
# added after them keeps clear of the routine seconds instead (the build fails when one does not), so adding it
# leaves every routine workload as it was.
ROUTINE_DRAWN_AROUND: tuple[Family, ...] = (
    oom.FAMILY,
    image_pull.FAMILY,
    init_container.FAMILY,
    mount.FAMILY,
    crash.FAMILY,
    node_failure.FAMILY,
    policy.FAMILY,
    unknown.FAMILY,
    liveness.FAMILY,
    preemption.FAMILY,
    routed_out.FAMILY,
    lookup.FAMILY,
    data_quality.FAMILY,
    many_submissions.FAMILY,
    hostile.FAMILY,
    distributed.FAMILY,
    serving.FAMILY,
    third_party.FAMILY,
    gpu_faults.FAMILY,
    fabric.FAMILY,
    node_pressure.FAMILY,
    admission.FAMILY,
    control_plane.FAMILY,
    terminal.FAMILY,
)
FAMILIES: tuple[Family, ...] = (*ROUTINE_DRAWN_AROUND, node_storm.FAMILY)
# The off-spec tenant's stories (data a 2.24 control plane does not send): built into a bundle of their own.
OFF_SPEC_FAMILIES: tuple[Family, ...] = (off_spec.FAMILY,)


def all_stories(families: tuple[Family, ...] = FAMILIES) -> list[Story]:
    """Every hand-shaped story, family by family; refuses two stories with one key (they would share ids)."""
    stories: list[Story] = []
    seen: dict[str, str] = {}
    for family in families:
        for story in family.build():
            if story.key in seen:
                raise ValueError(f"demo story key {story.key!r} is used twice: {seen[story.key]} and {family.name}")
            seen[story.key] = family.name
            stories.append(story)
    return stories


def family_expectations(families: tuple[Family, ...] = FAMILIES) -> list[Json]:
    """The expectations that belong to no single story, family by family."""
    return [make() for family in families for make in family.expectations]
