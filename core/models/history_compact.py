"""A workload's history records in a compact form, for the long histories a diagnosis reads.

A history can hold tens of thousands of records. As pydantic models each record is five objects, each with a
field dict and a field set: a dozen objects the cyclic garbage collector walks, and most of a long history's
parse. Here a record is five slotted dataclasses, made from the models (``_compact``), so they hold the same
fields under the same names, validated the same way, which is all the history step reads; unknown keys are not
kept (nothing reads a history record's).

`parse_history_bytes` reads a page body the way `pages.parse_page_bytes(raw, "records", HistoryRecord)` does and
gives the same items, problems, cut and `next`, compact: a clean page of `one_pass_from` bytes or more is
decoded straight into compact records by pydantic's own validator (`fast.validate_page_json`); any other body is
read by that very function, the tolerant way, and each record it kept is converted.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from pydantic import ConfigDict, with_config
from pydantic.alias_generators import to_camel

from core.models import fast
from core.models.base import ApiModel
from core.models.gc_pause import gc_paused
from core.models.pages import Page, clean_page, parse_page_bytes
from core.models.runai import HistoryMeta, HistoryRecord, HistorySpec, InvolvedObject, PhaseUpdate, WorkloadEvent

# The wire names and lax validation of `ApiModel`; unknown keys ignored.
_CONFIG = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


def _compact(model: type[ApiModel], nested: dict[str, type[Any]], **namespace: Any) -> type[Any]:
    """A slotted dataclass with ``model``'s fields, in its order, each validated as the model validates it (a
    timestamp by the same validator); a model-typed field holds the compact class ``nested`` names for it.
    ``of(obj)`` gives a model instance's values in it (None for None)."""
    fields: list[tuple[str, Any, Any]] = []
    for name, info in model.model_fields.items():
        if info.default is not None:
            raise TypeError(f"{model.__name__}.{name}: a compact field defaults to None, as every history field does")
        annotation: Any = nested[name] | None if name in nested else info.annotation
        if info.metadata:
            annotation = Annotated[annotation, *info.metadata]
        fields.append((name, annotation, dataclasses.field(default=None)))
    names = [name for name, _, _ in fields]

    def of(cls: type[Any], obj: Any) -> Any:
        if obj is None:
            return None
        return cls(*(nested[n].of(getattr(obj, n)) if n in nested else getattr(obj, n) for n in names))

    namespace["of"] = classmethod(of)
    compact = dataclasses.make_dataclass(f"Compact{model.__name__}", fields, namespace=namespace, slots=True)
    compact.__module__ = __name__
    return with_config(_CONFIG)(compact)


CompactObject = _compact(InvolvedObject, {})
CompactEvent = _compact(WorkloadEvent, {"involved_object": CompactObject})
CompactPhaseUpdate = _compact(PhaseUpdate, {})
CompactMeta = _compact(HistoryMeta, {})
CompactSpec = _compact(HistorySpec, {"event": CompactEvent, "phase_update": CompactPhaseUpdate})
# `HistoryRecord.timestamp`'s own rule (the record's time, else its event's), read from the same names.
CompactRecord = _compact(
    HistoryRecord, {"meta": CompactMeta, "spec": CompactSpec}, timestamp=property(HistoryRecord.timestamp.fget)
)


def parse_history_bytes(
    raw: bytes, *, max_items: int | None = None, one_pass_from: int = fast.ONE_PASS_FROM
) -> Page[Any]:
    """A history page body (``{"records": [...], "next": n?}``) as compact records; raises ``ShapeError`` as
    `parse_page_bytes` does (see the module's docstring)."""
    found = None
    if len(raw) >= one_pass_from:
        with gc_paused():
            found = fast.validate_page_json(raw, "records", CompactRecord)
    if found is not None:
        return clean_page(found[0], found[1], "records", max_items)
    # one_pass_from is past any body here: the compact one-pass read above was the one worth trying.
    page = parse_page_bytes(raw, "records", HistoryRecord, max_items=max_items, one_pass_from=len(raw) + 1)
    with gc_paused():
        items = [CompactRecord.of(record) for record in page.items]
    return Page(items=items, next=page.next, problems=page.problems, cut=page.cut)
