"""A watched failure as a chat message, per dialect, over every golden report (demo stories, examples, rule,
infrastructure and first-failure bundles) and over hostile text.

Slack: no heading, no HTML, no backslash escape, under 1,500 characters, Slack's own `&lt;` escaping so cluster
text makes no mention or link. Mattermost and Markdown: CommonMark that renders (parsed with markdown-it) with no
HTML, heading or mention coming out of cluster text. All: the category first, the workload, the decisive line
with its sources, an OOM's memory figure, the first recommendation, the command, and the stable key, in the text
and where the dialect's body keeps one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from core.diagnosis.request import DiagnosisRequest
from core.models.report import Report
from core.models.runai import Workload
from core.notify.dialects import body_of, dialect_for
from core.triage.batch import Verdict
from core.triage.chat_render import SLACK_LIMIT
from core.triage.entry_render import chat_facts, chat_text
from core.triage.scan import ScanEntry

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "reports"
COMMAND = "runai-triage diagnose --base-url https://runai.example.com --cluster-id c --workload-id w"
KEY = "rt-0123456789abcdef01234567"
HOSTILE = "<!channel> *bold* _it_ `tick` <https://evil.example|click> @channel @here # head &amp; \\x"


def entry_of(report: Report, name: str | None = None, phase_message: str | None = None) -> ScanEntry:
    w = report.workload
    workload = Workload.model_validate({
        "id": w.id or "w", "name": name if name is not None else w.name, "projectName": w.project,
        "phase": w.phase, "phaseUpdatedAt": w.phase_updated_at or "2026-11-30T11:00:00Z", "clusterId": w.cluster_id,
        "phaseMessage": phase_message,
    })
    request = DiagnosisRequest(cluster_id=w.cluster_id or "c", workload_id=w.id or "w")
    return ScanEntry(workload, "failed", Verdict(request, report))


def golden_reports() -> list[tuple[str, Report]]:
    found = []
    for path in sorted(GOLDEN.rglob("*.json")):
        golden = json.loads(path.read_text())
        if "json" not in golden:  # a case whose diagnosis fails by design (an unknown cluster) has no report
            continue
        body: dict[str, Any] = json.loads("\n".join(golden["json"]))
        found.append((f"{path.parent.name}/{path.stem}", Report.model_validate(body)))
    return found


REPORTS = golden_reports()


def test_there_are_reports_of_every_kind() -> None:
    categories = {r.category for _, r in REPORTS if r.outcome == "diagnosed"}
    assert len(REPORTS) > 100 and {"OOM_KILLED", "CRASH_APP_ERROR", "IMAGE_PULL_FAILED", "NODE_FAILURE"} <= categories
    assert any(r.outcome != "diagnosed" for _, r in REPORTS)


def slack_rules(text: str, entry: ScanEntry) -> None:
    assert len(text) < SLACK_LIMIT, len(text)
    assert not re.search(r"^\s{0,3}#", text, re.M), "a heading"
    assert not re.search(r"<[A-Za-z/!@#]", text), "HTML or a Slack control sequence"
    # No backslash escape: a backslash is there only where the cluster's own text has one (a quoted "\n").
    found = chat_facts(entry, COMMAND, KEY)
    theirs = sum(str(v).count("\\") for v in (found.name, found.project, found.why, found.do, found.finding))
    assert text.count("\\") <= theirs, "a backslash escape"
    assert not re.search(r"\\[*_`~>#\[\]()]", text.replace(found.why, "")), "a Markdown escape"
    assert "<" not in text and ">" not in text  # Slack's three control characters are all escaped
    assert not re.search(r"&(?!amp;|lt;|gt;)", text), "an & that Slack would read as the start of an escape"


@pytest.mark.parametrize(("case", "report"), REPORTS, ids=[case for case, _ in REPORTS])
def test_a_slack_post_is_short_plain_mrkdwn_with_what_decides(case: str, report: Report) -> None:
    entry = entry_of(report)
    text = chat_text(entry, "slack", COMMAND, KEY)
    slack_rules(text, entry)
    lines = text.splitlines()
    label = report.category if report.outcome == "diagnosed" else report.outcome
    assert lines[0].startswith(f"*{label}*: `{(report.workload.name or report.workload.id or '')[:40]}")
    found = chat_facts(entry, COMMAND, KEY)
    assert lines[1].startswith("Why: `") and all(source in lines[1] for source in found.why_sources)
    if report.category == "OOM_KILLED" and report.memory is not None:
        assert any(line.startswith("Memory: ") and ("GiB" in line or "MiB" in line or "no measured peak" in line)
                   for line in lines)
    if report.recommendations:
        do = next(line for line in lines if line.startswith("Do: "))
        assert report.recommendations[0][:30].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in do
    assert f"Whole report: `{COMMAND}`" in lines and lines[-1] == f"key `{KEY}`"


def markdown_rules(text: str) -> list[Any]:
    tokens = MarkdownIt("commonmark").parse(text)
    kinds = {t.type for t in tokens} | {c.type for t in tokens for c in (t.children or [])}
    assert not kinds & {"html_inline", "html_block", "heading_open", "fence", "code_block", "hr"}, kinds
    plain = " ".join(c.content for t in tokens for c in (t.children or []) if c.type == "text")
    assert not re.search(r"(?<![\w`])@(channel|here|all)\b", plain), "a mention outside code"
    return tokens


@pytest.mark.parametrize("dialect", ["mattermost", "markdown"])
@pytest.mark.parametrize(("case", "report"), REPORTS[::5], ids=[case for case, _ in REPORTS[::5]])
def test_a_markdown_post_renders_with_what_decides(case: str, report: Report, dialect: str) -> None:
    text = chat_text(entry_of(report), dialect, COMMAND, KEY)
    tokens = markdown_rules(text)
    # The first paragraph: the category in bold, then the workload as code.
    inline = [t for t in tokens[1].children or [] if t.type != "text" or t.content]
    assert [t.type for t in inline[:4]] == ["strong_open", "text", "strong_close", "text"]
    label = report.category if report.outcome == "diagnosed" else report.outcome
    assert inline[1].content == label
    items = [t for t in tokens if t.type == "list_item_open"]
    assert len(items) >= 2 and len(text) < 3_000
    code = [c.content for t in tokens for c in (t.children or []) if c.type == "code_inline"]
    assert COMMAND in code and KEY in code


def test_hostile_cluster_text_makes_no_mention_link_heading_or_html() -> None:
    report = next(r for _, r in REPORTS if r.category == "CRASH_APP_ERROR")
    report = report.model_copy(update={"recommendations": [f"Fix it {HOSTILE}"]})
    entry = entry_of(report, name=f"{HOSTILE}\n# not a heading")
    slack = chat_text(entry, "slack", COMMAND, KEY)
    slack_rules(slack, entry)
    assert "&lt;!channel&gt;" in slack and "&lt;https://evil.example|click&gt;" in slack
    for dialect in ("mattermost", "markdown"):
        text = chat_text(entry, dialect, COMMAND, KEY)
        tokens = markdown_rules(text)
        links = [c for t in tokens for c in (t.children or []) if c.type == "link_open"]
        assert links == []


def test_a_long_report_is_cut_to_fit_and_keeps_its_last_lines() -> None:
    report = next(r for _, r in REPORTS if r.category == "OOM_KILLED")
    report = report.model_copy(update={"recommendations": ["word " * 800]})
    entry = entry_of(report, name="n" * 500)
    text = chat_text(entry, "slack", COMMAND, KEY)
    slack_rules(text, entry)
    assert text.splitlines()[-1] == f"key `{KEY}`" and f"Whole report: `{COMMAND}`" in text


def test_each_body_carries_the_key_where_its_chat_keeps_one() -> None:
    slack = json.loads(body_of("hi", "slack", KEY))
    assert slack == {"text": "hi", "metadata": {"event_type": "runai_triage_failure", "event_payload": {"key": KEY}}}
    assert json.loads(body_of("hi", "mattermost", KEY)) == {"text": "hi", "props": {"runai_triage_key": KEY}}
    assert json.loads(body_of("hi", "markdown", KEY)) == {"text": "hi", "runai_triage_key": KEY}


@pytest.mark.parametrize(
    ("url", "given", "dialect", "said"),
    [
        ("https://hooks.slack.com/services/T/B/x", None, "slack", True),
        ("https://chat.mattermost.example.com/hooks/abc", None, "mattermost", True),
        ("https://relay.example.com/hooks/abc", None, "markdown", False),
        ("https://relay.example.com/hooks/abc", "mattermost", "mattermost", True),
        ("https://hooks.slack.com/services/T/B/x", "markdown", "markdown", True),
    ],
)
def test_the_dialect_comes_from_the_option_else_the_host(url: str, given: str | None, dialect: str,
                                                         said: bool) -> None:
    assert dialect_for(url, given) == (dialect, said)
