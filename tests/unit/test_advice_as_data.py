"""The engine says what to do as data: no sentence of core (every package but the simulator, core/sim, and the
modules beside them) names a command-line flag of ours (the command line words an action as a flag, the app as a
key; a usage error, a hint, a message or a report's line names an option as data, core/usage.py, which the
command line says as a flag and an MCP tool as its argument), and the command line's words of each action are
the report's sentences as they always read."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from core.models.advice import COMMAND_LINE, Action, Do, said

CORE = Path(__file__).resolve().parents[2] / "core"
# The simulator stands in for Run:ai and Kubernetes, and its own program (`serve`, core/sim/child.py) is not ours
# to word: it is left out.
SIMULATOR = CORE / "sim"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# Other programs' flags, named where the report cites their output or explains their exit code: not ours.
OTHER_PROGRAMS = {
    "--previous": "kubectl logs --previous, a source the report cites",
    "--all-namespaces": "kubectl get pods --all-namespaces, a source",
    "--field-selector": "kubectl get pods --field-selector, a source",
    "--fail": "curl's, in the explanation of its exit code 22",
    "--ignore-daemonsets": "kubectl drain's, in a node's incident report",
    "--delete-emptydir-data": "kubectl drain's, in a node's incident report",
    "--user": "curl's (-u / --user), in a pattern the redactor finds a password by",
}
# The command line's table of words for each action: the one place a flag of ours is written in core, because
# the report's text fields are in the command line's words (its docstring says why).
THE_COMMAND_LINES_WORDS = {CORE / "models" / "advice.py"}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def flags_in(source: str) -> list[tuple[int, str]]:
    """(line, flag) for each flag of ours in the module's strings (docstrings and comments are for readers)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found += [(node.lineno, flag) for flag in FLAG.findall(node.value) if flag not in OTHER_PROGRAMS]
    return found


def engine_modules() -> list[Path]:
    """Every module of core but the simulator's."""
    return [p for p in sorted(CORE.rglob("*.py")) if SIMULATOR not in p.parents]


def test_the_scan_reads_every_package_of_core_but_the_simulator() -> None:
    modules = engine_modules()
    read = {p.relative_to(CORE).parts[0] for p in modules if p.parent != CORE}
    packages = {p.name for p in CORE.iterdir() if (p / "__init__.py").exists()}
    assert read == packages - {"sim"} and len(modules) > 150
    assert {CORE / "tenant.py", CORE / "usage.py"} <= set(modules)


def test_no_engine_sentence_names_a_flag() -> None:
    modules = [p for p in engine_modules() if p not in THE_COMMAND_LINES_WORDS]
    named = [
        f"{path.relative_to(CORE.parent)}:{line}: {flag}"
        for path in modules
        for line, flag in flags_in(path.read_text(encoding="utf-8"))
    ]
    assert not named, ("say the action as data (core/models/advice.py), an option as data (core/usage.py), not "
                       "as a flag:\n" + "\n".join(named))


def test_the_scan_finds_a_flag_in_a_sentence_and_not_in_a_docstring() -> None:
    source = (
        '"""Picks with `--active` the newest."""\n'
        'NEXT = f"Did you mean a past run? Give its id, or {x} --lookback to widen the window."\n'
        'SOURCE = "kubectl logs --previous"\n'
    )
    assert flags_in(source) == [(2, "--lookback")]


@pytest.mark.parametrize(
    ("parts", "words"),
    [
        (("Did you mean a past run? ", Do(Action.GIVE_WORKLOAD_ID, "that run's"), ", or ",
          Do(Action.WIDEN_LOOKBACK, "the window"), "."),
         "Did you mean a past run? Give that run's workload id, or --lookback to widen the window."),
        ((Do(Action.USE_ACTIVE), ", or ", Do(Action.GIVE_WORKLOAD_ID), "."),
         "Use --active for a current crash loop or start failure, or give the workload id."),
        ((Do(Action.GIVE_WORKLOAD_ID, "meant"), ", or ", Do(Action.DROP_ACTIVE), "."),
         "Give the workload id of the run you mean, or drop --active to diagnose the last terminal one."),
        (("Nothing failed. If a different run failed, ", Do(Action.GIVE_WORKLOAD_ID, "its"), "."),
         "Nothing failed. If a different run failed, give its workload id."),
        (("so it is not in the recurrence count; ", Do(Action.WIDEN_LOOKBACK), " to count it"),
         "so it is not in the recurrence count; widen --lookback to count it"),
    ],
)
def test_the_command_line_words_an_action_as_its_flag(parts: tuple[str | Do, ...], words: str) -> None:
    sentence = said(*parts)
    assert sentence.text == words
    assert set(sentence.actions) == {p.action for p in parts if isinstance(p, Do)}


def test_every_action_has_plain_words_on_the_command_line() -> None:
    assert set(COMMAND_LINE) == set(Action)
    assert all("" in forms for forms in COMMAND_LINE.values())
