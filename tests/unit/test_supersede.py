"""The one rule of issue 31, point 1: a signal is superseded when a later mark about the same object shows the
step it blocked done, before the failure diagnosed (core/diagnosis/supersede.py, core/diagnosis/marks.py).

The signals and marks here are read from the real strings the kubelet and the schedulers write, through the
same classifier and mark readers the engine uses."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.diagnosis.marks import Mark, Step, event_mark
from core.diagnosis.observations import Observation
from core.diagnosis.signals import SignalKind, classify_message
from core.diagnosis.supersede import supersede

T0 = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
IMAGE = "docker.io/pytorch/pytorch:2.4.1-cuda12.4-cudnn9-runtime"
POD = "train-0-0"


def _at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def obs(reason: str, message: str, minutes: float, *, pod: str | None = POD, node: str | None = None) -> Observation:
    signal = classify_message(reason, message)[0]
    return Observation(signal, "get_workload_history", _at(minutes), f"{reason}: {message}", pod, node)


def mark(reason: str, message: str, minutes: float, *, kind: str = "Pod", name: str = POD) -> Mark:
    found = event_mark(reason, message, _at(minutes), "kubectl get events", kind, name)
    assert found is not None, (reason, message)
    return found


PULL_429 = obs("Failed", f'Failed to pull image "{IMAGE}": 429 Too Many Requests - Server message: toomanyrequests', 0)
PULLED = mark("Pulled", f'Successfully pulled image "{IMAGE}" in 1m12s (1m12s including waiting).', 6)
STARTED = mark("Started", "Started container main", 6.1)


def test_a_pull_error_is_taken_back_by_its_image_pulled_and_not_by_another() -> None:
    assert PULL_429.kind is SignalKind.IMAGE_PULL
    done = supersede([PULL_429], [PULLED], _at(60))
    assert not done.kept and done.resolved[0].mark is PULLED
    other = mark("Pulled", 'Container image "docker.io/library/busybox:1.36" already present on machine', 6)
    assert supersede([PULL_429], [other], _at(60)).kept == (PULL_429,)
    # The same image by its digest (as a runtime reports the image it resolved) is the same image.
    digest = Mark(Step.STARTED, _at(6), "kubectl describe pod", "started", POD, "main",
                  "pytorch/pytorch@sha256:8f1c2a77d4e0", init=False)
    assert not supersede([PULL_429], [digest], _at(60)).kept


def test_a_mark_after_the_failure_or_before_the_signal_takes_nothing_back() -> None:
    assert supersede([PULL_429], [PULLED], _at(5)).kept == (PULL_429,)  # the pull came after the failure
    late_error = obs("Failed", PULL_429.signal.detail, 30)
    assert supersede([late_error], [PULLED, STARTED], _at(60)).kept == (late_error,)
    undated = Observation(PULL_429.signal, "kubectl describe pod", None, "waiting: ImagePullBackOff", POD)
    assert supersede([undated], [PULLED], None).kept == (undated,)


def test_another_pods_start_does_not_take_a_pull_error_back() -> None:
    elsewhere = mark("Started", "Started container main", 6.1, name="train-0-1")
    assert supersede([PULL_429], [elsewhere], _at(60)).kept == (PULL_429,)


def test_an_init_failure_is_taken_back_by_its_completion_or_the_main_container_not_by_its_own_restart() -> None:
    failed = obs("Init:Error", "init container fetch-weights exited with code 1", 0)
    assert failed.kind is SignalKind.INIT_FAILED
    restart = mark("Started", "Started container fetch-weights", 1)
    assert supersede([failed], [restart], _at(60)).kept == (failed,)
    main = Mark(Step.STARTED, _at(4), "kubectl describe pod", "container main started", POD, "main", init=False)
    assert not supersede([failed], [main], _at(60)).kept
    completed = Mark(Step.INIT_DONE, _at(3), "kubectl describe pod", "completed", POD, "fetch-weights", init=True)
    assert not supersede([failed], [completed], _at(60)).kept


def test_a_failed_mount_is_taken_back_by_any_later_step_of_its_pod() -> None:
    failed = obs("FailedMount", 'MountVolume.SetUp failed for volume "data" : persistentvolumeclaim "ds" not found', 0)
    assert not supersede([failed], [STARTED], _at(60)).kept
    assert supersede([failed], [mark("Started", "Started container main", 6, name="other-0-0")], _at(60)).kept


def test_a_node_not_ready_is_taken_back_by_that_node_ready_again() -> None:
    not_ready = obs("NodeNotReady", "Node gpu-1 status is now: NodeNotReady", 0, pod=None, node="gpu-1")
    ready = mark("NodeReady", "Node gpu-1 status is now: NodeReady", 5, kind="Node", name="gpu-1")
    other = mark("NodeReady", "Node gpu-2 status is now: NodeReady", 5, kind="Node", name="gpu-2")
    assert not supersede([not_ready], [ready], _at(60)).kept
    assert supersede([not_ready], [other], _at(60)).kept == (not_ready,)
    # Ready again after the pod it killed had failed takes nothing back.
    assert supersede([not_ready], [ready], _at(4)).kept == (not_ready,)


def test_a_preemption_and_its_kills_are_taken_back_by_the_workload_running_again() -> None:
    preempted = obs("Evict", "Pod ns/train-0-0 was preempted by higher priority workload ns/pg-serve-0", 0, pod=None)
    killed = obs("Killing", "container main exited with code 143", 0.2)
    assert (preempted.kind, killed.kind) == (SignalKind.PREEMPTED, SignalKind.SIGTERMED)
    resumed = Mark(Step.RUNNING, _at(40), "get_workload_history", "phase Running")
    done = supersede([preempted, killed], [resumed], _at(300))
    assert not done.kept and {r.obs.kind for r in done.resolved} == {SignalKind.PREEMPTED, SignalKind.SIGTERMED}
    # No later run: the preemption ended the run, and stands.
    assert supersede([preempted, killed], [], _at(300)).kept == (preempted, killed)


def test_what_ends_a_run_is_never_taken_back() -> None:
    oom = obs("OOMKilled", "Container main was OOM killed", 0)
    app = obs("Error", "container main terminated with exit code 1", 1)
    assert supersede([oom, app], [STARTED, Mark(Step.RUNNING, _at(9), "h", "phase Running")], None).kept == (oom, app)
