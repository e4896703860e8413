"""The simulator in a process of its own (core.sim.child, core.sim.process), as the terminal app starts it: real
processes, real HTTP, the real clients. Its life is tied to its parent's: it ends when its stdin closes (the
parent closed it or died), when the tenant is closed, and a child that misbehaves becomes a clear failure."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.sim.bundle import BundleError, load_bundle
from core.sim.process import SimProcess, SimProcessFailed
from core.tenant import NO_KUBE_SECTION, open_served_tenant
from tests.paths import CASES
from tests.processes import DEADLINE_S, gone, wait_gone
from tui.commands.start import StartProblem, served_problem

OOM_CASE = CASES / "example-oom.json"  # has a kubernetes section
IMAGE_PULL_CASE = CASES / "example-image-pull.json"  # has none
OOM_WORKLOAD = "9c272e2c-4cbd-59c9-ad76-2b982958772c"


async def test_served_case_answers_both_clients_like_the_in_process_one() -> None:
    bundle = load_bundle(OOM_CASE)
    process = SimProcess.start(OOM_CASE)
    tenant = open_served_tenant(process, label="case example-oom.json")
    try:
        assert tenant.control_plane is None  # served elsewhere: nothing of the bundle lives in this process
        assert tenant.captured_at == bundle.captured_at
        workload = await tenant.runai.get_workload(OOM_WORKLOAD)
        assert workload.name == "whisper-ft"
        kube, unavailable = await tenant.open_tier2()
        assert unavailable is None and kube is not None
        assert tenant.kube_unavailable is None
    finally:
        await tenant.aclose()
    assert process.process is not None and process.process.poll() is not None, "closing the tenant stops it"


async def test_a_bundle_without_kubernetes_says_tier_2_is_unavailable() -> None:
    tenant = open_served_tenant(SimProcess.start(IMAGE_PULL_CASE), label="case")
    try:
        kube, unavailable = await tenant.open_tier2()
        assert kube is None and unavailable == NO_KUBE_SECTION
    finally:
        await tenant.aclose()


def test_the_child_exits_when_its_stdin_closes() -> None:
    process = SimProcess.start(OOM_CASE)
    served = process.ready()
    assert process.process is not None and process.process.stdin is not None
    process.process.stdin.close()
    assert process.process.wait(DEADLINE_S) == 0  # a clean exit, not a kill
    with pytest.raises(OSError):  # and nothing listens any more
        port = int(served.url.rsplit(":", 1)[1])
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    process.stop()


def test_the_child_exits_when_its_parent_is_killed(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [
            sys.executable, "-c",
            "import sys, time\n"
            "from core.sim.process import SimProcess\n"
            f"p = SimProcess.start({str(OOM_CASE)!r})\n"
            "p.ready()\n"
            "print(p.pid, flush=True)\n"
            "time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert not gone(child)
        parent.send_signal(signal.SIGKILL)  # no clean-up runs in the parent: only the pipe closing tells the child
        parent.wait(DEADLINE_S)
        wait_gone(child)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


async def test_closing_the_tenant_ends_the_process_and_removes_its_kubeconfig() -> None:
    process = SimProcess.start(OOM_CASE)
    tenant = open_served_tenant(process, label="case")
    assert process.pid is not None
    tempdir = tenant._tempdir
    assert tempdir is not None and (Path(tempdir.name) / "kubeconfig").is_file()
    await tenant.aclose()
    wait_gone(process.pid)
    assert not Path(tempdir.name).exists()


def test_a_bad_case_file_fails_with_the_bundle_error_the_app_shows_for_it(tmp_path: Path) -> None:
    case = tmp_path / "broken.json"
    case.write_text('{"format": "runai-triage/case@1", "capturedAt": ', encoding="utf-8")
    with pytest.raises(BundleError) as in_process:
        load_bundle(case)
    process = SimProcess.start(case)
    with pytest.raises(SimProcessFailed) as served:
        process.ready()
    assert served.value.bundle_problem and served.value.what == str(in_process.value)
    problem = served_problem(served.value)
    assert problem.title == "The case bundle cannot be used" and problem.detail == str(in_process.value)
    assert process.process is not None and process.process.poll() is not None
    with pytest.raises(SimProcessFailed):  # the same answer again, not a second wait
        process.ready(timeout=0.1)


def _failure(command: list[str], timeout: float = 10.0) -> tuple[SimProcess, SimProcessFailed]:
    process = SimProcess.start(command=command)
    started = time.monotonic()
    with pytest.raises(SimProcessFailed) as failed:
        process.ready(timeout=timeout)
    assert time.monotonic() - started < timeout + 5
    assert process.process is None or process.process.poll() is not None, "a failed child is not left running"
    return process, failed.value


def test_a_child_that_writes_garbage_is_a_clear_failure() -> None:
    script = "import sys, time; print('\\x1b[2Jnot json', flush=True); time.sleep(60)"
    _, failed = _failure([sys.executable, "-c", script])
    assert "answered something other than its ready line" in failed.what and not failed.bundle_problem
    problem = served_problem(failed)
    assert isinstance(problem, StartProblem) and problem.title == "The simulated tenant did not start"


def test_a_ready_line_with_wrong_values_is_garbage_too() -> None:
    line = '{"url": "http://127.0.0.1:1", "token": 5, "kube_token": null, "captured_at": "x", "kubernetes": false}'
    _, failed = _failure([sys.executable, "-c", f"import time; print({line!r}, flush=True); time.sleep(60)"])
    assert "answered something other than its ready line" in failed.what


def test_a_child_that_exits_early_is_named_with_what_it_wrote() -> None:
    script = "import sys; sys.stderr.write('Traceback...\\nImportError: boom \\x1b[31mred\\n'); sys.exit(3)"
    _, failed = _failure([sys.executable, "-c", script])
    assert "exited with status 3 before it was ready" in failed.what
    assert "ImportError: boom" in failed.stderr
    problem = served_problem(failed)
    assert "ImportError: boom" in problem.detail
    assert "\x1b" not in problem.detail and "\\x1b" in problem.detail  # shown, never obeyed


def test_a_child_that_never_answers_is_killed_after_the_wait() -> None:
    process, failed = _failure([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
    assert "did not answer within 0.5 s" in failed.what
    assert process.pid is not None
    wait_gone(process.pid)


def test_a_child_that_cannot_be_started_is_a_failure_not_an_exception(tmp_path: Path) -> None:
    _, failed = _failure([str(tmp_path / "no-such-python")])
    assert "could not be started" in failed.what


def test_stop_is_safe_twice_and_from_threads() -> None:
    process = SimProcess.start(OOM_CASE)
    process.ready()

    async def both() -> None:
        await asyncio.gather(asyncio.to_thread(process.stop), asyncio.to_thread(process.stop))

    asyncio.run(both())
    process.stop()
    assert process.process is not None and process.process.poll() is not None
