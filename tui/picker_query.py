"""What the picker lists: the filters (cluster, project, name, needs attention) and the sort, as the filterBy
and sortBy the list endpoint gets, plus the client-side re-check the API notes ask for.

No Textual here: the filter bar and the picker screen share it, and it is tested without a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.safety.untrusted import clean
from core.sources.runai import filter_item
from core.triage.attention import QUIET_PHASES, attention_filters

__all__ = ["QUIET_PHASES", "NameFilterError", "PickerQuery", "Sort", "next_sort", "sort_for_column"]

class NameFilterError(ValueError):
    """A name the list endpoint cannot be sent; the message is for the user and says what to type instead."""


@dataclass(frozen=True, slots=True)
class Sort:
    """One server-side order: `sortBy` and `sortOrder`."""

    field: str = "phaseUpdatedAt"
    descending: bool = True

    @property
    def order(self) -> str:
        return "desc" if self.descending else "asc"

    def flipped(self) -> Sort:
        return Sort(self.field, not self.descending)

    def describe(self) -> str:
        """`newest first`, `by name A→Z`, ... for the line under the table."""
        if self.field in DATE_FIELDS:
            what = DATE_FIELDS[self.field]
            return f"newest {what}first" if self.descending else f"oldest {what}first"
        return f"by {TEXT_FIELDS.get(self.field, self.field)} {'Z→A' if self.descending else 'A→Z'}"


# The default order (by the last phase change) reads "newest first"; the others name their field.
DATE_FIELDS = {"phaseUpdatedAt": "", "createdAt": "created "}
TEXT_FIELDS = {
    "name": "name",
    "projectName": "project",
    "phase": "phase",
    "type": "type",
    "submittedBy": "submitter",
    "clusterId": "cluster",
}
# What `s` steps through; the table's headers can pick the others.
SORT_CYCLE: tuple[Sort, ...] = (
    Sort("phaseUpdatedAt", True),
    Sort("name", False),
    Sort("projectName", False),
    Sort("phase", False),
    Sort("createdAt", True),
)
# Table column -> sortBy field (a header click sorts by its column).
COLUMN_SORT: dict[str, str] = {
    "phase": "phase",
    "name": "name",
    "project": "projectName",
    "cluster": "clusterId",
    "type": "type",
    "updated": "phaseUpdatedAt",
    "created": "createdAt",
    "submitted": "submittedBy",
}


def next_sort(current: Sort) -> Sort:
    for index, sort in enumerate(SORT_CYCLE):
        if sort.field == current.field:
            return SORT_CYCLE[(index + 1) % len(SORT_CYCLE)]
    return SORT_CYCLE[0]


def sort_for_column(column: str, current: Sort) -> Sort | None:
    """The order a click on `column` asks for: its field, or the same field the other way round."""
    field = COLUMN_SORT.get(column)
    if field is None:
        return None
    if field == current.field:
        return current.flipped()
    return Sort(field, field in DATE_FIELDS)


@dataclass(frozen=True, slots=True)
class PickerQuery:
    """What the picker lists. `filters()` is the filterBy sent; NameFilterError for an unsendable name."""

    cluster_id: str | None = None
    project: str | None = None
    name: str = ""
    attention: bool = False

    def server_name(self) -> str:
        # Workload names become Kubernetes object names, which are lower case; how the server's `=@` treats
        # case is not documented, so the lower-cased text is sent and every row is re-checked ignoring case.
        return self.name.lower()

    def filters(self) -> list[str]:
        items: list[str] = []
        if self.cluster_id:
            items.append(filter_item("clusterId", "==", self.cluster_id))
        if self.project:
            items.append(filter_item("projectName", "==", self.project))
        if self.name:
            if "," in self.name:
                raise NameFilterError(
                    "The name filter cannot contain a comma: the Run:ai API separates filters with commas. "
                    "Type the part of the name before or after the comma instead."
                )
            items.append(filter_item("name", "=@", self.server_name()))
        if self.attention:
            items += attention_filters()
        return items

    def matches(self, name: str | None, project: str | None, cluster_id: str | None, phase: str | None) -> bool:
        """The client-side re-check the API docs ask for (how the server compares text is not verified)."""
        if self.cluster_id and cluster_id != self.cluster_id:
            return False
        if self.project and project != self.project:
            return False
        if self.name and self.name.casefold() not in (name or "").casefold():
            return False
        return not (self.attention and phase in QUIET_PHASES)

    def describe(self, cluster_label: str | None = None) -> str:
        """`workloads needing attention with name containing 'x' in project y on cluster z` (empty state)."""
        parts = ["workloads needing attention" if self.attention else "workloads"]
        if self.name:
            parts.append(f"with name containing {clean(self.name, one_line=True, max_len=60)!r}")
        parts.append(
            f"in project {clean(self.project, one_line=True, max_len=60)}" if self.project else "in any project"
        )
        if self.cluster_id:
            parts.append(f"on cluster {clean(cluster_label or self.cluster_id, one_line=True, max_len=60)}")
        else:
            parts.append("on all clusters")
        return " ".join(parts)
