"""`runai-triage serve` as a user runs it: a real process, real HTTP, the real kubernetes client."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import kubernetes
import pytest

CASES = Path(__file__).resolve().parents[1] / "cases"
OOM_CASE = CASES / "example-oom.json"


def _start(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    lines: list[str] = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("Press Ctrl-C"):
            break
    return proc, lines


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=10)


def test_serve_case_answers_runai_and_kubernetes_reads(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    request_log = tmp_path / "requests.jsonl"
    proc, lines = _start(
        "--case", str(OOM_CASE), "--kubeconfig-out", str(kubeconfig), "--request-log", str(request_log)
    )
    try:
        output = "\n".join(lines)
        url = re.search(r"at (http://127\.0\.0\.1:\d+)", output)
        token = re.search(r"RUNAI_BEARER_TOKEN=(\S+)", output)
        assert url and token, output
        workload_id = "9c272e2c-4cbd-59c9-ad76-2b982958772c"
        response = httpx.get(
            f"{url.group(1)}/api/v1/workloads/{workload_id}",
            headers={"Authorization": f"Bearer {token.group(1)}"},
        )
        assert response.status_code == 200
        assert response.json()["name"] == "whisper-ft"
        assert httpx.get(f"{url.group(1)}/api/v1/workloads").status_code == 401

        cfg = kubernetes.client.Configuration()
        kubernetes.config.load_kube_config(config_file=str(kubeconfig), client_configuration=cfg)
        cfg.retries = False
        assert cfg.host == url.group(1)
        with kubernetes.client.ApiClient(cfg) as api_client:
            pod = kubernetes.client.CoreV1Api(api_client).read_namespaced_pod("whisper-ft-0-0", "runai-speech")
        assert pod.status.container_statuses[0].state.terminated.reason == "OOMKilled"
    finally:
        _stop(proc)
    assert proc.returncode == 0
    logged = [json.loads(line) for line in request_log.read_text().splitlines()]
    assert [entry["method"] for entry in logged] == ["GET", "GET", "GET"]
    assert logged[0]["path"] == f"/api/v1/workloads/{workload_id}"
    assert [entry["status"] for entry in logged] == [200, 401, 200]


def test_serve_demo_starts_and_lists(tmp_path: Path) -> None:
    proc, lines = _start("--demo", "--latency-ms", "1")
    try:
        output = "\n".join(lines)
        url = re.search(r"at (http://127\.0\.0\.1:\d+)", output)
        token = re.search(r"RUNAI_BEARER_TOKEN=(\S+)", output)
        assert url and token, output
        count = httpx.get(
            f"{url.group(1)}/api/v1/workloads/count", headers={"Authorization": f"Bearer {token.group(1)}"}
        )
        assert count.json()["count"] >= 2000
    finally:
        _stop(proc)


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["--case", "/nonexistent/case.json"], 1, "/nonexistent/case.json"),
        (["--case", str(OOM_CASE), "--port", "70000"], 2, "--port 70000"),
        (["--case", str(OOM_CASE), "--latency-ms", "-5"], 2, "--latency-ms"),
        # Files it cannot write are named before it serves, never a traceback once it is serving.
        (["--case", str(OOM_CASE), "--request-log", "/nonexistent/dir/requests.jsonl"], 2, "--request-log"),
        (["--case", str(OOM_CASE), "--kubeconfig-out", "/nonexistent/dir/kubeconfig"], 2, "--kubeconfig-out"),
        (["--case", str(OOM_CASE), "--request-log", "/"], 2, "--request-log"),
    ],
)
def test_serve_bad_input_is_a_message_not_a_traceback(args: list[str], code: int, needle: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tui.cli", "serve", *args], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == code
    assert needle in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_rejects_a_malformed_bundle(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "runai-triage/case@1", "capturedAt": "2026-11-30T12:00:00Z", "workloads": [')
    result = subprocess.run(
        [sys.executable, "-m", "tui.cli", "serve", "--case", str(broken)], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 1
    assert "broken.json" in result.stderr
    assert "Traceback" not in result.stderr
