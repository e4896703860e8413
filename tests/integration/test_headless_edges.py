"""The headless commands as a platform engineer drives them: help whose examples run as pasted, every
option error shown with its own command's usage, bounded reads of a case file, a scan that counts what it
went through, the words of the failures, a recording whose replay command can be pasted, and the servers
(`serve`, `mcp --http`) on a port already taken. Real commands (in process or as subprocesses), the real
simulator over loopback."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import core.sim.bundle as bundle_module
from core.sim.demo import DEMO_CLUSTERS
from tests.paths import CASES
from tui.cli import build_parser
from tui.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
EAST = DEMO_CLUSTERS[0]["uuid"]
OOM_CASE = CASES / "example-oom.json"
OOM_CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
OOM_ID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(argv)
        except SystemExit as exit_:  # argparse's usage errors
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


def _no_traceback(*streams: str) -> None:
    for text in streams:
        assert "Traceback" not in text, text


def _help(command: str) -> str:
    code, out, _ = _cli([command, "--help"])
    assert code == 0
    return out


def _examples(command: str) -> list[list[str]]:
    text = _help(command)
    block = text.split("examples:\n", 1)[1].split("\n\n", 1)[0]
    return [shlex.split(line)[1:] for line in block.splitlines() if line.strip().startswith("runai-triage ")]


@pytest.fixture
def in_tmp(tmp_path: Path) -> Iterator[Path]:
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        yield tmp_path
    finally:
        os.chdir(here)


# -- help ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["diagnose", "scan", "record", "watch", "mcp", "serve"])
def test_every_command_documents_examples_and_its_exit_status(command: str) -> None:
    text = _help(command)
    assert _examples(command), text
    status = text.split("exit status:\n", 1)[1]
    for code in ("0", "1", "2"):
        assert f"  {code}  " in status, status
    for example in _examples(command):  # every example is a command line the parser takes
        build_parser().parse_args(example)


@pytest.mark.parametrize("command", ["diagnose", "scan", "record", "watch"])
def test_the_examples_of_the_reporting_commands_run_as_pasted(command: str, in_tmp: Path) -> None:
    # A watch without --once runs until it is stopped (test_watch stops one with Ctrl-C).
    examples = [e for e in _examples(command) if command != "watch" or "--once" in e]
    assert examples
    for example in examples:
        code, out, err = _cli(example)
        assert code == 0, (example, err)
        assert out.strip(), example
        _no_traceback(err)
        if example[-1] in ("json", "jsonl"):  # stdout is the report alone: every line parses
            documents = [out] if example[-1] == "json" else out.splitlines()
            assert all(json.loads(doc)["schema"].startswith("runai-triage/") for doc in documents)


def test_an_unknown_option_is_named_with_its_own_commands_help() -> None:
    # Issue 34, point 7: two lines naming the command and where its options are, not argparse's usage block.
    code, out, err = _cli(["diagnose", "--demo", "--bogus"])
    assert code == 2 and out == ""
    assert "runai-triage diagnose: error: unrecognized arguments: --bogus" in err
    assert "`runai-triage diagnose --help`" in err and "usage:" not in err


# -- case files --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", ["regular", "endless"])
def test_a_case_file_past_the_size_cap_is_refused_without_reading_it_all(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bundle_module, "MAX_BUNDLE_BYTES", 1 << 20)
    if source == "regular":
        path = tmp_path / "huge.json"
        path.write_bytes(b" " * (3 << 20))
    else:
        path = Path("/dev/zero")  # never ends: only a bounded read can refuse it
        if not path.exists():
            pytest.skip("no /dev/zero on this system")
    code, out, err = _cli(["diagnose", "--case", str(path), "--cluster-id", OOM_CLUSTER, "--workload-id", OOM_ID])
    assert code == 1 and out == ""
    assert "larger than 1 MiB; not a case bundle" in err
    _no_traceback(err)


# -- scan ----------------------------------------------------------------------------------------------------------
def test_a_capped_scan_counts_the_rows_it_went_through() -> None:
    code, out, err = _cli(["scan", "--demo", "--cluster-id", EAST, "--since", "7d", "--max-workloads", "3",
                           "--format", "json"])
    assert code == 0, err
    result = json.loads(out)
    assert result["listed"] == 3 and result["more"] is True
    assert len(result["results"]) + result["skippedCount"] == result["listed"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--since", "2y"], "--since '2y' is not understood"),
        (["--lookback", "0m"], "--lookback '0m' must be longer than zero"),
        (["--max-workloads", "99999"], "--max-workloads 99999"),
        (["--concurrency", "0"], "--concurrency must be"),
    ],
)
def test_scan_usage_errors_name_the_option(args: list[str], words: str) -> None:
    code, out, err = _cli(["scan", "--demo", "--cluster-id", EAST, *args])
    assert code == 2 and out == ""
    assert words in err
    _no_traceback(err)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["diagnose", "--cluster-id", EAST], "missing a workload id (--workload-id), or a workload name (--name) "
         "and project (--project). Identifiers are never guessed."),
        (["diagnose", "--cluster-id", EAST, "--name", "x"], "missing the project (--project) to go with the name "
         "(--name)"),
        (["diagnose", "--cluster-id", EAST, "--workload-id", "w", "--active"], "--active selects among submissions"),
        (["scan", "--cluster-id", EAST, "--name-prefix", "a,b"], "--name-prefix must be non-empty printable text"),
        (["nodes", "--cluster-id", EAST, "--fail-rate", "2"], "--fail-rate 2: give a share of the workloads"),
        (["nodes", "--cluster-id", EAST, "--min-workloads", "0"], "--min-workloads 0: at least 1"),
        (["nodes", "--cluster-id", EAST, "--max-failures", "0"], "--max-failures 0: diagnose from 1 to"),
        (["nodes", "--cluster-id", EAST, "--concurrency", "0"], "--concurrency 0: a whole number from 1 to"),
        (["nodes", "--cluster-id", EAST, "--node-pool", "a,b"], "--node-pool must be non-empty printable text"),
        (["nodes", "--cluster-id", EAST, "--since", "1y"], "--since '1y' is not understood"),
        (["watch", "--refresh", "0"], "missing a cluster id (--cluster-id): a watch covers one cluster"),
        (["watch", "--cluster-id", EAST, "--refresh", "0"], "--refresh 0: a watch reads every 1 to 3600 seconds"),
        (["watch", "--cluster-id", EAST, "--max-per-minute", "0"], "--max-per-minute 0: from 1 to"),
        (["watch", "--cluster-id", EAST, "--project", "a,b"], "--project must be non-empty printable text"),
        (["watch", "--cluster-id", EAST, "--lookback", "0h"], "--lookback '0h' must be longer than zero"),
    ],
)
def test_every_option_a_request_refuses_is_named_by_its_flag(args: list[str], words: str) -> None:
    """The engine names a request's option as data (core/usage.py); the command line says it as its flag."""
    code, out, err = _cli([args[0], "--demo", *args[1:]])
    assert code == 2 and out == "", err
    assert err.startswith(f"runai-triage {args[0]}: error: ") and words in err, err
    _no_traceback(err)


def test_the_advice_under_a_scan_and_the_nodes_view_names_their_flags() -> None:
    code, scanned, err = _cli(["scan", "--demo", "--cluster-id", EAST, "--since", "7d", "--max-workloads", "3"])
    assert code == 0, err
    assert "narrow the window or the project, or raise --max-workloads." in scanned
    code, nodes, err = _cli(["nodes", "--demo", "--cluster-id", EAST, "--max-failures", "1", "--format", "markdown"])
    assert code in (0, 4), err  # 4: a node crosses the threshold
    assert "Narrow the window or raise --max-failures." in nodes
    code, out, err = _cli(["nodes", "--demo", "--cluster-id", EAST, "--node", "no-such-node"])
    assert code == 1 and out == ""
    assert "Run it again with one of the node names above in --node, or a longer --since." in err, err


def test_diagnose_usage_error_names_the_lookback_option() -> None:
    code, _, err = _cli(["diagnose", "--demo", "--cluster-id", EAST, "--name", "x", "--project", "y",
                         "--lookback", "3y"])
    assert code == 2 and "--lookback '3y'" in err


# -- what to do when no report could be made -------------------------------------------------------------------------
def _faulty_case(tmp_path: Path, status: int) -> Path:
    case: dict[str, Any] = json.loads(OOM_CASE.read_text())
    case["faults"] = [{"match": "GET /api/v1/workloads/{id}", "status": status, "times": 100}]
    path = tmp_path / f"fault-{status}.json"
    path.write_text(json.dumps(case))
    return path


@pytest.mark.parametrize(
    ("status", "advice"),
    [(500, "server error"), (403, "ask the Run:ai administrator for a role")],
)
def test_the_advice_follows_what_the_tenant_answered(tmp_path: Path, status: int, advice: str) -> None:
    code, out, err = _cli(["diagnose", "--case", str(_faulty_case(tmp_path, status)), "--cluster-id", OOM_CLUSTER,
                           "--workload-id", OOM_ID])
    assert code == 1 and out == ""
    assert advice in err
    assert "Check the tenant URL, the credentials and the network" not in err


# -- record --------------------------------------------------------------------------------------------------------
def test_record_prints_a_replay_command_that_runs_as_pasted(tmp_path: Path) -> None:
    out_file = tmp_path / "my incident.json"  # a space: the command must be quoted to paste
    code, recorded, err = _cli(["record", "--demo", "--cluster-id", "demo-east", "--name", "llama-ft-7b",
                                "--project", "nlp", "--lookback", "7d", "--out", str(out_file)])
    assert code == 0, err
    replay = err.split("Replay: ", 1)[1].splitlines()[0]
    words = shlex.split(replay)
    assert words[:2] == ["runai-triage", "diagnose"]
    code, replayed, err = _cli(words[1:])
    assert code == 0, err
    assert replayed.splitlines()[0] == recorded.splitlines()[0]
    assert "History:" in replayed and "7d" in next(line for line in replayed.splitlines() if "History:" in line)


def test_a_recording_whose_workload_read_failed_says_so(tmp_path: Path) -> None:
    out_file = tmp_path / "failed.json"
    code, _, err = _cli(["record", "--case", str(_faulty_case(tmp_path, 500)), "--cluster-id", OOM_CLUSTER,
                         "--workload-id", OOM_ID, "--out", str(out_file)])
    assert code == 1 and out_file.exists()
    assert "1 failed read kept as a fault" in err
    assert "its own read returned no workload" in err
    assert "has no name, clusterId" not in err  # the answer was an error, not a workload missing fields


# -- servers on a port already taken ---------------------------------------------------------------------------------
@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.mark.parametrize("command", [["mcp", "--demo", "--http"], ["serve", "--demo", "--port"]])
def test_a_port_in_use_is_one_message_and_status_1(command: list[str], taken_port: int) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tui.cli", *command, str(taken_port)],
        cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 1, proc.stderr
    prog = f"runai-triage {command[0]}"
    assert proc.stderr.startswith(f"{prog}: cannot listen on 127.0.0.1:{taken_port}"), proc.stderr
    assert "Choose another port" in proc.stderr
    assert len(proc.stderr.splitlines()) == 2, proc.stderr
    _no_traceback(proc.stderr)


def test_serve_messages_name_the_command() -> None:
    code, _, err = _cli(["serve", "--demo", "--port", "99999"])
    assert code == 2 and err.startswith("runai-triage serve: error: --port 99999")
