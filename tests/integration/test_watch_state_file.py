"""The watch's state file loses nothing: a corrupt file is recovered from its `.bak` (and kept aside), or refused
untouched when there is none; a newer version is refused; a directory or a place that cannot be written is a
usage error before anything is delivered; a second watch on the same file is refused while the first goes on;
saves from two writers never leave a reader a half-written file; a watch killed with SIGKILL while it posts
loses no failure when restarted, and posts at most the one it was making again (each post carries its key).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from core.notify.ledger import SCHEMA, Ledger
from core.notify.ledger_versions import STATE_VERSIONS
from core.notify.state_file import StateFile, StateLocked
from tests.integration.test_watch import ROOT, run_cli
from tests.integration.test_watch_delivery import printed_keys
from tests.integration.webhook_receiver import Receiver

ONCE = ("watch", "--demo", "--cluster-id", "demo-east", "--since", "30m", "--once", "--format", "jsonl")


def once(state: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*ONCE, "--state", str(state), *extra)


@pytest.fixture
def delivered(tmp_path: Path) -> tuple[Path, list[str]]:
    """A state file after one run that printed the demo's last half hour (and its `.bak`)."""
    state = tmp_path / "s.json"
    first = once(state)
    assert first.returncode == 0, first.stderr
    keys = printed_keys(first.stdout)
    assert len(keys) >= 5 and state.with_name("s.json.bak").exists()
    return state, keys


@pytest.mark.parametrize("damage", ["truncated", "not json", "empty", "another format"])
def test_a_damaged_file_is_recovered_from_its_copy_and_kept_aside(delivered: tuple[Path, list[str]],
                                                                  damage: str) -> None:
    state, _ = delivered
    whole = state.read_bytes()
    state.write_bytes({"truncated": whole[: len(whole) // 2], "not json": b"\x00\x01garbage", "empty": b"",
                       "another format": b'{"schema": "something/else@1"}'}[damage])
    damaged = state.read_bytes()
    again = once(state)
    assert again.returncode == 0, again.stderr
    assert again.stdout == ""  # what the copy recorded is not delivered again
    if damage != "empty":
        assert "could not be read" in again.stderr and "goes on from the copy saved before it" in again.stderr
        aside = [p for p in state.parent.iterdir() if p.name.startswith("s.json.unreadable-")]
        assert len(aside) == 1 and aside[0].read_bytes() == damaged  # kept, not overwritten


def test_a_damaged_file_without_a_readable_copy_is_refused_untouched(delivered: tuple[Path, list[str]]) -> None:
    state, _ = delivered
    state.with_name("s.json.bak").unlink()
    state.write_bytes(state.read_bytes()[:40])
    damaged = state.read_bytes()
    again = once(state)
    assert again.returncode == 1 and again.stdout == ""
    assert "could not be read" in again.stderr and "move it aside to start afresh" in again.stderr
    assert state.read_bytes() == damaged


def test_an_empty_file_without_a_copy_is_a_fresh_start(tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    state.write_bytes(b"")
    run = once(state)
    assert run.returncode == 0 and "was empty: starting afresh" in run.stderr and run.stdout


def test_a_file_of_a_newer_version_is_refused_untouched(delivered: tuple[Path, list[str]]) -> None:
    state, _ = delivered
    data = json.loads(state.read_text())
    data["schema"] = f"runai-triage/watch-state@{max(STATE_VERSIONS) + 1}"
    data["somethingNew"] = [1, 2, 3]
    state.write_text(json.dumps(data))
    newer = state.read_bytes()
    again = once(state)
    assert again.returncode == 1 and again.stdout == ""
    assert "written by a newer runai-triage" in again.stderr
    assert state.read_bytes() == newer


def test_a_version_1_file_is_read_and_upgraded(tmp_path: Path, delivered: tuple[Path, list[str]]) -> None:
    state, _ = delivered
    ledger = Ledger.from_json(json.loads(state.read_text()))
    old = tmp_path / "old.json"
    # What version 1 wrote for the same deliveries: (workload id, phaseUpdatedAt) pairs, and a watermark.
    first = once(tmp_path / "ignored.json")
    pairs = [[json.loads(line)["workload"]["id"], json.loads(line)["workload"]["phaseUpdatedAt"]]
             for line in first.stdout.splitlines()]
    old.write_text(json.dumps({"schema": "runai-triage/watch-state@1", "scope": ledger.scope,
                               "watermark": "2026-11-30T12:00:00+00:00", "delivered": pairs}))
    again = once(old)
    assert again.returncode == 0 and again.stdout == ""  # nothing delivered twice after the upgrade
    assert json.loads(old.read_text())["schema"] == SCHEMA


@pytest.mark.parametrize("where", ["directory", "under a file"])
def test_a_state_that_cannot_be_kept_is_a_usage_error(tmp_path: Path, where: str) -> None:
    if where == "directory":
        target, said = tmp_path, "is a directory"
    else:
        (tmp_path / "plain").write_text("x")
        target, said = tmp_path / "plain" / "s.json", "cannot write there"
    run = once(target)
    assert run.returncode == 2 and said in run.stderr and run.stdout == "" and "Traceback" not in run.stderr


def test_a_second_watch_on_one_state_file_is_refused_while_the_first_goes_on(tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    first = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "watch", "--demo", "--cluster-id", "demo-east", "--since", "30m",
         "--format", "jsonl", "--state", str(state)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    try:
        assert first.stderr is not None
        assert "watching cluster" in first.stderr.readline()
        second = once(state)
        assert second.returncode == 1 and second.stdout == ""
        assert f"in use by another watch (process {first.pid})" in second.stderr
        first.send_signal(signal.SIGINT)
        out, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0 and "stopped after" in err
    # Stopped while its first sweep may still have been delivering: the next run delivers the rest, and only that.
    third = once(state)  # the lock went with the first watch
    assert third.returncode == 0
    before, after = printed_keys(out), printed_keys(third.stdout)
    assert not set(before) & set(after) and set(before) | set(after) == set(printed_keys(once(state.with_name(
        "fresh.json")).stdout))


def test_the_lock_is_held_in_process_too(tmp_path: Path) -> None:
    one, two = StateFile(tmp_path / "s.json", STATE_VERSIONS), StateFile(tmp_path / "s.json", STATE_VERSIONS)
    one.lock()
    try:
        with pytest.raises(StateLocked):
            two.lock()
    finally:
        one.unlock()
    two.lock()
    two.unlock()


def test_saves_from_two_writers_never_show_a_reader_half_a_file(tmp_path: Path) -> None:
    # Past the lock (as two watches of an older version would be): every save still replaces the file whole.
    path = tmp_path / "s.json"
    writers = [StateFile(path, STATE_VERSIONS) for _ in range(2)]
    problems: list[str] = []
    bad_reads = 0
    stop = threading.Event()

    def write(index: int) -> None:
        for n in range(300):
            body = {"schema": SCHEMA, "scope": "x", "destinations": {}, "writer": index, "n": n,
                    "padding": "p" * (1000 + 37 * n)}
            problem = writers[index].save(body)
            if problem:
                problems.append(problem)

    def read() -> None:
        nonlocal bad_reads
        while not stop.is_set():
            try:
                text = path.read_text()
            except FileNotFoundError:
                continue
            try:
                json.loads(text)
            except ValueError:
                bad_reads += 1

    threads = [threading.Thread(target=write, args=(i,)) for i in range(2)]
    reader = threading.Thread(target=read)
    reader.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    reader.join()
    assert problems == [] and bad_reads == 0
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no scratch file left behind


def test_a_watch_killed_while_it_posts_loses_nothing_when_restarted(tmp_path: Path) -> None:
    expected = set(printed_keys(once(tmp_path / "all.json").stdout))  # what the half hour holds
    assert len(expected) >= 5
    state = tmp_path / "s.json"
    with Receiver() as receiver:
        receiver.delay_s = 0.3  # slow enough to be killed between posts
        command = [sys.executable, "-m", "tui.cli", "watch", "--demo", "--cluster-id", "demo-east", "--since", "30m",
                   "--format", "jsonl", "--state", str(state), "--post", receiver.url]
        outputs: list[str] = []
        for _ in range(2):  # killed twice, part-way through its posts
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                       cwd=ROOT)
            start = len(receiver.keys())
            deadline = time.monotonic() + 60
            while len(receiver.keys()) < start + 2 and time.monotonic() < deadline:
                time.sleep(0.02)
            process.send_signal(signal.SIGKILL)
            out, _ = process.communicate(timeout=30)
            outputs.append(out)
        assert set(receiver.keys()) < expected  # the kills came before the end
        receiver.delay_s = 0.0
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        deadline = time.monotonic() + 90
        while set(receiver.keys()) != expected and time.monotonic() < deadline:
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        outputs.append(out)
    posted = Counter(receiver.keys())
    assert set(posted) == expected, "a failure was lost"
    assert sum(posted.values()) - len(posted) <= 2  # at most the post in flight at each kill, once more
    printed = Counter(key for text in outputs for key in printed_keys(text))
    assert set(printed) == expected and sum(printed.values()) - len(printed) <= 2
    assert "stopped after" in err
