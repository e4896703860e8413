"""SVG snapshots of the diagnosis screen for workloads of several pods, at 80x24 and 160x50: the Pod tab with the
order the pods ended in above the first failure's containers, and the memory chart of the failing pod against its
own limit. Deterministic the way test_snapshots_diagnosis.py makes them."""

from __future__ import annotations

from typing import Any

import pytest

from core.sim.bundle import CaseBundle
from tests.ui.test_snapshots_diagnosis import LARGE, SMALL, app_for, waiting_for_verdict

PODS_SNAPSHOTS = [
    ("dist-oom-cascade", SMALL, "tab-pod"),
    ("dist-oom-cascade", LARGE, "tab-pod"),
    ("dist-oom-cascade", LARGE, "tab-memory"),
    ("mpi-launcher-cascade", LARGE, "tab-pod"),
]


@pytest.mark.parametrize(
    ("key", "size", "tab"),
    PODS_SNAPSHOTS,
    ids=[f"{key}-{size[0]}x{size[1]}-{tab[4:]}" for key, size, tab in PODS_SNAPSHOTS],
)
def test_pods_snapshot(snap_compare: Any, demo_bundle: CaseBundle, key: str, size: tuple[int, int], tab: str) -> None:
    assert snap_compare(app_for(demo_bundle, key), terminal_size=size, run_before=waiting_for_verdict(tab))
