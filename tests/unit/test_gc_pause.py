"""The collector pauses while pages are parsed and resumes as it was; while a diagnosis runs only the youngest
generation is collected, and the thresholds come back when it ends."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from core.models.gc_pause import gc_paused, older_collections_postponed


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was, thresholds = gc.isenabled(), gc.get_threshold()
    yield
    gc.set_threshold(*thresholds)
    if was:
        gc.enable()
    else:
        gc.disable()


def test_a_pause_nests_and_resumes_the_collector_once_the_last_one_ends() -> None:
    gc.enable()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_never_turns_on_a_collector_someone_else_turned_off() -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_pauses_overlapping_in_two_threads_resume_when_both_ended() -> None:
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def worker() -> None:
        with gc_paused():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(5)
    with gc_paused():
        pass
    assert not gc.isenabled()  # the worker's pause still holds
    release.set()
    thread.join(5)
    assert gc.isenabled()


def test_older_collections_wait_while_a_diagnosis_runs_and_their_thresholds_come_back() -> None:
    gc.set_threshold(700, 10, 10)
    with older_collections_postponed():
        young, middle, old = gc.get_threshold()
        assert young == 700 and middle > 10**6 and old > 10**6
        with older_collections_postponed():  # a second diagnosis at the same time
            pass
        assert gc.get_threshold()[1] > 10**6  # the first still runs
        before = gc.get_count()[1]
        _ = [[i] for i in range(20_000)]  # enough new containers for many young collections
        assert gc.get_count()[1] > before  # young collections ran; none of the older ones reset this count
    assert gc.get_threshold() == (700, 10, 10)
