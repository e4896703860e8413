"""filterBy parsing and matching, sorting and paging of the simulated list endpoints."""

from __future__ import annotations

from typing import Any

import pytest

from core.sim.filtering import (
    WORKLOAD_FIELDS,
    QueryError,
    apply_conditions,
    page,
    parse_filter_by,
    parse_paging,
    query_bool,
    sort_items,
    sort_order,
)

ITEMS: list[dict[str, Any]] = [
    {"id": "3", "name": "bert-large", "phase": "Failed", "createdAt": "2026-11-30T10:00:00Z", "priority": 100,
     "allocatedResources": {"gpu": 2}, "currentNodePools": ["a100"]},
    {"id": "1", "name": "bert,base", "phase": "Running", "createdAt": "2026-11-30T11:00:00+01:00", "priority": 50,
     "allocatedResources": {"gpu": 0.5}, "currentNodePools": []},
    {"id": "2", "name": "gpt", "phase": "Failed", "createdAt": "2026-11-30T09:30:00Z", "priority": 125,
     "allocatedResources": {"gpu": 16}, "currentNodePools": ["h100", "a100"]},
    {"id": "4", "name": "vit", "phase": None},
]


def _select(*filters: str) -> list[str]:
    conditions = parse_filter_by(filters, WORKLOAD_FIELDS)
    return [i["id"] for i in apply_conditions(ITEMS, conditions)]


@pytest.mark.parametrize(
    ("filter_by", "ids"),
    [
        ("name==gpt", ["2"]),
        ("name!=gpt", ["3", "1", "4"]),
        ("name=@ert", ["3", "1"]),
        ("name!@ert", ["2", "4"]),
        ("name=^bert", ["3", "1"]),
        ("name=$t", ["2", "4"]),
        ("phase==Failed,name=^b", ["3"]),
        ("phase!=Failed", ["1", "4"]),  # a null field satisfies a negative operator
        ("phase=@a", ["3", "2"]),  # and never a positive one
        ("name==bert,base", ["1"]),  # a comma not followed by <field><op> stays in the value
        ("createdAt>=2026-11-30T10:00:00Z", ["3", "1"]),  # 11:00+01:00 is the same instant as 10:00Z
        ("createdAt<=2026-11-30T10:00:00Z", ["3", "1", "2"]),
        ("createdAt==2026-11-30T10:00:00Z", ["3", "1"]),
        ("createdAt!=2026-11-30T10:00:00Z", ["2", "4"]),
        ("", ["3", "1", "2", "4"]),
        # Numbers compare as numbers (2 < 16, as text "16" < "2"); a field inside an object is read there.
        ("allocatedGPU>=2", ["3", "2"]),
        ("allocatedGPU<=0.5", ["1"]),
        ("priority==100", ["3"]),
        ("priority!=100", ["1", "2", "4"]),
        ("nodepool==a100", ["3"]),  # the first current node pool
        ("nodepool!=a100", ["1", "2", "4"]),
    ],
)
def test_filter_rows(filter_by: str, ids: list[str]) -> None:
    assert _select(filter_by) == ids


def test_repeated_filter_parameters_are_anded() -> None:
    assert _select("phase==Failed", "name=^g") == ["2"]


@pytest.mark.parametrize(
    ("filter_by", "message"),
    [
        ("namespace==x", "filterBy: unknown field 'namespace'"),
        ("id==3", "filterBy: unknown field 'id'"),
        ("name~=x", "filterBy: unknown operator '~=' in 'name~=x'"),
        ("name", "filterBy: unknown operator '' in 'name'"),
        ("==x", "filterBy: cannot read item '==x'; expected <field><operator><value>"),
        ("name>=a", "filterBy: operator '>=' is not supported for field 'name'"),
        ("createdAt=^2026", "filterBy: operator '=^' is not supported for date field 'createdAt'"),
        ("createdAt>=noon", "filterBy: 'createdAt' needs an ISO-8601 date, got 'noon'"),
        ("priority=@1", "filterBy: operator '=@' is not supported for number field 'priority'"),
        ("allocatedGPU>=two", "filterBy: 'allocatedGPU' needs a number, got 'two'"),
    ],
)
def test_filter_errors(filter_by: str, message: str) -> None:
    with pytest.raises(QueryError) as err:
        parse_filter_by([filter_by], WORKLOAD_FIELDS)
    assert str(err.value) == message


def test_sort_by_text_date_and_number_with_stable_ties() -> None:
    by_phase = sort_items(ITEMS, WORKLOAD_FIELDS["phase"], False)
    assert [i["id"] for i in by_phase] == ["4", "2", "3", "1"]  # null first, Failed ties by id
    by_phase_desc = sort_items(ITEMS, WORKLOAD_FIELDS["phase"], True)
    assert [i["id"] for i in by_phase_desc] == ["1", "2", "3", "4"]  # ties still ascending by id
    by_date = sort_items(ITEMS, WORKLOAD_FIELDS["createdAt"], False)
    assert [i["id"] for i in by_date] == ["4", "2", "1", "3"]
    by_gpu = sort_items(ITEMS, WORKLOAD_FIELDS["allocatedGPU"], True)
    assert [i["id"] for i in by_gpu] == ["2", "3", "1", "4"]  # 16 > 2 > 0.5, then the one without


def test_sort_order_and_bools() -> None:
    assert sort_order((), default="desc") == "desc"
    assert sort_order((("sortOrder", "DESC"),)) == "desc"
    with pytest.raises(QueryError, match="sortOrder"):
        sort_order((("sortOrder", "up"),))
    assert query_bool((("deleted", "true"),), "deleted") is True
    assert query_bool((), "deleted") is False
    with pytest.raises(QueryError, match="deleted: expected true or false"):
        query_bool((("deleted", "yes"),), "deleted")


@pytest.mark.parametrize(
    ("query", "expected"),
    [((), (0, 50)), ((("offset", "5"), ("limit", "1")), (5, 1)), ((("limit", "500"),), (0, 500))],
)
def test_paging_parameters(query: tuple[tuple[str, str], ...], expected: tuple[int, int]) -> None:
    assert parse_paging(query) == expected


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ((("limit", "0"),), "limit: must be between 1 and 500, got 0"),
        ((("limit", "501"),), "limit: must be between 1 and 500, got 501"),
        ((("limit", "x"),), "limit: expected an integer, got 'x'"),
        ((("offset", "-2"),), "offset: must be 0 or more, got -2"),
        ((("offset", "1.5"),), "offset: expected an integer, got '1.5'"),
    ],
)
def test_paging_errors(query: tuple[tuple[str, str], ...], message: str) -> None:
    with pytest.raises(QueryError) as err:
        parse_paging(query)
    assert str(err.value) == message


def test_page_walks_to_the_end() -> None:
    items = list(range(7))
    assert page(items, 0, 3) == ([0, 1, 2], 3)
    assert page(items, 3, 3) == ([3, 4, 5], 6)
    assert page(items, 6, 3) == ([6], None)
    assert page(items, 4, 3) == ([4, 5, 6], None)
    assert page(items, 10, 3) == ([], None)
