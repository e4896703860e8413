"""`runai-triage mcp`, driven by the MCP SDK's own client: over stdio (the server as a subprocess, as an agent
host starts it) and over streamable HTTP on loopback. Tools listed, a diagnosis returned as structured content
equal to `diagnose --format json`, bad arguments answered with tool errors; and the rest of the command line
works without the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from core.sim.demo import demo_expectations
from tui.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
EAST = "5b77e6d6-7b53-5206-9a65-c6331d0e09cc"
TOOLS = {"diagnose_failed_workload", "list_workloads", "scan_failures"}
module_loop = pytest.mark.asyncio(loop_scope="module")


def _cli_json(argv: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(argv) == 0
    return json.loads(out.getvalue())


def _stdio() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "tui.cli", "mcp", "--demo"], cwd=str(ROOT))


@contextlib.asynccontextmanager
async def _http_server() -> AsyncIterator[str]:
    """`runai-triage mcp --demo --http 0` as a subprocess; yields its URL (read from its stderr)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tui.cli", "mcp", "--demo", "--http", "0",
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        line = await asyncio.wait_for(process.stderr.readline(), timeout=60)
        match = re.search(rb"http://127\.0\.0\.1:\d+/mcp", line)
        assert match, line
        yield match.group(0).decode()
    finally:
        process.terminate()
        with contextlib.suppress(ProcessLookupError, TimeoutError):
            await asyncio.wait_for(process.wait(), timeout=10)
        if process.returncode is None:
            process.kill()
            await process.wait()


OOM = next(c for c in demo_expectations() if c.get("lookup") == "id" and c["category"] == "OOM_KILLED")


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    """What `diagnose --format json` prints for the OOM story (made before any event loop runs)."""
    return _cli_json(["diagnose", "--demo", "--cluster-id", OOM["clusterId"], "--workload-id", OOM["workloadId"],
                      "--format", "json"])


async def _exercise(client: Client, expected: dict[str, Any]) -> None:
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    for tool in listed.tools:
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.description and "cluster_id" in tool.input_schema["required"]
    diagnose = next(t for t in listed.tools if t.name == "diagnose_failed_workload")
    assert diagnose.output_schema is not None and "outcome" in diagnose.output_schema["properties"]

    case = OOM
    result = await client.call_tool(
        "diagnose_failed_workload", {"cluster_id": case["clusterId"], "workload_id": case["workloadId"]}
    )
    assert not result.is_error, result.content
    report = result.structured_content
    assert report is not None and report["schema"] == "runai-triage/report@1"
    for key in ("outcome", "category", "workload", "evidence", "memory", "recurrence", "recommendations"):
        assert report[key] == expected[key], key

    # Missing identifiers: a tool error that says what to add; nothing is guessed.
    for arguments, words in (
        ({"cluster_id": EAST}, "missing workload_id, or workload_name and project"),
        ({"cluster_id": EAST, "workload_name": "llama-ft-7b"}, "missing project"),
        ({"cluster_id": "  ", "workload_id": case["workloadId"]}, "missing cluster_id"),
        ({"workload_id": case["workloadId"]}, "cluster_id"),
        ({"cluster_id": EAST, "workload_id": "../../etc"}, "workload_id"),
        ({"cluster_id": EAST, "workload_id": case["workloadId"], "lookback": "forever"}, "lookback"),
    ):
        bad = await client.call_tool("diagnose_failed_workload", arguments)
        assert bad.is_error, arguments
        assert words in bad.content[0].text, bad.content  # type: ignore[union-attr]
    wrong_type = await client.call_tool("list_workloads", {"cluster_id": EAST, "limit": "many"})
    said = wrong_type.content[0].text  # type: ignore[union-attr]
    # The tool's own words (issue 27, point 11): which argument, what it should be; no pydantic text or URL.
    assert wrong_type.is_error and "wrong argument: limit should be a valid integer" in said, said
    assert "pydantic" not in said and "http" not in said and "validation error for" not in said
    unknown_cluster = await client.call_tool("diagnose_failed_workload", {"cluster_id": "nowhere",
                                                                          "workload_id": case["workloadId"]})
    said = unknown_cluster.content[0].text  # type: ignore[union-attr]
    assert unknown_cluster.is_error and ".." not in said and "exact name. Run it again" in said, said
    # The option to give again is named as the tool's argument, not as the command line's flag.
    assert "above in cluster_id" in said and "--cluster-id" not in said, said
    unknown = await client.call_tool("delete_workload", {"cluster_id": EAST})
    assert unknown.is_error

    page = await client.call_tool("list_workloads", {"cluster_id": EAST, "needs_attention": True, "limit": 5})
    assert not page.is_error and page.structured_content is not None
    rows = page.structured_content["workloads"]
    assert 0 < len(rows) <= 5 and all(row["needsAttention"] for row in rows)
    assert page.structured_content["next"] is not None
    times = [row["phaseUpdatedAt"] for row in rows]
    assert times == sorted(times, reverse=True)

    scanned = await client.call_tool("scan_failures", {"cluster_id": EAST, "since": "2h"})
    assert not scanned.is_error and scanned.structured_content is not None
    assert scanned.structured_content["schema"] == "runai-triage/scan@1"
    assert all(r["report"]["schema"] == "runai-triage/report@1" for r in scanned.structured_content["results"])


@module_loop
async def test_over_stdio_with_the_sdk_client(expected: dict[str, Any]) -> None:
    async with Client(_stdio(), read_timeout_seconds=120) as client:
        await _exercise(client, expected)


@module_loop
async def test_over_streamable_http_with_the_sdk_client(expected: dict[str, Any]) -> None:
    async with _http_server() as url, Client(url, read_timeout_seconds=120) as client:
        await _exercise(client, expected)


@module_loop
async def test_a_name_lookup_resolves_as_diagnose_does() -> None:
    case = next(c for c in demo_expectations() if c.get("lookup") == "name" and c["outcome"] == "diagnosed")
    async with Client(_stdio(), read_timeout_seconds=120) as client:
        result = await client.call_tool("diagnose_failed_workload", {
            "cluster_id": case["clusterId"], "workload_name": case["name"], "project": case["project"],
            "lookback": case.get("lookback") or "24h", "active": case.get("intent") == "active",
        })
    assert result.structured_content is not None
    assert (result.structured_content["outcome"], result.structured_content["category"]) == (
        case["outcome"], case["category"])


@module_loop
async def test_a_reports_actions_are_worded_as_the_command_line_words_them() -> None:
    """An agent relays the report to someone who runs the command: its sentences that offer an action say the flag
    (`--active`, `--lookback`), as `diagnose --format json` does, never the app's key to press."""
    from core.models.advice import COMMAND_LINE, worded
    from core.models.report import ActionText
    from tui.next_steps import IN_THE_APP

    asked = [  # by name with --active (give the id, drop --active); by id (give the id, widen --lookback)
        {"cluster_id": EAST, "workload_name": "chat-agent", "project": "nlp", "active": True},
        {"cluster_id": EAST, "workload_id": "efa79f3d-4c5a-5ab7-928b-037f05728618"},
    ]
    async with Client(_stdio(), read_timeout_seconds=120) as client:
        results = [await client.call_tool("diagnose_failed_workload", arguments) for arguments in asked]
    for arguments, result in zip(asked, results, strict=True):
        report = result.structured_content
        assert not result.is_error and report is not None, result.content
        flags = ["--cluster-id", EAST] + (
            ["--name", "chat-agent", "--project", "nlp", "--active"] if "workload_name" in arguments
            else ["--workload-id", arguments["workload_id"]])
        cli = await asyncio.to_thread(_cli_json, ["diagnose", "--demo", *flags, "--format", "json"])
        assert report["actions"] and report["actions"] == cli["actions"]
        sentences = [report["nextAction"], *report["recommendations"], *report["notes"]]
        for key in ("nextAction", "recommendations", "notes"):
            assert report[key] == cli[key], key
        keys = {k for action in report["actions"] for k in action["keys"]}
        assert keys & {"drop_active", "widen_lookback"}
        for action in report["actions"]:
            assert action["text"] in sentences
            parts = ActionText.model_validate(action).said().parts
            assert action["text"] == worded(parts, COMMAND_LINE) != worded(parts, IN_THE_APP)
        apps = [words for forms in IN_THE_APP.values() for words in forms.values()]
        assert not any(words in sentence for words in apps for sentence in sentences if sentence)
        assert any(flag in " ".join(filter(None, sentences)) for flag in ("--active", "--lookback"))


def test_everything_else_runs_without_the_sdk_and_mcp_says_how_to_get_it() -> None:
    code = (
        "import sys, io, contextlib\n"
        "sys.modules['mcp'] = None  # as if the optional extra were not installed\n"
        "from tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    ok = main(['diagnose', '--demo', '--cluster-id', '{EAST}', '--name', 'llama-ft-7b',"
        " '--project', 'nlp'])\n"
        "err = io.StringIO()\n"
        "with contextlib.redirect_stderr(err):\n"
        "    missing = main(['mcp', '--demo'])\n"
        "print(ok, missing, err.getvalue())"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=120, check=False)
    assert run.stdout.startswith("0 1 "), run.stdout + run.stderr
    assert "pip install 'runai-triage[mcp]'" in run.stdout and "Traceback" not in run.stdout + run.stderr


@module_loop
async def test_list_workloads_takes_a_cluster_as_the_other_tools_do_and_errors_name_arguments() -> None:
    async with Client(_stdio(), read_timeout_seconds=120) as client:
        by_id = await client.call_tool("list_workloads", {"cluster_id": EAST, "limit": 3})
        by_name = await client.call_tool("list_workloads", {"cluster_id": "demo-east", "limit": 3})
        unknown = await client.call_tool("list_workloads", {"cluster_id": "no-such-cluster", "limit": 3})
        # An unknown project is an error in both tools (issue 34), never an empty page in one of them.
        no_project = await client.call_tool("list_workloads", {"cluster_id": EAST, "project": "nlpp", "limit": 3})
        no_project_scan = await client.call_tool("scan_failures", {"cluster_id": EAST, "project": "nlpp"})
        nlp = await client.call_tool("list_workloads", {"cluster_id": EAST, "project": "nlp", "limit": 3})
        window = await client.call_tool("scan_failures", {"cluster_id": EAST, "since": "2y"})
        prefix = await client.call_tool("scan_failures", {"cluster_id": EAST, "name_prefix": "a,b"})
    assert by_id.structured_content is not None and by_id.structured_content["workloads"]
    assert by_name.structured_content == by_id.structured_content  # a name is not an empty cluster
    assert unknown.is_error  # an unknown cluster is not "no workloads"
    assert "not a cluster of this tenant" in unknown.content[0].text  # type: ignore[union-attr]
    assert "demo-east" in unknown.content[0].text  # type: ignore[union-attr]
    for refused in (no_project, no_project_scan):
        assert refused.is_error and "is not a project of cluster" in refused.content[0].text  # type: ignore[union-attr]
        assert "nlp" in refused.content[0].text.split("Its projects:")[1]  # type: ignore[union-attr]
    assert nlp.structured_content is not None and nlp.structured_content["workloads"]
    # The words name the tool's arguments, never a command-line flag.
    assert window.is_error and "since '2y' is not understood" in window.content[0].text  # type: ignore[union-attr]
    assert prefix.is_error and "name_prefix must be" in prefix.content[0].text  # type: ignore[union-attr]
    assert "--" not in window.content[0].text + prefix.content[0].text  # type: ignore[union-attr]
