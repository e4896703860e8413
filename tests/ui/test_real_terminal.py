"""The app in a real terminal: `runai-triage --demo` started in a detached tmux session (120x40, and 80x24 for
the footer, paging and the project list), driven with
send-keys and read back with capture-pane, the way a user would see it.

This is the one UI test that goes through a real pseudo-terminal, the real driver and the real start-up path
(`python -m tui.cli --demo`), so it catches what the headless pilot cannot: escape sequences leaking onto the
screen, a start-up that needs a tty, or `q` that does not end the process.
"""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from core.sim.demo import demo_expectations

REPO = Path(__file__).resolve().parents[2]
WIDTH, HEIGHT = 120, 40
# A failed story that the name filter finds alone, on the demo's first cluster (the one shown at start).
STORY = "crash-traceback"
DEADLINE_S = 20.0
# The private tmux server passes its environment on to the app. Under pytest COLUMNS=80 is set, and the app
# (through shutil.get_terminal_size) would believe it over the pane's real 120 columns. The app's settings
# and files go to the test's own directories (see `isolated_settings`), read here when the server starts.
def server_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}


class Tmux:
    """One private tmux server (its own socket) holding one session."""

    def __init__(self, config_dir: Path, width: int = WIDTH, height: int = HEIGHT) -> None:
        tag = uuid.uuid4().hex[:10]
        self.width, self.height = width, height
        self.socket = f"runai-triage-test-{tag}"
        self.session = f"triage-{tag}"
        self.socket_path: Path | None = None
        # Our own config instead of ~/.tmux.conf: a fixed size that no later resize recomputes away (with no
        # client attached tmux falls back to default-size), and no status line, so the pane is 120x40.
        self.config = config_dir / "tmux.conf"
        self.config.write_text(f"set -g default-size {width}x{height}\nset -g status off\n", encoding="utf-8")

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(self.config), *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=10,
            env=server_env(),
        )

    def start(self, command: list[str]) -> None:
        self.run(
            "new-session", "-d", "-s", self.session, "-x", str(self.width), "-y", str(self.height),
            "-c", str(REPO), shlex.join(command),
        )
        found = self.run("display-message", "-p", "-t", self.session, "#{socket_path}").stdout.strip()
        self.socket_path = Path(found) if found else None

    def size(self) -> str:
        shown = self.run("display-message", "-p", "-t", self.session, "#{pane_width}x#{pane_height}")
        return shown.stdout.strip()

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.run("send-keys", "-t", self.session, *(["-l"] if literal else []), *keys)

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session).stdout

    def alive(self) -> bool:
        return self.run("has-session", "-t", self.session, check=False).returncode == 0

    def kill(self) -> None:
        self.run("kill-server", check=False)
        # tmux leaves the socket file of a killed server behind; it is ours, so it goes too.
        if self.socket_path is not None:
            self.socket_path.unlink(missing_ok=True)


def wait_for(tmux: Tmux, ready: Callable[[str], bool], what: str) -> str:
    """Poll the screen until `ready(screen)` holds; on timeout, fail showing the last screen."""
    deadline = time.monotonic() + DEADLINE_S
    screen = ""
    while time.monotonic() < deadline:
        if not tmux.alive():
            raise AssertionError(f"{what}: the app exited first. Last screen:\n{screen}")
        screen = tmux.screen()
        if ready(screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{what}: not on screen within {DEADLINE_S:.0f} s. Last screen:\n{screen}")


def quit_and_wait(tmux: Tmux) -> None:
    """Press q and wait for the process to end: the app must not linger."""
    tmux.keys("q")
    deadline = time.monotonic() + DEADLINE_S
    while tmux.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not tmux.alive(), "the app was still running 20 s after q"


def table_rows(screen: str) -> list[str]:
    """The data rows of the workload table: the lines below the column titles, up to the first blank one."""
    lines = screen.splitlines()
    for index, line in enumerate(lines):
        if "Phase" in line and "Name" in line and "Project" in line:
            rows: list[str] = []
            for row in lines[index + 1 :]:
                if not row.strip() or row.lstrip().startswith(("message:", "attention:")):
                    break
                rows.append(row)
            return rows
    return []


# A verdict: the banner's symbol, then an upper-case category or a route-out outcome. Picker rows start with
# the same symbols but follow them with a phase word ("✗ Failed"), which this does not match.
VERDICT = re.compile(r"^[^\w]*([✗?→] (?:Outcome: \S+|[A-Z][A-Z_]+\b).*)$", re.MULTILINE)


def banner_line(screen: str) -> str | None:
    """The banner's first line (`✗ CATEGORY — …`, `→ Outcome: …`), once the diagnosis screen shows."""
    if "· diagnosis" not in screen:
        return None
    match = VERDICT.search(screen)
    return match.group(1).rstrip() if match else None


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_demo_in_tmux_finds_a_failed_workload_and_reads_its_verdict(tmp_path: Path) -> None:
    case = {c["key"]: c for c in demo_expectations()}[STORY]
    name, category = case["name"], case["category"]
    assert category, f"{STORY} is expected to be diagnosed with a category"
    tmux = Tmux(tmp_path)
    try:
        tmux.start([sys.executable, "-m", "tui.cli", "--demo"])
        assert tmux.size() == f"{WIDTH}x{HEIGHT}"
        wait_for(tmux, lambda s: "rows 1-" in s and "loading" not in s, "the picker's first page")

        tmux.keys("a")
        wait_for(tmux, lambda s: "NEEDS ATTENTION" in s and "loading" not in s, "needs attention")

        # Typed straight after `/`: the app hands each key on where the one before left the focus.
        tmux.keys("/")
        tmux.keys(name, literal=True)
        # The filter bar is in the top lines: the typed name must show there before it is submitted.
        wait_for(tmux, lambda s: name in "\n".join(s.splitlines()[:5]), "the typed name in the filter bar")
        tmux.keys("Enter")

        # Every row left is the named failed workload: the filter was submitted (which also moved the focus
        # back to the table, so enter now diagnoses) and its page has arrived.
        def filtered(screen: str) -> bool:
            rows = table_rows(screen)
            only_it = bool(rows) and all(name in r and "Failed" in r for r in rows)
            return only_it and "loading" not in screen

        picked = wait_for(tmux, filtered, f"only {name} in the rows that need attention")
        assert "NEEDS ATTENTION" in picked

        tmux.keys("Enter")

        screen = wait_for(tmux, lambda s: banner_line(s) is not None, "the verdict banner")
        line = banner_line(screen)
        assert line is not None and line.startswith(f"✗ {category} "), f"banner says {line!r}"
        assert name in screen
        assert "READ-ONLY" in screen
        assert "\x1b" not in screen, "a raw escape character reached the screen"

        quit_and_wait(tmux)
    finally:
        tmux.kill()


def open_list(screen: str, option: str) -> bool:
    """The open project list is on screen, `option` listed under "all projects" (the closed box's own line,
    "all projects ▼", has the box's border under it)."""
    lines = screen.splitlines()
    for line, below in itertools.pairwise(lines):
        column = line.find("all projects")
        if column >= 0 and below[column : column + len(option) + 1] == option + " ":
            return True
    return False


def rows_span(screen: str) -> tuple[int, int] | None:
    match = re.search(r"rows (\d[\d,]*)-(\d[\d,]*) of", screen)
    return (int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))) if match else None


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_demo_in_tmux_at_80_columns_pages_and_picks_a_project(tmp_path: Path) -> None:
    from core.sim.demo import load_demo_bundle

    bundle = load_demo_bundle()
    cluster = str(bundle.clusters[0]["uuid"])
    first_project = sorted((p["name"] for p in bundle.projects if p["clusterId"] == cluster), key=str.casefold)[0]
    tmux = Tmux(tmp_path, 80, 24)
    try:
        tmux.start([sys.executable, "-m", "tui.cli", "--demo"])
        assert tmux.size() == "80x24"
        screen = wait_for(tmux, lambda s: rows_span(s) is not None and "loading" not in s, "the first page")
        # Everything a new user needs is in the footer at 80 columns.
        footer = screen.rstrip("\n").splitlines()[-1]
        for words in ("⏎ diagnose", "/ filter", "? help", ": commands", "q quit"):
            assert words in footer, (words, footer)
        span = rows_span(screen)
        assert span is not None
        n = span[1]
        # Five presses sent at once: every one counts.
        tmux.keys("]", "]", "]", "]", "]")
        wait_for(tmux, lambda s: rows_span(s) == (5 * n + 1, 6 * n) and "loading" not in s, "five pages on")
        tmux.keys("g")
        wait_for(tmux, lambda s: rows_span(s) == (1, n) and "loading" not in s, "back to the first page")
        # p opens the project list, with the projects in it (not just "all projects"); esc closes it.
        tmux.keys("p")
        wait_for(tmux, lambda s: open_list(s, first_project), "the open project list with its projects")
        tmux.keys("Escape")
        closed = re.compile(r"all projects\s+▼")
        wait_for(tmux, lambda s: not open_list(s, first_project) and closed.search(s) is not None, "the list closed")
        # p, Down, Enter as fast as a k9s user types them (one send, no pause): the first project is picked, the
        # rows follow it, and no diagnosis opens (issue 38: the enter reached the table).
        tmux.keys("p", "Down", "Enter")

        def in_project(screen: str) -> bool:
            rows = table_rows(screen)
            return bool(rows) and all(f" {first_project} " in r for r in rows) and "loading" not in screen

        screen = wait_for(tmux, lambda s: in_project(s) or "· diagnosis" in s, f"only rows of project {first_project}")
        assert in_project(screen), f"the keys did not pick project {first_project}:\n{screen}"
        # The keys are back with the table: j moves the cursor, and the page keys still page.
        tmux.keys("]")
        wait_for(tmux, lambda s: (rows_span(s) or (0, 0))[0] == n + 1 and in_project(s), "the project's page 2")
        assert "\x1b" not in tmux.screen()
        quit_and_wait(tmux)
    finally:
        tmux.kill()


def evidence_lines(screen: str) -> list[str]:
    """The lines of the tab under the tab bar (the heavy rule), down to the footer, without the scrollbar."""
    lines = screen.rstrip("\n").splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(("━", "╸")))
    return [line.rstrip(" ▁▂▃▄▅▆▇█") for line in lines[start + 1 : -1]]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_demo_in_tmux_each_diagnosis_opens_at_the_top_and_j_scrolls_at_once(tmp_path: Path) -> None:
    """Issue 27, point 1: after one diagnosis is scrolled to its end, the next opens at its top (its Reason
    on screen at 80x24), and j, PageDown and Home move the text at once, with no key pressed first."""
    cases = {c["key"]: c for c in demo_expectations()}
    first, second = cases["oom-rising"], cases["long-history"]
    tmux = Tmux(tmp_path, 80, 24)
    try:
        tmux.start([sys.executable, "-m", "tui.cli", "--demo", "--cluster-id", first["clusterId"],
                    "--workload-id", first["workloadId"]])
        screen = wait_for(tmux, lambda s: banner_line(s) is not None, "the first verdict")
        heading = evidence_lines(screen)[0]
        assert heading.lstrip().startswith("Evidence"), heading  # the tab's first line: at its top
        tmux.keys("x")  # every evidence line: longer than the pane
        screen = wait_for(tmux, lambda s: evidence_lines(s)[0].lstrip().startswith("Every evidence line"), "x")
        top = evidence_lines(screen)
        tmux.keys("j")
        wait_for(tmux, lambda s: evidence_lines(s)[0] == top[1], "j scrolling the evidence one line")
        tmux.keys("End")
        wait_for(tmux, lambda s: top[0] not in evidence_lines(s), "the end of the evidence")
        tmux.keys("Escape")
        wait_for(tmux, lambda s: rows_span(s) is not None, "the picker")
        # Straight to the second workload by name, through the filter.
        tmux.keys("/")
        tmux.keys(second["name"], literal=True)
        tmux.keys("Enter")
        wait_for(tmux, lambda s: (rows := table_rows(s)) != [] and all(second["name"] in r for r in rows), "filtered")
        tmux.keys("Enter")
        screen = wait_for(tmux, lambda s: second["name"] in s and banner_line(s) is not None, "the second verdict")
        shown = evidence_lines(screen)
        assert shown[0].lstrip().startswith("Evidence"), f"opened scrolled:\n{screen}"
        tmux.keys("x")
        screen = wait_for(tmux, lambda s: evidence_lines(s)[0].lstrip().startswith("Every evidence line"), "x")
        tmux.keys("PageDown")
        wait_for(tmux, lambda s: not evidence_lines(s)[0].lstrip().startswith("Every"), "PageDown moving it")
        tmux.keys("Home")
        wait_for(tmux, lambda s: evidence_lines(s)[0].lstrip().startswith("Every"), "Home back at the top")
        assert "\x1b" not in tmux.screen()
        quit_and_wait(tmux)
    finally:
        tmux.kill()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_demo_in_tmux_at_80_columns_gives_the_words_room(tmp_path: Path) -> None:
    """Issue 27, point 8, as a user sees it at 80x24: verdicts whole in the picker and its tally whole, an
    event's message readable on the Events tab, and `Next:` on the banner beside a ⚑ line."""
    cases = {c["key"]: c for c in demo_expectations()}
    tmux = Tmux(tmp_path, 80, 24)
    try:
        tmux.start([sys.executable, "-m", "tui.cli", "--demo"])
        wait_for(tmux, lambda s: rows_span(s) is not None and "loading" not in s, "the first page")
        tmux.keys("a")

        def tallied(screen: str) -> bool:
            line = next((x for x in screen.splitlines() if x.lstrip().startswith("verdicts:")), "")
            return "IMAGE_PULL_FAILED" in screen and line != "" and "(" not in line  # every verdict in

        screen = wait_for(tmux, tallied, "the needs-attention page with its verdicts")
        assert "IMAGE_PULL_FAI…" not in screen and "DATASOURCE_MOU…" not in screen
        tally = next(x for x in screen.splitlines() if x.lstrip().startswith("verdicts:"))
        assert not tally.rstrip().endswith("…"), tally
        quit_and_wait(tmux)
    finally:
        tmux.kill()
    for key, check in (("pull-dns", "6"), ("xid79-16pod", None)):
        case = cases[key]
        tmux = Tmux(tmp_path, 80, 24)
        try:
            tmux.start([sys.executable, "-m", "tui.cli", "--demo", "--cluster-id", case["clusterId"],
                        "--workload-id", case["workloadId"]])
            screen = wait_for(tmux, lambda s: banner_line(s) is not None, f"the verdict of {key}")
            if check is None:
                banner = screen.splitlines()[1:5]
                assert any("⚑" in line for line in banner) and any("Next:" in line for line in banner), screen
            else:
                tmux.keys(check)
                # The whole message, cause included, in lines nearly as wide as the screen.
                def events_tab(s: str) -> bool:
                    message = " ".join(x.strip() for x in evidence_lines(s) if x.startswith("     "))
                    return "Warning  Failed" in s and "no such host" in message

                screen = wait_for(tmux, events_tab, "the event's whole message on the Events tab")
                lines = [x for x in evidence_lines(screen) if x.startswith("     ")]
                assert lines and max(len(x) for x in lines) >= 60, screen
            assert "\x1b" not in screen
            quit_and_wait(tmux)
        finally:
            tmux.kill()
