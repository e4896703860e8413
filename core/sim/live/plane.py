"""The control plane of a live demo tenant: before every request, the bundle it serves is brought up to the
live clock's "now" (core.sim.live.world); the routes, the faults and the request log are the still
simulator's own. `Storm`s answer every Run:ai read with 429 and a `Retry-After` between two moments, so a test
can check that a client slows down and loses nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from core.sim.bundle import CaseBundle
from core.sim.control_plane import ControlPlane, SimRequest, SimResponse, api_error
from core.sim.live.clock import Clock, live_clock
from core.sim.live.settings import LiveSettings
from core.sim.live.world import LiveWorld


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
        **kwargs: object,
    ) -> None:
        super().__init__(bundle, **kwargs)  # type: ignore[arg-type]
        self.settings = settings = settings or LiveSettings()
        epoch = settings.epoch if settings.epoch is not None else time.time()
        self.clock: Clock = clock or live_clock(bundle.captured_at, epoch, settings.speed)
        self.world = LiveWorld(bundle, settings.seed)
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
        return super()._route(method, path, request, kube)

    def _storm(self) -> Storm | None:
        if not self.storms:
            return None
        seconds = (self.clock() - self.world.base.captured_at).total_seconds()
        return next((s for s in self.storms if s.start_s <= seconds < s.end_s), None)
