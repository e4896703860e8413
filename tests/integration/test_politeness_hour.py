"""The live views' requests over one simulated hour at the default settings (a read every 5 s), counted by the
live demo simulator on a stepped clock, against the worst cases ARCHITECTURE.md tables ("Request rates of the
live views") and the README's "API politeness budget".

Each view's interval is driven through the functions its screen or command calls every interval: the picker's
page read, change tracker and verdict choice (core.triage.changes, core.triage.verdicts.to_diagnose) with the
background diagnoses (core.triage.batch); a follower's fingerprint and its re-diagnosis on a change
(core.triage.follow); and `watch` whole (tui.commands.watch.WatchRun). How the screens pace and pause those calls is
tested with the app itself (tests/ui/test_picker_refresh.py, tests/ui/test_follow.py)."""

from __future__ import annotations

import io
import itertools
import json
import re
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.notify.deliveries import PostTarget
from core.sim.bundle import CaseBundle
from core.sim.control_plane import RecordedRequest
from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.sim.live.clock import SteppedClock
from core.sim.live.plane import LiveControlPlane
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.sources.runai import filter_item
from core.tenant import Tenant, open_bundle_tenant
from core.triage.batch import BACKGROUND, diagnose_many
from core.triage.changes import ChangeTracker
from core.triage.follow import MAX_PODS, read_fingerprint, what_changed
from core.triage.pacing import DEFAULT_INTERVAL_S, polite
from core.triage.verdicts import VerdictCache, to_diagnose, verdict_key
from core.triage.watch import WatchRequest
from tests.integration.test_watch import Stepper
from tests.integration.webhook_receiver import Receiver
from tui.commands.start import StartOptions
from tui.commands.watch_run import WatchRun

HOUR = 3600.0
INTERVALS = int(HOUR // DEFAULT_INTERVAL_S)  # 720
EAST = DEMO_CLUSTERS[0]["uuid"]
PAGE = 31  # the picker's page at 120x40
DIAGNOSIS_READS = 20  # the most Run:ai reads one diagnosis of a demo workload makes (about 13 usually)


@pytest.fixture(scope="module")
def demo_bundle() -> CaseBundle:
    return load_demo_bundle()


def kinds(requests: list[RecordedRequest]) -> Counter[str]:
    def kind(r: RecordedRequest) -> str:
        if r.path == "/api/v1/workloads":
            return "list"
        if r.path.startswith("/api/v1/namespaces/"):
            return "kubernetes"
        if r.path.startswith("/api/v1/workloads/") and r.path.count("/") == 4 and not r.path.endswith("/count"):
            return "workload"  # each diagnosis and each follower read starts with it
        return "other"

    return Counter(kind(r) for r in requests)


def live(demo_bundle: CaseBundle, clock: SteppedClock) -> Tenant:
    return open_bundle_tenant(demo_bundle, label="demo tenant, live", live=LiveSettings(seed=1), live_clock=clock)


def plane(tenant: Tenant) -> LiveControlPlane:
    assert isinstance(tenant.control_plane, LiveControlPlane)
    return tenant.control_plane


async def test_the_picker_over_an_hour(demo_bundle: CaseBundle) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    tenant = live(demo_bundle, clock)
    tracker, cache = ChangeTracker(since=clock()), VerdictCache()
    keys: set[tuple[str, str]] = set()
    try:
        for _ in range(INTERVALS):
            with polite():
                page = await tenant.runai.list_workloads(filters=[filter_item("clusterId", "==", EAST)],
                                                         sort_by="phaseUpdatedAt", sort_order="desc", limit=PAGE)
            tracker.update(page.items, lambda w: None)
            eligible, todo = to_diagnose(page.items, cache, attention_view=False, under_way=set())
            keys |= {verdict_key(w) for w in eligible}
            requests = [DiagnosisRequest(cluster_id=EAST, workload_id=w.id, now=clock(), count_others=False)
                        for w in todo]
            async for index, verdict in diagnose_many(requests, tenant.runai, tier2_unavailable="not needed here",
                                                      politeness=BACKGROUND):
                cache.put(todo[index], verdict)
            clock.advance(DEFAULT_INTERVAL_S)
        counted = kinds(plane(tenant).requests)
    finally:
        await tenant.aclose()
    assert counted["list"] == INTERVALS  # one list request per interval
    assert counted["workload"] == len(keys)  # one diagnosis per row and phase change, never again
    moved = sum(1 for _ in itertools.takewhile(lambda a: a.start < HOUR, actors(1)))
    assert len(keys) <= PAGE + 2 * moved
    assert counted["other"] <= DIAGNOSIS_READS * len(keys)


async def test_a_followed_diagnosis_over_an_hour(demo_bundle: CaseBundle) -> None:
    pull = next(a for a in actors(1) if a.kind == "image-pull")  # Pending for good: followed the whole hour
    clock = SteppedClock(demo_bundle.captured_at + timedelta(seconds=pull.start + pull.stages[1] + 1))
    tenant = live(demo_bundle, clock)
    try:
        row = next(w for w in (await tenant.runai.list_workloads(sort_by="phaseUpdatedAt", sort_order="desc",
                                                                 limit=20)).items if w.name == pull.name)
        assert row.id is not None
        before = kinds(plane(tenant).requests)
        previous, rediagnosed = None, 0
        for _ in range(INTERVALS):
            found = await read_fingerprint(tenant.runai, row.id, tenant.kube)
            if previous is not None and what_changed(previous, found):
                rediagnosed += 1
                request = DiagnosisRequest(cluster_id=EAST, workload_id=row.id, now=clock())
                await run_to_report(request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable)
            previous = found
            clock.advance(DEFAULT_INTERVAL_S)
        after = kinds(plane(tenant).requests)
    finally:
        await tenant.aclose()
    assert 0 < rediagnosed <= len(pull.stages)  # only when something changed: a few more failed pulls
    runai = sum(after[k] - before[k] for k in ("list", "workload", "other"))
    assert runai <= 3 * INTERVALS + DIAGNOSIS_READS * rediagnosed  # workload, events and pods reads
    assert after["kubernetes"] - before["kubernetes"] <= MAX_PODS * INTERVALS + 6 * rediagnosed


async def test_watch_over_an_hour(demo_bundle: CaseBundle, tmp_path: Path) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    tenant = live(demo_bundle, clock)
    with Receiver() as receiver:
        stepper = Stepper(clock, demo_bundle.captured_at, HOUR)
        out = io.StringIO()
        run = WatchRun(WatchRequest(cluster_id="demo-east"), StartOptions(mode="demo"), "jsonl",
                       (PostTarget.of(receiver.url, None),), tmp_path / "s.json", out=out,
                       err=io.StringIO(), sleep=stepper, opener=lambda: tenant, post_clock=stepper.seconds,
                       wall=stepper.seconds)
        stepper.run = run
        assert await run.run() == 0
        texts = receiver.texts()
        posted = len(texts)
    counted = kinds(plane(tenant).requests)
    assert run.watcher is not None
    sweeps, delivered = run.watcher.counts.sweeps, run.watcher.counts.delivered
    assert INTERVALS <= sweeps <= INTERVALS + 1 and counted["list"] == sweeps  # one list request per sweep
    # Every failure reached the webhook: posted alone, listed in a storm's post (the hour has the live demo's node
    # loss), or counted in its workload's cool-down (a crash loop's Failed after its CrashLoopBackOff).
    storms = [int(m.group(1)) for m in (re.search(r"Storm(?: follow-up \d+)?: (\d+) (?:more )?workloads? failed", t)
                                        for t in texts) if m]
    assert run.deliveries is not None and storms and delivered > posted > 50
    waiting = run.deliveries.gathered()  # gathered when the hour ended: posted by the next run
    assert delivered == posted - len(storms) + sum(storms) + run.deliveries.repeated + waiting
    # The cluster goes on reporting for the whole hour: no report says it stopped (issue 32, point 9).
    reports = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(reports) == delivered
    assert not [f for r in reports for f in r.get("findings") or [] if f["kind"] == "control-plane"]
    assert counted["workload"] == run.watcher.counts.diagnosed  # each diagnosis once
    # Besides: the reads of each diagnosis, and the events reads of fresh Pending/Running rows.
    assert counted["other"] <= DIAGNOSIS_READS * delivered + 2 * sweeps
