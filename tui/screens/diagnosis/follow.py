"""`f` on a diagnosis: follow the workload, and diagnose it again whenever it changes.

While following, the workload's phase and conditions, its newest events and its containers' restart counts and
states are read every interval (core.triage.follow: 3 Run:ai reads and up to 4 pod reads, each a single
attempt), the picker's refresh interval or 5 s, from a timer re-armed when the last read ended. When one of
them moved, the diagnosis runs again, and the line above the banner says what changed and whether the verdict
did ("restart 74 at 12:41:07; verdict unchanged"; "container main running again since 12:42:10; verdict now
running (was CRASH_APP_ERROR)"). A failed read backs off (core.triage.pacing) and is said on that line. Following
pauses while another screen covers this one, ends when the workload reaches a final phase, when another workload
is opened here, or on a second `f`. A workload in a final phase is not followed: `f` says why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer

from core.triage.follow import Fingerprint, follow_refusal, read_fingerprint, what_changed
from core.triage.pacing import DEFAULT_INTERVAL_S, Pacer
from tui.messages import DiagnosisProgress, DiagnosisStopped
from tui.screens.picker.pace import short_reason
from tui.widgets.follow_line import FollowLine

if TYPE_CHECKING:
    from core.diagnosis.request import DiagnosisRequest
    from core.models.report import Report
    from core.tenant import Tenant
    from tui.clock import Clock

GROUP = "diagnosis-follow"


class FollowRead(Message):
    def __init__(self, token: int, fingerprint: Fingerprint | None, error: BaseException | None = None) -> None:
        super().__init__()
        self.token = token
        self.fingerprint = fingerprint
        self.error = error


def _label(report: Report | None) -> str:
    if report is None:
        return "no report"
    return report.category if report.outcome == "diagnosed" and report.category else report.outcome


# The diagnosis screen's key for this (DiagnosisScreen lists it among its own, so `?` shows it beside `r`).
FOLLOW = Binding(
    "f", "follow", "follow", show=False, id="diagnosis.follow",
    tooltip="Follow this Running, Degraded or Pending workload: diagnose it again whenever its phase, events or "
    "restarts change (f again stops)",
)


class DiagnosisFollow(Screen[None]):
    tenant: Tenant
    kube_off: str | None
    report: Report | None
    run_id: int
    base_request: DiagnosisRequest
    _clock: Clock | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.following = False
        self.follow_reads = 0  # fingerprints read while following (tests)
        self._follow_pacer = Pacer(DEFAULT_INTERVAL_S)
        self._follow_timer: Timer | None = None
        self._follow_token = 0  # a new follow, or its end, makes older reads stale
        self._follow_run = -1  # the run this follow last started (or began on)
        self._baseline: Fingerprint | None = None
        self._changed: str | None = None  # what made the run on its way start
        self._verdict_before: str | None = None
        self._follow_news: str | None = None

    # -- starting and stopping --------------------------------------------------------------------------------
    def action_follow(self) -> None:
        if self.following:
            self.stop_following("Following stopped.")
            return
        if self.report is None:
            running = getattr(self, "running", False)
            self.notify("Wait for the verdict, then press f to follow." if running else
                        "There is no verdict to follow: press r to diagnose again.", timeout=3, markup=False)
            return
        refusal = follow_refusal(self.report.workload.phase)
        if refusal is not None:
            self.notify(refusal + ".", title="not followed", timeout=4, markup=False)
            return
        self.following = True
        self._follow_token += 1
        self._follow_run = self.run_id
        self._baseline = None
        self._follow_news = None
        self._follow_pacer = Pacer(self._interval())
        if not self.query(FollowLine):
            self.mount(FollowLine(id="follow-line"), before="#diagnosis-summary")
        self._show_follow("starting")
        self._arm_follow(0)

    def _interval(self) -> float:
        # The picker's interval when it refreshes, so the whole app keeps one pace; 5 s otherwise.
        chosen = [getattr(s, "refresh_s", 0.0) for s in self.app.screen_stack]
        return next((s for s in chosen if s > 0), DEFAULT_INTERVAL_S)

    def stop_following(self, words: str | None = None) -> None:
        self.following = False
        self._follow_token += 1
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None
        self.workers.cancel_group(self, GROUP)
        for line in self.query(FollowLine):
            line.remove()
        if words:
            self.notify(words, timeout=3, markup=False)

    def on_screen_suspend(self) -> None:
        if self._follow_timer is not None:  # paused while covered (help, a detail view, the picker)
            self._follow_timer.stop()
            self._follow_timer = None

    def on_screen_resume(self) -> None:
        if self.run_id != self._follow_run:  # another workload (or a fresh open) took this screen meanwhile
            if self.following or self.query(FollowLine):
                self.stop_following()
            return
        if self.following:
            self._arm_follow(0.1)

    # -- the loop -----------------------------------------------------------------------------------------
    def _arm_follow(self, seconds: float) -> None:
        if self._follow_timer is not None:
            self._follow_timer.stop()
        self._follow_timer = self.set_timer(max(seconds, 0.05), self._follow_tick) if self.following else None

    def follow_now(self) -> None:
        """Read the followed workload now, as the timer would (the interval starts again from this read)."""
        if self._follow_timer is not None:
            self._follow_timer.stop()
        self._follow_tick()

    def _follow_tick(self) -> None:
        self._follow_timer = None
        if not self.following:
            return
        if self.app.screen is not self or getattr(self, "running", False):
            self._arm_follow(self._follow_pacer.interval_s)  # covered, or a run on its way: read after it
            return
        workload_id = (self.report.workload.id if self.report is not None else None) or self.base_request.workload_id
        if not workload_id:
            self.stop_following("This workload has no id to follow.")
            return
        known = self.tenant.tier2_known() if self.kube_off is None else None
        kube = known[0] if known is not None else None
        self._read_fingerprint(self._follow_token, workload_id, kube)

    @work(group=GROUP, exclusive=True, exit_on_error=False)
    async def _read_fingerprint(self, token: int, workload_id: str, kube: Any) -> None:
        try:
            found = await read_fingerprint(self.tenant.runai, workload_id, kube)
        except Exception as exc:  # said on the follow line; the next read waits longer
            self.post_message(FollowRead(token, None, exc))
            return
        self.post_message(FollowRead(token, found))

    def on_follow_read(self, message: FollowRead) -> None:
        if message.token != self._follow_token or not self.following:
            return
        self.follow_reads += 1
        if message.fingerprint is None:
            error = message.error or Exception("no answer")
            wait = self._follow_pacer.failed(error)
            self._show_follow(f"read failed at {self._now_hms()} ({short_reason(error)}), retry in {wait:.0f} s")
            self._arm_follow(wait)
            return
        self._follow_pacer.succeeded()
        found = message.fingerprint
        before, self._baseline = self._baseline, found
        changes = what_changed(before, found) if before is not None else []
        if not changes:
            # A part that could not be read is said, never taken for "nothing changed there".
            gaps = f"; not read: {', '.join(found.problems)}" if found.problems else ""
            self._show_follow(f"read {self._now_hms()}{gaps}")
            self._arm_follow(self._follow_pacer.interval_s)
            return
        self._changed = "; ".join(changes)
        self._verdict_before = _label(self.report)
        self.start()  # type: ignore[attr-defined]  # DiagnosisScreen.start: the whole diagnosis again
        self._follow_run = self.run_id
        self._show_follow(f"read {self._now_hms()}", f"{self._changed}; diagnosing again…")

    # -- a re-diagnosis ends ------------------------------------------------------------------------------
    def on_diagnosis_progress(self, message: DiagnosisProgress) -> None:
        # After the screen's own handler has shown the events: did the run this follow started end?
        if not self.following or message.run_id != self._follow_run or self._changed is None or self.report is None:
            return
        self._rerun_ended(_label(self.report))

    def on_diagnosis_stopped(self, message: DiagnosisStopped) -> None:
        if self.following and message.run_id == self._follow_run and self._changed is not None:
            self._rerun_ended(None)

    def _rerun_ended(self, label: str | None) -> None:
        before, changed = self._verdict_before, self._changed or ""
        self._changed = None
        if label is None:
            verdict = "the diagnosis stopped (see the banner)"
        elif label == before:
            verdict = "verdict unchanged"
        else:
            verdict = f"verdict now {label} (was {before})"
        self._follow_news = f"{changed}; {verdict}"
        refusal = follow_refusal(self.report.workload.phase) if self.report is not None else None
        if refusal is not None:
            phase = self.report.workload.phase if self.report is not None else None
            self._show_follow(f"the workload ended ({phase}): no longer followed", self._follow_news)
            self.following = False
            self._follow_token += 1
            return
        self._show_follow(f"read {self._now_hms()}", self._follow_news)
        self._arm_follow(self._follow_pacer.interval_s)

    # -- words ----------------------------------------------------------------------------------------------
    def _now_hms(self) -> str:
        now = self._clock() if self._clock is not None else None
        if now is None:
            from tui.clock import system_clock

            now = system_clock()
        return now.strftime("%H:%M:%S")

    def _show_follow(self, state: str, news: str | None = None) -> None:
        head = f"following every {self._follow_pacer.interval_s:g} s, {state}" if self.following else state
        for line in self.query(FollowLine):
            line.show(head, news if news is not None else self._follow_news)
