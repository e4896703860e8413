"""Storms and cool-downs of `watch --post` (issue 36, point 3), below the HTTP: which failures share a cause
(read from each golden report's own findings, category and evidence), which go into one post, which into a
follow-up, which a cool-down counts; the storm posts' text (Slack under its limit, whatever the names); and the
storm book across a restart (the state file's JSON).

The deliveries are core.notify.deliveries', wired as the command wires them (tui.commands.watch_delivery), with a
webhook whose courier never runs: what a storm puts in the outbox is read from the outbox itself.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.models.report import Report
from core.notify.deliveries import Deliveries, PostTarget
from core.notify.ledger import Ledger, Pending
from core.notify.storms import Grouping, Member, Release, Storm, StormBook
from core.notify.webhook import WebhookPoster
from core.triage.chat_render import MARKDOWN_LIMIT, SLACK_LIMIT
from core.triage.chat_storm import storm_facts, storm_text
from core.triage.storm_cause import cause_of, failed_node, pulled_image
from core.triage.watched import Watched, Wording
from tests.integration.webhook_receiver import refused_port
from tests.unit.test_chat_dialects import HOSTILE, REPORTS, entry_of
from tui.commands.watch_delivery import deliveries_for

BY_CASE = dict(REPORTS)
STORM = [r for case, r in REPORTS if case.startswith("demo/storm-") and case != "demo/storm-node-oom"]
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


# -- the cause, from each report ------------------------------------------------------------------------
def test_the_node_storm_victims_share_one_cause_and_the_oom_on_the_same_node_does_not() -> None:
    assert len(STORM) == 7
    causes = {cause_of(r) for r in STORM}
    assert len(causes) == 1
    (cause,) = causes
    assert cause is not None and cause.key == "node:gpu-e-23" and cause.kind == "node"
    assert "fallen off the bus" in cause.words and '"' not in cause.words  # the finding's words, not its quote
    assert cause_of(BY_CASE["demo/storm-node-oom"]) is None  # its own memory: posted alone


def test_a_node_failure_without_a_finding_is_grouped_by_the_node_its_report_names() -> None:
    assert failed_node(BY_CASE["demo/node-notready"]) == "gpu-e-11"
    assert failed_node(BY_CASE["demo/dist-node-lost-cascade"]) == "gpu-d-58"  # the first pod to end
    cause = cause_of(BY_CASE["demo/node-notready"])
    assert cause is not None and cause.key == "node:gpu-e-11"


def test_an_image_pull_storm_is_the_image_and_other_images_are_other_storms() -> None:
    pulls = [r for _, r in REPORTS if r.category == "IMAGE_PULL_FAILED"]
    images = {pulled_image(r) for r in pulls}
    assert "nvcr.io/acme/bert-serve:v2.3.1" in images and None not in images
    keys = {c.key for c in map(cause_of, pulls) if c is not None}
    assert len(keys) == len(images) and all(k.startswith("image:") for k in keys)


def test_every_cause_comes_from_the_report_and_most_failures_have_none() -> None:
    found = {case: cause_of(r) for case, r in REPORTS}
    for case, cause in found.items():
        report = BY_CASE[case]
        if cause is None:
            continue
        assert report.outcome == "diagnosed"
        if cause.kind == "node":
            node = cause.key.removeprefix("node:")
            assert any(f.node and f.node.casefold() == node for f in report.findings if f.explains) or (
                report.category == "NODE_FAILURE"), case
        elif cause.kind == "finding":
            assert any(f.explains and not f.node for f in report.findings), case
        else:
            assert report.category == "IMAGE_PULL_FAILED", case
    lone = [c for c, cause in found.items() if cause is None and BY_CASE[c].outcome == "diagnosed"]
    assert len(lone) > len(found) / 2  # a program's own crash or OOM shares nothing with another's


# -- the deliveries --------------------------------------------------------------------------------------
class Wall:
    def __init__(self) -> None:
        self.now = T0.timestamp()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def deliveries() -> tuple[Deliveries, Wall]:
    wall = Wall()
    d = deliveries_for(Ledger("scope"), None, io.StringIO(), io.StringIO(), "test", grouping=Grouping(300, 1800),
                       wall=wall)
    target = PostTarget.of(f"http://127.0.0.1:{refused_port()}/hook", "slack")
    d.add_webhook(target, WebhookPoster(target.url, target.dialect), clock=lambda: 0.0)
    return d, wall


WORDING = Wording("jsonl", lambda e: "runai-triage diagnose x")


def at(report: Report, minutes: float, workload: str | None = None) -> tuple[Watched, str]:
    """The report as a failure `minutes` after T0 (its own id, or `workload`), and its key."""
    when = T0 + timedelta(minutes=minutes)
    wid = workload or f"{report.workload.id}-{minutes}"
    changed = report.model_copy(update={"workload": report.workload.model_copy(update={"id": wid,
                                                                                     "phase_updated_at": when})})
    key = f"rt-{wid}-{minutes}"
    return WORDING.of(entry_of(changed), key), key


def outbox(d: Deliveries) -> list[Pending]:
    return list(d.couriers[0].record.outbox)


def covered(post: Pending) -> list[str]:
    return [post.key, *(k for k, _ in post.covers)]


async def test_a_storm_is_one_post_and_an_unrelated_failure_at_the_same_time_its_own(
    deliveries: tuple[Deliveries, Wall],
) -> None:
    d, wall = deliveries
    keys = []
    for i, report in enumerate(STORM[:4]):
        entry, key = at(report, i * 0.5)
        assert d.deliver(entry)
        keys.append(key)
        if i == 1:
            wall.now += 30
            d.flush()  # half a minute: the storm's first failure waits for others
    oom, oom_key = at(BY_CASE["demo/storm-node-oom"], 1)
    assert d.deliver(oom)
    assert [p.key for p in outbox(d)] == [oom_key]  # the unrelated failure goes at once; the storm waits
    assert all(d.done(k) for k in keys)  # gathered: not diagnosed again
    wall.now += 30
    d.flush()
    posts = outbox(d)
    assert len(posts) == 2 and covered(posts[1]) == keys
    text = posts[1].text
    # The cause is named once (its line, and what to do about it), not once per workload.
    assert text.count("Cause:") == 1 and text.count("fallen off the bus") <= 2 and "Do: " in text
    assert all(f"`{r.workload.name}`" in text for r in STORM[:4])
    assert "Storm: 4 workloads failed" in text and text.splitlines()[-1] == f"key `{keys[0]}`"
    assert "runai-triage nodes" not in text or "--node gpu-e-23" in text


async def test_later_failures_of_a_storm_go_into_one_follow_up_a_window_after_its_last_post(
    deliveries: tuple[Deliveries, Wall],
) -> None:
    d, wall = deliveries
    first, key = at(STORM[0], 0)
    d.deliver(first)
    wall.now += 60
    d.flush()
    later = [at(r, 1 + i) for i, r in enumerate(STORM[1:])]
    for entry, _ in later:
        d.deliver(entry)
        wall.now += 30
        d.flush()  # a sweep every half minute: not due yet
    assert len(outbox(d)) == 1
    wall.now = T0.timestamp() + 60 + 300
    d.flush()
    posts = outbox(d)
    assert len(posts) == 2 and covered(posts[1]) == [k for _, k in later]
    assert "follow-up 1: 6 more workloads failed" in posts[1].text and "7 in all in 4 projects" in posts[1].text
    d.couriers[0].record.settle_head(delivered=True)
    d.couriers[0].record.settle_head(delivered=True)
    assert all(d.couriers[0].record.delivered(k) for k in [key, *(k for _, k in later)])  # covered keys delivered


async def test_a_failure_past_the_window_starts_a_new_storm(deliveries: tuple[Deliveries, Wall]) -> None:
    d, wall = deliveries
    for minutes in (0, 2):
        d.deliver(at(STORM[minutes // 2], minutes)[0])
    wall.now += 60
    d.flush()
    wall.now += 3600
    d.deliver(at(STORM[2], 2 + 5.5)[0])  # 5.5 minutes after the storm's last failure: a window of 5 has passed
    d.deliver(at(STORM[3], 2 + 6)[0])
    wall.now += 60
    d.flush()
    posts = outbox(d)
    assert len(posts) == 2 and all(p.text.startswith("*Storm: 2 workloads") for p in posts)  # two first posts
    d.deliver(at(STORM[4], 30)[0])  # alone in its window: a storm of one is its own post
    wall.now += 3600
    d.flush()
    assert outbox(d)[-1].text.startswith("*CRASH_APP_ERROR*: ") and not outbox(d)[-1].covers


async def test_a_workload_failing_again_within_the_cool_down_is_counted_not_posted(
    deliveries: tuple[Deliveries, Wall],
) -> None:
    d, _ = deliveries
    crash = next(r for case, r in REPORTS if r.category == "CRASH_APP_ERROR" and cause_of(r) is None)
    first = at(crash, 0, "w-1")
    assert d.deliver(first[0])
    for minutes in (5, 20):
        entry, key = at(crash, minutes, "w-1")
        assert d.deliver(entry) and d.couriers[0].record.delivered(key)  # counted: this webhook has it
    assert [p.key for p in outbox(d)] == [first[1]] and d.repeated == 2
    again, key = at(crash, 45, "w-1")  # past the cool-down of the last post (30 minutes)
    d.deliver(again)
    assert outbox(d)[-1].key == key and "failed 2 more times since its last post" in outbox(d)[-1].text


async def test_stdout_still_carries_every_report(deliveries: tuple[Deliveries, Wall]) -> None:
    d, wall = deliveries
    crash = next(r for case, r in REPORTS if r.category == "CRASH_APP_ERROR" and cause_of(r) is None)
    entries = [at(crash, m, "w-1") for m in (0, 5)] + [at(r, 1 + i) for i, r in enumerate(STORM)]
    for entry, _ in entries:
        d.deliver(entry)
    wall.now += 60
    d.flush()
    assert d.printed == len(entries) and len(outbox(d)) == 2


def test_grouping_off_posts_each_failure() -> None:
    d = deliveries_for(Ledger("scope"), None, io.StringIO(), io.StringIO(), "test", grouping=Grouping(0, 0))
    target = PostTarget.of(f"http://127.0.0.1:{refused_port()}/hook", "markdown")
    d.add_webhook(target, WebhookPoster(target.url, target.dialect), clock=lambda: 0.0)
    for i, report in enumerate(STORM):
        d.deliver(at(report, i, "same")[0])
    d.flush()
    assert len(outbox(d)) == len(STORM)


async def test_the_storm_book_survives_a_restart(deliveries: tuple[Deliveries, Wall]) -> None:
    d, wall = deliveries
    for i, report in enumerate(STORM[:3]):
        d.deliver(at(report, i)[0])
    wall.now += 60
    d.flush()
    gathered = [at(r, 4 + i) for i, r in enumerate(STORM[3:])]
    for entry, _ in gathered:
        d.deliver(entry)
    saved = json.loads(json.dumps(d.ledger.to_json()))
    assert saved["schema"] == "runai-triage/watch-state@3"
    again = Ledger.from_json(saved)
    record = next(iter(r for r in again.records.values() if r.id != "stdout"))
    assert all(record.has(k) for _, k in gathered)  # gathered, and kept: not diagnosed again after a restart
    book = record.book
    wall.now += 300
    (release,) = book.due(wall.now, Grouping(300, 1800))
    assert not release.first and [m.key for m in release.members] == [k for _, k in gathered]
    assert release.storm.posts == 1 and release.storm.posted == 3


def test_a_version_2_record_reads_as_one_without_storms() -> None:
    v2 = {"schema": "runai-triage/watch-state@2", "scope": "s", "lookFrom": None,
          "destinations": {"post:x": {"where": "http://h", "dialect": "slack", "delivered": [["rt-1", 1.0]],
                                      "outbox": []}}}
    ledger = Ledger.from_json(v2)
    record = ledger.records["post:x"]
    assert record.delivered("rt-1") and not record.book.storms and not record.book.recent


@pytest.mark.parametrize("bad", [{"storms": {"x": {"cause": 3}}, "recent": [[1, 2]]},
                                 {"storms": [1], "recent": {"a": 1}},
                                 {"storms": {"x": {"cause": "c", "facts": {}, "firstAt": "nan", "lastAt": 1}}}])
def test_a_damaged_storm_book_reads_as_empty_parts(bad: dict[str, object]) -> None:
    book = StormBook.from_json(bad)
    assert not book.storms and not book.recent


# -- the text ------------------------------------------------------------------------------------------
def post_of(n: int, name: str, dialect: str, first: bool = True) -> str:
    cause = cause_of(STORM[0])
    assert cause is not None
    facts = storm_facts(cause, "RuntimeError: CUDA error: unspecified launch failure", ("kubectl logs",),
                        STORM[0].recommendations[0], "runai-triage nodes --demo --cluster-id demo-east --node gpu-e-23")
    members = tuple(Member(f"rt-{i}", 0.0, f"{name}-{i}", ("nlp", "vision", "speech", "research")[i % 4],
                           "CRASH_APP_ERROR") for i in range(n))
    storm = Storm(cause.key, facts, T0.timestamp(), T0.timestamp(), posts=0 if first else 1)
    return storm_text(Release(storm, list(members), first), dialect)


@pytest.mark.parametrize("first", [True, False])
def test_a_storm_of_29_lists_every_workload_within_slacks_limit(first: bool) -> None:
    text = post_of(29, "llama-pretrain", "slack", first)
    assert len(text) < SLACK_LIMIT
    assert all(f"`llama-pretrain-{i}`" in text for i in range(29)) and "more (each" not in text


@pytest.mark.parametrize("dialect", ["slack", "markdown"])
def test_long_or_hostile_names_cut_the_list_and_say_how_many_more(dialect: str) -> None:
    text = post_of(200, HOSTILE * 3, dialect)
    assert len(text) < (SLACK_LIMIT if dialect == "slack" else MARKDOWN_LIMIT)
    more = re.search(r"and (\d+) more \(each in the watch's output\)", text)
    assert more and 0 < int(more.group(1)) < 200
    assert text.splitlines()[-1] == "key `rt-0`"
    if dialect == "slack":
        assert "<" not in text and ">" not in text and "<!channel>" not in text


def test_a_member_round_trips() -> None:
    m = Member("rt-1", 1.5, "n", "p", "OOM_KILLED", 2, "its own post")
    assert Member.from_json(json.loads(json.dumps(m.to_json()))) == m
    assert dataclasses.asdict(m)["repeats"] == 2


def test_the_defaults_are_the_ones_the_readme_and_help_give() -> None:
    from tui.cli import build_parser
    from tui.commands.watch import DEFAULT_COOLDOWN, DEFAULT_GROUP_WINDOW, duration

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    help_text = " ".join(build_parser()._subparsers._group_actions[0].choices["watch"].format_help().split())  # type: ignore[union-attr]
    for flag, default, grouping_s in (("--group-window", DEFAULT_GROUP_WINDOW, Grouping().window_s),
                                      ("--cooldown", DEFAULT_COOLDOWN, Grouping().cooldown_s)):
        assert duration(flag, default, 10**6) == grouping_s
        assert f"default {default})" in help_text and f"`{flag} DURATION` (default {default})" in readme
    assert "at most three posts" in help_text and "at most three posts" in readme
