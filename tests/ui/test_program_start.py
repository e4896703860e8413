"""The app as the program starts it (tui/cli.py `main`): the options read by a parser that loads nothing else,
the demo or case tenant's simulator started in a process of its own, then the app (tui.app.program_app) opening
it over real HTTP. Real processes, the real clients, the pilot driving the app."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from textual.pilot import Pilot

from core.sim.bundle import CaseBundle
from core.sim.process import SimProcess
from tests.processes import wait_gone
from tests.ui.conftest import loaded_picker, settle
from tests.ui.test_picker import first_cluster, listed, rows
from tui.app import TriageApp, program_app
from tui.cli import build_parser, start_simulator
from tui.commands.app_args import app_arguments
from tui.commands.start import (
    BUNDLE_HINTS,
    ServedOpener,
    StartOptions,
    StartProblem,
    UsageError,
    open_tenant,
    options_from_args,
)
from tui.screens.picker.screen import PickerScreen
from tui.screens.problem import ProblemScreen

SIZE = (120, 40)


def launched(*argv: str) -> tuple[argparse.Namespace, SimProcess]:
    """What `runai-triage ARGV` does before its app loads: the options read and the simulator started (the
    collector stays on: `launch_app` turns it off for the program's start-up alone)."""
    args = app_arguments(argv)
    assert args is not None
    simulator = start_simulator(args)
    assert simulator is not None
    return args, simulator


async def problem_shown(pilot: Pilot[None]) -> StartProblem:
    await settle(pilot, lambda: isinstance(pilot.app.screen, ProblemScreen))
    screen = pilot.app.screen
    assert isinstance(screen, ProblemScreen)
    return screen.problem


async def test_the_program_opens_the_demo_picker_on_rows_from_the_simulators_process(
    demo_bundle: CaseBundle,
) -> None:
    args, simulator = launched("--demo")
    app = program_app(args, simulator, cursor_blink=False, freeze_after_open=False)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        screen = await loaded_picker(pilot)
        tenant = app.tenant
        assert tenant is not None and tenant.label == "demo tenant"
        assert tenant.control_plane is None  # no bundle in this process: it is served from the child
        assert tenant.captured_at == demo_bundle.captured_at
        shown = rows(screen)
        expected = listed(demo_bundle, first_cluster(demo_bundle))
        # Newest first, as the bundle holds them (workloads updated at the same instant may come in either order).
        assert shown and [w.phase_updated_at for w in shown] == [
            datetime.fromisoformat(w["phaseUpdatedAt"].replace("Z", "+00:00")) for w in expected[: len(shown)]
        ]
        assert {w.id for w in shown} <= {w["id"] for w in expected}
    assert simulator.pid is not None
    wait_gone(simulator.pid)  # the app closed its tenant, which stopped the process


async def test_a_bad_case_file_gets_the_same_problem_screen_as_in_process(tmp_path: Path) -> None:
    case = tmp_path / "broken.json"
    case.write_text('{"format": "runai-triage/case@1", "capturedAt": ', encoding="utf-8")
    with pytest.raises(StartProblem) as in_process:
        open_tenant(StartOptions(mode="case", case_path=case))
    args, simulator = launched("--case", str(case))
    app = program_app(args, simulator, cursor_blink=False, freeze_after_open=False)
    async with app.run_test(size=SIZE) as pilot:
        shown = await problem_shown(pilot)
        assert (shown.title, shown.detail, shown.hints) == (
            in_process.value.title, in_process.value.detail, in_process.value.hints,
        )
        assert shown.hints == BUNDLE_HINTS and str(case) in shown.detail and "not valid JSON" in shown.detail


async def test_a_simulator_that_fails_is_a_problem_screen_and_r_starts_a_new_one() -> None:
    options = StartOptions(mode="demo")
    broken = SimProcess.start(command=["python-that-does-not-exist-here"])
    app = TriageApp(options, opener=ServedOpener(options, broken), cursor_blink=False)
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        problem = await problem_shown(pilot)
        assert problem.title == "The simulated tenant did not start"
        assert "could not be started" in problem.detail
        await pilot.press("r")  # a retry starts the real simulator
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen), timeout=30)
        picker = await loaded_picker(pilot)
        assert rows(picker)


def test_options_that_clash_stop_the_simulator_started_for_them() -> None:
    args, simulator = launched("--demo", "--base-url", "https://x.run.ai")
    with pytest.raises(UsageError, match="--base-url cannot be used with --demo"):
        program_app(args, simulator)
    assert simulator.process is not None and simulator.process.poll() is not None


def test_a_simulator_the_app_never_used_is_stopped_when_the_opener_closes() -> None:
    args, simulator = launched("--demo")
    opener = ServedOpener(options_from_args(args), simulator)
    opener.close()
    assert simulator.pid is not None
    wait_gone(simulator.pid)


@pytest.mark.parametrize(
    "argv",
    [
        (),
        ("--demo",),
        ("--case", " incident.json "),
        ("--demo", "--cluster-id", "c1", "--workload-id", "w1", "--no-kube"),
        ("--base-url", "https://x.run.ai", "--kubeconfig", "~/k", "--kube-context", "ctx"),
        ("--demo", "--cluster-id", "c1", "--name", "bert", "--project", "nlp"),
    ],
)
def test_the_apps_options_read_alone_are_what_the_full_parser_reads(argv: tuple[str, ...]) -> None:
    assert vars(app_arguments(argv) or {}) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ("diagnose", "--demo"),
        ("--demo", "serve"),
        ("--help",),
        ("--version",),
        ("--demo", "--case", "x.json"),  # the full parser says what is wrong
        ("--case",),
        ("--no-such-option",),
    ],
)
def test_anything_but_the_apps_options_goes_to_the_full_parser(argv: tuple[str, ...]) -> None:
    assert app_arguments(argv) is None


@pytest.mark.parametrize("argv", [("--demo",), ("--case", "no-such-bundle.json")])
def test_the_collector_the_program_turns_off_is_on_again_once_started(argv: tuple[str, ...], tmp_path: Path) -> None:
    # In a fresh interpreter: the collector's state is the process's. The program turns it off for its start-up
    # (tui.cli.launch_app); the app turns it on again at its warm-up, or when the start fails.
    code = (
        "import asyncio, gc, sys, time\n"
        "from tui.cli import app_arguments, launch_app\n"
        f"args = app_arguments({list(argv)!r})\n"
        "simulator = launch_app(args)\n"
        "assert not gc.isenabled()\n"
        "from tui.app import program_app\n"
        "async def main():\n"
        "    app = program_app(args, simulator, cursor_blink=False)\n"
        "    async with app.run_test(size=(120, 40)):\n"
        "        deadline = time.monotonic() + 30\n"
        "        while not gc.isenabled() and time.monotonic() < deadline:\n"
        "            await asyncio.sleep(0.05)\n"
        "        print(type(app.screen).__name__, gc.isenabled())\n"
        "asyncio.run(main())\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=90
    )
    assert out.returncode == 0, out.stderr[-2000:]
    screen = "PickerScreen" if argv == ("--demo",) else "ProblemScreen"
    assert out.stdout.split() == [screen, "True"]
