"""The fast validation path gives exactly what the tolerant path gives, and hands every problem back to it.

Every object of the demo tenant and the shared examples is validated both ways and compared field by field;
items with problems must fall back and be reported as before; a validator that records a problem is never
silenced by the fast path; the timestamp shortcut agrees with the general parser.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import field_validator

from core.models import fast
from core.models.base import ApiModel, Timestamp, parse_timestamp, parse_timestamp_general, record_problem
from core.models.kube import K8sEvent, K8sNode, K8sPod
from core.models.pages import parse_page, parse_tolerant
from core.models.runai import Cluster, HistoryRecord, MetricsResponse, Project, RunaiPod, Workload, WorkloadEvent
from core.models.runai_spec import WorkloadSpecDoc
from core.models.safe_json import Unreadable
from core.sim.demo import load_demo_bundle
from tests.paths import CASES


def _bundles() -> Iterator[dict[str, Any]]:
    yield load_demo_bundle().raw
    for path in sorted(CASES.glob("example-*.json")):
        yield json.loads(path.read_text(encoding="utf-8"))


def _objects() -> Iterator[tuple[type[ApiModel], dict[str, Any]]]:
    """Every object a bundle serves, with the model the client reads it as."""
    for data in _bundles():
        for entry in data.get("workloads", []):
            yield Workload, entry["workload"]
            yield from ((WorkloadEvent, e) for e in entry.get("events") or [])
            yield from ((RunaiPod, p) for p in entry.get("pods") or [])
            yield from ((HistoryRecord, r) for r in entry.get("history") or [])
            if isinstance(entry.get("spec"), dict):
                yield WorkloadSpecDoc, entry["spec"]
            if entry.get("metrics"):
                yield MetricsResponse, {"measurements": entry["metrics"]}
        yield from ((Cluster, c) for c in data.get("clusters") or [])
        yield from ((Project, p) for p in data.get("projects") or [])
        kube = data.get("kubernetes") or {}
        yield from ((K8sPod, p) for p in kube.get("pods") or [])
        yield from ((K8sEvent, e) for e in kube.get("events") or [])
        yield from ((K8sNode, n) for n in kube.get("nodes") or [])


def _state(obj: Any) -> Any:
    """Everything that makes two parsed objects the same: class, fields (recursively), extras, fields set."""
    if isinstance(obj, ApiModel):
        fields = {name: _state(value) for name, value in obj.__dict__.items()}
        return (type(obj), fields, obj.__pydantic_extra__, obj.__pydantic_fields_set__, obj.parse_problems())
    if isinstance(obj, list):
        return [_state(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _state(v) for k, v in obj.items()}
    if hasattr(obj, "tzinfo") and obj.tzinfo is not None:
        return (obj, obj.tzinfo)  # the same instant in the same zone object
    return obj


def test_every_bundle_object_is_read_the_same_both_ways() -> None:
    compared = 0
    for model, data in _objects():
        tolerant = model.model_validate(data)
        quick = fast.validate_clean(model, data)
        if tolerant.parse_problems():
            assert quick is None, (model.__name__, tolerant.parse_problems())
            continue
        assert quick is not None, (model.__name__, data)
        assert _state(quick) == _state(tolerant), model.__name__
        compared += 1
    assert compared > 5_000  # the demo tenant alone holds thousands of objects


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ({"meta": {"creationTimestamp": "yesterday"}}, "meta.creationTimestamp: unparsable timestamp"),
        ({"meta": {"creationTimestamp": "2026-13-01T00:00:00Z"}}, "meta.creationTimestamp: unparsable timestamp"),
        ({"meta": {"type": ["Event"]}}, "meta.type: Input should be a valid string"),
        ({"spec": {"event": {"message": Unreadable("list nested deeper than 64 levels, not read")}}},
         "spec.event.message: Input should be a valid string"),
    ],
)
def test_an_item_with_a_problem_takes_the_tolerant_path(item: dict[str, Any], problem: str) -> None:
    assert fast.validate_clean(HistoryRecord, item) is None
    page = parse_page({"records": [{"meta": {"type": "Event"}}, item]}, "records", HistoryRecord)
    assert len(page.items) == 2
    assert [p.index for p in page.problems] == [1]
    assert page.problems[0].message.startswith(f"records[1].{problem}")
    assert page.items[0].parse_problems() == []


class _Strict(ApiModel):
    """A model whose own validator records a problem instead of failing (as a future one might)."""

    name: str | None = None

    @field_validator("name")
    @classmethod
    def _no_spaces(cls, value: str | None) -> str | None:
        if value is not None and " " in value:
            record_problem("name", "contains a space; value dropped")
            return None
        return value


def test_a_problem_recorded_by_any_validator_is_never_lost_on_the_fast_path() -> None:
    assert fast.validate_clean(_Strict, {"name": "ok"}) is not None
    assert fast.validate_clean(_Strict, {"name": "a b"}) is None
    obj, messages = parse_tolerant(_Strict, {"name": "a b"}, "item")
    assert obj is not None and obj.name is None
    assert messages == ["item.name: contains a space; value dropped"]


_digits = st.integers(min_value=0, max_value=99).map(lambda n: f"{n:02d}")
_fraction = st.sampled_from(["", ".000", ".415", ".999999", ".123456"])
_common = st.builds(
    lambda y, mo, d, h, mi, s, f: f"{y:04d}-{mo}-{d}T{h}:{mi}:{s}{f}Z",
    st.integers(min_value=0, max_value=9999),
    _digits, _digits, _digits, _digits, _digits, _fraction,
)


def _outcome(parse: Any, raw: str) -> Any:
    try:
        value = parse(raw)
    except ValueError as exc:
        return ("error", str(exc))
    return ("value", value, value.tzinfo)


@given(_common)
def test_the_common_timestamp_shortcut_answers_as_the_general_parser(raw: str) -> None:
    # Twice: once read, once from the shortcut's memory of recent timestamps.
    assert _outcome(parse_timestamp, raw) == _outcome(parse_timestamp_general, raw)
    assert _outcome(parse_timestamp, raw) == _outcome(parse_timestamp_general, raw)


def test_the_shortcut_gives_utc_and_leaves_other_shapes_to_the_general_parser() -> None:
    value = parse_timestamp("2026-11-30T12:00:00Z")
    assert value is not None and value.tzinfo is UTC
    for raw in ("2026-11-30T12:00:00z", "2026-11-30 12:00:00Z", "2026-11-30T12:00:00.5Z", "٢٠٢٦-11-30T12:00:00Z",
                "2026-11-30T12:00:00.4150Z", "2026-11-30T12:00:00.415+00:00"):
        assert _outcome(parse_timestamp, raw) == _outcome(parse_timestamp_general, raw)


class _Stamped(ApiModel):
    at: Timestamp = None


@given(st.one_of(_common, st.sampled_from(["2026-11-30T12:00:00z", "2026-11-30T12:00:00+02:00", "", "yesterday"])))
def test_the_fast_paths_read_a_timestamp_as_the_tolerant_path_does(raw: str) -> None:
    # pydantic's own parser reads the common UTC shape on the fast paths; whatever it refuses goes to ours.
    tolerant = _Stamped.model_validate({"at": raw})
    quick = fast.validate_clean(_Stamped, {"at": raw})
    one_pass = fast.validate_object_json(json.dumps({"at": raw}).encode(), _Stamped)
    for read in (quick, one_pass):
        if tolerant.parse_problems():
            assert read is None
            continue
        assert read is not None and read.at == tolerant.at
        if read.at is not None:
            assert tolerant.at is not None
            # Another zone object, the same UTC in every way the reports and the app use it.
            assert read.at.utcoffset() == tolerant.at.utcoffset() and read.at.tzname() == tolerant.at.tzname()
            assert read.at.isoformat() == tolerant.at.isoformat() and hash(read.at) == hash(tolerant.at)
            assert read.at.strftime("%Y-%m-%d %H:%M:%S %Z") == tolerant.at.strftime("%Y-%m-%d %H:%M:%S %Z")
            assert read.model_dump_json() == tolerant.model_dump_json()


def _functions(node: Any) -> Iterator[Any]:
    if isinstance(node, dict):
        if "function" in node and isinstance(node["function"], dict):
            yield node["function"].get("function")
        for value in node.values():
            yield from _functions(value)
    elif isinstance(node, list):
        for value in node:
            yield from _functions(value)


def test_the_fast_schema_has_no_problem_hook_left_and_reads_timestamps_plainly() -> None:
    fast.validator(Workload)  # builds the model's schema on first use
    tolerant = list(_functions(Workload.__pydantic_core_schema__))
    quick = list(_functions(fast._strip(Workload.__pydantic_core_schema__)))
    assert any(getattr(f, "__name__", "") == "_collect_problems" for f in tolerant)
    assert not any(getattr(f, "__name__", "") in ("_collect_problems", "timestamp_validator") for f in quick)
    assert parse_timestamp in quick


def test_prepare_all_builds_every_api_model_both_ways() -> None:
    fast.prepare_all()
    models = [K8sEvent, K8sNode, K8sPod, Cluster, HistoryRecord, MetricsResponse, Project, RunaiPod, Workload]
    for model in models:
        assert model.__pydantic_complete__ and model in fast._VALIDATORS



def test_the_report_models_are_built_on_first_use_or_by_prepare_all_not_at_import() -> None:
    # A fresh interpreter: this one has built them long ago.
    code = (
        "import core.models.report as r, core.models.fast as f\n"
        "print(r.Report.__pydantic_complete__, r.EvidenceItem.__pydantic_complete__)\n"
        "f.prepare_all()\n"
        "print(r.Report.__pydantic_complete__, r.EvidenceItem.__pydantic_complete__)\n"
    )
    root = CASES.parent.parent
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert done.stdout.split() == ["False", "False", "True", "True"]
