"""The demo tenant, moving (`--demo --live`, `serve --demo --live`): a layer over the still demo bundle in which
new workloads are submitted, start, crash, restart, recover and fail on a schedule, through the same routes.

- `settings`: `LiveSettings` (the seed, the speed, the wall-clock moment the live clock starts), stdlib only, so
  the program can pass them to the simulator's process before anything heavy loads;
- `clock`: the live clock (the capture instant plus the time served, optionally faster) and a stepped clock
  for tests;
- `actors`: what each kind of moving workload looks like at each stage of its life, written with the demo kit
  (so its evidence is as coherent as a hand-shaped story's);
- `schedule`: which workloads move when, drawn from the seed (the same seed, the same tenant at the same time);
- `world`: the bundle as it stands at a moment: the still bundle plus every moving workload's current stage;
- `plane`: the control plane that serves that bundle, brought up to date before every request, and storms of
  429 answers on a schedule for tests.

Recorded cases never move: only the demo tenant has a live layer. Nothing here is imported unless `--live` is
given.
"""
