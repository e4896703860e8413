"""The picker's cluster line: when a cluster listed is not Connected or has not reported lately (decided by
`cluster_health`, through core.triage.cluster_state), a line under the filters says so and that its rows may be
stale. Checked once the first page has been on screen for a moment (deciding loads the engine's signals, which
the first page never waits for), then on every page. A base of PickerScreen, which holds the state it reads."""

from __future__ import annotations

import asyncio

from textual import work
from textual.timer import Timer

from core.models.clusters import same_cluster
from core.models.runai import Cluster
from tui.clock import Clock
from tui.loading import load
from tui.picker_query import PickerQuery
from tui.screens.picker_verdicts import START_DELAY_S, PickerVerdicts
from tui.widgets.cluster_notice import ClusterNotice


class PickerCluster(PickerVerdicts):
    _clusters: list[Cluster]
    _query: PickerQuery
    _clock: Clock
    _cluster_check: Timer | bool | None = None  # None: not yet; a timer: waiting; True: checked once

    @property
    def clusters_checked(self) -> bool:
        """The cluster line reflects the clusters shown (tests wait for it before measuring the table)."""
        return self._cluster_check is True

    def _check_clusters(self) -> None:
        """After a page is shown: the cluster line now, or (the first time) once the page has been painted and
        the engine's signals have loaded, in a thread (`cluster_health` lives there)."""
        if self._cluster_check is True:
            self._show_cluster_state()
        elif self._cluster_check is None:
            self._cluster_check = self.set_timer(START_DELAY_S, self._load_cluster_state)

    @work(group="picker-cluster-state", exclusive=True, exit_on_error=False)
    async def _load_cluster_state(self) -> None:
        await asyncio.to_thread(load, "core.triage.cluster_state")
        self._cluster_check = True
        self._show_cluster_state()

    def _show_cluster_state(self) -> None:
        from core.triage.cluster_state import cluster_state  # loaded by now (above): never before the first page

        if not self.is_attached or not self.query(ClusterNotice):
            return
        now = self._clock()
        chosen = self._query.cluster_id
        shown = [c for c in self._clusters if chosen is None or same_cluster(c.uuid, chosen)]
        stale = [state.short for state in (cluster_state(c, now) for c in shown) if state.short]
        notice = self.query_one(ClusterNotice)
        if notice.show(stale) or notice.display:
            # The table lost (or gained) a line: the page is sized to it again (a no-op when it already is).
            self.call_after_refresh(self._check_page_size)

    def _check_page_size(self) -> None: ...
