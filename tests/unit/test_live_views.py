"""The rules the live views share: how a pacer waits and backs off (core.triage.pacing), what a change tracker
calls news (core.triage.changes), what a follower reads as a change (core.triage.follow), and that a read made
politely is sent once while other reads keep their retries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from core.models.runai import Workload
from core.sim.bundle import parse_bundle
from core.sim.control_plane import ControlPlane
from core.sim.transport import SimTransport
from core.sources.credentials import BearerToken
from core.sources.errors import ApiError
from core.sources.retry import RetryPolicy
from core.sources.runai import RunaiClient
from core.triage.changes import MARK_READS, ChangeTracker
from core.triage.follow import Fingerprint, Restart, follow_refusal, what_changed
from core.triage.pacing import MAX_BACKOFF_S, MAX_RETRY_AFTER_S, Pacer, polite

T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def limited(retry_after: float | None = None, status: int = 429) -> ApiError:
    error = ApiError("GET", "/api/v1/workloads", status, "slow down")
    error.retry_after = retry_after
    return error


def test_a_pacer_waits_its_interval_doubles_after_failures_and_honours_retry_after() -> None:
    pacer = Pacer(5)
    assert pacer.succeeded() == 5
    assert [pacer.failed(limited()) for _ in range(3)] == [10, 20, 40]
    assert pacer.failed(limited(retry_after=200)) == 200  # longer than the back-off: the server's word wins
    assert pacer.failed(limited(retry_after=1)) == 160  # shorter: the back-off still holds
    for _ in range(10):
        wait = pacer.failed(limited(status=503))
    assert wait == MAX_BACKOFF_S
    assert pacer.failed(limited(retry_after=10**6)) == MAX_RETRY_AFTER_S
    assert pacer.succeeded() == 5 and not pacer.backing_off
    assert not Pacer(0).on


def row(name: str, phase: str, minutes: float) -> Workload:
    return Workload.model_validate({"id": name, "name": name, "phase": phase,
                                    "phaseUpdatedAt": (T0 + timedelta(minutes=minutes)).isoformat()})


def failing(w: Workload) -> bool:
    return w.phase == "Failed"


def test_a_tracker_marks_phase_changes_and_flags_what_newly_needs_attention() -> None:
    tracker = ChangeTracker(since=T0)
    first = tracker.update([row("a", "Running", -5), row("b", "Failed", -60)], failing)
    assert first.changed == () and first.newly_failing == ()  # the list as the user found it: no news
    second = tracker.update([row("a", "Failed", 1), row("b", "Failed", -60), row("c", "Failed", 2),
                             row("old", "Failed", -90)], failing)
    assert second.changed == ("a",)
    # a failed while watched; c is new and failed after the list was first read; old failed before it.
    assert second.newly_failing == ("a", "c") and list(tracker.flagged) == ["a", "c"]
    assert tracker.marked() == {"a"}
    tracker.seen(["a"])
    assert list(tracker.flagged) == ["c"]
    for _ in range(MARK_READS):
        tracker.update([row("a", "Failed", 1)], failing)
    assert tracker.marked() == set()
    again = tracker.update([row("a", "Failed", 3)], failing)  # failed again: a new phase change, already failing
    assert again.changed == ("a",) and again.newly_failing == ()


def test_a_row_not_judged_yet_is_news_only_as_a_new_one_would_be() -> None:
    tracker = ChangeTracker(since=T0)
    tracker.update([row("a", "Running", -5), row("b", "Running", -5)], lambda w: None)
    news = tracker.update([row("a", "Failed", 1), row("b", "Failed", -5)], failing)
    assert news.newly_failing == ("a",)


def test_what_a_follower_calls_a_change() -> None:
    at = T0 + timedelta(seconds=67)
    before = Fingerprint("Running", T0, ((T0, "BackOff"),), (Restart("p", "main", 73, T0),), True)
    assert what_changed(before, before) == []
    restarted = Fingerprint("Running", T0, ((at, "BackOff"), (T0, "BackOff")), (Restart("p", "main", 74, at),), True)
    assert what_changed(before, restarted) == ["restart 74 at 12:01:07"]  # its BackOff event goes without saying
    quiet = Fingerprint("Running", T0, ((at, "Failed"), *before.events), before.restarts, True)
    assert what_changed(before, quiet) == ["a new event (Failed) at 12:01:07"]
    ended = Fingerprint("Failed", at, before.events, before.restarts, True)
    assert what_changed(before, ended) == ["phase Failed at 12:01:07"]
    # Restarts not read before (no Kubernetes): a count seen for the first time is not a change.
    unread = Fingerprint("Running", T0, before.events, (), False)
    assert what_changed(unread, before) == []


def test_only_running_degraded_and_pending_workloads_are_followed() -> None:
    assert [follow_refusal(phase) for phase in ("Running", "Degraded", "Pending")] == [None, None, None]
    assert "final phase" in (follow_refusal("Failed") or "") and "final phase" in (follow_refusal("Completed") or "")
    assert "Running, Degraded and Pending" in (follow_refusal("Initializing") or "")


async def test_a_polite_read_is_sent_once_while_other_reads_keep_their_retries() -> None:
    bundle = parse_bundle({
        "format": "runai-triage/case@1", "capturedAt": "2026-11-30T12:00:00Z", "clusters": [], "workloads": [],
        "faults": [{"match": "GET /api/v1/workloads", "status": 429, "times": 10, "retryAfter": 7}],
    })
    plane = ControlPlane(bundle)

    async def no_wait(_: float) -> None:
        return None

    client = RunaiClient("https://tenant.example", BearerToken(plane.issue_token()), transport=SimTransport(plane),
                         retry=RetryPolicy(max_attempts=3), sleep=no_wait)
    try:
        with polite(), pytest.raises(ApiError) as caught:
            await client.list_workloads()
        assert len(plane.requests) == 1 and caught.value.retry_after == 7.0
        with pytest.raises(ApiError):
            await client.list_workloads()
        assert len(plane.requests) == 1 + 3
    finally:
        await client.aclose()


def test_the_watch_state_lives_under_the_platforms_state_directory(tmp_path: object) -> None:
    import platformdirs

    from tui.commands.watch import default_state_path

    scope = "demo tenant · cluster x · project (all)"
    here = default_state_path(scope, {"XDG_STATE_HOME": "/srv/state"})
    assert str(here).startswith("/srv/state/runai-triage/watch/") and here.suffix == ".json"
    assert default_state_path(scope, {"XDG_STATE_HOME": "/srv/state"}) == here  # one file per scope
    assert default_state_path(scope + "x", {"XDG_STATE_HOME": "/srv/state"}) != here
    platform = default_state_path(scope, {})
    assert str(platform).startswith(platformdirs.user_state_dir("runai-triage", appauthor=False))


def test_a_count_that_could_not_be_read_last_time_is_no_restart() -> None:
    at = T0 + timedelta(seconds=67)
    unread = Fingerprint("Running", T0, (), (Restart("p", "main", 1, T0),), True, ("pod q",), ("q",))
    later = Fingerprint("Running", T0, (), (Restart("p", "main", 1, T0), Restart("q", "main", 9, at)), True)
    assert what_changed(unread, later) == []  # q's 9 restarts were there before, unseen
    no_list = Fingerprint("Running", T0, (), (), False, ("pods (ApiError)",))
    assert what_changed(no_list, later) == []
    new_pod = Fingerprint("Running", T0, (), (Restart("p", "main", 1, T0),), True)
    assert what_changed(new_pod, later) == ["restart 9 at 12:01:07"]  # a pod seen for the first time, restarted
