"""The command line names each option a message of the engine mentions as its flag, word for word: the watch's
state file and webhook messages, the report's pointer to `--verbose` and its `--now` history line, and why Tier 2
was not read (`--no-kube`, `--kubeconfig`, `--kube-context`). The engine holds those options as data
(core/usage.py); these are the messages as `watch` and `diagnose` print them, through the real commands.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.models.report import Report
from core.notify.deliveries import PostTarget
from core.notify.ledger import Ledger
from core.notify.ledger_versions import STATE_VERSIONS
from core.notify.state_file import StateFile
from core.sim.bundle import load_bundle
from core.sim.control_plane import ControlPlane
from core.sim.kubeconfig import write_kubeconfig
from core.sim.loopback import LoopbackServer
from core.triage.watched import Wording
from tests.golden.make_golden import GOLDEN
from tests.paths import CASES
from tests.unit.test_chat_dialects import entry_of
from tui import cli
from tui.commands.headless import usage_words
from tui.commands.start import flag

WATCH = ("watch", "--demo", "--cluster-id", "demo-east", "--since", "30m", "--once", "--format", "jsonl")
SEE_HELP = "  See `runai-triage watch --help` for the options."


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- watch: the state file ------------------------------------------------------------------------------------
def test_a_state_that_is_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out, err = run(capsys, *WATCH, "--state", str(tmp_path))
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        f"runai-triage watch: error: --state {tmp_path} is a directory: give the path of a file (it is created)",
        SEE_HELP,
    ]


def test_a_state_where_nothing_can_be_written(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    target = tmp_path / "plain" / "s.json"
    status, out, err = run(capsys, *WATCH, "--state", str(target))
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        f"runai-triage watch: error: --state {target}: cannot write there (File exists); give a file in a "
        "directory this user can write",
        SEE_HELP,
    ]


def test_a_state_this_user_cannot_read(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "s.json"
    state.write_text("{}")
    # The tests run as root, whom no mode bit stops: the system's answer is what is stood in for.
    monkeypatch.setattr(os, "access", lambda path, mode, **_: Path(path) != state)
    status, out, err = run(capsys, *WATCH, "--state", str(state))
    assert (status, out) == (2, "")
    assert err.splitlines() == [f"runai-triage watch: error: --state {state}: this user cannot read it", SEE_HELP]


def test_a_state_in_use_by_another_watch(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    holder = StateFile(state, STATE_VERSIONS)
    holder.lock()  # flock: a second open file of this process is refused as another process's would be
    try:
        status, out, err = run(capsys, *WATCH, "--state", str(state))
    finally:
        holder.unlock()
    assert (status, out) == (1, "")
    assert err.splitlines()[-1] == (
        f"runai-triage watch: {state} is in use by another watch (process {os.getpid()}): two watches on one state "
        "file would deliver every failure twice. Stop the other one, or give this one its own --state file."
    )


def test_a_state_that_cannot_be_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    state.write_text("not json")
    status, out, err = run(capsys, *WATCH, "--state", str(state))
    assert (status, out) == (1, "")
    assert err.splitlines()[-1] == (
        f"runai-triage watch: {state} could not be read (JSONDecodeError: Expecting value: line 1 column 1 "
        "(char 0)), and s.json.bak cannot replace it (there is no earlier copy). It was left as it is: move it "
        "aside to start afresh (what it recorded may then be delivered again), or give another --state file."
    )


def test_a_state_of_a_newer_version(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    newer = f"runai-triage/watch-state@{max(STATE_VERSIONS) + 1}"
    state.write_text(json.dumps({"schema": newer}))
    status, out, err = run(capsys, *WATCH, "--state", str(state))
    assert (status, out) == (1, "")
    assert err.splitlines()[-1] == (
        f"runai-triage watch: {state} was written by a newer runai-triage ({newer}); this one reads versions up "
        f"to {max(STATE_VERSIONS)}, and would lose what it does not know. Run the newer version, or give this "
        "watch another --state file."
    )


def test_a_state_of_another_watch(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    state.write_text(json.dumps(Ledger("another tenant / cluster x").to_json()))
    status, out, err = run(capsys, *WATCH, "--state", str(state))
    assert (status, out) == (1, "")
    assert err.splitlines()[-1] == (
        "runai-triage watch: the state file keeps the state of another watch ('another tenant / cluster x'); "
        "give this one its own --state file"
    )


# -- watch: the webhooks --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://[::1", "--post: not a URL"),
        ("hooks.example.com/x", "--post: give an http:// or https:// URL of an incoming webhook"),
        ("https://u:p@hooks.example.com/x",
         "--post: a URL with a user name or password is not used; incoming webhooks need none"),
    ],
)
def test_a_webhook_url_that_cannot_be_posted_to(capsys: pytest.CaptureFixture[str], tmp_path: Path, url: str,
                                                said: str) -> None:
    status, out, err = run(capsys, *WATCH, "--state", str(tmp_path / "s.json"), "--post", url)
    assert (status, out) == (2, "")
    assert err.splitlines() == [f"runai-triage watch: error: {said}", SEE_HELP]


def test_a_chat_dialect_not_known() -> None:
    # argparse's choices stop it on the command line; a caller of PostTarget gets the same words.
    with pytest.raises(ValueError) as info:
        PostTarget.of("https://hooks.example.com/x", "teams")
    assert usage_words(info.value) == "--post-format 'teams': one of slack, mattermost, markdown"


# -- diagnose: the report's own lines -------------------------------------------------------------------------
def _golden(key: str) -> dict:
    return json.loads((GOLDEN / "demo" / f"{key}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_short_report_points_to_verbose(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    record = _golden("di-leader-oom")
    request = record["request"]
    status, out, err = run(capsys, "diagnose", "--demo", "--cluster-id", request["cluster_id"], "--workload-id",
                           request["workload_id"], "--format", fmt)
    assert status == 0, err
    assert out == "\n".join(record[fmt])  # what the golden record holds is what the command prints
    if fmt == "text":
        assert "- and 8 more lines: --verbose (also the memory figures and 3 notes)" in out.splitlines()


def test_a_now_before_the_failure_is_named_as_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "diagnose", "--demo", "--cluster-id", "demo-east", "--name", "llama-ft-7b",
                           "--project", "nlp", "--now", "2026-11-30T09:00:00Z")
    assert status == 0, err
    history = next(line for line in out.splitlines() if line.startswith("History: "))
    assert history == ("History: no occurrence of OOM_KILLED inside the last 24h; the failure diagnosed is after "
                       "the moment given as --now, so it is not counted")


def test_the_watchs_markdown_says_the_history_as_diagnose_does(capsys: pytest.CaptureFixture[str]) -> None:
    # A watch has no --now of its own; the report it prints whole is the one `diagnose` words, flag and all.
    late = ("diagnose", "--demo", "--cluster-id", "demo-east", "--name", "llama-ft-7b", "--project", "nlp", "--now",
            "2026-11-30T09:00:00Z")
    status, out, err = run(capsys, *late, "--format", "json")
    assert status == 0, err
    report = Report.model_validate_json(out)
    status, markdown, err = run(capsys, *late, "--format", "markdown")
    assert status == 0, err
    entry = entry_of(report)
    printed = Wording("markdown", lambda _: "runai-triage diagnose ...", None, flag).of(entry, "k").printed()
    assert printed.endswith(f"{markdown}\n---\n\n")
    assert "after the moment given as --now, so it is not counted" in printed
    plainly = Wording("markdown", lambda _: "runai-triage diagnose ...").of(entry, "k").printed()
    assert "after the moment given as now, so it is not counted" in plainly


# -- why Tier 2 was not read ----------------------------------------------------------------------------------
TIER2 = "Kubernetes evidence (pod, previous log, events, node)"


def _tier2_why(report: dict) -> str:
    return next(m["why"] for m in report["missing"] if m["what"] == TIER2)


def test_no_kube_is_said_as_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    request = _golden("di-leader-oom")["request"]
    status, out, err = run(capsys, "diagnose", "--demo", "--no-kube", "--cluster-id", request["cluster_id"],
                           "--workload-id", request["workload_id"], "--format", "json")
    assert status == 0, err
    assert _tier2_why(json.loads(out)) == "Tier 2 unavailable: disabled with --no-kube"


CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
OOM_ID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"


@pytest.fixture
def real_tenant(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[ControlPlane, str]]:
    """The OOM example served as a real tenant on loopback, with an access key in the environment only."""
    for name in list(os.environ):
        if name.startswith(("RUNAI_", "KUBE")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("RUNAI_CLIENT_ID", "triage-ci")
    monkeypatch.setenv("RUNAI_CLIENT_SECRET", "s3cret-for-the-token-endpoint")
    plane = ControlPlane(load_bundle(CASES / "example-oom.json"))
    with LoopbackServer(plane) as server:
        yield plane, server.url


def _real(capsys: pytest.CaptureFixture[str], url: str, kubeconfig: Path) -> dict:
    status, out, err = run(capsys, "diagnose", "--base-url", url, "--kubeconfig", str(kubeconfig), "--cluster-id",
                           CLUSTER, "--workload-id", OOM_ID, "--now", "2026-11-30T12:00:00Z", "--format", "json")
    assert status == 0, err
    return json.loads(out)


def test_a_kubeconfig_not_found_names_the_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                               real_tenant: tuple[ControlPlane, str]) -> None:
    _, url = real_tenant
    missing = tmp_path / "nope"
    said = _tier2_why(_real(capsys, url, missing))
    assert said == f"Tier 2 unavailable: no kubeconfig found at {missing} (--kubeconfig)"


def test_a_kubeconfig_without_a_context_names_the_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       real_tenant: tuple[ControlPlane, str]) -> None:
    plane, url = real_tenant
    path = write_kubeconfig(tmp_path / "kubeconfig", url, plane.kube_token)
    path.write_text("\n".join(line for line in path.read_text().splitlines() if "current-context" not in line))
    assert _tier2_why(_real(capsys, url, path)) == (
        f"Tier 2 unavailable: kubeconfig unreadable: {path}: no current-context set; pass --kube-context"
    )
