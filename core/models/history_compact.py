"""A workload's history records in a compact form, for the long histories a diagnosis reads.

A history can hold tens of thousands of records. As pydantic models each record is five objects, each with a
field dict and a field set: a dozen objects the cyclic garbage collector walks, and most of a long history's
parse. Here a record is five slotted dataclasses holding the same values under the same attribute names, which
is all the history step reads; unknown keys are not kept (nothing reads a history record's).

`parse_history_bytes` reads a page body the way `pages.parse_page_bytes(raw, "records", HistoryRecord)` does and
gives the same items, problems, cut and `next`, compact: a clean page of `one_pass_from` bytes or more is
decoded straight into compact records by pydantic's own validator (`fast.validate_page_json`); any other body is
read by that very function, the tolerant way, and each record it kept is converted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import ConfigDict, with_config
from pydantic.alias_generators import to_camel

from core.models import fast
from core.models.base import Timestamp
from core.models.gc_pause import gc_paused
from core.models.pages import Page, parse_next, parse_page_bytes
from core.models.runai import HistoryMeta, HistoryRecord, HistorySpec, InvolvedObject, PhaseUpdate, WorkloadEvent

# The wire names and lax validation of `ApiModel`; unknown keys ignored.
_CONFIG = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


@with_config(_CONFIG)
@dataclass(slots=True)
class CompactObject:
    uid: str | None = None
    kind: str | None = None
    name: str | None = None
    namespace: str | None = None

    @classmethod
    def of(cls, obj: InvolvedObject | None) -> CompactObject | None:
        return None if obj is None else cls(obj.uid, obj.kind, obj.name, obj.namespace)


@with_config(_CONFIG)
@dataclass(slots=True)
class CompactEvent:
    created_at: Timestamp = None
    type: str | None = None
    cluster_id: str | None = None
    message: str | None = None
    id: str | None = None
    reason: str | None = None
    source: str | None = None
    involved_object: CompactObject | None = None

    @classmethod
    def of(cls, event: WorkloadEvent | None) -> CompactEvent | None:
        if event is None:
            return None
        e = event
        obj = CompactObject.of(e.involved_object)
        return cls(e.created_at, e.type, e.cluster_id, e.message, e.id, e.reason, e.source, obj)


@with_config(_CONFIG)
@dataclass(slots=True)
class CompactPhaseUpdate:
    phase: str | None = None
    phase_message: str | None = None

    @classmethod
    def of(cls, update: PhaseUpdate | None) -> CompactPhaseUpdate | None:
        return None if update is None else cls(update.phase, update.phase_message)


@with_config(_CONFIG)
@dataclass(slots=True)
class CompactMeta:
    creation_timestamp: Timestamp = None
    type: str | None = None

    @classmethod
    def of(cls, meta: HistoryMeta | None) -> CompactMeta | None:
        return None if meta is None else cls(meta.creation_timestamp, meta.type)


@with_config(_CONFIG)
@dataclass(slots=True)
class CompactSpec:
    event: CompactEvent | None = None
    phase_update: CompactPhaseUpdate | None = None

    @classmethod
    def of(cls, spec: HistorySpec | None) -> CompactSpec | None:
        return None if spec is None else cls(CompactEvent.of(spec.event), CompactPhaseUpdate.of(spec.phase_update))


@with_config(_CONFIG)
@dataclass(slots=True)
class CompactRecord:
    """A `HistoryRecord`'s values, compact (see the module's docstring)."""

    meta: CompactMeta | None = None
    spec: CompactSpec | None = None

    @property
    def timestamp(self) -> datetime | None:
        """As `HistoryRecord.timestamp`: the record's time, else its event's; None when neither parsed."""
        if self.meta is not None and self.meta.creation_timestamp is not None:
            return self.meta.creation_timestamp
        if self.spec is not None and self.spec.event is not None:
            return self.spec.event.created_at
        return None

    @classmethod
    def of(cls, record: HistoryRecord) -> CompactRecord:
        return cls(CompactMeta.of(record.meta), CompactSpec.of(record.spec))


def parse_history_bytes(
    raw: bytes, *, max_items: int | None = None, one_pass_from: int = fast.ONE_PASS_FROM
) -> Page[CompactRecord]:
    """A history page body (``{"records": [...], "next": n?}``) as compact records; raises ``ShapeError`` as
    `parse_page_bytes` does (see the module's docstring)."""
    found = None
    if len(raw) >= one_pass_from:
        with gc_paused():
            found = fast.validate_page_json(raw, "records", CompactRecord)
    if found is not None:
        items, raw_next = found
        if max_items is None or len(items) <= max_items:
            return Page(items=items, next=parse_next(raw_next, "'records' page"))
    # one_pass_from is past any body here: the compact one-pass read above was the one worth trying.
    page = parse_page_bytes(raw, "records", HistoryRecord, max_items=max_items, one_pass_from=len(raw) + 1)
    with gc_paused():
        items = [CompactRecord.of(record) for record in page.items]
    return Page(items=items, next=page.next, problems=page.problems, cut=page.cut)
