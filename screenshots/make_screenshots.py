"""Draw the SVG screenshots of the terminal app from the demo tenant.

    python3 screenshots/make_screenshots.py               # into a new temporary directory (printed)
    python3 screenshots/make_screenshots.py screenshots   # replace the committed ones, to review and commit

Run it with the project's environment (`. .venv/bin/activate` first, or `.venv/bin/python ...`). Writes one SVG
per entry of `SHOTS` into OUTPUT_DIR, by default a fresh temporary directory, so trying it never changes the
clone. The pictures are the same from run to run: "now" is the demo's capture time, every read of the engine is
timed by a frozen clock (so each step shows 0 ms), animation is off and no cursor blinks. Rich derives the SVG's
internal ids from the content, so equal screens give byte-identical files; tests/ui/test_screenshots_current.py
checks that the committed files still match a fresh run.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Run as a file (`python3 screenshots/make_screenshots.py`), its directory is first on the path, not the
# repository's: the repository is added, so the app's packages import even without an editable install.
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from textual.pilot import Pilot

from core.diagnosis.progress import ProgressEvent
from core.sim.bundle import CaseBundle
from core.sim.demo import demo_expectations, load_demo_bundle
from core.tenant import open_bundle_tenant
from tui.app import TriageApp
from tui.commands.start import OpenedTenant, StartOptions
from tui.messages import DiagnosisTarget
from tui.screens.diagnosis.open import request_for
from tui.screens.diagnosis.screen import DiagnosisScreen
from tui.screens.help import HelpScreen
from tui.screens.nodes import NodesScreen
from tui.screens.picker.screen import PickerScreen
from tui.widgets.page_indicator import PageIndicator

SIZE = (140, 42)
COMMITTED = Path(__file__).resolve().parent  # where the README's pictures are
TITLE = "runai-triage"
# Generous: the demo answers in milliseconds, but the machine may be busy running other tests.
DEADLINE_S = 20.0

Prepare = Callable[[Pilot[Any]], Awaitable[None]]


class ScreenshotApp(TriageApp):
    """The app with the engine's read timings frozen, so the step list shows the same numbers every run."""

    def open_diagnosis(self, target: DiagnosisTarget, replay: tuple[ProgressEvent, ...] = ()) -> None:
        self.diagnosis_requests.append(target)
        if self.tenant is not None:
            request = request_for(target, self.clock())
            self.push_screen(
                DiagnosisScreen(request, self.tenant, clock=self.clock, engine_clock=lambda: 0.0, replay=replay)
            )


@dataclass(frozen=True)
class Shot:
    """One screenshot: the file name, the README sentence, the demo story to open (None: the picker) and
    what to do before the picture is taken."""

    name: str
    caption: str
    story: str | None
    prepare: Prepare
    size: tuple[int, int] = SIZE


async def _until(pilot: Pilot[Any], ready: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if ready():
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"screenshot not taken: {what} did not happen within {DEADLINE_S:.0f} s")
        await asyncio.sleep(0.01)


def _picker_settled(pilot: Pilot[Any], attention: bool = False) -> bool:
    screen = pilot.app.screen
    if not (isinstance(screen, PickerScreen) and screen.first_answer and not screen.loading
            and screen.verdicts_settled):
        return False
    # The total arrives in its own read; "…" stands in for it until then.
    indicator = screen.query_one(PageIndicator).plain
    return "…" not in indicator and screen.picker_query.attention == attention


async def picker_loaded(pilot: Pilot[Any]) -> None:
    await _until(pilot, lambda: _picker_settled(pilot), "the picker's first page")


async def picker_attention(pilot: Pilot[Any]) -> None:
    await picker_loaded(pilot)
    await pilot.press("a")
    await _until(pilot, lambda: _picker_settled(pilot, attention=True), "the needs-attention page")
    await pilot.press("down")  # a Pending row: the line under the table says why it is listed
    await pilot.pause()


async def help_screen(pilot: Pilot[Any]) -> None:
    await picker_loaded(pilot)
    await pilot.press("question_mark")
    await _until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help screen")


async def nodes_view(pilot: Pilot[Any]) -> None:
    await picker_loaded(pilot)
    await pilot.press("N")
    await _until(pilot, lambda: isinstance(pilot.app.screen, NodesScreen) and pilot.app.screen.settled,
                 "the Nodes view")
    await pilot.pause()


def verdict_on(tab: str | None = None) -> Prepare:
    """Wait for the diagnosis to end, then show `tab` (a pane id of the diagnosis screen)."""

    async def prepare(pilot: Pilot[Any]) -> None:
        def done() -> bool:
            screen = pilot.app.screen
            return (
                isinstance(screen, DiagnosisScreen)
                and (screen.report is not None or screen.failure is not None)
                and not screen.running
            )

        await _until(pilot, done, "the verdict")
        screen = pilot.app.screen
        assert isinstance(screen, DiagnosisScreen)
        if tab is not None:
            screen.show_tab(tab)
        await pilot.pause()
        await pilot.pause()

    return prepare


SHOTS: tuple[Shot, ...] = (
    Shot(
        "picker.svg",
        "The picker on the demo tenant: newest first, phases in words and colour, one server-side page "
        "sized to the screen. The Verdict column fills in as the failed rows on screen are diagnosed in the "
        "background, and the line under the table counts the page's verdicts.",
        None,
        picker_loaded,
    ),
    Shot(
        "picker-attention.svg",
        "The same list with `a` (needs attention): failed and stopped workloads, and pending or running ones "
        "whose events show a failing pod; the line under the table says why the highlighted row is listed.",
        None,
        picker_attention,
    ),
    Shot(
        "diagnosis-oom-memory.svg",
        "An `OOM_KILLED` verdict on the Memory tab: memory over time against the configured limit, the measured "
        "peak marked ◆ and the OOM kill from the history as a vertical line.",
        "oom-rising",
        verdict_on("tab-memory"),
    ),
    Shot(
        "diagnosis-image-pull.svg",
        "An `IMAGE_PULL_FAILED` verdict: every line of evidence names the read it came from.",
        "pull-not-found",
        verdict_on(None),
    ),
    Shot(
        "diagnosis-crash-log.svg",
        "A `CRASH_APP_ERROR` verdict on the Log tab, with the log line that explains the exit marked.",
        "crash-traceback",
        verdict_on("tab-log"),
    ),
    Shot(
        "diagnosis-cascade-pods.svg",
        "An 8-pod training job on the Pod tab: its pods in the order they ended, the first failure (◆) the verdict "
        "rests on, the workers and master SIGTERMed after it listed as its consequences.",
        "dist-oom-cascade",
        verdict_on("tab-pod"),
    ),
    Shot(
        "diagnosis-infra-finding.svg",
        "A 16-pod job that crashed on a GPU that fell off the bus (Xid 79): the category stays the seed's, and the "
        "⚑ line says the fault is under the workload, on which node, and who acts on it.",
        "xid79-16pod",
        verdict_on(None),
    ),
    Shot(
        "diagnosis-preempted.svg",
        "A preempted workload is routed out rather than diagnosed: the banner says where to look next.",
        "preempt-priority",
        verdict_on(None),
    ),
    Shot(
        "diagnosis-policy.svg",
        "A workload stopped by an idle-time policy: nothing is broken, so the banner says so with ■ and the "
        "warning colour rather than a red cross.",
        "policy-idle",
        verdict_on(None),
    ),
    Shot(
        "nodes-120x40.svg",
        "The Nodes view (`N`) on the demo cluster: each node with the workloads that ran on it in the last 24 hours, "
        "how many failed and their verdicts; gpu-e-23, whose GPU fell off the bus, comes first and marked ⚑, with "
        "the cause seven of its eight failures share on the line under the table.",
        None,
        nodes_view,
        (120, 40),
    ),
    Shot(
        "nodes-80x24.svg",
        "The same view at 80 columns: the verdicts in short words, the pool and GPUs left to `v`.",
        None,
        nodes_view,
        (80, 24),
    ),
    Shot(
        "help.svg",
        "The help screen (`?`), read from the key bindings of the screen underneath.",
        None,
        help_screen,
    ),
)


def _options(story: str | None) -> StartOptions:
    if story is None:
        return StartOptions(mode="demo")
    case = {c["key"]: c for c in demo_expectations()}[story]
    if case["lookup"] == "id":
        return StartOptions(mode="demo", cluster_id=case["clusterId"], workload_id=case["workloadId"])
    return StartOptions(mode="demo", cluster_id=case["clusterId"], name=case["name"], project=case["project"])


async def render(shot: Shot, bundle: CaseBundle) -> str:
    """The SVG text of one screenshot, on a simulated demo tenant of its own."""
    # The picker shots use the app class itself: the help screen lists the keys declared on the app's own
    # class, which a subclass such as ScreenshotApp does not repeat.
    kind = TriageApp if shot.story is None else ScreenshotApp
    # A settings directory of its own: a theme the person running this chose must not colour the pictures.
    with tempfile.TemporaryDirectory(prefix="runai-triage-shots-") as config:
        app = kind(
            _options(shot.story),
            # The app opens the tenant inside its own loop and closes it on exit.
            opener=lambda: OpenedTenant(open_bundle_tenant(bundle, label="demo tenant")),
            cursor_blink=False,
            debounce_s=0.05,
            config_dir=Path(config),
        )
        app.animation_level = "none"
        async with app.run_test(size=shot.size) as pilot:
            await shot.prepare(pilot)
            return app.export_screenshot(title=TITLE)


async def render_all(out_dir: Path, bundle: CaseBundle | None = None) -> list[Path]:
    """Write every shot into `out_dir`; returns the paths in `SHOTS` order."""
    out_dir.mkdir(parents=True, exist_ok=True)
    demo = bundle if bundle is not None else load_demo_bundle()
    written: list[Path] = []
    for shot in SHOTS:
        svg = await render(shot, demo)
        path = out_dir / shot.name
        # newline="" keeps the bytes the same on every platform.
        with path.open("w", encoding="utf-8", newline="") as handle:
            handle.write(svg)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0].startswith("-")):
        print("usage: python3 screenshots/make_screenshots.py [OUTPUT_DIR]  (screenshots: replace the committed "
              "ones)", file=sys.stderr)
        return 2
    out_dir = Path(args[0]) if args else Path(tempfile.mkdtemp(prefix="runai-triage-screenshots-"))
    if not out_dir.is_dir():
        print(f"make_screenshots: {out_dir} is not a directory", file=sys.stderr)
        return 2
    try:
        written = asyncio.run(render_all(out_dir))
    except RuntimeError as exc:
        print(f"make_screenshots: {exc}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    if out_dir.resolve() != COMMITTED:
        print(f"The committed screenshots are in {COMMITTED}: compare, or pass that directory to replace them.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
