"""The read-only audit (tests/read_only_audit.py) can fail: a pytest run of its own, in a subprocess, with a
test that sends a write to an audited simulator, ends with exit status 1 and names the request; with and
without pytest-xdist. Its verdict over the workers' summaries is checked directly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import CASES
from tests.read_only_audit import FULL_RUN_TESTS, MIN_REQUESTS, judge

ROOT = Path(__file__).resolve().parents[1]

PLANTED_TEST = f"""
from core.sim.bundle import load_bundle
from core.sim.control_plane import ControlPlane, SimRequest


def test_talks_to_a_simulator():
    plane = ControlPlane(load_bundle({str(CASES / "example-oom.json")!r}))
    plane.handle(SimRequest("POST", "/api/v2/token", (), {{}}))
    for _ in range(3):
        plane.handle(SimRequest("GET", "/api/v1/clusters", (), {{}}))
    plane.handle(SimRequest(METHOD, PATH, (), {{}}))
"""


def _run_pytest(tmp_path: Path, method: str, path: str, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    body = f"METHOD = {method!r}\nPATH = {path!r}\n" + PLANTED_TEST
    (tmp_path / "test_planted.py").write_text(body, encoding="utf-8")
    args = ["-p", "tests.read_only_audit", "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path)]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *args, *options, str(tmp_path / "test_planted.py")],
        cwd=ROOT,  # `tests.read_only_audit` is imported from the repository
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


XDIST = pytest.mark.parametrize("options", [("-n", "1"), ("-p", "no:xdist")], ids=["xdist", "one-process"])


@XDIST
def test_a_planted_write_fails_the_session(tmp_path: Path, options: tuple[str, ...]) -> None:
    run = _run_pytest(tmp_path, "DELETE", "/api/v1/workloads/planted", *options)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 passed" in run.stdout  # the test itself passed: the audit is what failed the session
    assert "read-only audit FAILED" in run.stdout
    assert "a write request reached a simulator: DELETE /api/v1/workloads/planted" in run.stdout


def test_reads_and_token_posts_pass_the_audit(tmp_path: Path) -> None:
    # (The suite itself, run with -n auto, is the clean case under xdist.)
    run = _run_pytest(tmp_path, "GET", "/api/v1/clusters", "-p", "no:xdist")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "read-only audit: 5 simulator requests (0 of them in child processes), no write" in run.stdout


def test_a_planted_secret_read_fails_the_session(tmp_path: Path) -> None:
    run = _run_pytest(tmp_path, "GET", "/api/v1/namespaces/runai-nlp/secrets/hf-token", "-p", "no:xdist")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "a Secret read reached a simulator: GET /api/v1/namespaces/runai-nlp/secrets/hf-token" in run.stdout


CHILD_TEST = f'''
import subprocess
import sys

CHILD = """
from core.sim.bundle import load_bundle
from core.sim.control_plane import ControlPlane, SimRequest

plane = ControlPlane(load_bundle({str(CASES / "example-oom.json")!r}))
plane.handle(SimRequest("GET", "/api/v1/clusters", (), {{}}))
plane.handle(SimRequest(METHOD, "/api/v1/workloads/planted", (), {{}}))
"""


def test_a_child_process_talks_to_a_simulator():
    subprocess.run([sys.executable, "-c", CHILD.replace("METHOD", repr(WHICH))], check=True, timeout=60)
'''


@XDIST
@pytest.mark.parametrize("method", ["DELETE", "GET"])
def test_a_write_in_a_child_process_fails_the_session(tmp_path: Path, options: tuple[str, ...], method: str) -> None:
    # A simulator in a process the test started (as the program's own simulator runs) is judged too.
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_child.py").write_text(f"WHICH = {method!r}\n" + CHILD_TEST, encoding="utf-8")
    args = ["-p", "tests.read_only_audit", "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path)]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *args, *options, str(tmp_path / "test_child.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    if method == "GET":
        assert run.returncode == 0, run.stdout + run.stderr
        assert "read-only audit: 2 simulator requests (2 of them in child processes), no write" in run.stdout
        return
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 passed" in run.stdout  # the test passed: the audit of its child's simulator failed the session
    # (401: the planted request carries no token; the audit counts it all the same)
    line = "child processes: a write request reached a simulator: DELETE /api/v1/workloads/planted -> 401"
    assert line in run.stdout, run.stdout


def _clean(tests: int, requests: int) -> dict[str, object]:
    return {"tests": tests, "requests": requests, "writes": [], "secretReads": []}


def test_the_verdict_is_over_the_union_of_the_workers() -> None:
    assert judge({"worker gw0": _clean(FULL_RUN_TESTS, MIN_REQUESTS), "worker gw1": _clean(1, 1)}) == []
    dirty = {**_clean(3, 9), "writes": ["PUT /x -> 405"]}
    assert judge({"worker gw0": _clean(FULL_RUN_TESTS, 500), "worker gw1": dirty}) == [
        "worker gw1: a write request reached a simulator: PUT /x -> 405"
    ]


def test_a_worker_without_a_summary_is_a_finding() -> None:
    found = judge({"worker gw0": _clean(10, 500), "worker gw1": None})
    assert found == ["worker gw1 ended without an audit summary: its requests could not be checked"]


def test_a_full_run_that_audited_almost_nothing_is_a_finding() -> None:
    assert judge({"this process": _clean(FULL_RUN_TESTS + 1, MIN_REQUESTS)}) != []
    assert judge({"this process": _clean(FULL_RUN_TESTS, 0)}) == []  # a small, focused run may talk to nothing
