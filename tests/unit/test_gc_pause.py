"""The collector pauses while pages are parsed, resumes as it was, and what a diagnosis parses is kept frozen
only while the diagnosis runs."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from core.models.gc_pause import gc_paused, parsed_kept_frozen
from core.models.pages import parse_page
from core.models.runai import HistoryRecord


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.unfreeze()
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


def _page() -> None:
    records = [{"meta": {"creationTimestamp": "2026-11-30T12:00:00Z", "type": "Event"}}] * 50
    parse_page({"records": records}, "records", HistoryRecord)


def test_a_parse_freezes_its_objects_only_inside_a_diagnosis_and_they_thaw_when_it_ends() -> None:
    gc.unfreeze()
    _page()
    assert gc.get_freeze_count() == 0
    with parsed_kept_frozen():
        _page()
        assert gc.get_freeze_count() > 0
        with parsed_kept_frozen():  # a second diagnosis at the same time
            _page()
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
