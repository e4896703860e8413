"""Properties of decoding what a server sent: whatever the bytes, the result is a value or a typed, worded error,
never a RecursionError or a crash, with depth bounded and the rest of the body kept."""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.models.pages import ShapeError, parse_json, parse_object, parse_page
from core.models.runai import HistoryRecord, RunaiPod, Workload, WorkloadEvent
from core.models.safe_json import MAX_DEPTH, Unreadable, _IterativeDecoder, loads
from tests.property.strategies import PROPERTY_SETTINGS, json_values, wrong_values


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict | list):
            deepest = max(deepest, depth)
            children = current.values() if isinstance(current, dict) else current
            stack.extend((child, depth + 1) for child in children)
    return deepest


@PROPERTY_SETTINGS
@given(json_values, st.sampled_from([None, 0, 1, 2]))
def test_shallow_documents_decode_exactly_as_the_standard_library_does(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    assert loads(text) == json.loads(text)
    assert _IterativeDecoder(text, MAX_DEPTH).decode() == json.loads(text)


@PROPERTY_SETTINGS
@given(st.integers(min_value=1, max_value=30_000), st.sampled_from(["[", '{"k":']), json_values)
def test_any_depth_decodes_to_a_bounded_depth_and_keeps_its_siblings(depth: int, opener: str, sibling: Any) -> None:
    closer = "]" if opener == "[" else "}"
    deep = opener * depth + "1" + closer * depth
    document = f'{{"before": {json.dumps(sibling)}, "deep": {deep}, "after": "kept"}}'
    value = loads(document)
    assert value["before"] == sibling and value["after"] == "kept"
    assert _depth(value) <= MAX_DEPTH
    if depth + 1 > MAX_DEPTH:
        assert "nested deeper than" in repr(value)


@PROPERTY_SETTINGS
@given(st.binary(max_size=300))
def test_arbitrary_bytes_give_a_value_or_a_shape_error(raw: bytes) -> None:
    try:
        parse_json(raw, "body")
    except ShapeError as exc:
        assert str(exc).startswith("body: ")


@PROPERTY_SETTINGS
@given(st.text(alphabet="[]{}\",:0123456789.eE-tfnulrsa \\", max_size=200))
def test_bracket_soup_never_escapes_as_anything_but_a_shape_error(text: str) -> None:
    with contextlib.suppress(ShapeError):
        parse_json(text, "body")


MODELS = {"workloads": Workload, "events": WorkloadEvent, "pods": RunaiPod, "records": HistoryRecord}


@PROPERTY_SETTINGS
@given(
    st.sampled_from(sorted(MODELS)),
    st.lists(st.dictionaries(st.sampled_from(["id", "name", "phase", "createdAt", "meta", "spec", "k8sPhase",
                                               "conditions", "message", "type", "nodeName", "x"]),
                             wrong_values, max_size=6), max_size=5),
    st.one_of(st.none(), wrong_values),
)
def test_pages_with_wrong_types_at_every_level_keep_what_they_can(
    key: str, items: list[dict[str, Any]], next_value: Any
) -> None:
    body = json.loads(json.dumps({key: items, "next": next_value}, default=str)) if _depth(items) < 300 else None
    if body is None:
        return
    try:
        page = parse_page(parse_json(json.dumps(body), "body"), key, MODELS[key], max_items=3)
    except ShapeError as exc:
        assert "next" in str(exc)  # only the envelope may fail, and then it says which part
        return
    assert len(page.items) <= 3
    assert page.cut == max(len(items) - 3, 0)
    for problem in page.problems:
        assert problem.message.startswith(f"{key}")


@PROPERTY_SETTINGS
@given(st.dictionaries(st.text(max_size=10), wrong_values, max_size=8))
def test_an_object_body_of_any_shape_parses_or_says_why(body: dict[str, Any]) -> None:
    if _depth(body) > 300:
        return
    decoded = parse_json(json.dumps(body, default=str), "body")
    workload = parse_object(decoded, Workload, "workload")
    for problem in workload.parse_problems():
        assert isinstance(problem, str) and problem


def test_the_unreadable_marker_is_never_a_value_a_field_accepts() -> None:
    marker = Unreadable("list nested deeper than 64 levels, not read")
    workload = parse_object({"id": "w", "name": marker, "phase": "Failed"}, Workload, "workload")
    assert workload.name is None
    assert any("nested deeper" in p for p in workload.parse_problems())


@pytest.mark.parametrize("digits", [4300, 4301, 100_000])
def test_integers_longer_than_python_converts_are_unreadable_not_fatal(digits: int) -> None:
    value = loads('{"n": %s, "kept": true}' % ("7" * digits))
    assert value["kept"] is True
    assert isinstance(value["n"], int) if digits <= 4300 else isinstance(value["n"], Unreadable)
