"""The demo tenant: a deterministic `runai-triage/case@1` bundle shipped with the package, and the verdicts a
correct engine must give for its hand-shaped workloads.

The bundle holds three clusters (two connected, one that lost its connection to the control plane), eight
projects, the hand-shaped stories and about two thousand routine workloads that make the picker look like a real
tenant. Everything derives from a fixed seed and the fixed
capture instant, so `python -m core.sim.demo` rewrites byte-identical files (`data/`), which a test checks.

Layout:
- the kit: `world` (clock, ids, clusters, projects), `kube` (core/v1 objects), `record` (a `StoryRecord` writes
  one workload's objects coherently: Run:ai workload, events, spec, pods, history, metrics, faults, Kubernetes
  pod/events/node/logs, and its expected verdict), `runai` (the Run:ai API's view of a record) and `story`
  (`Story`, both joined; `Family`); `kit` re-exports what story modules use.
- `stories/<family>.py`: one family each (OOM, image pull, ..., route-outs, hostile text), ending in a `FAMILY`.
- `stories/__init__.py`: `FAMILIES`, the registry, in bundle order. `routine`: the routine workloads.
- `build`: assembles and writes the files (`python -m core.sim.demo [DIR]`); `files`: finds and reads them.

Adding a story family (multi-pod jobs, GPU hardware faults, ...):
1. write `stories/<family>.py`: functions that build a `Story` (or a list of stories that belong together),
   each ending in `story.expect(...)`, and `FAMILY = Family("<family>", stories=(...))`;
2. add `<family>.FAMILY` at the END of `FAMILIES` (stories earlier in the bundle keep their bytes);
3. run `python -m core.sim.demo` and commit the regenerated `data/` files.
Story keys must be unique across families (their ids derive from them); a generation with a duplicate fails.

Expectation entries (`demo-expectations.json`) carry, besides the keys the engine tests need (key, workloadId,
clusterId, name, project, intent, outcome, category, why, recurrence):
- `lookup`: "id" (Option A, ask with workloadId) or "name" (Option B, ask with name + project);
- `lookback`: the window the recurrence count uses; chosen so the diagnosed failure lies inside it;
- `recurrence`: distinct failures of the category in the workload's own history within `lookback` (an event
  and the phase update of one termination count once); 0 for routed-out outcomes, null where there is no
  single workload (ambiguous, not-found) or where the seed leaves the count open (a live crash loop, whose
  restarts the history does not enumerate);
- optional `memory` (request/limit as submitted, their byte values or null when unreadable, the measured peak
  or null) and `detail` (the sub-kind that should steer the recommendation, e.g. "rate-limit", "OnFailure");
- optional `findings`: the infrastructure findings the report must hold, each `{kind, node, explains}`
  (absent: none);
- optional `cites`: words of the log line the report must cite as the one that explains the failure.

The off-spec tenant (`stories/off_spec.py`, `data/offspec-*`): stories whose data a 2.24 control plane does not
send (a `Suspended` phase, a malformed quantity), built the same way into a bundle of their own that says so
(`offSpec`), so the demo tenant stays one a real control plane could send (tests/contract checks it).

Importing this package loads only the reading side (`files`); the builders load with `core.sim.demo.build`.
"""

from __future__ import annotations

from core.sim.demo.files import (
    demo_bundle_path,
    demo_expectations,
    demo_expectations_path,
    load_demo_bundle,
    load_offspec_bundle,
    offspec_bundle_path,
    offspec_expectations,
)
from core.sim.demo.world import DEMO_CAPTURED_AT, DEMO_CLUSTERS, TENANT_CLUSTERS

__all__ = [
    "DEMO_CAPTURED_AT",
    "DEMO_CLUSTERS",
    "TENANT_CLUSTERS",
    "demo_bundle_path",
    "demo_expectations",
    "demo_expectations_path",
    "load_demo_bundle",
    "load_offspec_bundle",
    "offspec_bundle_path",
    "offspec_expectations",
]
