"""How a live demo tenant moves: its seed, its speed, and when its clock starts. Standard library only: the
program hands these to the simulator's process (core.sim.process) before anything heavy loads."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SEED = 1
# One minute of the tenant's time per real minute; tests and benchmarks step the clock instead.
DEFAULT_SPEED = 1.0
MAX_SPEED = 1000.0


@dataclass(frozen=True, slots=True)
class LiveSettings:
    """`epoch`: the wall-clock moment (time.time()) the live tenant starts at: its stories are shifted to end at
    that second, and its clock reads the wall clock from there (`speed` times as fast). The app and its
    simulator's process share it, so both read the same "now" with no drift between them; None means "when the
    tenant is opened"."""

    seed: int = DEFAULT_SEED
    speed: float = DEFAULT_SPEED
    epoch: float | None = None

    def __post_init__(self) -> None:
        if not 0 < self.speed <= MAX_SPEED:
            raise ValueError(f"the live speed must be above 0 and at most {MAX_SPEED:g}, got {self.speed:g}")

    def arguments(self) -> list[str]:
        """The child process's command-line options for these settings (core.sim.child)."""
        out = ["--live", "--seed", str(self.seed), "--speed", repr(self.speed)]
        return out + (["--epoch", repr(self.epoch)] if self.epoch is not None else [])
