"""What a watch or the app meets only after hours: the simulator's session outlives the hour a tenant's token
lasts (the program's own client holds a ready token it cannot refresh), and a tenant down for days never makes
the backoff overflow. Found by the week-long watch of bench_live (issue 32)."""

from __future__ import annotations

from core.sim.bundle import parse_bundle
from core.sim.control_plane import SESSION_TTL_S, ControlPlane
from core.sim.process import SimProcess
from core.sim.tokens import decode_claims
from core.sources.errors import ApiError
from core.triage.pacing import MAX_BACKOFF_S, Pacer

DAY = 86400.0


def test_the_programs_own_session_outlives_an_hour_while_handed_out_tokens_keep_theirs() -> None:
    now = [1_796_000_000.0]
    plane = ControlPlane(parse_bundle({"format": "runai-triage/case@1", "capturedAt": "2026-11-30T12:00:00Z",
                                       "clusters": [], "workloads": []}), clock=lambda: now[0])
    session, handed = plane.issue_token(ttl_s=SESSION_TTL_S), plane.issue_token()
    now[0] += 7 * DAY
    assert plane._tokens.check(session) is None
    assert plane._tokens.check(handed) == "token expired"


def test_the_apps_simulator_process_gives_a_session_that_lasts() -> None:
    process = SimProcess.start()
    try:
        claims = decode_claims(process.ready().token)
    finally:
        process.stop()
    assert claims is not None
    assert int(claims["exp"]) - int(claims["iat"]) >= 300 * DAY  # type: ignore[call-overload]


def test_a_tenant_down_for_days_backs_off_at_the_ceiling_without_overflowing() -> None:
    pacer = Pacer(5.0)
    down = ApiError("GET", "/api/v1/workloads", 503, "down")
    waits = [pacer.failed(down) for _ in range(5000)]  # days of a tenant down
    assert waits[:3] == [10.0, 20.0, 40.0] and set(waits[10:]) == {MAX_BACKOFF_S}
