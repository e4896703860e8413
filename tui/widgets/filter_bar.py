"""The picker's filter row: cluster, project, name contains, failures only. It owns the `PickerQuery`.

Failures only means `phase==Failed`. filterBy items are ANDed and there is no OR, so adding `Stopped` (which
mixes manual stops, preemptions and policy terminations) would need a second request stream that cannot be
paged server-side together with the first; Pending-with-errors can only be recognised per workload (status
and events), not by a list filter. Both stay one key away: turn the toggle off and they are listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Checkbox, Input, Select

from core.models.runai import Cluster
from core.safety.untrusted import clean
from core.sources.runai import filter_item


class _AllProjects:
    """The "all projects" choice; a sentinel object, so no project name can ever collide with it."""

    def __repr__(self) -> str:
        return "ALL_PROJECTS"


ALL_PROJECTS = _AllProjects()
FAILED_PHASE = "Failed"


@dataclass(frozen=True, slots=True)
class PickerQuery:
    """What the picker lists. `filters()` is the filterBy sent; ValueError for an unsendable name."""

    cluster_id: str | None = None
    project: str | None = None
    name: str = ""
    failures_only: bool = False

    def filters(self) -> list[str]:
        items: list[str] = []
        if self.cluster_id:
            items.append(filter_item("clusterId", "==", self.cluster_id))
        if self.project:
            items.append(filter_item("projectName", "==", self.project))
        if self.name:
            items.append(filter_item("name", "=@", self.name))
        if self.failures_only:
            items.append(filter_item("phase", "==", FAILED_PHASE))
        return items

    def matches(
        self, name: str | None, project: str | None, cluster_id: str | None, phase: str | None
    ) -> bool:
        """The client-side re-check the API docs ask for (how the server compares text is not verified)."""
        if self.cluster_id and cluster_id != self.cluster_id:
            return False
        if self.project and project != self.project:
            return False
        if self.name and self.name.casefold() not in (name or "").casefold():
            return False
        return not (self.failures_only and phase != FAILED_PHASE)

    def describe(self, cluster_label: str | None = None) -> str:
        """`failed workloads with name containing 'x' in project y on cluster z`, for the empty state."""
        what = "failed workloads" if self.failures_only else "workloads"
        parts = [what]
        if self.name:
            parts.append(f"with name containing {clean(self.name, one_line=True, max_len=60)!r}")
        parts.append(
            f"in project {clean(self.project, one_line=True, max_len=60)}"
            if self.project
            else "in any project"
        )
        if self.cluster_id:
            parts.append(f"on cluster {clean(cluster_label or self.cluster_id, one_line=True, max_len=60)}")
        return " ".join(parts)


def cluster_label(cluster: Cluster) -> str:
    return clean(cluster.name or cluster.uuid or "(unnamed cluster)", one_line=True, max_len=40)


class FilterBar(Horizontal):
    """Posts `FilterBar.Changed` with the new query whenever the user changes a filter (name: debounced)."""

    class Changed(Message):
        def __init__(self, query: PickerQuery) -> None:
            super().__init__()
            self.picker_query = query

    def __init__(self, *, debounce_s: float = 0.4, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self._debounce_s = debounce_s
        self._cursor_blink = cursor_blink
        self._timer: Timer | None = None
        self._query = PickerQuery()

    @property
    def picker_query(self) -> PickerQuery:
        return self._query

    def compose(self) -> ComposeResult:
        yield Select[str]([], prompt="clusters…", id="cluster-select", allow_blank=True)
        yield Select[object](
            [(Text("all projects"), ALL_PROJECTS)], value=ALL_PROJECTS, allow_blank=False, id="project-select"
        )
        name = Input(placeholder="name ( / )", id="name-filter", max_length=200)
        name.cursor_blink = self._cursor_blink
        yield name
        yield Checkbox("failed only", id="failures-toggle")

    # -- set from the screen (programmatic changes do not count as user changes) --------------------------
    def set_clusters(self, clusters: Sequence[Cluster], selected: str | None) -> None:
        options = [(Text(cluster_label(c)), c.uuid) for c in clusters if c.uuid]
        select = self.query_one("#cluster-select", Select)
        with self.prevent(Select.Changed):
            select.set_options(options)
            if selected is not None and any(value == selected for _, value in options):
                select.value = selected
        self._query = PickerQuery(selected, None, self._query.name, self._query.failures_only)

    def set_projects(self, names: Sequence[str]) -> None:
        select = self.query_one("#project-select", Select)
        current = self._query.project
        options: list[tuple[Text, object]] = [(Text("all projects"), ALL_PROJECTS)]
        options += [(Text(clean(n, one_line=True, max_len=40)), n) for n in names]
        with self.prevent(Select.Changed):
            select.set_options(options)
            select.value = current if current in names else ALL_PROJECTS
        if current is not None and current not in names:
            self._emit(PickerQuery(self._query.cluster_id, None, self._query.name, self._query.failures_only))

    def toggle_failures(self) -> None:
        self.query_one("#failures-toggle", Checkbox).toggle()

    # -- user changes -----------------------------------------------------------------------------------
    @on(Select.Changed, "#cluster-select")
    def _cluster_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = event.value if isinstance(event.value, str) else None
        if value != self._query.cluster_id:
            # Projects belong to a cluster: a new cluster starts from all of its projects.
            self._emit(PickerQuery(value, None, self._query.name, self._query.failures_only))

    @on(Select.Changed, "#project-select")
    def _project_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = event.value if isinstance(event.value, str) else None
        self._emit(PickerQuery(self._query.cluster_id, value, self._query.name, self._query.failures_only))

    @on(Checkbox.Changed, "#failures-toggle")
    def _failures_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        q = self._query
        self._emit(PickerQuery(q.cluster_id, q.project, q.name, event.value))

    @on(Input.Changed, "#name-filter")
    def _name_typed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        # Typing is debounced so a burst of keys sends one request, not one per key.
        self._timer = self.set_timer(self._debounce_s, self._apply_name)

    @on(Input.Submitted, "#name-filter")
    def _name_submitted(self, event: Input.Submitted) -> None:
        # Not stopped: the screen also hears it and moves focus back to the table.
        self._apply_name()

    def _apply_name(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        name = self.query_one("#name-filter", Input).value.strip()
        q = self._query
        self._emit(PickerQuery(q.cluster_id, q.project, name, q.failures_only))

    def _emit(self, query: PickerQuery) -> None:
        if query != self._query:
            self._query = query
            self.post_message(self.Changed(query))
