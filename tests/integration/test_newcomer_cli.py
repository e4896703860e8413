"""The command line as a newcomer met it (issue 34, point 7), each run the way a user runs it, against the demo
tenant over real HTTP: an unknown option says what was wrong in two lines (never argparse's usage block), Ctrl-C
in `scan` keeps what finished and exits 130, `watch --once` says it makes one sweep, a `--now` before the
failure is said, and the hints for a bad tenant URL name `--base-url` when it was given."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.sim.demo.build import build_demo_bundle
from core.tenant import open_bundle_tenant
from core.triage.scan import ScanRequest, scan
from core.triage.scan_render import to_dict, to_text
from tui import cli

REPO = Path(__file__).resolve().parents[2]
EAST = DEMO_CLUSTERS[0]["uuid"]
# A slow answer, not a failed one: the route's own answer comes whole, after 0.3 s.
SLOW_WORKLOAD = {"match": "GET /api/v1/workloads/{id}", "status": 200, "kind": "trickle", "intervalMs": 1,
               "bytes": 1 << 22, "delayMs": 300, "times": 100_000}


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    ("args", "nearest"),
    [
        (("diagnose", "--demo", "--bogus"), None),
        (("--bogus",), None),
        (("scan", "--demo", "--clusterid", "demo-east"), "--cluster-id"),
        (("watch", "--demo", "--cluster-id", "demo-east", "--onse"), "--once"),
    ],
)
def test_an_unknown_option_is_two_lines_and_names_the_nearest(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], nearest: str | None
) -> None:
    with pytest.raises(SystemExit) as info:
        run(capsys, *args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 2 and "usage:" not in err, err
    assert "unrecognized arguments:" in lines[0] and "--help` for the options" in lines[1]
    assert (f"(did you mean {nearest}?)" in lines[0]) if nearest else "did you mean" not in lines[0]


async def test_an_interrupted_scan_keeps_what_finished() -> None:
    """Ctrl-C (the cancellation asyncio.run delivers) while diagnosing: the finished diagnoses are the result."""
    async with open_bundle_tenant(load_demo_bundle(), label="demo") as tenant:
        assert tenant.captured_at is not None
        request = ScanRequest(cluster_id=EAST, since="24h", concurrency=1)
        done: list[int] = []

        def progress(finished: int, total: int) -> None:
            done.append(finished)
            if finished == 3:
                task.cancel()

        task = asyncio.ensure_future(scan(request, tenant.runai, tenant.kube, now=tenant.captured_at,
                                          progress=progress, keep_on_interrupt=True))
        result = await task
    assert result.interrupted and len(result.entries) == 3
    untouched = [why for _, why in result.skipped if "interrupted" in why]
    assert untouched and result.listed == len(result.entries) + len(result.skipped)
    assert "interrupted" in to_text(result).splitlines()[1] and to_dict(result)["interrupted"] is True


def test_ctrl_c_in_scan_prints_what_finished_and_exits_130(tmp_path: Path) -> None:
    """SIGINT once the progress bar (stderr on a terminal) shows two diagnoses done: exit 130, what finished
    printed, no traceback."""
    # The demo tenant with each workload's own record answered 0.3 s late (a read only the diagnoses make, so the
    # scan starts as fast as ever): the scan is still going when the signal lands however busy the machine is (the
    # plain demo could finish first), and a lost signal still ends within a minute.
    bundle = build_demo_bundle()
    bundle["faults"] = [*bundle.get("faults", []), SLOW_WORKLOAD]
    case = tmp_path / "slow-demo.json"
    case.write_text(json.dumps(bundle), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "scan", "--case", str(case), "--cluster-id", "demo-east", "--since", "7d",
         "--concurrency", "1", "--format", "json"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=follower, text=True,
        # Ctrl-C's default, whatever this test inherited: a job a script starts in the background (`cmd &`) runs
        # with SIGINT ignored, and so would the scan, as POSIX programs do.
        preexec_fn=_sigint_default,
    )
    os.close(follower)
    seen = b""
    deadline = time.monotonic() + 60
    while b"] 2/" not in seen and time.monotonic() < deadline:
        seen += os.read(leader, 4096)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    err = seen.decode(errors="replace")
    try:
        while chunk := os.read(leader, 4096):
            err += chunk.decode(errors="replace")
    except OSError:  # the terminal's other end closed with the process
        pass
    os.close(leader)
    assert process.returncode == 130, err
    assert '"interrupted": true' in out and "Traceback" not in err
    assert "interrupted;" in err and "diagnoses printed" in err


def test_watch_once_says_one_sweep_not_an_interval(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "watch", "--demo", "--cluster-id", "demo-east", "--once", "--state",
                         str(tmp_path / "s.json"))
    assert status == 0, err
    first = err.splitlines()[0]
    assert "one sweep of cluster" in first and "every" not in first, first


def test_a_now_before_the_failure_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "diagnose", "--demo", "--cluster-id", "demo-east", "--name", "llama-ft-7b",
                           "--project", "nlp", "--now", "2026-11-30T09:00:00Z")
    assert status == 0
    assert "warning: the diagnosed failure (2026-11-30T11:20:00+00:00) is after the moment given as now" in err
    history = next(line for line in out.splitlines() if line.startswith("History: "))
    assert "after the moment given as --now" in history, history


def test_the_bad_url_hint_names_base_url_when_it_was_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in list(os.environ):
        if name.startswith("RUNAI_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    status, _, err = run(capsys, "diagnose", "--base-url", "not-a-url", "--cluster-id", "x", "--workload-id", "y")
    assert status == 1
    assert "export RUNAI_BASE_URL" not in err and "Give --base-url the tenant's own address" in err, err
    status, _, err = run(capsys, "diagnose", "--base-url", "http://127.0.0.1:9", "--cluster-id", "x",
                         "--workload-id", "y")
    assert status == 1 and "export RUNAI_BASE_URL" not in err and "RUNAI_CLIENT_ID" in err, err
    # Without --base-url the environment is where the URL goes.
    status, _, err = run(capsys, "diagnose", "--cluster-id", "x", "--workload-id", "y")
    assert status == 1 and "export RUNAI_BASE_URL" in err, err
