"""The diagnosis screen for workloads of several pods: the pods pane with the order the pods ended in, the memory
chart of the failing pod against its own limit, and the banner's count of the name's other failed submissions.

Pilot tests on the demo tenant (real HTTP over loopback); the snapshots are in test_snapshots_pods.py.
"""

from __future__ import annotations

from core.tenant import Tenant
from tests.ui.test_diagnosis import CASES, SIZE, make, options_for, until, verdict
from tui.widgets.containers_pane import ContainersPane
from tui.widgets.memory.chart import MemoryChart
from tui.widgets.pods_pane import PodsPane
from tui.widgets.verdict_banner import VerdictBanner


async def test_the_pods_pane_shows_the_first_failure_and_its_consequences(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["dist-oom-cascade"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        pane = screen.query_one(PodsPane)
        assert pane.display
        lines = pane.plain.splitlines()
        assert lines[0].startswith("◆ gpt-neox-ft-worker-5 worker gpu-d-07")
        assert "OOMKilled (exit 137)" in lines[0]
        # Every other pod ended after it, and none of them is marked first.
        assert len([line for line in lines if line.startswith("·")]) == 7
        assert all("SIGTERM" in line or "Error" in line for line in lines[1:8])
        # The failing pod's own memory against its own (worker) limit, not the workload's sum.
        assert "Memory of gpt-neox-ft-worker-5: peak 63.9 GiB of its 64 GiB limit (99.8%)" in lines[-1]
        # The pod described below the order is the first failure's.
        assert [f.pod for f in screen.query_one(ContainersPane).found] == ["gpt-neox-ft-worker-5"]
        chart = screen.query_one(MemoryChart)
        assert chart.trend is not None and chart.trend.pod == "gpt-neox-ft-worker-5"
        assert chart.trend.limit_bytes == 64 * 1024**3


async def test_a_one_pod_workload_shows_no_order(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["oom-rising"]))
    async with app.run_test(size=SIZE) as pilot:
        screen = await verdict(pilot)
        assert not screen.query_one(PodsPane).display
        chart = screen.query_one(MemoryChart)
        assert chart.trend is not None and chart.trend.pod is None


async def test_the_banner_counts_the_names_other_failed_submissions(demo_tenant: Tenant) -> None:
    app = make(demo_tenant, options_for(CASES["nightly-eval-by-name"]))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await verdict(pilot)
        banner = screen.query_one(VerdictBanner)
        # Over 24h none of the deleted runs failed: the badge says nothing it cannot count.
        assert "other submissions" not in banner.plain
        await pilot.press("b")  # the next lookback, 7d
        await until(pilot, lambda: screen.report is not None and screen.report.recurrence.lookback == "7d", 20)
        await pilot.pause()
        assert "1 in 7d · one-off" in banner.plain
        assert "other submissions of this name: 5 failed in 7d" in banner.plain


def test_the_head_says_consequences_when_one_was_recorded_before_the_first_failure() -> None:
    from datetime import UTC, datetime, timedelta

    from core.models.report import PodTerminationEntry
    from tui.widgets.pods_pane import _others

    at = datetime(2026, 11, 30, 11, 8, 48, tzinfo=UTC)
    first = PodTerminationEntry(pod="w-1", at=at, how="node lost", first=True)
    after = PodTerminationEntry(pod="w-2", at=at + timedelta(seconds=5), how="exit 1", consequence=True)
    before = PodTerminationEntry(pod="w-3", at=at - timedelta(seconds=3), how="exit 1", consequence=True)
    assert _others([first, after]) == "the others ended after it"
    assert _others([first, after, before]) == "the others are its consequences (1 recorded before it)"
