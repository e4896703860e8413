"""`runai-triage diagnose` end to end: the real command line over case bundles, the demo tenant and a simulated
real tenant on loopback, with the exit statuses and messages of docs/report-format.md.

A few runs are real subprocesses (what a user or a script sees, the environment, no Textual import); the rest
call `tui.cli.main` in-process with the output captured.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.sim.bundle import load_bundle
from core.sim.control_plane import ControlPlane
from core.sim.demo import demo_expectations
from core.sim.kubeconfig import write_kubeconfig
from core.sim.loopback import LoopbackServer
from core.tenant import open_case_tenant
from tests.paths import CASES
from tui import cli

REPO = Path(__file__).resolve().parents[2]
CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
OOM_ID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"
EXAMPLES = {
    "example-oom": (OOM_ID, "diagnosed", "OOM_KILLED"),
    "example-image-pull": ("36c57368-2cfe-5aea-8a36-3f60c4934bca", "diagnosed", "IMAGE_PULL_FAILED"),
    "example-preempted": ("95df3412-1827-5728-b3ea-5d68230d4c25", "preempted", None),
}
CAPTURED_AT = "2026-11-30T12:00:00Z"  # the examples' capturedAt
DEMO = {e["key"]: e for e in demo_expectations()}


def _args(case: str, workload_id: str, *extra: str) -> list[str]:
    return [
        "--case",
        str(CASES / f"{case}.json"),
        "--cluster-id",
        CLUSTER,
        "--workload-id",
        workload_id,
        *extra,
    ]


def _run_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(["diagnose", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def empty_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch, empty_home: Path) -> Path:
    """This process's environment without any Run:ai or Kubernetes setting, and HOME with no CLI session."""
    for name in list(os.environ):
        if name.startswith(("RUNAI_", "KUBE")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(empty_home))
    return empty_home


def _clean_env(home: Path, **extra: str) -> dict[str, str]:
    """No Run:ai, Kubernetes or proxy settings from the machine running the tests: only what a test gives."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PYTHONPATH": str(REPO)}
    env.update(extra)
    return env


def _run_subprocess(
    args: list[str], env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.cli", "diagnose", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _assert_no_traceback(*streams: str) -> None:
    for text in streams:
        assert "Traceback" not in text and 'File "' not in text, text


# -- reports from case bundles and the demo -------------------------------------------------------------------
@pytest.mark.parametrize("case", list(EXAMPLES))
def test_case_json_is_the_report_the_engine_gives(capsys: pytest.CaptureFixture[str], case: str) -> None:
    workload_id, outcome, category = EXAMPLES[case]
    status, out, err = _run_in_process(capsys, *_args(case, workload_id, "--format", "json"))
    assert status == 0, err
    doc = json.loads(out)
    assert (doc["schema"], doc["outcome"], doc["category"]) == ("runai-triage/report@1", outcome, category)
    # The bundle's capturedAt is the default "now".
    assert doc["generatedAt"].startswith("2026-11-30T12:00:00")

    async def direct() -> dict:
        async with open_case_tenant(CASES / f"{case}.json") as tenant:
            request = DiagnosisRequest(cluster_id=CLUSTER, workload_id=workload_id, now=tenant.captured_at)
            report = await run_to_report(
                request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable
            )
            return report.to_json_dict()

    assert doc == asyncio.run(direct())


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_each_format_leads_with_the_verdict(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    workload_id = EXAMPLES["example-image-pull"][0]
    status, out, err = _run_in_process(capsys, *_args("example-image-pull", workload_id, "--format", fmt))
    assert status == 0 and err == ""
    first = out.splitlines()[0]
    if fmt == "text":
        assert first == "Category: IMAGE_PULL_FAILED"
    elif fmt == "markdown":
        assert first == "## Category: IMAGE\\_PULL\\_FAILED"
    else:
        assert json.loads(out)["category"] == "IMAGE_PULL_FAILED"


def test_a_route_out_is_a_report_too_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run_in_process(capsys, *_args("example-preempted", EXAMPLES["example-preempted"][0]))
    assert status == 0, err
    assert out.splitlines()[0] == "Outcome: preempted (route to preemption diagnosis)"


def test_demo_by_id(capsys: pytest.CaptureFixture[str]) -> None:
    story = DEMO["oom-rising"]
    args = [
        "--demo",
        "--cluster-id",
        story["clusterId"],
        "--workload-id",
        story["workloadId"],
        "--format",
        "json",
    ]
    status, out, err = _run_in_process(capsys, *args)
    assert status == 0, err
    doc = json.loads(out)
    assert (doc["outcome"], doc["category"]) == ("diagnosed", "OOM_KILLED")
    assert doc["memory"]["limitBytes"] == story["memory"]["limitBytes"]
    assert doc["memory"]["peakBytes"] == story["memory"]["peakBytes"]


@pytest.mark.parametrize("key", ["not-found", "preempt-priority", "same-name-research"])
def test_demo_outcomes_exit_zero(capsys: pytest.CaptureFixture[str], key: str) -> None:
    story = DEMO[key]
    args = ["--demo", "--cluster-id", story["clusterId"], "--lookback", story["lookback"], "--format", "json"]
    if story["lookup"] == "id":
        args += ["--workload-id", story["workloadId"]]
    else:
        args += ["--name", story["name"], "--project", story["project"]]
    status, out, err = _run_in_process(capsys, *args)
    assert status == 0, err
    doc = json.loads(out)
    assert (doc["outcome"], doc["category"]) == (story["outcome"], story["category"])
    assert doc["recurrence"]["count"] == 0


def test_active_intent_without_a_confirmed_failure_is_ambiguous(capsys: pytest.CaptureFixture[str]) -> None:
    story = DEMO["ambiguous-chat-agent"]
    base = [
        "--demo",
        "--cluster-id",
        story["clusterId"],
        "--name",
        story["name"],
        "--project",
        story["project"],
    ]
    status, out, _ = _run_in_process(capsys, *base, "--active", "--format", "json")
    assert status == 0
    assert json.loads(out)["outcome"] == "ambiguous"


# -- the cluster asked about (issue 11 item 3) --------------------------------------------------------------------
@pytest.mark.parametrize("given", ["made-up-cluster", "00000000-0000-0000-0000-000000000000"])
def test_an_unknown_cluster_exits_1_and_lists_the_known_ones(capsys: pytest.CaptureFixture[str], given: str) -> None:
    story = DEMO["oom-rising"]
    status, out, err = _run_in_process(
        capsys, "--demo", "--cluster-id", given, "--workload-id", story["workloadId"]
    )
    assert status == 1 and out == ""
    assert "is not a cluster of this tenant" in err
    for cluster in ("demo-east", "demo-west", story["clusterId"]):
        assert cluster in err
    assert "Traceback" not in err


def test_a_cluster_is_found_by_its_exact_name_or_its_id_in_capitals(capsys: pytest.CaptureFixture[str]) -> None:
    story = DEMO["oom-rising"]
    for given in ("demo-east", story["clusterId"].upper()):
        status, out, err = _run_in_process(
            capsys, "--demo", "--cluster-id", given, "--name", story["name"], "--project", story["project"],
            "--format", "json",
        )
        assert status == 0, err
        doc = json.loads(out)
        assert (doc["outcome"], doc["category"]) == ("diagnosed", "OOM_KILLED")
        assert doc["workload"]["clusterId"] == story["clusterId"]


# -- --now -----------------------------------------------------------------------------------------------------
def test_now_overrides_captured_at_and_moves_the_lookback(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run_in_process(
        capsys, *_args("example-oom", OOM_ID, "--lookback", "2h", "--format", "json")
    )
    assert status == 0
    at_capture = json.loads(out)
    assert at_capture["recurrence"]["count"] == 1
    later = ["--lookback", "2h", "--now", "2026-12-01T12:00:00Z", "--format", "json"]
    status, out, _ = _run_in_process(capsys, *_args("example-oom", OOM_ID, *later))
    assert status == 0
    moved = json.loads(out)
    assert moved["generatedAt"].startswith("2026-12-01T12:00:00")
    # The failure (30 Nov 11:25) is a day older than the window now: the verdict stands, the count does not.
    assert (moved["outcome"], moved["category"]) == ("diagnosed", "OOM_KILLED")
    assert moved["recurrence"] == {**moved["recurrence"], "count": 0, "recurring": False}


# -- usage errors: exit 2, asking for what is missing --------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "asks_for"),
    [
        (["--workload-id", OOM_ID], ["--cluster-id"]),
        (["--cluster-id", CLUSTER], ["--workload-id", "--name", "--project"]),
        (["--cluster-id", CLUSTER, "--name", "whisper-ft"], ["--project"]),
        (["--cluster-id", CLUSTER, "--project", "speech"], ["--name"]),
        (["--cluster-id", "  ", "--workload-id", OOM_ID], ["--cluster-id"]),
        (["--cluster-id", CLUSTER, "--workload-id", OOM_ID, "--lookback", "3y"], ["lookback", "'3y'", "7d"]),
        (
            ["--cluster-id", CLUSTER, "--workload-id", OOM_ID, "--lookback", "0h"],
            ["lookback", "longer than zero"],
        ),
        (["--cluster-id", CLUSTER, "--workload-id", OOM_ID, "--now", "yesterday"], ["--now", "'yesterday'"]),
        (["--cluster-id", CLUSTER, "--workload-id", OOM_ID, "--name", "x", "--project", "y"], ["either"]),
    ],
)
def test_usage_errors_exit_2_and_ask_for_what_is_missing(
    capsys: pytest.CaptureFixture[str], args: list[str], asks_for: list[str]
) -> None:
    status, out, err = _run_in_process(capsys, "--case", str(CASES / "example-oom.json"), *args)
    assert status == 2
    assert out == ""
    assert err.startswith("runai-triage diagnose: error: ")
    for word in asks_for:
        assert word in err, (word, err)
    _assert_no_traceback(err)


def test_a_missing_identifier_is_asked_for_before_any_tenant_is_needed(
    capsys: pytest.CaptureFixture[str], bare_env: Path
) -> None:
    # No tenant is configured either: the usage error comes first, so nothing was contacted.
    status, out, err = _run_in_process(capsys, "--workload-id", OOM_ID)
    assert status == 2
    assert "--cluster-id" in err and "never guessed" in err
    assert out == ""


# -- no report: exit 1, a clear message, no traceback --------------------------------------------------------
def _bad_files(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "runai-triage/case@1", "workloads": [', encoding="utf-8")
    yield broken, "not valid JSON"
    listed = tmp_path / "list.json"
    listed.write_text("[]", encoding="utf-8")
    yield listed, "JSON object"
    wrong = tmp_path / "wrong-format.json"
    wrong.write_text(json.dumps({"format": "something/else@9", "workloads": []}), encoding="utf-8")
    yield wrong, "format"
    yield tmp_path / "absent.json", "not found"
    yield tmp_path, "directory"


def test_unusable_case_files_exit_1_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for path, why in _bad_files(tmp_path):
        status, out, err = _run_in_process(
            capsys, "--case", str(path), "--cluster-id", CLUSTER, "--workload-id", "x"
        )
        assert status == 1, (path, err)
        assert out == ""
        assert "case bundle cannot be used" in err and path.name in err and why in err, err
        _assert_no_traceback(err)
        # What to do points at something a user has: a command that writes a valid bundle, and no document
        # path that the checkout (or an install) does not hold.
        assert "runai-triage record" in err, err
        for named in re.findall(r"[\w./-]+\.md\b", err):
            assert (REPO / named).is_file(), f"the message names {named}, which does not exist"


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_tenant_exits_1(empty_home: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    env = _clean_env(empty_home, RUNAI_BEARER_TOKEN="tok-unreachable-test")
    done = _run_subprocess(["--base-url", url, "--cluster-id", CLUSTER, "--workload-id", OOM_ID], env)
    assert done.returncode == 1
    assert done.stdout == ""
    assert "no report could be produced" in done.stderr and "could not reach" in done.stderr
    assert url in done.stderr
    assert "tok-unreachable-test" not in done.stderr
    _assert_no_traceback(done.stderr)


@pytest.fixture
def served_oom() -> Iterator[tuple[ControlPlane, str]]:
    plane = ControlPlane(load_bundle(CASES / "example-oom.json"))
    with LoopbackServer(plane) as server:
        yield plane, server.url


def test_refused_credentials_exit_1(served_oom: tuple[ControlPlane, str], empty_home: Path) -> None:
    plane, url = served_oom
    env = _clean_env(empty_home, RUNAI_BEARER_TOKEN="not-a-token-the-server-issued")
    done = _run_subprocess(["--base-url", url, "--cluster-id", CLUSTER, "--workload-id", OOM_ID], env)
    assert done.returncode == 1
    assert done.stdout == ""
    assert "401" in done.stderr and "token was refused" in done.stderr
    assert "not-a-token-the-server-issued" not in done.stderr
    _assert_no_traceback(done.stderr)
    assert {r.status for r in plane.requests} == {401}


def test_no_tenant_configured_exits_1_and_says_what_to_set(empty_home: Path) -> None:
    done = _run_subprocess(["--cluster-id", CLUSTER, "--workload-id", OOM_ID], _clean_env(empty_home))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "No Run:ai tenant configured" in done.stderr
    assert "RUNAI_BASE_URL" in done.stderr and "RUNAI_CLIENT_ID" in done.stderr
    assert str(empty_home) in done.stderr, "it says where it looked for a CLI session"
    _assert_no_traceback(done.stderr)


# -- a real tenant: base URL + access key, Tier 2 from a kubeconfig ------------------------------------------
def test_real_tenant_mode_gives_the_case_verdict(
    served_oom: tuple[ControlPlane, str], tmp_path: Path, empty_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plane, url = served_oom
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", url, plane.kube_token)
    env = _clean_env(
        empty_home, RUNAI_CLIENT_ID="triage-ci", RUNAI_CLIENT_SECRET="s3cret-for-the-token-endpoint"
    )
    args = ["--cluster-id", CLUSTER, "--workload-id", OOM_ID, "--now", CAPTURED_AT, "--format", "json"]
    done = _run_subprocess(["--base-url", url, "--kubeconfig", str(kubeconfig), *args], env)
    assert done.returncode == 0, done.stderr
    real = json.loads(done.stdout)

    status, out, _ = _run_in_process(capsys, *_args("example-oom", OOM_ID, "--format", "json"))
    assert status == 0
    case = json.loads(out)
    for key in ("outcome", "category", "memory", "recurrence", "recommendations"):
        assert real[key] == case[key], key
    assert {s for e in real["evidence"] for s in e["sources"]} == {s for e in case["evidence"] for s in e["sources"]}
    assert "kubectl describe pod" in {s for e in real["evidence"] for s in e["sources"]}, (
        "Tier 2 came from the kubeconfig"
    )

    seen = [(r.method, r.path) for r in plane.requests]
    assert ("POST", "/api/v2/token") in seen or ("POST", "/api/v1/token") in seen, (
        "the access key was exchanged"
    )
    assert any(path.startswith("/api/v1/namespaces/") for _, path in seen)
    assert {m for m, _ in seen} <= {"GET", "POST"}
    assert all(m == "GET" or path.endswith("/token") for m, path in seen), "read-only"
    assert "s3cret-for-the-token-endpoint" not in done.stdout + done.stderr
    assert plane.kube_token not in done.stdout + done.stderr


# -- headless means no Textual ---------------------------------------------------------------------------------
def test_the_headless_command_does_not_import_textual(empty_home: Path) -> None:
    # No --format: text is the default, and line one is the verdict.
    argv = ["diagnose", *_args("example-oom", OOM_ID)]
    code = (
        "import sys, io, contextlib, tui.cli\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        f"    status = tui.cli.main({argv!r})\n"
        "print(buf.getvalue().splitlines()[:2])\n"
        "print(status, 'textual' in sys.modules, any(m.startswith('textual.') for m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env=_clean_env(empty_home),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    head, flags = done.stdout.splitlines()
    assert head == str(["Category: OOM_KILLED", "Workload: whisper-ft | Phase: Failed | Project: speech"])
    assert flags.split() == ["0", "False", "False"]


def test_the_apps_options_before_a_command_are_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    # `runai-triage --demo diagnose ...` reads as `runai-triage diagnose --demo ...` (global flags, as kubectl's).
    story = DEMO["oom-rising"]
    status = cli.main(["--demo", "--cluster-id", story["clusterId"], "diagnose", "--workload-id",
                       story["workloadId"], "--format", "json"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert json.loads(captured.out)["category"] == "OOM_KILLED"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--base-url", "http://x", "serve", "--demo"], "--base-url is not an option of `runai-triage serve`"),
        (["--demo", "diagnose", "--case", "x.json"], "--demo and --case cannot be used together"),
        (["--case", "a.json", "scan", "--case", "b.json"], "--case is given twice, before and after `scan`"),
    ],
)
def test_an_app_option_a_command_cannot_take_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
