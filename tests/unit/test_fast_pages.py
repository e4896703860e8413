"""A page decoded straight into models (``parse_page_bytes``) is the page the two-step path reads, always.

The one-pass path (pydantic's ``validate_json``) is only a shortcut: for every body, clean or hostile, the items,
``next``, problems, cut and errors must be those of ``parse_page(parse_json(...))``. Clean pages must take it
(else it buys nothing); anything with a problem to report, a value the two-step path would cut (nested past
``MAX_DEPTH``, an integer too long for Python) or a page longer than asked for must not.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.models import fast
from core.models.base import ApiModel
from core.models.pages import (
    Page,
    ShapeError,
    parse_json,
    parse_object,
    parse_object_bytes,
    parse_page,
    parse_page_bytes,
)
from core.models.runai import HistoryRecord, MetricsResponse, RunaiPod, Workload, WorkloadEvent
from core.models.safe_json import MAX_DEPTH, Unreadable
from core.sim.demo import load_demo_bundle
from core.sources.metrics_body import read_metrics
from tests.property.strategies import PROPERTY_SETTINGS, wrong_values
from tests.unit.test_fast_validation import _state

PAGES: dict[str, tuple[str, type[ApiModel]]] = {
    "workloads": ("workloads", Workload),
    "events": ("events", WorkloadEvent),
    "pods": ("pods", RunaiPod),
    "history": ("records", HistoryRecord),
}


def _comparable(value: Any) -> Any:
    """``_state`` with the cut markers compared by what they say (two markers are two objects), and NaN."""
    if isinstance(value, Unreadable):
        return ("Unreadable", value.what)
    if isinstance(value, float) and value != value:
        return ("NaN",)  # equal to itself only this way
    if isinstance(value, tuple | list):
        return type(value)(_comparable(v) for v in value)
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    return value


def _both(raw: bytes, key: str, model: type[ApiModel], max_items: int | None = None) -> tuple[Any, Any]:
    def outcome(read: Any) -> Any:
        try:
            page: Page[Any] = read()
        except ShapeError as exc:
            return ("ShapeError", str(exc))
        return (_comparable(_state(page.items)), page.next, [(p.index, p.message) for p in page.problems], page.cut)

    one_pass = outcome(lambda: parse_page_bytes(raw, key, model, max_items=max_items, one_pass_from=0))
    two_steps = outcome(lambda: parse_page(parse_json(raw, "body"), key, model, max_items=max_items))
    return one_pass, two_steps


def _nested(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def _demo_pages() -> list[tuple[str, bytes]]:
    pages = []
    data = load_demo_bundle().raw
    workloads = [entry["workload"] for entry in data["workloads"]]
    pages.append(("workloads", json.dumps({"workloads": workloads[:500], "next": 500}).encode()))
    for entry in data["workloads"]:
        for feed in ("events", "pods", "history"):
            if entry.get(feed):
                key = PAGES[feed][0]
                pages.append((feed, json.dumps({key: entry[feed]}).encode()))
    return pages


def test_every_demo_page_reads_the_same_and_clean_ones_take_the_one_pass_path() -> None:
    compared = one_pass = 0
    for feed, raw in _demo_pages():
        key, model = PAGES[feed]
        quick, slow = _both(raw, key, model)
        assert quick == slow, (feed, raw[:200])
        compared += 1
        if not slow[2]:  # no problem to report: the shortcut must have been taken
            assert fast.validate_page_json(raw, key, model) is not None, (feed, raw[:200])
            one_pass += 1
    assert compared > 100 and one_pass > 100


# Odd and hostile history bodies, and whether the one-pass path reads them (the compact history reader's
# tests read them too).
ODD_HISTORY_BODIES: list[tuple[bytes, bool]] = [
    (b'{"records": [{"meta": {"type": "Event"}}], "next": 7}', True),
    (b'{"records": [{"meta": {"creationTimestamp": "yesterday"}}]}', False),
    (b'{"records": [{"meta": {"type": ["Event"]}}]}', False),
    (b'{"records": [1, {"meta": {}}]}', False),
    (b'{"records": {"meta": {}}}', False),
    (b'{"items": []}', False),
    (b'{"records": [], "next": "x"}', True),  # decoded in one pass, then refused as the two-step path does
    (b'{"records": [], "next": -1}', True),
    (b'{"records": [], "next": "12"}', True),
    (b'{"records": [{"meta": {"type": "Event", "x": NaN}}]}', True),
    (b'{"records": [{"meta": {"type": "Event"}, "x": ' + b"9" * 5000 + b"}]}", False),
    (b'{"records": [{"spec": {"event": {"message": "\\ud800"}}}]}', False),
    (b"<html>no</html>", False),
    (b'{"records": [{"a": 1}, {"a": 1}, {"a": 1}, {"a": 1}]}', True),  # longer than asked: then cut two-step
]


@pytest.mark.parametrize(("body", "one_pass"), ODD_HISTORY_BODIES)
def test_hostile_and_odd_bodies_read_the_same_either_way(body: bytes, one_pass: bool) -> None:
    quick, slow = _both(body, "records", HistoryRecord, max_items=3)
    assert quick == slow
    took = fast.validate_page_json(body, "records", HistoryRecord) is not None
    assert took == one_pass


@pytest.mark.parametrize("depth", [1, 30, 40, 50, 55, 58, 59, 60, 61, 62, 63, 64, 65, 80, 150, 300])
@pytest.mark.parametrize("where", ["extra", "any_field", "nested_extra", "next"])
def test_free_form_values_are_cut_at_the_same_depth(depth: int, where: str) -> None:
    deep = _nested(depth)
    item: dict[str, Any] = {"id": "w1", "name": "n"}
    envelope: dict[str, Any] = {"workloads": [item]}
    if where == "extra":
        item["unknownKey"] = deep
    elif where == "any_field":
        item["environmentVariables"] = {"A": deep}
    elif where == "nested_extra":
        item["requestedPods"] = {"min": 1, "odd": deep}
    else:
        envelope["next"] = deep
    quick, slow = _both(json.dumps(envelope).encode(), "workloads", Workload)
    assert quick == slow
    if where != "next" and depth < MAX_DEPTH - 12:
        assert fast.validate_page_json(json.dumps(envelope).encode(), "workloads", Workload) is not None


@PROPERTY_SETTINGS
@given(
    st.sampled_from(sorted(PAGES)),
    st.lists(
        st.dictionaries(
            st.sampled_from(["id", "name", "phase", "meta", "spec", "createdAt", "reason", "involvedObject",
                             "conditions", "message", "type", "nodeName", "environmentVariables", "x"]),
            wrong_values, max_size=6),
        max_size=5),
    st.one_of(st.none(), wrong_values),
)
def test_generated_pages_read_the_same_either_way(feed: str, items: list[dict[str, Any]], next_value: Any) -> None:
    key, model = PAGES[feed]
    try:
        raw = json.dumps({key: items, "next": next_value}, default=str).encode()
    except (ValueError, RecursionError):
        return
    quick, slow = _both(raw, key, model, max_items=4)
    assert quick == slow


def test_a_model_that_contains_itself_never_takes_the_one_pass_path() -> None:
    class Node(ApiModel):
        name: str | None = None
        child: Node | None = None

    Node.model_rebuild()
    assert fast.page_validator("nodes", Node) is None
    quick, slow = _both(b'{"nodes": [{"name": "a", "child": {"name": "b"}}]}', "nodes", Node)
    assert quick == slow and quick[0][0][1]["child"] is not None


def test_every_demo_object_body_reads_the_same_either_way() -> None:
    data = load_demo_bundle().raw
    compared = 0
    for entry in data["workloads"]:
        bodies: list[tuple[type[ApiModel], Any]] = [(Workload, entry["workload"])]
        if entry.get("metrics"):
            bodies.append((MetricsResponse, {"measurements": entry["metrics"]}))
        for model, body in bodies:
            raw = json.dumps(body).encode()
            one_pass = _comparable(_state(parse_object_bytes(raw, model, "body", one_pass_from=0)))
            assert one_pass == _comparable(_state(parse_object(parse_json(raw, "body"), model, "body")))
            compared += 1
    assert compared > 2_000


def _metrics_body(series: int, samples: int, bad: bool = False) -> bytes:
    values: list[Any] = [{"value": str(i), "timestamp": f"2026-11-30T10:{i % 60:02d}:00Z"} for i in range(samples)]
    if bad:
        values[-1] = {"value": ["not", "a", "number"], "timestamp": "2026-11-30T10:00:00Z"}
    one = {"type": "CPU_MEMORY_USAGE_BYTES", "values": values}
    measurements = [one | {"labels": {"pod": f"p{n}"}} for n in range(series)]
    return json.dumps({"measurements": measurements}).encode()


@pytest.mark.parametrize(
    ("series", "samples", "bad"),
    [(1, 10, False), (3, 10, False), (1, 30, False), (4, 30, False), (4, 30, True), (1, 10, True)],
)
def test_metrics_are_cut_to_what_was_asked_for_the_same_way_on_both_paths(series: int, samples: int, bad: bool) -> None:
    raw = _metrics_body(series, samples, bad)
    response, cuts = read_metrics(raw, max_series=2, samples=20, what="body", one_pass_from=0)
    assert (fast.validate_object_json(raw, MetricsResponse) is not None) == (not bad)
    # The two-step reference: decode, cut the decoded series, then read what is left.
    body = parse_json(raw, "body")
    del body["measurements"][2:]
    for item in body["measurements"]:
        del item["values"][20:]
    reference = parse_object(body, MetricsResponse, "body")
    assert _comparable(_state(response)) == _comparable(_state(reference))
    said = " ".join(cuts)
    assert ("series where at most 2" in said) == (series > 2)
    assert ("beyond the 20 per series" in said) == (samples > 20)


def test_a_metrics_envelope_that_is_not_a_list_is_unreadable_not_empty() -> None:
    with pytest.raises(ShapeError, match="expected 'measurements' to be a list, got an object"):
        read_metrics(b'{"measurements": {"a": 1}}', max_series=2, samples=20, what="body", one_pass_from=0)
