"""Every corpus credential, planted in every untrusted field of a workload, diagnosed over real HTTP (the
httpx client for Run:ai, the kubernetes client for Tier 2), and looked for in every output: the text,
Markdown and JSON reports, the progress events the terminal app draws from, and the `diagnose` command's
stdout. Nothing of any secret may appear; the planted text around it must (so the check means something).

Run `.venv/bin/python -m tests.redaction.test_end_to_end` to print the counts and where each field shows.
"""

from __future__ import annotations

import asyncio
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from core.diagnosis.engine import diagnose
from core.diagnosis.progress import VerdictReady
from core.diagnosis.request import DiagnosisRequest
from core.report.render import to_json, to_markdown, to_text
from core.sim.bundle import parse_bundle
from core.tenant import open_bundle_tenant
from tests.redaction.corpus import CREDENTIALS, Credential
from tests.redaction.leaks import readable, shown, strings_in
from tests.redaction.planting import FIELDS, MARKERS, credentials_bundle
from tui.cli import main as cli_main

FORMATS = ("text", "markdown", "json", "progress events")
# Fields the report itself quotes for this story (evidence, history): each must carry its marker into the
# text, Markdown and JSON report of every workload, or the test would be checking text that never arrives.
QUOTED_IN_REPORT = (
    "workload name",
    "workload phaseMessage",
    "Run:ai event message",
    "spec command",
    "spec args",
    "spec submit-command annotation",
    "spec git repository",
    "Kubernetes pod event message",
    "Kubernetes node event message",
    "pod status message",
    "container terminated message",
    "container waiting message",
    "node condition message",
    "split by a colour code: Run:ai event message",
)
# Shown only on the app's panes (the progress events), not in the report.
SHOWN_IN_APP = ("log text", "node taint value", "split by a zero-width space: Kubernetes pod event message")


@dataclass
class Findings:
    diagnoses: int = 0
    outputs: int = 0
    leaks: list[tuple[str, str]] = field(default_factory=list)  # (credential kind, format)
    reached: dict[str, set[str]] = field(default_factory=lambda: {f: set() for f in FIELDS})
    missing_markers: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, field, format)

    def check(self, cred: Credential, fmt: str, output: str) -> None:
        text = readable(output, fmt)
        self.outputs += 1
        if shown(cred.secret, text):
            self.leaks.append((cred.kind, fmt))
        for name, marker in MARKERS.items():
            if marker in text:
                self.reached[name].add(fmt)
            elif (fmt != "progress events" and name in QUOTED_IN_REPORT) or (
                fmt == "progress events" and name in QUOTED_IN_REPORT + SHOWN_IN_APP
            ):
                self.missing_markers.append((cred.kind, name, fmt))


async def diagnose_all(credentials: list[Credential]) -> Findings:
    bundle, stories = credentials_bundle(credentials)
    found = Findings()
    async with open_bundle_tenant(parse_bundle(bundle, "hostile-credentials"), label="credentials") as tenant:
        for story, cred in zip(stories, credentials, strict=True):
            request = DiagnosisRequest(cluster_id=story.cluster, workload_id=story.id, now=tenant.captured_at)
            events = [
                event
                async for event in diagnose(
                    request, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable
                )
            ]
            final = events[-1]
            assert isinstance(final, VerdictReady), f"{cred.kind}: no verdict"
            report = final.report
            found.diagnoses += 1
            # Every quoted field is in the whole text (`--verbose`); the default text leaves context out, and
            # leaks nothing either.
            found.check(cred, "text", to_text(report, verbose=True))
            if shown(cred.secret, to_text(report)):
                found.leaks.append((cred.kind, "short text"))
            found.check(cred, "markdown", to_markdown(report))
            found.check(cred, "json", to_json(report))
            found.check(cred, "progress events", "\n".join(strings_in(events)))
    return found


def summary(found: Findings, credentials: list[Credential]) -> str:
    shown_fields = sum(1 for formats in found.reached.values() if formats)
    lines = [
        f"credentials planted: {len(credentials)} ({len({c.kind for c in credentials})} kinds), "
        f"fields: {len(FIELDS)} per workload ({shown_fields} reach an output), "
        f"formats: {len(FORMATS)} ({', '.join(FORMATS)}), diagnoses: {found.diagnoses}, "
        f"outputs checked: {found.outputs}, leaks: {len(found.leaks)}"
    ]
    for name in FIELDS:
        where = ", ".join(f for f in FORMATS if f in found.reached[name]) or "not shown by any output"
        lines.append(f"  {name:<58} {where}")
    return "\n".join(lines)


async def test_no_planted_credential_reaches_any_output() -> None:
    assert len(CREDENTIALS) >= 60
    found = await diagnose_all(CREDENTIALS)
    print(summary(found, CREDENTIALS))
    assert found.leaks == []
    assert found.diagnoses == len(CREDENTIALS)
    assert found.missing_markers == []


def test_the_diagnose_command_prints_no_credential(tmp_path: Path, capsys: object) -> None:
    """The real headless command on the bundle file, every format, a sample of the corpus (one in six)."""
    sample = CREDENTIALS[::6]
    bundle, stories = credentials_bundle(sample)
    path = tmp_path / "hostile-credentials.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    leaks: list[tuple[str, str]] = []
    for story, cred in zip(stories, sample, strict=True):
        for fmt in ("text", "markdown", "json"):
            out, err = io.StringIO(), io.StringIO()
            argv = [
                "diagnose", "--case", str(path), "--cluster-id", story.cluster, "--workload-id", story.id, "--verbose",
            ]
            code = _run_cli([*argv, "--format", fmt], out, err)
            assert code == 0, err.getvalue()
            text = readable(out.getvalue(), fmt)
            assert MARKERS["workload phaseMessage"] in text
            if shown(cred.secret, text) or shown(cred.secret, err.getvalue()):
                leaks.append((cred.kind, fmt))
    assert leaks == []


def _run_cli(argv: list[str], out: io.StringIO, err: io.StringIO) -> int:
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        return cli_main(argv)


if __name__ == "__main__":
    print(summary(asyncio.run(diagnose_all(CREDENTIALS)), CREDENTIALS))
