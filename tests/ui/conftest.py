"""Fixtures for the app's pilot and snapshot tests: the real demo tenant (real HTTP over loopback), small
hand-written bundles for error and hostile-text cases, and a helper that waits for the app to settle."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from core.sim.bundle import CaseBundle, parse_bundle
from core.sim.demo import load_demo_bundle
from core.tenant import Tenant, open_bundle_tenant
from tui.app import TriageApp
from tui.screens.picker.screen import PickerScreen

CLUSTER = "0b9e6f2a-1c3d-4e5f-8a7b-9c0d1e2f3a4b"
CAPTURED_AT = "2026-11-30T12:00:00Z"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every app in these tests keeps its settings (the theme) in a fresh directory of its own: a theme saved
    by one test, or by the person running them, must never change what another test sees. Files the app
    writes go to a fresh directory too."""
    config = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    # Copies and exports land here unless a test chooses a directory: never in the working tree.
    monkeypatch.setenv("RUNAI_TRIAGE_EXPORT_DIR", str(tmp_path_factory.mktemp("exports")))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return config


@pytest.fixture(scope="session")
def demo_bundle() -> CaseBundle:
    # Parsed once per session; every test still gets its own simulated server and clients.
    return load_demo_bundle()


@pytest.fixture
async def demo_tenant(demo_bundle: CaseBundle) -> AsyncIterator[Tenant]:
    tenant = open_bundle_tenant(demo_bundle, label="demo tenant")
    try:
        yield tenant
    finally:
        await tenant.aclose()


def workload(name: str, minutes_ago: int, **extra: Any) -> dict[str, Any]:
    """A minimal workload entry for hand-written bundles, `minutes_ago` before CAPTURED_AT."""
    when = datetime.fromisoformat(CAPTURED_AT.replace("Z", "+00:00")) - timedelta(minutes=minutes_ago)
    body = {
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"ui-test/{name}/{minutes_ago}")),
        "name": name,
        "clusterId": CLUSTER,
        "projectName": "team",
        "phase": "Failed",
        "type": "Training",
        "phaseUpdatedAt": when.isoformat().replace("+00:00", "Z"),
        "submittedBy": "alice@example.com",
    }
    body.update(extra)
    return {"workload": body}


def small_bundle(workloads: list[dict[str, Any]], faults: list[dict[str, Any]] | None = None) -> CaseBundle:
    data: dict[str, Any] = {
        "format": "runai-triage/case@1",
        "capturedAt": CAPTURED_AT,
        "clusters": [{"uuid": CLUSTER, "name": "test-cluster", "version": "2.24.0"}],
        "projects": [
            {"name": "team", "id": "1", "clusterId": CLUSTER, "status": {"namespace": "runai-team"}}
        ],
        "workloads": workloads,
    }
    if faults:
        data["faults"] = faults
    return parse_bundle(data, "ui-test-bundle")


@pytest.fixture
async def bundle_tenant() -> AsyncIterator[Callable[..., Tenant]]:
    """Open small bundles as tenants; every one is closed after the test."""
    opened: list[Tenant] = []

    def open_one(bundle: CaseBundle, **kwargs: Any) -> Tenant:
        tenant = open_bundle_tenant(bundle, label="test bundle", **kwargs)
        opened.append(tenant)
        return tenant

    yield open_one
    for tenant in opened:
        await tenant.aclose()


def make_app(tenant: Tenant, **kwargs: Any) -> TriageApp:
    app = TriageApp(tenant=tenant, debounce_s=kwargs.pop("debounce_s", 0.05), cursor_blink=False, **kwargs)
    app.animation_level = "none"
    return app


async def settle(pilot: Pilot[Any], until: Callable[[], bool], timeout: float = 30.0) -> None:
    """Let workers finish and messages land until `until()` holds; fail clearly if it never does."""
    deadline = time.monotonic() + timeout
    while True:
        # A newer request may cancel a worker while we wait: then wait again for what is left.
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if until():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not reach the expected state within {timeout} s")
        await asyncio.sleep(0.01)


def picker_of(app: TriageApp) -> PickerScreen:
    screen = app.screen
    assert isinstance(screen, PickerScreen), f"expected the picker, got {type(screen).__name__}"
    return screen


async def loaded_picker(pilot: Pilot[Any]) -> PickerScreen:
    """Wait until the picker shows a first answer (rows, empty or error) and return it."""

    def ready() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, PickerScreen) and screen.first_answer and not screen.loading

    await settle(pilot, ready)
    return picker_of(pilot.app)  # type: ignore[arg-type]
