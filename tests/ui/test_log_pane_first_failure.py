"""The log pane shows the first failure's log when a peer's log read beside it made that peer the first failure
(core/diagnosis/group_logs.py): the pod is named in the pane's head, and its explaining line is marked."""

from __future__ import annotations

import json
from collections.abc import Callable

from core.sim.bundle import parse_bundle
from core.tenant import Tenant
from tests.paths import CASES
from tests.ui.test_diagnosis import SIZE, make, tenants, verdict  # noqa: F401 (the fixture is used by name)
from tui.commands.start import StartOptions
from tui.widgets.log_pane import LogPane

BUNDLE = CASES / "firstfailure" / "rank-nccl-timeout-after-master-exit-log-empty.json"


async def test_the_pane_shows_the_log_of_the_rank_that_timed_out(tenants: Callable[..., Tenant]) -> None:  # noqa: F811
    raw = json.loads(BUNDLE.read_text(encoding="utf-8"))
    tenant = tenants(parse_bundle(raw, BUNDLE.name))
    request = raw["request"]
    app = make(tenant, StartOptions(mode="case", cluster_id=request["cluster_id"], workload_id=request["workload_id"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        pane = screen.query_one(LogPane)
        assert pane.excerpt is not None and pane.excerpt.pod == "olmo-pt-worker-0"
        assert "Log of container main in pod olmo-pt-worker-0" in pane.plain
        assert pane.explaining is not None and "Watchdog caught collective operation timeout" in pane.explaining
