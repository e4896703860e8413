"""The live demo tenant as it stands at a moment: the still bundle, plus every actor submitted by then at the
stage it has reached.

`LiveWorld.at(now)` returns a `CaseBundle`; the same object for as long as nothing changes, a new one when an
actor was submitted or moved on. A bundle is never changed in place: the routes and the workload index hold
on to the bundle they were given (they assume it does not change while served), and a new bundle gets an index
of its own. Only the actors still moving are looked at, so a request costs the same after hours of running; an
actor that settled more than RETAIN ago leaves the tenant (as a finished job's objects are cleaned up), so a
tenant served for days keeps its size and its speed.
"""

from __future__ import annotations

import dataclasses
import heapq
import threading
from collections import deque
from datetime import datetime, timedelta
from typing import Any

from core.sim.bundle import CaseBundle
from core.sim.demo.fleet import failing, runai_node
from core.sim.live.actors import Actor
from core.sim.live.node_loss import NodeLoss, loss_actors
from core.sim.live.schedule import actors
from core.sim.live.shift import shift_json

Json = dict[str, Any]
_KUBE_LISTS = ("pods", "events", "logs")
RETAIN_S = 24 * 3600.0


@dataclasses.dataclass
class _Shown:
    """An actor's current stage and what it holds at that stage."""

    stage: int
    entry: Json
    kube: dict[str, list[Json]]
    nodes: list[Json]


class LiveWorld:
    def __init__(self, base: CaseBundle, seed: int, shift_s: int = 0, loss: NodeLoss | None = None) -> None:
        """`base` is the still bundle as served (already shifted by `shift_s` seconds, core.sim.live.shift);
        each moving workload's moments are shifted the same way. `loss`: the node it loses, and when (none by
        default here; the control plane gives its settings' loss)."""
        self.base = base
        self.seed = seed
        self.shift = timedelta(seconds=shift_s)
        victims = loss_actors(seed, loss) if loss is not None else []
        self._series = heapq.merge(victims, actors(seed), key=lambda a: a.start)
        self._upcoming: Actor = next(self._series)
        self._moving: list[Actor] = []
        self._shown: dict[str, _Shown] = {}  # actor key -> its stage, in order of submission
        self._settled: deque[tuple[float, str]] = deque()  # (when it settled, actor key), oldest first
        self._bundle = base
        self._lock = threading.Lock()
        self.changes = 0  # how many times the bundle was replaced (tests, benchmarks)

    @property
    def submitted(self) -> list[Actor]:
        """The actors submitted so far that are still moving (the settled ones keep their last stage)."""
        return list(self._moving)

    def at(self, now: datetime) -> CaseBundle:
        seconds = (now - self.base.captured_at).total_seconds()
        with self._lock:
            changed = False
            while self._upcoming.start <= seconds:
                self._moving.append(self._upcoming)
                self._upcoming = next(self._series)
            still: list[Actor] = []
            for actor in self._moving:
                stage = actor.stage_at(seconds)
                if stage is None:
                    still.append(actor)
                    continue
                shown = self._shown.get(actor.key)
                if shown is None or shown.stage != stage:
                    self._shown[actor.key] = _show(actor, stage, self.shift, self.base.captured_at - self.shift)
                    changed = True
                if stage < len(actor.stages) - 1:
                    still.append(actor)
                else:
                    self._settled.append((actor.start + actor.stages[-1], actor.key))
            self._moving = still
            while self._settled and self._settled[0][0] < seconds - RETAIN_S:
                self._shown.pop(self._settled.popleft()[1], None)
                changed = True
            if changed:
                self._bundle = self._assemble()
                self.changes += 1
            return self._bundle

    def _assemble(self) -> CaseBundle:
        base = self.base
        shown = list(self._shown.values())
        workloads = [*base.workloads, *(s.entry for s in shown)]
        kube: Json | None = None
        live = _live_nodes(shown)
        if base.kubernetes is not None:
            kube = dict(base.kubernetes)
            for name in _KUBE_LISTS:
                kube[name] = [*(base.kubernetes.get(name) or []), *(item for s in shown for item in s.kube[name])]
            known = {(n.get("metadata") or {}).get("name") for n in base.kubernetes.get("nodes") or []}
            extra = {name: n for name, n in live.items() if name not in known}
            kube["nodes"] = [*(base.kubernetes.get("nodes") or []), *(extra[k] for k in sorted(extra))]
        # A new bundle (its workload index and id lookup are built afresh); the still parts are shared.
        nodes = _runai_nodes(base.nodes, live)
        return dataclasses.replace(base, workloads=workloads, kubernetes=kube, nodes=nodes, _by_id={})


def _live_nodes(shown: list[_Shown]) -> dict[str, Json]:
    """The Kubernetes nodes the actors hold, by name: of several for one name, the one with the most failing
    conditions (an actor that saw the node's GPU fall off holds the condition; one shown before it does not)."""
    out: dict[str, Json] = {}
    for s in shown:
        for n in s.nodes:
            name = n["metadata"]["name"]
            if name not in out or len(failing(_conditions(n))) > len(failing(_conditions(out[name]))):
                out[name] = n
    return out


def _conditions(node: Json) -> list[Json]:
    return (node.get("status") or {}).get("conditions") or []


def _runai_nodes(listed: list[Json], live: dict[str, Json]) -> list[Json]:
    """Run:ai's node list in agreement with the nodes the actors hold: a node whose Kubernetes object fails a
    condition now (a GPU fallen off the bus) is listed with that condition and its status, as Run:ai reports
    it; the rest as recorded. The same list object while nothing differs."""
    out: list[Json] = []
    changed = False
    for entry in listed:
        node = live.get(str(entry.get("name")))
        if node is None or not failing(_conditions(node)):
            out.append(entry)
            continue
        fresh = runai_node(str(entry.get("name")), str(entry.get("clusterUuid") or ""), node)
        out.append({**entry, "status": fresh["status"], "conditions": fresh["conditions"], "taints": fresh["taints"]})
        changed = True
    return out if changed else listed


def _show(actor: Actor, stage: int, shift: timedelta, captured: datetime) -> _Shown:
    """The actor at `stage`, its moments `shift` later (`captured`: the still bundle's capture, before it)."""
    story = actor.snapshot(stage)
    kube = {"pods": story.kube_pods, "events": story.kube_events, "logs": story.logs}
    shown = _Shown(stage, story.entry(), kube, story.nodes)
    if not shift:
        return shown
    return _Shown(
        stage, shift_json(shown.entry, shift), shift_json(shown.kube, shift, captured), shift_json(shown.nodes, shift)
    )
