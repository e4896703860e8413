"""`runai-triage watch` against the live demo tenant over real HTTP, posting to an incoming webhook on loopback.

In-process, on a stepped clock (the watch's sleep moves it): a long-running watch posts each new failure exactly
once, also across a restart; a failed post is said and neither holds up the next report nor is lost; a storm of
429s slows the sweeps down and loses no report. As a program: `watch --demo --live --once` posts each failure
once across two runs, Ctrl-C ends it with a summary line, bad options are usage errors. And the one POST it makes
goes to the webhook alone, while the tenant clients still refuse every write.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from core.models.report import CATEGORIES, OUTCOMES
from core.models.runai import Workload
from core.notify.deliveries import PostTarget
from core.notify.ledger import Ledger
from core.notify.storms import Grouping
from core.notify.webhook import WebhookPoster, WebhookRefused
from core.sim.bundle import CaseBundle
from core.sim.demo import DEMO_CAPTURED_AT, DEMO_CLUSTERS, load_demo_bundle
from core.sim.live.actors import Actor
from core.sim.live.clock import SteppedClock
from core.sim.live.plane import LiveControlPlane, Storm
from core.sim.live.schedule import actors
from core.sim.live.settings import LiveSettings
from core.sources.errors import ReadOnlyViolation
from core.tenant import Tenant, open_bundle_tenant
from core.triage.watch import WatchRequest, failure_key
from tests.integration.webhook_receiver import Receiver, refused_port
from tui.commands.start import StartOptions
from tui.commands.watch_run import WatchRun

ROOT = Path(__file__).resolve().parents[2]
EAST = DEMO_CLUSTERS[0]["uuid"]
INTERVAL = 5.0
Key = str
# One post per failure: the tests of delivery count posts against failures (storms: test_watch_storms).
EACH = Grouping(0, 0)
EACH_ARGS = ("--group-window", "0", "--cooldown", "0")


@pytest.fixture(scope="module")
def demo_bundle() -> CaseBundle:
    return load_demo_bundle()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as server:
        yield server


def posted_keys(receiver: Receiver) -> list[Key]:
    """The stable key of every accepted post (its body carries it, and so does its last line)."""
    keys = receiver.keys()
    for text, key in zip(receiver.texts(), keys, strict=True):
        assert text.splitlines()[-1] == f"key `{key}`", text
    return keys


def stable_key(workload_id: str, when: str) -> Key:
    return failure_key(EAST, Workload.model_validate({"id": workload_id, "phaseUpdatedAt": when}))


def news(demo_bundle: CaseBundle, seed: int, until_s: float, visible_after_s: float = 0.0) -> set[Key]:
    """What a watch of demo-east must report by `until_s`: each live workload's phase change there that needs
    attention. With `visible_after_s`, only those still showing after that moment (a crash loop that started and
    ended during an outage was never there to see; its failure is)."""
    from core.sim.demo.world import PROJECTS, uid

    def at(actor: Actor, stage: int) -> str:
        when = demo_bundle.captured_at - timedelta(seconds=round(actor.ago(actor.stages[stage]) * 60))
        return when.isoformat()

    out: set[Key] = set()
    for actor in actors(seed):
        if actor.start > until_s:
            break
        reached = actor.stage_at(until_s)
        assert reached is not None
        if PROJECTS[actor.project].cluster != EAST:
            continue
        wid = uid("workload", actor.key)
        last = len(actor.stages) - 1
        wanted = {  # (the stage that shows it, the stage whose phase change it is, the stage that ends it)
            "oom": [(2, 2, None)],
            "crash-loop": [(2, 1, last), (last, last, None)],
            "image-pull": [(1, 0, None)],
            "recovers": [(2, 1, 3)],
            "completes": [],
        }[actor.kind]
        for shown, changed, ends in wanted:
            gone = actor.start + actor.stages[ends] if ends is not None else float("inf")
            if reached >= shown and gone > visible_after_s:
                out.add(stable_key(wid, at(actor, changed)))
    return out


class Stepper:
    """The watch's sleep: lets the couriers try what is due, moves the shared clock on, and stops the watch (as
    Ctrl-C would) at `until_s`."""

    def __init__(self, clock: SteppedClock, start: datetime, until_s: float) -> None:
        self.clock, self.start, self.until_s = clock, start, until_s
        self.waits: list[float] = []
        self.run: WatchRun | None = None

    def seconds(self) -> float:
        """The couriers' clock: the stepped clock, in seconds."""
        return self.clock().timestamp()

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        if self.run is not None:
            await self.run.settled()
        self.clock.advance(seconds)
        await asyncio.sleep(0)
        if (self.clock() - self.start).total_seconds() >= self.until_s:
            raise asyncio.CancelledError  # what a signal handler's cancel does to the running watch


async def watch_until(opener: Callable[[], Tenant], clock: SteppedClock, until_s: float, state: Path,
                      receiver: Receiver, **request: object) -> tuple[int, str, Stepper]:
    """One watch run (it opens its tenant with `opener` and closes it at the end, as the program does)."""
    err = io.StringIO()
    stepper = Stepper(clock, load_demo_bundle_at(), until_s)
    run = WatchRun(WatchRequest(cluster_id="demo-east", interval_s=INTERVAL, **request),  # type: ignore[arg-type]
                   StartOptions(mode="demo"), "jsonl", (PostTarget.of(receiver.url, None),), state,
                   out=io.StringIO(), err=err, sleep=stepper, opener=opener, post_clock=stepper.seconds,
                   grouping=EACH)
    stepper.run = run
    status = await run.run()
    return status, err.getvalue(), stepper


def load_demo_bundle_at() -> datetime:
    return datetime.fromisoformat(DEMO_CAPTURED_AT.replace("Z", "+00:00"))


def live_tenant(demo_bundle: CaseBundle, clock: SteppedClock, storms: tuple[Storm, ...] = ()) -> Tenant:
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant, live", live=LiveSettings(seed=1), live_clock=clock)
    assert isinstance(tenant.control_plane, LiveControlPlane)
    tenant.control_plane.storms = storms
    return tenant


async def test_a_long_running_watch_posts_each_new_failure_exactly_once_across_a_restart(
    demo_bundle: CaseBundle, receiver: Receiver, tmp_path: Path
) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    state = tmp_path / "state.json"
    # Each run opens its own clients to a tenant that goes on moving on the same clock: a restarted watch.
    status, said, _ = await watch_until(lambda: live_tenant(demo_bundle, clock), clock, 150, state, receiver)
    assert status == 0 and "stopped after" in said.splitlines()[-1]
    first = posted_keys(receiver)
    assert len(first) == len(set(first)) and set(first) <= news(demo_bundle, 1, 150)
    assert news(demo_bundle, 1, 150 - 2 * INTERVAL) <= set(first)
    # The restart looks back from where the first run stopped, over what it saw: nothing is posted again.
    status, said, _ = await watch_until(lambda: live_tenant(demo_bundle, clock), clock, 320, state, receiver)
    assert status == 0
    every = posted_keys(receiver)
    assert len(every) == len(set(every))
    assert news(demo_bundle, 1, 320 - 2 * INTERVAL) <= set(every) <= news(demo_bundle, 1, 320)
    assert len(every) > len(first) >= 3
    kept = Ledger.from_json(json.loads(state.read_text()))
    assert kept.scope == WatchRequest(EAST).scope("demo tenant, live")
    assert all(set(every) <= set(record.done) for record in kept.records.values())


async def test_a_failed_post_is_said_and_loses_neither_it_nor_the_next(
    demo_bundle: CaseBundle, receiver: Receiver, tmp_path: Path
) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    receiver.fail_next, receiver.fail_status = 3, 503  # the first post fails all its attempts
    status, said, _ = await watch_until(lambda: live_tenant(demo_bundle, clock), clock, 120, tmp_path / "s.json",
                                        receiver)
    assert status == 0
    assert re.search(r"could not post \S+: http://127\.0\.0\.1:\d+ answered 503 \(error\); \d+ waiting in the "
                     r"outbox, in order, tried again in 5 s", said)
    assert re.search(r"http://127\.0\.0\.1:\d+ answers again: posted \S+ after 3 failed attempts", said)
    assert "secret-part" not in said  # the webhook's path is its secret: never printed
    keys = posted_keys(receiver)
    assert len(keys) == len(set(keys)) and news(demo_bundle, 1, 120 - 2 * INTERVAL) <= set(keys)
    assert re.search(r"\d+ posted, 0 waiting to be posted", said.splitlines()[-1])


async def test_a_storm_of_429s_slows_the_sweeps_and_loses_no_report(
    demo_bundle: CaseBundle, receiver: Receiver, tmp_path: Path
) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    tenant = live_tenant(demo_bundle, clock, storms=(Storm(20, 110, retry_after_s=3),))
    plane = tenant.control_plane
    assert isinstance(plane, LiveControlPlane)
    status, said, stepper = await watch_until(lambda: tenant, clock, 200, tmp_path / "s.json", receiver)
    assert status == 0 and "sweep failed" in said
    stormed = [r for r in plane.requests if r.path == "/api/v1/workloads" and r.status == 429]
    assert 2 <= len(stormed) <= 5  # 90 s of storm at one sweep every 5 s would be 18
    assert max(stepper.waits) >= 4 * INTERVAL
    # Every failure still there when the first sweep after the storm looked is posted, once (a crash loop that
    # began and ended while the watch was backing off is posted as the failure it ended in).
    sweeps = list(itertools.accumulate(stepper.waits, initial=0.0))
    after = next(t for t in sweeps if t >= 110)
    keys = posted_keys(receiver)
    assert len(keys) == len(set(keys)) and news(demo_bundle, 1, 200 - 2 * INTERVAL, visible_after_s=after) <= set(keys)
    assert set(keys) <= news(demo_bundle, 1, 200)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tui.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)


def test_watch_once_on_the_live_demo_posts_each_failure_once(receiver: Receiver, tmp_path: Path) -> None:
    # A live demo process is a tenant that starts when it starts (its stories shifted to end then): one run.
    live = run_cli("watch", "--demo", "--live", "--cluster-id", "demo-east", "--since", "1h", "--once", "--post",
                   receiver.url, "--state", str(tmp_path / "live.json"), "--format", "jsonl", *EACH_ARGS)
    assert live.returncode == 0, live.stderr
    keys = posted_keys(receiver)
    assert len(keys) >= 5 and len(keys) == len(set(keys))
    assert len(live.stdout.splitlines()) == len(keys)  # one JSON line per report, as posted


def test_watch_once_posts_each_failure_once_across_runs(receiver: Receiver, tmp_path: Path) -> None:
    args = ("watch", "--demo", "--cluster-id", "demo-east", "--since", "1h", "--once", "--post", receiver.url,
            "--state", str(tmp_path / "once.json"), "--format", "jsonl", *EACH_ARGS)
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    keys = posted_keys(receiver)
    assert len(keys) >= 5 and len(keys) == len(set(keys)) == len(first.stdout.splitlines())
    second = run_cli(*args)
    assert second.returncode == 0, second.stderr
    assert posted_keys(receiver) == keys and second.stdout == ""
    assert "0 delivered" in second.stderr.splitlines()[-1]


def test_ctrl_c_ends_a_watch_with_a_summary_line(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "watch", "--demo", "--live", "--cluster-id", "demo-east", "--refresh", "1",
         "--state", str(tmp_path / "s.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        assert process.stderr is not None
        first = process.stderr.readline()  # "watching cluster ..." once it runs
        assert "watching cluster" in first and time.monotonic() < deadline
        time.sleep(2.5)
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, err
    assert re.fullmatch(r"runai-triage watch: stopped after \d+ sweeps?: \d+ delivered.*", err.strip().splitlines()[-1])
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--demo",), "missing a cluster id"),
        (("--demo", "--cluster-id", "demo-east", "--post", "ftp://x"), "give an http:// or https:// URL"),
        (("--demo", "--cluster-id", "demo-east", "--refresh", "0.2"), "every 1 to 3600 seconds"),
        (("--case", "x.json", "--live", "--cluster-id", "c"), "only the demo tenant moves"),
        (("--demo", "--cluster-id", "demo-east", "--max-per-minute", "0"), "--max-per-minute 0"),
        (("--demo", "--cluster-id", "demo-east", "--group-window", "5"), "give 0 or a whole number and a unit"),
        (("--demo", "--cluster-id", "demo-east", "--cooldown", "30d"), "--cooldown 30d: at most 168 hours"),
    ],
)
def test_bad_options_are_usage_errors(args: tuple[str, ...], said: str) -> None:
    run = run_cli("watch", *args)
    assert run.returncode == 2 and said in run.stderr and "Traceback" not in run.stderr


def test_a_state_file_of_another_watch_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    assert run_cli("watch", "--demo", "--cluster-id", "demo-east", "--once", "--state", str(state)).returncode == 0
    other = run_cli("watch", "--demo", "--cluster-id", "demo-west", "--once", "--state", str(state))
    assert other.returncode == 1 and "keeps the state of another watch" in other.stderr


async def test_the_webhook_client_posts_only_there_and_the_tenant_clients_still_refuse_writes(
    demo_bundle: CaseBundle, receiver: Receiver
) -> None:
    poster = WebhookPoster(receiver.url, "markdown")
    try:
        for attempt in (poster._http.get(receiver.url), poster._http.post(receiver.url + "/other", json={}),
                        poster._http.delete(receiver.url)):
            with pytest.raises(WebhookRefused):
                await attempt
        assert receiver.requests == []  # refused before a byte left
        assert (await poster.post("hello", "rt-1")).ok and receiver.texts() == ["hello"]
        assert receiver.keys() == ["rt-1"] and receiver.headers[0]["Idempotency-Key"] == "rt-1"
    finally:
        await poster.aclose()
    tenant = open_bundle_tenant(demo_bundle, label="demo")
    try:
        for target in ("/api/v1/workloads", receiver.url):
            with pytest.raises(ReadOnlyViolation):
                await tenant.runai.http.post(target, json={"text": "no"})
        assert len(receiver.requests) == 1
        assert tenant.control_plane is not None
        assert all(r.method == "GET" or r.path.endswith("/token") for r in tenant.control_plane.requests)
    finally:
        await tenant.aclose()


def test_a_post_to_a_refused_port_fails_at_once() -> None:
    async def go() -> None:
        poster = WebhookPoster(f"http://127.0.0.1:{refused_port()}/hook", "markdown", deadline_s=30)
        try:
            started = time.monotonic()
            result = await poster.post("x" * 100_000, "rt-1")
            assert not result.ok and result.retry and "refused the connection" in (result.problem or "")
            assert time.monotonic() - started < 2  # one attempt, no waiting: the courier decides when to try again
        finally:
            await poster.aclose()

    asyncio.run(go())


def test_each_format_prints_one_entry_per_report(tmp_path: Path) -> None:
    base = ("watch", "--demo", "--cluster-id", "demo-east", "--since", "30m", "--once")
    text = run_cli(*base, "--state", str(tmp_path / "t.json"))
    assert text.returncode == 0, text.stderr
    blocks = [b for b in text.stdout.split("\n\n") if b.strip()]
    # The verdict first (issue 34): each block opens with its category or outcome.
    labels = {*CATEGORIES, *OUTCOMES, "no report"}
    assert len(blocks) >= 5 and all(b.split("  ", 1)[0] in labels for b in blocks), blocks
    markdown = run_cli(*base, "--format", "markdown", "--state", str(tmp_path / "m.json"))
    assert markdown.returncode == 0, markdown.stderr
    heads = [line for line in markdown.stdout.splitlines() if line.startswith("**runai-triage watch**")]
    assert len(heads) == len(blocks) == markdown.stdout.count("\n---\n")


async def test_max_per_minute_defers_diagnoses_and_drops_none(
    demo_bundle: CaseBundle, receiver: Receiver, tmp_path: Path
) -> None:
    clock = SteppedClock(demo_bundle.captured_at)
    state = tmp_path / "s.json"
    # Catching up on the last half hour: more failures than two a minute allow.
    status, said, _ = await watch_until(lambda: live_tenant(demo_bundle, clock), clock, 55, state, receiver,
                                        since="30m", max_per_minute=2)
    assert status == 0 and len(posted_keys(receiver)) == 2
    assert re.search(r"2 delivered, 2 printed, 2 posted, 0 waiting to be posted, \d+ left for a later sweep",
                     said.splitlines()[-1])
    status, said, _ = await watch_until(lambda: live_tenant(demo_bundle, clock), clock, 600, state, receiver,
                                        since="30m", max_per_minute=2)
    keys = posted_keys(receiver)
    assert status == 0 and len(keys) == len(set(keys)) > 10  # every one of them, once, two a minute
    once = run_cli("watch", "--demo", "--cluster-id", "demo-east", "--since", "30m", "--once", "--state",
                   str(tmp_path / "all.json"), "--format", "jsonl")
    assert len(keys) >= len(once.stdout.splitlines())  # the half hour's failures, and the live ones since


def test_an_unknown_project_is_refused_as_scan_refuses_it(tmp_path: Path) -> None:
    watch = run_cli("watch", "--demo", "--cluster-id", "demo-east", "--project", "nosuch", "--state",
                    str(tmp_path / "s.json"))  # not --once: a watch of nothing would otherwise run for ever
    scan = run_cli("scan", "--demo", "--cluster-id", "demo-east", "--project", "nosuch")
    assert watch.returncode == scan.returncode == 1 and watch.stdout == ""
    said = "nosuch is not a project of cluster demo-east. Its projects: nlp, research, speech, vision."
    assert said in watch.stderr and said in scan.stderr
    assert watch.stderr.splitlines()[1:] == scan.stderr.splitlines()[1:]  # the same advice after it
    assert not (tmp_path / "s.json").exists()
