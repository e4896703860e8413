"""Opening a diagnosis: the engine request for a picker choice, and the screen that shows it.

One diagnosis screen is kept (installed) and shown again for the next workload of the same tenant: composing and
mounting its tabs anew was most of the time from `enter` to the verdict.
"""

from __future__ import annotations

from datetime import datetime

from textual.app import App

from core.diagnosis.progress import ProgressEvent
from core.diagnosis.request import DiagnosisRequest, UsageError
from core.tenant import Tenant
from tui.clock import Clock
from tui.messages import DiagnosisTarget
from tui.screens.diagnosis.commands import LOOKBACKS
from tui.screens.diagnosis.screen import DiagnosisScreen


def request_for(
    target: DiagnosisTarget, now: datetime, lookback: str = LOOKBACKS[0], where: str | None = None
) -> DiagnosisRequest:
    """The engine request for a picker choice or the start-up options; raises UsageError naming what lacks.
    `where`: where a name is looked up, when not a live cluster (a case bundle)."""
    return DiagnosisRequest(
        cluster_id=target.cluster_id or "",
        workload_id=target.workload_id,
        name=None if target.workload_id else target.name,
        project=None if target.workload_id else target.project,
        lookback=lookback,
        now=now,
        **({"where": where} if where else {}),
    )


def show_diagnosis(
    app: App[object],
    tenant: Tenant,
    target: DiagnosisTarget,
    clock: Clock,
    *,
    kube_off: str | None = None,
    replay: tuple[ProgressEvent, ...] = (),
    where: str | None = None,
) -> bool:
    """Push the diagnosis screen for `target`; a target that cannot be diagnosed is said in a notification.
    `replay`: the events of a diagnosis already made (the picker's verdict column), shown at once."""
    try:
        request = request_for(target, clock(), where=where)
    except UsageError as exc:
        app.notify(str(exc), title="cannot diagnose", severity="error", markup=False)
        return False
    screen = _kept_screen(app, tenant, clock, kube_off)
    if screen is not None:
        screen.open_for(request, replay)
    else:
        screen = DiagnosisScreen(request, tenant, clock=clock, kube_off=kube_off, replay=replay)
        if not app.is_screen_installed(KEPT):  # the kept one may be on the stack still: this one goes when popped
            app.install_screen(screen, KEPT)
    app.push_screen(screen)
    return True


KEPT = "diagnosis"  # the name the kept screen is installed under


def _kept_screen(app: App[object], tenant: Tenant, clock: Clock, kube_off: str | None) -> DiagnosisScreen | None:
    if not app.is_screen_installed(KEPT):
        return None
    screen = app.get_screen(KEPT)
    if screen in app.screen_stack:  # never pushed twice
        return None
    if isinstance(screen, DiagnosisScreen) and screen.serves(tenant, clock, kube_off):
        return screen
    app.uninstall_screen(KEPT)  # another tenant or clock: a new screen for it
    return None
