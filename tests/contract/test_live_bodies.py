"""The live demo tenant (core.sim.live) answers what Run:ai's own SDK accepts, as the still demo does: every
moving workload of the first block (one of each kind) judged at every stage of its life."""

from __future__ import annotations

import itertools
from datetime import timedelta

from core.sim.demo import load_demo_bundle
from core.sim.live.actors import KINDS
from core.sim.live.schedule import actors
from core.sim.live.world import LiveWorld
from tests.contract.test_sdk_bodies import _message, judge
from tests.contract.walk import all_answers


def test_every_stage_of_every_kind_answers_what_the_sdk_accepts() -> None:
    bundle = load_demo_bundle()
    world = LiveWorld(bundle, 1)
    block = list(itertools.islice(actors(1), len(KINDS)))
    assert sorted(a.kind for a in block) == sorted(KINDS)
    moments = sorted({a.start + at + 0.5 for a in block for at in a.stages})
    judged, failures = 0, []
    for seconds in moments:
        live = world.at(bundle.captured_at + timedelta(seconds=seconds))
        entries = live.workloads[len(bundle.workloads):]
        count, refused = judge(list(all_answers(live, entries)))
        judged += count
        failures += refused
    assert judged > 100
    assert not failures, _message(failures, judged)


def test_every_stage_of_a_node_loss_answers_what_the_sdk_accepts() -> None:
    from core.sim.live.node_loss import NodeLoss, loss_actors

    bundle = load_demo_bundle()
    loss = NodeLoss(victims=3, at_s=60.0)
    world = LiveWorld(bundle, 1, loss=loss)
    victims = loss_actors(1, loss)
    moments = sorted({a.start + at + 0.5 for a in victims for at in a.stages if a.start + at + 0.5 >= 0} | {0.0})
    judged, failures, phases = 0, [], set()
    for seconds in moments:
        live = world.at(bundle.captured_at + timedelta(seconds=seconds))
        entries = [e for e in live.workloads[len(bundle.workloads):]
                   if e["workload"].get("name") in {a.name for a in victims}]
        phases |= {e["workload"].get("phase") for e in entries}
        count, refused = judge(list(all_answers(live, entries)))
        judged += count
        failures += refused
    assert phases == {"Running", "Failed"} and judged > 30
    assert not failures, _message(failures, judged)
