"""The simulator's workload index answers every list query as filtering and sorting the whole list would.

The reference is the straightforward way (every condition tested on every workload, `sort_items` on what is
left, `page` of that), run on the demo tenant for queries drawn from the picker's vocabulary and beyond it.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.sim.filtering import (
    WORKLOAD_FIELDS,
    WORKLOAD_SORT_FIELDS,
    apply_conditions,
    page,
    parse_filter_by,
    sort_items,
)
from core.sim.workload_index import WorkloadIndex

BUNDLE = load_demo_bundle()
WORKLOADS = [entry["workload"] for entry in BUNDLE.workloads]
INDEX = WorkloadIndex(WORKLOADS)
CLUSTERS = [c["uuid"] for c in DEMO_CLUSTERS]

_item = st.one_of(
    st.sampled_from([*CLUSTERS, "no-such-cluster"]).map(lambda c: f"clusterId=={c}"),
    st.sampled_from(CLUSTERS).map(lambda c: f"clusterId!={c}"),
    st.sampled_from(["nlp", "vision", "speech", "research", "none"]).map(lambda p: f"projectName=={p}"),
    st.sampled_from(["Failed", "Running", "Stopped", "Pending", "Completed"]).map(lambda p: f"phase!={p}"),
    st.sampled_from(["Failed", "Running"]).map(lambda p: f"phase=={p}"),
    st.sampled_from(["llama", "ft", "-", "zzz"]).map(lambda n: f"name=@{n}"),
    st.sampled_from(["llama", "x"]).map(lambda n: f"name!@{n}"),
    st.sampled_from(["2026-11-29T00:00:00Z", "2026-11-30T11:00:00Z"]).map(lambda t: f"phaseUpdatedAt>={t}"),
    st.sampled_from(["2026-11-20T00:00:00Z"]).map(lambda t: f"createdAt<={t}"),
    st.sampled_from(["0", "1", "4"]).map(lambda n: f"allocatedGPU>={n}"),
    st.sampled_from(["50", "100"]).map(lambda n: f"priority=={n}"),
    st.sampled_from(["Train", "Build"]).map(lambda c: f"category=={c}"),
)
_query = st.fixed_dictionaries(
    {
        "filters": st.lists(_item, max_size=4),
        "deleted": st.booleans(),
        "search": st.sampled_from(["", "llama", "RL", "zz"]),
        "sort_by": st.sampled_from([None, *sorted(WORKLOAD_SORT_FIELDS)]),
        "descending": st.booleans(),
        "offset": st.sampled_from([0, 1, 40, 500, 1100, 5000]),
        "limit": st.sampled_from([1, 40, 500]),
    }
)


def _reference(q: dict[str, Any]) -> tuple[list[str], int | None, int]:
    conditions = parse_filter_by([",".join(q["filters"])] if q["filters"] else [], WORKLOAD_FIELDS)
    search = q["search"].lower()
    kept = [wl for wl in WORKLOADS if bool(wl.get("deletedAt")) == q["deleted"]
            and (not search or search in str(wl.get("name", "")).lower())]
    kept = apply_conditions(kept, conditions)
    count = len(kept)
    if q["sort_by"]:
        kept = sort_items(kept, WORKLOAD_FIELDS[q["sort_by"]], q["descending"])
    chunk, nxt = page(kept, q["offset"], q["limit"])
    return [wl["id"] for wl in chunk], nxt, count


def _indexed(q: dict[str, Any], index: WorkloadIndex = INDEX) -> tuple[list[str], int | None, int]:
    conditions = parse_filter_by([",".join(q["filters"])] if q["filters"] else [], WORKLOAD_FIELDS)
    query = {
        "deleted": q["deleted"], "search": q["search"].lower(), "conditions": conditions, "sort_by": q["sort_by"],
        "descending": q["descending"],
    }
    chunk, nxt = index.page(q["offset"], q["limit"], **query)
    return [wl["id"] for wl in chunk], nxt, index.count(**{**query, "sort_by": None, "descending": False})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_query)
def test_the_index_pages_and_counts_as_filtering_and_sorting_everything(q: dict[str, Any]) -> None:
    assert _indexed(q) == _reference(q)


def test_paging_through_a_query_gives_every_selected_workload_once_in_order() -> None:
    q = {"filters": [f"clusterId=={CLUSTERS[0]}", "phase!=Running"], "deleted": False, "search": "",
         "sort_by": "phaseUpdatedAt", "descending": True, "offset": 0, "limit": 2000}
    everything, _, count = _reference(q)
    assert count > 500
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        ids, offset, _ = _indexed({**q, "offset": offset, "limit": 97})
        seen += ids
    assert seen == everything


def test_an_order_sorted_ahead_answers_as_one_sorted_on_first_use() -> None:
    # The simulator's own process sorts newest first while the app still loads (core.sim.child).
    prepared = WorkloadIndex(WORKLOADS)
    prepared.prepare("phaseUpdatedAt", descending=True)
    for cluster in CLUSTERS:
        q = {"filters": [f"clusterId=={cluster}"], "deleted": False, "search": "", "sort_by": "phaseUpdatedAt",
             "descending": True, "offset": 40, "limit": 40}
        assert _indexed(q, prepared) == _reference(q)
