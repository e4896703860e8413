"""History pages read compact (``parse_history_bytes``) hold what the API models read from the same body.

For every body, clean or hostile: the compact records are the tolerant path's ``HistoryRecord``s field for field
(the same instants in the same zone objects), with the same ``next``, problems, cut and errors, whether the body
was decoded in one pass or the two-step way; clean pages take the one-pass path; and the history analysis gives
the same timeline and occurrences from either form.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.diagnosis.history_analysis import analyse_history
from core.models import fast
from core.models.base import ApiModel
from core.models.history_compact import CompactRecord, parse_history_bytes
from core.models.pages import Page, ShapeError, parse_json, parse_page
from core.models.runai import HistoryRecord
from core.sim.demo import load_demo_bundle
from tests.property.strategies import EDGE_TIMESTAMPS, PROPERTY_SETTINGS, wrong_values
from tests.unit.test_fast_pages import ODD_HISTORY_BODIES


def _fields(value: Any) -> Any:
    """A record, compact or modelled, as nested tuples of its fields' values in declared order (the two forms
    declare the same fields in the same order); an instant with its zone object."""
    if isinstance(value, ApiModel):
        return tuple(_fields(getattr(value, name)) for name in type(value).model_fields)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return tuple(_fields(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, datetime):
        return (value, value.tzinfo)
    return value


def _outcome(read: Any) -> Any:
    try:
        page: Page[Any] = read()
    except ShapeError as exc:
        return ("ShapeError", str(exc))
    return ([_fields(item) for item in page.items], page.next, [(p.index, p.message) for p in page.problems], page.cut)


def _all_ways(raw: bytes, max_items: int | None = None) -> tuple[Any, Any, Any]:
    """Compact in one pass when it can, compact the two-step way, and the API models the two-step way."""
    one_pass = _outcome(lambda: parse_history_bytes(raw, max_items=max_items, one_pass_from=0))
    two_steps = _outcome(lambda: parse_history_bytes(raw, max_items=max_items, one_pass_from=len(raw) + 1))
    models = _outcome(lambda: parse_page(parse_json(raw, "body"), "records", HistoryRecord, max_items=max_items))
    return one_pass, two_steps, models


def _demo_histories() -> list[list[dict[str, Any]]]:
    return [entry["history"] for entry in load_demo_bundle().raw["workloads"] if entry.get("history")]


def test_every_demo_history_reads_the_same_and_clean_ones_in_one_pass() -> None:
    one_pass = 0
    histories = _demo_histories()
    for records in histories:
        raw = json.dumps({"records": records, "next": len(records)}).encode()
        quick, slow, models = _all_ways(raw)
        assert quick == slow == models, raw[:200]
        if not models[2]:  # nothing to report: the compact one-pass read must have been taken
            assert fast.validate_page_json(raw, "records", CompactRecord) is not None, raw[:200]
            one_pass += 1
    assert len(histories) > 20 and one_pass > 20


# Bodies the API models' one-pass path is tested on, and more, with whether a compact page is read in one pass.
_MORE_BODIES: list[tuple[bytes, bool]] = [
    (b'{"records": [{"meta": {"creation_timestamp": "2026-11-30T10:00:00Z", "type": "Event"}}]}', True),
    (b'{"records": [{"meta": {"creationTimestamp": "2026-11-30T10:00:00.123456789+05:45"}}]}', True),
    (b'{"records": [{"spec": {"event": {"createdAt": "2026-11-30 10:00:00"}}}]}', True),
    (b'{"records": [{"meta": {"creationTimestamp": "9999-12-31T23:59:59Z"}}]}', False),
    (b'{"records": [{"spec": {"event": {"reason": 5, "message": "kept"}}}]}', False),
    (b'{"records": [{"spec": {"phaseUpdate": {"phase": {"x": 1}}, "event": null}}]}', False),
    (b'{"records": [{"spec": {"event": {"involvedObject": "pod-a"}}}]}', False),
    # Unknown keys are not kept, so a value nested past any depth is no reason to go the two-step way (a number
    # pydantic's decoder refuses, in ODD_HISTORY_BODIES, still is).
    (b'{"records": [{"meta": {"type": "Event"}, "x": ' + b"[" * 100 + b"]" * 100 + b"}]}", True),
]


@pytest.mark.parametrize("body", [body for body, _ in ODD_HISTORY_BODIES + _MORE_BODIES])
def test_hostile_and_odd_bodies_read_the_same_every_way(body: bytes) -> None:
    quick, slow, models = _all_ways(body, max_items=3)
    assert quick == slow == models


@pytest.mark.parametrize(("body", "one_pass"), ODD_HISTORY_BODIES + _MORE_BODIES)
def test_which_bodies_take_the_one_pass_path(body: bytes, one_pass: bool) -> None:
    assert (fast.validate_page_json(body, "records", CompactRecord) is not None) == one_pass


_strings = st.one_of(st.none(), st.sampled_from(["Event", "PhaseUpdate", "Failed", "BackOff", "pod-a", "Pod"]))
_times = st.one_of(st.none(), st.sampled_from(EDGE_TIMESTAMPS), st.just("2026-11-30T10:00:00.123Z"))
_clean_times = st.one_of(st.none(), st.sampled_from(["2026-11-30T10:00:00Z", "2026-11-30T10:00:00.123+01:00"]))


def _records(times: st.SearchStrategy[Any], wrong: bool) -> st.SearchStrategy[Any]:
    """History records; with ``wrong``, any value at any level may be of a wrong type."""

    def field(clean: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(clean, clean, clean, wrong_values) if wrong else clean

    def obj(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
        every = st.fixed_dictionaries({key: field(value) for key, value in fields.items()})
        some = st.fixed_dictionaries({}, optional={key: field(value) for key, value in fields.items()})
        return field(st.one_of(every, every, some))  # mostly every key, so the innermost ones are present

    involved = obj({"uid": _strings, "kind": _strings, "name": _strings, "namespace": _strings})
    event = obj(
        {
            "createdAt": times,
            "type": _strings,
            "clusterId": _strings,
            "message": _strings,
            "id": _strings,
            "reason": _strings,
            "source": _strings,
            "involvedObject": involved,
        }
    )
    update = obj({"phase": _strings, "phaseMessage": _strings})
    meta = obj({"creationTimestamp": times, "type": _strings, "unknownKey": _strings})
    spec = obj({"event": st.one_of(st.none(), event, event), "phaseUpdate": st.one_of(st.none(), update)})
    return obj({"meta": st.one_of(st.none(), meta, meta), "spec": st.one_of(st.none(), spec, spec)})


@PROPERTY_SETTINGS
@given(st.lists(_records(_times, wrong=True), max_size=6), st.one_of(st.none(), st.integers(0, 10), wrong_values))
def test_records_clean_or_wrong_at_any_level_read_the_same_every_way(records: list[Any], next_value: Any) -> None:
    raw = json.dumps({"records": records, "next": next_value}, default=str).encode()
    quick, slow, models = _all_ways(raw, max_items=4)
    assert quick == slow == models


@PROPERTY_SETTINGS
@given(st.lists(_records(_clean_times, wrong=False), min_size=1, max_size=6))
def test_clean_records_read_in_one_pass_hold_what_the_models_hold(records: list[Any]) -> None:
    raw = json.dumps({"records": records}).encode()
    quick, slow, models = _all_ways(raw)
    assert quick == slow == models and not models[2]
    assert fast.validate_page_json(raw, "records", CompactRecord) is not None


def test_the_analysis_of_compact_records_is_that_of_the_models() -> None:
    captured = load_demo_bundle().captured_at
    assert captured is not None
    compared = 0
    for records in _demo_histories():
        models = parse_page({"records": records}, "records", HistoryRecord).items
        compact = [CompactRecord.of(record) for record in models]
        assert [r.timestamp for r in compact] == [r.timestamp for r in models]
        for phase in ("Failed", "Running"):
            cutoff = captured - timedelta(days=7)
            want = analyse_history(models, cutoff=cutoff, current_phase=phase)
            got = analyse_history(compact, cutoff=cutoff, current_phase=phase)
            assert got == want
            compared += len(want.timeline)
    assert compared > 100
