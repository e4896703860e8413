"""The short report and the whole one (issue 24) on real diagnoses over HTTP: `diagnose --verbose` prints every
line that the default report counts; Markdown holds the short body and every line in a collapsed block;
a long list of occurrences is cut to the newest 50 with a flag, and no count changes with the cut."""

from __future__ import annotations

import json
import re

import pytest

from core.diagnosis.engine import run_to_report
from core.models.report import MAX_OCCURRENCES
from core.report.evidence_view import full_lines, short_view
from core.report.render import to_json, to_markdown, to_text
from core.sim.bundle import parse_bundle
from core.tenant import open_bundle_tenant
from tests.benchmarks import big_history
from tests.integration.test_diagnose_cli import _args, _run_in_process

OOM_ID = "9c272e2c-4cbd-59c9-ad76-2b982958772c"


async def test_a_long_history_lists_the_newest_50_and_keeps_the_whole_count() -> None:
    episodes = MAX_OCCURRENCES + 12
    data, captured = big_history.big_case(records=episodes * big_history.PER_EPISODE)
    async with open_bundle_tenant(parse_bundle(data, "long history"), label="long history") as tenant:
        report = await run_to_report(big_history.request(captured), tenant.runai, tenant.kube)
    rec = json.loads(to_json(report))["recurrence"]
    assert rec["count"] == episodes and rec["recurring"] is True
    assert len(rec["occurrences"]) == MAX_OCCURRENCES and rec["occurrencesCut"] is True
    assert rec["occurrences"] == sorted(rec["occurrences"], reverse=True), "the newest are kept, newest first"
    history = next(line for line in to_text(report).splitlines() if line.startswith("History: "))
    assert history.startswith(f"History: {episodes} OOM_KILLED failures in the last 7d: recurring")
    assert history.endswith(f", and {episodes - 5} more)"), "the count, not the list, says how many more"


async def test_a_short_history_is_not_cut() -> None:
    data, captured = big_history.big_case(records=3 * big_history.PER_EPISODE)
    async with open_bundle_tenant(parse_bundle(data, "short history"), label="short history") as tenant:
        report = await run_to_report(big_history.request(captured), tenant.runai, tenant.kube)
    assert report.recurrence.count == len(report.recurrence.occurrences) == 3
    assert report.recurrence.occurrences_cut is False


def test_verbose_prints_every_line_the_short_report_counts(capsys: pytest.CaptureFixture[str]) -> None:
    status, short, _ = _run_in_process(capsys, *_args("example-oom", OOM_ID))
    assert status == 0
    status, whole, _ = _run_in_process(capsys, *_args("example-oom", OOM_ID, "--verbose"))
    assert status == 0
    status, doc, _ = _run_in_process(capsys, *_args("example-oom", OOM_ID, "--format", "json", "--verbose"))
    assert status == 0
    evidence = json.loads(doc)["evidence"]
    assert len(short.splitlines()) < len(whole.splitlines())
    for item in evidence:
        cited = f"{item['text']} (source{'s' if len(item['sources']) > 1 else ''}: {', '.join(item['sources'])})"
        assert f"- {cited}" in whole.splitlines()
    for section in ("Memory:", "Notes:", "Infrastructure findings: none in the evidence read"):
        assert section in whole and section not in short
    # JSON is the whole report either way.
    _, plain_json, _ = _run_in_process(capsys, *_args("example-oom", OOM_ID, "--format", "json"))
    assert plain_json == doc


async def test_markdown_is_the_short_body_with_every_line_folded_below() -> None:
    data, captured = big_history.big_case(records=MAX_OCCURRENCES * big_history.PER_EPISODE, tier2=True)
    async with open_bundle_tenant(parse_bundle(data, "oom"), label="oom") as tenant:
        report = await run_to_report(big_history.request(captured), tenant.runai, tenant.kube)
    markdown = to_markdown(report)
    body, _, folded = markdown.partition("\n<details>\n")
    assert folded, "the collapsed block is there"
    assert re.match(r"<summary>Every line: \d+ evidence lines?[\w ,]*</summary>\n\n#### All evidence\n", folded)
    assert folded.count("</details>") == 1
    assert body.count("\n- ") >= len(short_view(report).shown)
    assert folded.split("</details>")[0].count("\n- ") >= len(full_lines(report))
    # A quoted message is a code span, never a fenced block or a table, which would not wrap.
    assert "`Container main was OOM killed`" in body
    assert "```" not in markdown and "\n|" not in markdown
    # The whole Markdown has no collapsed block: everything is in the body.
    assert "<details>" not in to_markdown(report, verbose=True)
