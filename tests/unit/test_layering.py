"""The layers: import-linter's contracts (pyproject.toml) hold for the tree, and they bite when broken; the
headless commands do not load Textual when they run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONTRACT_IDS = [contract["id"] for contract in PYPROJECT["tool"]["importlinter"]["contracts"]]


def _lint_imports(cwd: Path, *contract_ids: str) -> subprocess.CompletedProcess[str]:
    # --no-cache: nothing written into the tree, and parallel runs cannot race on a shared cache.
    selected = [arg for cid in contract_ids for arg in ("--contract", cid)]
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", *selected],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_import_contracts_hold() -> None:
    run = _lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"Contracts: {len(CONTRACT_IDS)} kept, 0 broken." in run.stdout


def test_no_import_circle_even_through_type_checking_imports(tmp_path: Path) -> None:
    """The contracts leave out imports made for type checkers only (they never run); no package's modules
    import each other in a circle even counting those, so none has to be excused."""
    contracts = PYPROJECT["tool"]["importlinter"]["contracts"]
    circles = next(c for c in contracts if c["id"] == "no-import-circles")
    assert "ignore_imports" not in circles
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    config = tmp_path / "circles.toml"
    config.write_text(text.replace("exclude_type_checking_imports = true", "exclude_type_checking_imports = false"))
    run = subprocess.run(
        [str(LINT_IMPORTS), str(config), "--no-cache", "--no-logo", "--contract", "no-import-circles"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 1 kept, 0 broken." in run.stdout


# Each planted import breaks the contract it is listed under; lint-imports names the offending import.
PLANTED: dict[str, tuple[str, str, str]] = {
    # contract id: (file in a copy of the tree, line appended to it, what the broken contract reports)
    "tui-over-core": ("core/models/_planted_up.py", "import tui.clock", "core.models._planted_up -> tui.clock"),
    "core-layers": (
        "core/sources/_planted_layers.py",
        "import core.diagnosis",
        "core.sources._planted_layers -> core.diagnosis",
    ),
    "sim-for-the-command-line-only": (
        "tui/widgets/_planted_sim.py",
        "import core.sim.bundle",
        "tui.widgets._planted_sim -> core.sim.bundle",
    ),
    "sim-server-holds-no-stories": (
        "core/sim/_planted_stories.py",
        "import core.sim.demo.build",
        "core.sim._planted_stories -> core.sim.demo.build",
    ),
    "sim-apart-from-the-clients": (
        "core/sim/_planted_client.py",
        "import core.sources.runai",
        "core.sim._planted_client -> core.sources.runai",
    ),
    "no-textual-in-core": (
        "core/report/_planted_textual.py",
        "import textual.app",
        "core.report._planted_textual -> textual",
    ),
    "headless-commands-without-textual": ("tui/commands/serve.py", "import tui.app", "tui.commands.serve -> tui.app"),
    "mcp-for-its-server-only": ("core/report/_planted_mcp.py", "import mcp.server", "core.report._planted_mcp -> mcp"),
    "sdk-for-the-tests-only": (
        "tui/widgets/_planted_sdk.py",
        "import runai.models",
        "tui.widgets._planted_sdk -> runai",
    ),
    # The circle this contract was written for: start importing the app that imports start.
    "no-import-circles": ("tui/commands/start.py", "import tui.app", ".commands -> .app"),
    "webhook-apart-from-the-tenant": (
        "core/sources/_planted_post.py",
        "import core.notify.webhook",
        "core.sources._planted_post -> core.notify.webhook",
    ),
    "webhook-without-the-tenant-clients": (
        "core/notify/_planted_client.py",
        "import core.sources.runai",
        "core.notify._planted_client -> core.sources.runai",
    ),
}


@pytest.fixture(scope="module")
def planted_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of core/ and tui/ with every import of PLANTED added (the contracts are read from the copy)."""
    tree = tmp_path_factory.mktemp("planted")
    skip = shutil.ignore_patterns("__pycache__", "data", "*.gz", "*.json")
    for package in ("core", "tui"):
        shutil.copytree(ROOT / package, tree / package, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    for path, line, _ in PLANTED.values():
        target = tree / path
        target.write_text((target.read_text() if target.exists() else "") + line + "\n")
    return tree


def test_every_contract_has_a_planted_violation() -> None:
    assert sorted(PLANTED) == sorted(CONTRACT_IDS)


@pytest.mark.parametrize("contract_id", sorted(PLANTED))
def test_a_planted_import_breaks_its_contract(planted_tree: Path, contract_id: str) -> None:
    run = _lint_imports(planted_tree, contract_id)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Contracts: 0 kept, 1 broken." in run.stdout
    assert PLANTED[contract_id][2] in run.stdout, run.stdout


def _fresh(code: str) -> str:
    """What `code` prints, run in a fresh interpreter (what a module loads shows only in one)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return out.stdout.strip()


# Every module of the command line's wing, found on disk (no list of names to keep up to date), then the
# program's parser with every command on it; what that loaded is printed.
_EVERY_COMMAND_MODULE = (
    "import importlib, pkgutil, sys, tui.commands, tui.cli; "
    "names = [m.name for m in pkgutil.walk_packages(tui.commands.__path__, 'tui.commands.')]; "
    "[importlib.import_module(n) for n in names]; "
    "tui.cli.build_parser(); "
    "print(len(names), sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in {'textual', 'mcp'}}))"
)


def test_no_module_of_the_command_line_loads_textual() -> None:
    count, loaded = _fresh(_EVERY_COMMAND_MODULE).split(" ", 1)
    assert int(count) >= 10  # the wing was found: a test that imported nothing would pass for nothing
    assert "textual" not in loaded  # the MCP server's own SDK may load (it is a module of the wing); Textual never


def test_the_commands_parser_loads_neither_textual_nor_the_mcp_sdk() -> None:
    code = (
        "import sys, tui.cli; tui.cli.build_parser(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'textual', 'mcp'}))"
    )
    assert _fresh(code) == "[]"


def test_a_module_added_to_the_command_line_that_loads_textual_is_caught(tmp_path: Path) -> None:
    # The check above is by package, not by name: a new command that imports Textual fails it (shown on a copy).
    skip = shutil.ignore_patterns("__pycache__", "data", "*.gz", "*.json")
    for package in ("core", "tui", "styles"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=skip)
    (tmp_path / "tui" / "commands" / "_planted.py").write_text("import textual.app  # noqa: F401\n")
    run = [sys.executable, "-c", _EVERY_COMMAND_MODULE]
    out = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path, check=True)
    _, loaded = out.stdout.strip().split(" ", 1)
    assert "textual" in loaded, out.stdout


def test_the_app_loads_the_engine_after_its_first_page() -> None:
    # The picker (its verdict column included) imports nothing of the engine: the diagnosis code loads after
    # the first page is shown (the app's warm-up, a verdict worker, or the first diagnosis), never before it.
    code = (
        "import sys, tui.app; "
        "print(sorted(m for m in sys.modules if m == 'core.diagnosis' or m.startswith('core.diagnosis.')))"
    )
    assert _fresh(code) == "[]"


FIRST_PAGE_MODULES = """
import asyncio, sys
from tui.app import TriageApp
from tui.screens.picker.screen import PickerScreen
from tui.commands.start import StartOptions
from tui.widgets.workload_table import WorkloadTable

async def main() -> None:
    app = TriageApp(StartOptions(mode="demo"), cursor_blink=False)
    async with app.run_test(size=(140, 70)) as pilot:
        def rows() -> list:
            screen = app.screen
            tables = list(screen.query(WorkloadTable)) if isinstance(screen, PickerScreen) else []
            return tables[0].workloads if tables and tables[0].row_count else []

        while not rows():
            await asyncio.sleep(0.001)
        phases = sorted({w.phase for w in rows()})
        late = ("core.diagnosis", "core.models.kube", "kubernetes")
        print(phases, sorted(m for m in sys.modules if m.startswith(late)))

asyncio.run(main())
"""


def test_the_first_page_is_shown_before_anything_loads_the_engine() -> None:
    # Pending and Running rows are judged with the engine's Step 1 signals: on the first page that judgement
    # waits for the verdict worker, which loads the engine after the page is painted. The Kubernetes models and
    # client wait for the first Kubernetes read.
    out = subprocess.run(
        [sys.executable, "-c", FIRST_PAGE_MODULES], capture_output=True, text=True, cwd=ROOT, check=True, timeout=120
    )
    phases, loaded = out.stdout.strip().split("] ")
    assert "'Pending'" in phases and "'Failed'" in phases  # rows of both kinds were judged for that page
    assert loaded == "[]"


def test_httpx_comes_without_its_command_line_client() -> None:
    # httpx imports its CLI (click, pygments) whenever click is installed; neither the app nor a headless
    # command runs it, and it cost 60-100 ms of each start. The client itself is whole.
    code = (
        "import sys, tui.cli, tui.commands.diagnose, tui.app, httpx; tui.cli.build_parser(); "
        "print(sorted(m for m in ('click', 'pygments', 'httpx._main') if sys.modules.get(m) is not None), "
        "callable(httpx.main), callable(httpx.AsyncClient))"
    )
    assert _fresh(code) == "[] True True"


def test_no_pydantic_plugin_sees_what_the_models_validate() -> None:
    # A pydantic plugin installed in the environment would be handed every validated value (cluster data,
    # credentials); finding plugins also scanned every installed distribution at start-up.
    code = (
        "import core.models.runai as r, pydantic.plugin._loader as loader; "
        "r.Workload.model_validate({'name': 'a'}); print(list(loader.get_plugins()), loader._plugins)"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}  # this process set it
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True, env=env)
    assert out.stdout.strip() == "[] None"  # never looked for: `{}` would mean the scan ran


def test_the_program_starts_the_simulator_before_anything_heavy_loads() -> None:
    # `runai-triage --demo` reads its options and starts the simulator's own process first (tui/cli.py), so that
    # process loads the tenant while this one loads the app: nothing heavy may load before that point.
    code = (
        "import sys, tui.cli; args = tui.cli.app_arguments(['--demo']); assert args is not None; "
        "heavy = ('textual', 'pydantic', 'httpx', 'core.models', 'core.diagnosis', 'core.sources', 'core.tenant'); "
        "print(sorted(m for m, module in sys.modules.items() if module and m.startswith(heavy)))"
    )
    assert _fresh(code) == "[]"


def test_the_simulators_process_serves_without_the_client_libraries() -> None:
    # The program's simulator process (core.sim.child) starts while the app loads, on the same cores: it loads
    # the bundle and serves it with the standard library alone, never the app's models, pydantic or httpx.
    code = (
        "import os, sys, core.sim.child; sys.stdin = open(os.devnull); sys.stdout = open(os.devnull, 'w'); "
        "status = core.sim.child.main(['--demo']); sys.stdout = sys.__stdout__; "
        "heavy = ('pydantic', 'httpx', 'textual', 'kubernetes', 'core.models.base', 'core.sources'); "
        "print(status, sorted(m for m, module in sys.modules.items() if module and m.startswith(heavy)))"
    )
    assert _fresh(code) == "0 []"
