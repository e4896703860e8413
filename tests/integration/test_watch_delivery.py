"""Delivery through `watch`: real HTTP to receivers on loopback, on a stepped clock (never a real sleep of minutes).

Receivers that go down for a simulated minute and come back, that refuse, hang or trickle, and two webhooks on one
scope: each failure reaches each destination exactly once, in the order stdout printed it, across restarts;
stdout is never held by a chat; `--once` exits 4 while anything is undelivered, and the next run delivers it
first; a catch-up larger than a minute's `--max-per-minute` is delivered in full, in order; what one destination
has is never taken for what another has.
"""

from __future__ import annotations

import io
import json
import re
import time
from collections import deque
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest

from core.notify.deliveries import PostTarget
from core.sim.bundle import CaseBundle
from core.sim.demo import load_demo_bundle
from core.sim.live.clock import SteppedClock
from core.tenant import Tenant, open_bundle_tenant
from core.triage.watch import WatchRequest
from tests.integration.test_watch import EACH, EACH_ARGS, INTERVAL, Stepper, live_tenant, news, run_cli, stable_key
from tests.integration.webhook_receiver import Receiver, refused_port
from tui.commands.start import StartOptions
from tui.commands.watch_run import UNDELIVERED, WatchRun


@pytest.fixture(scope="module")
def demo_bundle() -> CaseBundle:
    return load_demo_bundle()


@pytest.fixture
def receivers() -> Iterator[tuple[Receiver, Receiver]]:
    with Receiver() as one, Receiver() as two:
        yield one, two


class Scheduled(Stepper):
    """A Stepper that also changes the receivers at moments of the simulated clock: `plan` is a list of
    (seconds after the start, what to do)."""

    def __init__(self, clock: SteppedClock, start: datetime, until_s: float,
                 plan: list[tuple[float, Callable[[], None]]]) -> None:
        super().__init__(clock, start, until_s)
        self.plan = sorted(plan, key=lambda step: step[0])

    async def __call__(self, seconds: float) -> None:
        if self.run is not None:
            await self.run.settled()  # what was due has been tried before the receivers change
        while self.plan and (self.clock() - self.start).total_seconds() >= self.plan[0][0]:
            self.plan.pop(0)[1]()
        await super().__call__(seconds)


class Lines(io.StringIO):
    """Stdout that notes when each line was written (time.monotonic())."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def write(self, text: str) -> int:
        self.times += [time.monotonic()] * text.count("\n")
        return super().write(text)


def printed_keys(out: str) -> list[str]:
    """The stable key of every JSON line printed (a report@1, or a scan-failure@1 line)."""
    keys = []
    for line in out.splitlines():
        body = json.loads(line)
        w = body.get("workload") or {}
        keys.append(stable_key(w.get("id") or body.get("workloadId"), w.get("phaseUpdatedAt")
                               or body.get("phaseUpdatedAt")))
    return keys


async def watch(opener: Callable[[], Tenant], clock: SteppedClock, start: datetime, until_s: float, state: Path,
                posts: tuple[str, ...], *, plan: list[tuple[float, Callable[[], None]]] | None = None,
                settle: bool = True, deadline_s: float = 0.4, out: io.StringIO | None = None,
                **request: object) -> tuple[int, str, str]:
    stepper = Scheduled(clock, start, until_s, plan or [])
    err = io.StringIO()
    out = out if out is not None else io.StringIO()
    run = WatchRun(WatchRequest(cluster_id="demo-east", interval_s=INTERVAL, **request),  # type: ignore[arg-type]
                   StartOptions(mode="demo"), "jsonl", tuple(PostTarget.of(url, None) for url in posts), state,
                   out=out, err=err, sleep=stepper, opener=opener, post_clock=stepper.seconds,
                   post_deadline_s=deadline_s, grouping=EACH)
    stepper.run = run if settle else None
    status = await run.run()
    return status, out.getvalue(), err.getvalue()


def exactly_once_in_order(receiver: Receiver, printed: list[str]) -> list[str]:
    keys = receiver.keys()
    assert len(keys) == len(set(keys)), "a post was accepted twice"
    assert keys == printed, "the posts are not the failures stdout printed, in its order"
    return keys


async def test_a_receiver_down_for_a_minute_gets_every_failure_once_in_order_across_a_restart(
    demo_bundle: CaseBundle, receivers: tuple[Receiver, Receiver], tmp_path: Path
) -> None:
    one, two = receivers  # two webhooks on one scope: `two` goes down, `one` never waits for it
    clock = SteppedClock(demo_bundle.captured_at)
    start, state = demo_bundle.captured_at, tmp_path / "s.json"
    # The first run stops while `two` is down, with posts for it in its outbox.
    status, first, said = await watch(lambda: live_tenant(demo_bundle, clock), clock, start, 80, state,
                                      (one.url, two.url), plan=[(40, two.down)])
    assert status == 0 and re.search(r"could not post \S+: http://127\.0\.0\.1:\d+ refused the connection", said)
    waiting = re.search(r"(\d+) waiting to be posted", said.splitlines()[-1])
    assert waiting and int(waiting.group(1)) >= 1
    assert one.keys() == printed_keys(first)  # `one` was not held by `two`'s outage
    # The restart posts `two`'s outbox first, once `two` is back a simulated minute after it went down.
    out = io.StringIO()
    seen: list[tuple[list[str], list[str]]] = []

    def back() -> None:
        seen.append((one.keys(), printed_keys(first + out.getvalue())))
        two.up()

    status, second, said = await watch(lambda: live_tenant(demo_bundle, clock), clock, start, 300, state,
                                       (one.url, two.url), plan=[(100, back)], out=out)
    assert status == 0 and re.search(r"\d+ posts? from an earlier run waits? for http://127\.0\.0\.1", said)
    assert seen and seen[0][0] == seen[0][1]  # while `two` was down, `one` had each failure as it was printed
    printed = printed_keys(first + second)
    assert news(demo_bundle, 1, 300 - 2 * INTERVAL) <= set(printed) and len(printed) == len(set(printed))
    exactly_once_in_order(one, printed)
    exactly_once_in_order(two, printed)
    assert re.search(rf"http://127\.0\.0\.1:{two.port} answers again", said)
    assert re.search(r"\d+ posted, 0 waiting to be posted", said.splitlines()[-1])


@pytest.mark.parametrize("mode", ["hang", "trickle"])
async def test_a_hanging_or_trickling_receiver_costs_one_deadline_a_try_and_loses_nothing(
    demo_bundle: CaseBundle, receivers: tuple[Receiver, Receiver], tmp_path: Path, mode: str
) -> None:
    slow, _ = receivers
    slow.behave(mode)
    clock = SteppedClock(demo_bundle.captured_at)
    started = time.monotonic()
    status, out, said = await watch(lambda: live_tenant(demo_bundle, clock), clock, demo_bundle.captured_at, 240,
                                    tmp_path / "s.json", (slow.url,), plan=[(120, lambda: slow.behave("ok"))])
    assert status == 0
    assert re.search(r"could not post \S+: http://127\.0\.0\.1:\d+ did not answer within 0\.4 s", said)
    printed = printed_keys(out)
    exactly_once_in_order(slow, printed)
    assert len(printed) >= 5
    # Each try of the slow receiver cost one deadline, with a growing wait between: a handful, not one a sweep.
    tries_while_slow = sum(1 for m in slow.modes if m != "ok")
    assert 3 <= tries_while_slow <= 8 and time.monotonic() - started < 60


async def test_a_trickled_body_after_a_good_status_is_a_delivery(receivers: tuple[Receiver, Receiver]) -> None:
    from core.notify.webhook import WebhookPoster

    receiver, _ = receivers
    receiver.behave("trickle-body")
    poster = WebhookPoster(receiver.url, "markdown", deadline_s=5)
    try:
        started = time.monotonic()
        result = await poster.post("hello", "rt-1")
        assert result.ok and time.monotonic() - started < 1  # the status said yes: the body is not waited for
    finally:
        await poster.aclose()


async def test_stdout_is_never_held_by_a_chat(
    demo_bundle: CaseBundle, receivers: tuple[Receiver, Receiver], tmp_path: Path
) -> None:
    hung, _ = receivers
    hung.behave("hang")
    clock = SteppedClock(demo_bundle.captured_at)
    out = Lines()
    # A catch-up of the still demo's half hour: many reports in the first sweep, while the first post hangs for
    # a deadline far longer than the whole sweep.
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant")
    status, text, _ = await watch(lambda: tenant, clock, demo_bundle.captured_at, 1, tmp_path / "s.json",
                                  (hung.url,), settle=False, deadline_s=60, out=out, since="30m")
    assert status == 0 and len(text.splitlines()) >= 5
    assert len(hung.arrivals) == 1  # the first post was still hanging when the watch stopped
    assert out.times[-1] - out.times[0] < 30 and out.times[0] <= hung.arrivals[0] + 30
    assert hung.keys() == []


async def test_a_catch_up_larger_than_a_minutes_allowance_is_delivered_in_full_in_order(
    demo_bundle: CaseBundle, receivers: tuple[Receiver, Receiver], tmp_path: Path
) -> None:
    receiver, everything = receivers
    clock = SteppedClock(demo_bundle.captured_at)
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant")
    # Every failure of the still demo's day, at once (no rate to speak of).
    _, all_out, _ = await watch(lambda: tenant, clock, demo_bundle.captured_at, 10, tmp_path / "all.json",
                                (everything.url,), since="24h", max_per_minute=600)
    every = printed_keys(all_out)
    assert len(every) > 3 * 2
    clock = SteppedClock(demo_bundle.captured_at)
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant")
    status, out, said = await watch(lambda: tenant, clock, demo_bundle.captured_at, 30 * 60, tmp_path / "s.json",
                                    (receiver.url,), since="24h", max_per_minute=3)
    assert status == 0
    printed = printed_keys(out)
    assert sorted(printed) == sorted(every)  # none dropped, however long the window slid meanwhile
    exactly_once_in_order(receiver, printed)
    assert printed == every  # the same order: oldest first
    assert "left for a later sweep" not in said.splitlines()[-1]


async def test_what_stdout_has_is_not_taken_for_what_a_webhook_has(
    demo_bundle: CaseBundle, receivers: tuple[Receiver, Receiver], tmp_path: Path
) -> None:
    receiver, _ = receivers
    state = tmp_path / "s.json"
    clock = SteppedClock(demo_bundle.captured_at)
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant")
    _, first, _ = await watch(lambda: tenant, clock, demo_bundle.captured_at, 1, state, (), since="1h")
    printed = printed_keys(first)
    assert len(printed) >= 5
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant")
    status, again, said = await watch(lambda: tenant, clock, demo_bundle.captured_at, 1, state, (receiver.url,),
                                      since="1h")
    assert status == 0 and again == ""  # stdout had every one of them
    assert re.search(r"not printed again, it already had them \(an earlier run\): ", said)
    exactly_once_in_order(receiver, printed)  # the webhook had none: it gets them all


def test_once_exits_4_while_a_post_waits_and_the_next_run_posts_it_first(tmp_path: Path) -> None:
    port = refused_port()
    url = f"http://127.0.0.1:{port}/hooks/T000/B000/secret-part"
    args = ("watch", "--demo", "--cluster-id", "demo-east", "--since", "30m", "--once", "--format", "jsonl",
            "--state", str(tmp_path / "s.json"), "--post", url, *EACH_ARGS)
    started = time.monotonic()
    first = run_cli(*args)
    assert first.returncode == UNDELIVERED, first.stderr
    assert time.monotonic() - started < 60  # a refused connection fails at once
    assert "refused the connection" in first.stderr and "the next run posts it first" in first.stderr
    assert "secret-part" not in first.stderr
    printed = printed_keys(first.stdout)
    assert len(printed) >= 5
    receiver = Receiver.on_port(port)
    with receiver:
        second = run_cli(*args)
        assert second.returncode == 0, second.stderr
        waited = rf"{len(printed)} posts from an earlier run wait for http://127\.0\.0\.1:{port}"
        assert re.search(waited, second.stderr)
        assert second.stdout == ""  # stdout had them
        exactly_once_in_order(receiver, printed)
        third = run_cli(*args)
        assert third.returncode == 0 and receiver.keys() == printed  # nothing twice


async def test_a_courier_waits_as_asked_backs_off_and_keeps_the_order(receivers: tuple[Receiver, Receiver]) -> None:
    import asyncio

    from core.notify.courier import Courier
    from core.notify.ledger import Pending, Record
    from core.notify.webhook import WebhookPoster

    receiver, _ = receivers
    receiver.fail_next, receiver.fail_status, receiver.retry_after = 1, 429, "120"
    now = [0.0]
    said: list[str] = []
    record = Record("post:x", "receiver", "markdown")
    poster = WebhookPoster(receiver.url, "markdown", deadline_s=5)
    courier = Courier(record, poster, clock=lambda: now[0], saved=lambda: None, say=said.append)
    for n in range(3):
        assert courier.add(Pending(f"rt-{n}", float(n), f"post {n}", f"w{n}", 0.0))
    task = asyncio.create_task(courier.run())
    try:
        await courier.settled()
        assert courier.next_at == 120 and receiver.keys() == [] and len(receiver.requests) == 1
        now[0] = 119
        await courier.settled()
        assert len(receiver.requests) == 1  # not before the Retry-After
        now[0] = 120
        await courier.settled()
        assert receiver.keys() == ["rt-0", "rt-1", "rt-2"] and record.outbox == deque()
        assert list(record.done) == ["rt-0", "rt-1", "rt-2"]
        # A receiver that fails without a Retry-After: 5 s, then twice as long each time.
        receiver.fail_next, receiver.fail_status, receiver.retry_after = 3, 503, None
        assert courier.add(Pending("rt-3", 3.0, "post 3", "w3", 0.0))
        waits = []
        for _ in range(3):
            await courier.settled()
            waits.append(courier.next_at - now[0])
            now[0] = courier.next_at
        await courier.settled()
        assert waits == [5, 10, 20] and receiver.keys()[-1] == "rt-3" and courier.failures == 0
        assert any("answers again" in line for line in said)
    finally:
        task.cancel()
        await poster.aclose()


def test_an_outbox_is_bounded_and_says_so_once() -> None:
    from core.notify.courier import Courier
    from core.notify.ledger import MAX_OUTBOX, Pending, Record
    from core.notify.webhook import WebhookPoster

    said: list[str] = []
    record = Record("post:x", "receiver", "slack")
    poster = WebhookPoster(f"http://127.0.0.1:{refused_port()}/hook", "slack")
    courier = Courier(record, poster, clock=lambda: 0.0, saved=lambda: None, say=said.append)
    taken = [courier.add(Pending(f"rt-{n}", float(n), "x", f"w{n}", 0.0)) for n in range(MAX_OUTBOX + 20)]
    assert taken == [True] * MAX_OUTBOX + [False] * 20
    assert len(record.outbox) == MAX_OUTBOX and courier.overflowed == 20
    assert len(said) == 1 and f"holds {MAX_OUTBOX} posts, its bound: w{MAX_OUTBOX}" in said[0]
    assert courier.add(Pending("rt-3", 3.0, "x", "w3", 0.0))  # one already waiting is not a second post
    assert len(record.outbox) == MAX_OUTBOX
