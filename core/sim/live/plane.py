"""The control plane of a live demo tenant: before every request, the bundle it serves is brought up to the
live clock's "now" (core.sim.live.world); the routes, the faults and the request log are the still
simulator's own.

On the wall clock (no clock given: `serve --demo --live`, the app's simulator process, `watch --demo --live`) the
tenant starts at the moment it is started: the still stories are shifted to end there (core.sim.live.shift), so
its times are the wall clock's and a client that uses its own "now" (a real-mode diagnosis) reads the same ages
as the app. A test gives a clock of its own and decides every moment; nothing is shifted then.

A connected cluster keeps reporting: `GET /api/v1/clusters` gives it a `lastLiveness` (and `updatedAt`) that
moves on every HEARTBEAT_S with the clock, so a tenant served for an hour has no false "cluster last reported N
ago". A cluster that lost its connection stays as recorded. `Storm`s answer every Run:ai read with 429 and a
`Retry-After` between two moments, so a test can check that a client slows down and loses nothing."""

from __future__ import annotations

import copy
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.sim.bundle import CaseBundle, parse_instant
from core.sim.control_plane import ControlPlane, SimRequest, SimResponse, api_error
from core.sim.exchange import json_response
from core.sim.live.clock import Clock, live_clock
from core.sim.live.settings import LiveSettings
from core.sim.live.shift import shift_bundle
from core.sim.live.world import LiveWorld

HEARTBEAT_S = 30
_STAMP = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True, slots=True)
class Storm:
    """From `start_s` to `end_s` seconds after the capture instant, every Run:ai read answers 429."""

    start_s: float
    end_s: float
    retry_after_s: int = 2


class LiveControlPlane(ControlPlane):
    def __init__(
        self,
        bundle: CaseBundle,
        settings: LiveSettings | None = None,
        *,
        clock: Clock | None = None,
        storms: Sequence[Storm] = (),
        wall: Callable[[], float] = time.time,
        **kwargs: object,
    ) -> None:
        self.settings = settings = settings or LiveSettings()
        shift = 0
        if clock is None:  # on the wall clock: the tenant starts now, its stories shifted to end now
            epoch = settings.epoch if settings.epoch is not None else wall()
            start = datetime.fromtimestamp(math.floor(epoch), UTC)
            shift = round((start - bundle.captured_at).total_seconds())
            bundle = shift_bundle(bundle, shift)
            clock = live_clock(bundle.captured_at, bundle.captured_at.timestamp(), settings.speed, wall)
        super().__init__(bundle, **kwargs)  # type: ignore[arg-type]
        self.clock: Clock = clock
        self.world = LiveWorld(bundle, settings.seed, shift)
        self.storms = tuple(storms)
        self.stormed = 0  # answers a storm replaced (tests)
        self._live_lock = threading.Lock()

    def handle(self, request: SimRequest) -> SimResponse:
        with self._live_lock:
            self.bundle = self.world.at(self.clock())
        return super().handle(request)

    def _route(self, method: str, path: str, request: SimRequest, kube: bool) -> SimResponse:
        storm = None if kube else self._storm()
        if storm is not None:
            self.stormed += 1
            return api_error(429, "too many requests: slow down", {"Retry-After": str(storm.retry_after_s)})
        if not kube and method == "GET" and path == "/api/v1/clusters":
            return json_response(200, heartbeats(self.bundle.clusters, self.clock()))
        return super()._route(method, path, request, kube)

    def _storm(self) -> Storm | None:
        if not self.storms:
            return None
        seconds = (self.clock() - self.world.base.captured_at).total_seconds()
        return next((s for s in self.storms if s.start_s <= seconds < s.end_s), None)


def heartbeats(clusters: list[dict[str, Any]], now: datetime) -> list[dict[str, Any]]:
    """The clusters as listed at `now`: each connected one last reported at its latest heartbeat (every
    HEARTBEAT_S from when it last reported in the recording); the others as recorded."""
    out = []
    for cluster in clusters:
        raw = cluster.get("status")
        status: dict[str, Any] = raw if isinstance(raw, dict) else {}
        last = parse_instant(cluster.get("lastLiveness"))
        if status.get("state") != "Connected" or last is None or now <= last:
            out.append(cluster)
            continue
        beats = math.floor((now - last).total_seconds() / HEARTBEAT_S)
        moved = copy.copy(cluster)
        moved["lastLiveness"] = moved["updatedAt"] = (last + timedelta(seconds=beats * HEARTBEAT_S)).strftime(_STAMP)
        out.append(moved)
    return out
