"""The live demo tenant in a process of its own, on a clock the benchmark moves: `python -m
tests.benchmarks.live_child --clock FILE [--seed N]`.

The clock is 8 bytes in FILE (a double: seconds after the demo's capture instant), mapped into memory here and
in the benchmark, which writes it before each poll: the simulator reads the same moment the watch does, with no
round trip, and what it allocates (a week of moving workloads) is not in the benchmark's traced memory. It
writes the ready line of core.sim.child (so core.tenant.open_served_tenant connects to it) and serves until its
stdin closes.
"""

from __future__ import annotations

import argparse
import json
import mmap
import struct
import sys
from datetime import datetime, timedelta
from pathlib import Path

from core.sim.child import READY_KEYS
from core.sim.control_plane import SESSION_TTL_S
from core.sim.demo import load_demo_bundle
from core.sim.live.plane import LiveControlPlane
from core.sim.live.settings import LiveSettings
from core.sim.loopback import LoopbackServer

CLOCK = struct.Struct("<d")


class MappedClock:
    """seconds after `start`, read from a shared 8-byte file at every call."""

    def __init__(self, path: Path, start: datetime) -> None:
        self._file = path.open("r+b")
        self._map = mmap.mmap(self._file.fileno(), CLOCK.size)
        self.start = start

    def __call__(self) -> datetime:
        return self.start + timedelta(seconds=CLOCK.unpack_from(self._map, 0)[0])

    def set(self, seconds: float) -> None:
        CLOCK.pack_into(self._map, 0, seconds)


def make_clock_file(path: Path) -> None:
    path.write_bytes(CLOCK.pack(0.0))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clock", required=True, type=Path)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    bundle = load_demo_bundle()
    plane = LiveControlPlane(bundle, LiveSettings(seed=args.seed), clock=MappedClock(args.clock, bundle.captured_at))
    server = LoopbackServer(plane)
    url = server.start()
    ready = (url, plane.issue_token(ttl_s=SESSION_TTL_S), plane.kube_token, bundle.captured_at.isoformat(), True)
    sys.stdout.write(json.dumps(dict(zip(READY_KEYS, ready, strict=True))) + "\n")
    sys.stdout.flush()
    try:
        sys.stdin.read()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
