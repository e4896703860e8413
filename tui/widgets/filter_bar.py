"""The picker's filter row: cluster (or all clusters), project, name contains, needs attention. It owns the
`PickerQuery` (tui.picker_query) and posts `FilterBar.Changed` whenever the user changes a filter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Select

from core.models.runai import Cluster
from core.safety.untrusted import clean
from tui.picker_query import PickerQuery
from tui.widgets.attention_toggle import AttentionToggle
from tui.widgets.pick_list import PickList

ALL_CLUSTERS = "all clusters"


class _AllProjects:
    """The "all projects" choice; a sentinel object, so no project name can ever collide with it."""

    def __repr__(self) -> str:
        return "ALL_PROJECTS"


ALL_PROJECTS = _AllProjects()


def cluster_label(cluster: Cluster) -> str:
    return clean(cluster.name or cluster.uuid or "(unnamed cluster)", one_line=True, max_len=253)


def _one_line(label: str) -> Text:
    # The boxes are narrow: a long name is cut with an ellipsis rather than wrapped out of its box (the whole
    # name is in the list that opens, and in `v` on a row).
    return Text(label, no_wrap=True, overflow="ellipsis")


def _project_options(names: Sequence[str]) -> list[tuple[Text, object]]:
    options: list[tuple[Text, object]] = [(Text("all projects"), ALL_PROJECTS)]
    return options + [(_one_line(clean(n, one_line=True, max_len=80)), n) for n in names]


class NameInput(Input):
    """The name field: enter applies the filter and `esc` clears it; both hand the keys back (`hand_back`) while
    the key is handled, so the next key typed is a command (tui.keys_in_turn), not more filter text."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "clear_filter", "clear the name filter", show=False)]

    class Cleared(Message):
        pass

    def __init__(self, hand_back: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._hand_back = hand_back

    async def action_submit(self) -> None:
        await super().action_submit()
        self._hand_back()

    def action_clear_filter(self) -> None:
        self.value = ""
        self.post_message(self.Cleared())
        self._hand_back()


class FilterBar(Horizontal):
    """Posts `FilterBar.Changed` with the new query whenever the user changes a filter (name: debounced)."""

    class Changed(Message):
        def __init__(self, query: PickerQuery) -> None:
            super().__init__()
            self.picker_query = query

    def __init__(
        self,
        *,
        hand_back: Callable[[], None],
        debounce_s: float = 0.4,
        cursor_blink: bool = True,
        id: str | None = None,
    ) -> None:
        """`hand_back`: where the keys go when the user is done with the name field (enter or esc)."""
        super().__init__(id=id)
        self._hand_back = hand_back
        self._debounce_s = debounce_s
        self._cursor_blink = cursor_blink
        self._timer: Timer | None = None
        self._query = PickerQuery()

    @property
    def picker_query(self) -> PickerQuery:
        return self._query

    def compose(self) -> ComposeResult:
        yield PickList[str]([], prompt=ALL_CLUSTERS, id="cluster-select", allow_blank=True)
        yield PickList[object](_project_options([]), value=ALL_PROJECTS, allow_blank=False, id="project-select")
        name = NameInput(self._hand_back, placeholder="name ( / )", id="name-filter", max_length=200)
        name.cursor_blink = self._cursor_blink
        yield name
        yield AttentionToggle(id="attention-toggle")

    # -- set from the screen (programmatic changes do not count as user changes) --------------------------
    def set_clusters(self, clusters: Sequence[Cluster], selected: str | None) -> None:
        options = [(_one_line(cluster_label(c)), c.uuid) for c in clusters if c.uuid]
        select: PickList[str] = self.query_one("#cluster-select", PickList)
        shown = selected if selected is not None and any(value == selected for _, value in options) else Select.NULL
        with self.prevent(Select.Changed):
            select.replace_options(options, shown)
        self._query = PickerQuery(selected, None, self._query.name, self._query.attention)

    def set_projects(self, names: Sequence[str]) -> None:
        current = self._query.project
        self._show_projects(names, current if current in names else ALL_PROJECTS)
        if current is not None and current not in names:
            self._emit(PickerQuery(self._query.cluster_id, None, self._query.name, self._query.attention))

    def _show_projects(self, names: Sequence[str], value: object) -> None:
        select: PickList[object] = self.query_one("#project-select", PickList)
        with self.prevent(Select.Changed):
            select.replace_options(_project_options(names), value)

    def toggle_attention(self) -> None:
        self.query_one(AttentionToggle).action_toggle()

    def set_name(self, name: str) -> None:
        """Filter by `name` now, as if it had been typed and submitted."""
        field = self.query_one("#name-filter", Input)
        with self.prevent(Input.Changed):
            field.value = name
        self._apply_name()

    def clear_name(self) -> bool:
        """Empty the name filter; False when it already was."""
        field = self.query_one("#name-filter", Input)
        if not field.value and not self._query.name:
            return False
        with self.prevent(Input.Changed):
            field.value = ""
        self._apply_name()
        return True

    # -- user changes -----------------------------------------------------------------------------------
    @on(Select.Changed, "#cluster-select")
    def _cluster_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = event.value if isinstance(event.value, str) else None
        if value != self._query.cluster_id:
            # Projects belong to a cluster: a new cluster starts from all of its projects, and until its own are
            # read none of the last cluster's can be picked.
            self._show_projects([], ALL_PROJECTS)
            self._emit(PickerQuery(value, None, self._query.name, self._query.attention))

    @on(Select.Changed, "#project-select")
    def _project_changed(self, event: Select.Changed) -> None:
        event.stop()
        value = event.value if isinstance(event.value, str) else None
        self._emit(PickerQuery(self._query.cluster_id, value, self._query.name, self._query.attention))

    @on(AttentionToggle.Changed)
    def _attention_changed(self, event: AttentionToggle.Changed) -> None:
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
    @on(NameInput.Cleared)
    def _name_done(self, event: Input.Submitted | NameInput.Cleared) -> None:
        event.stop()  # the keys went back with the key itself (NameInput)
        self._apply_name()

    def _apply_name(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        name = self.query_one("#name-filter", Input).value.strip()
        q = self._query
        self._emit(PickerQuery(q.cluster_id, q.project, name, q.attention))

    def _emit(self, query: PickerQuery) -> None:
        if query != self._query:
            self._query = query
            self.post_message(self.Changed(query))
