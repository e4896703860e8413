"""The report contract (docs/report-format.md) on real diagnoses: the example bundles and every hand-shaped
demo story, diagnosed over real HTTP, then rendered as JSON, text and Markdown.

Other tools parse these outputs, so the checks are the contract's words: required keys and types for every
outcome, the order of the text sections, Markdown that a hostile name cannot turn into links or HTML, and no
control character or planted credential in any format.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio
from markdown_it import MarkdownIt
from markdown_it.token import Token

from core.diagnosis.engine import run_to_report
from core.diagnosis.request import DiagnosisRequest
from core.models.evidence_text import quoted
from core.models.report import (
    CATEGORIES,
    OUTCOMES,
    SOURCES,
    EvidenceItem,
    Memory,
    MissingItem,
    Recurrence,
    Report,
    WorkloadRef,
)
from core.report.layout import short_evidence
from core.report.once import advice_words
from core.report.render import RENDERERS, headline, to_json, to_markdown, to_text
from core.sim.demo import demo_expectations
from core.sim.demo.stories import hostile
from core.tenant import Tenant, open_case_tenant, open_demo_tenant
from tests.paths import CASES
from tui.commands.start import flag

# One demo tenant (one loopback server) serves every story, so the async tests share the module's loop.
module_loop = pytest.mark.asyncio(loop_scope="module")

EXAMPLE_CLUSTER = "05664dde-1ea7-5931-81c6-fcd52b6608e7"
EXAMPLES = {
    "example-oom": "9c272e2c-4cbd-59c9-ad76-2b982958772c",
    "example-image-pull": "36c57368-2cfe-5aea-8a36-3f60c4934bca",
    "example-preempted": "95df3412-1827-5728-b3ea-5d68230d4c25",
}
EXPECTATIONS = demo_expectations()
KEYS = list(EXAMPLES) + [e["key"] for e in EXPECTATIONS]

SCHEMA = "runai-triage/report@1"
REQUIRED = ("schema", "outcome", "category", "workload", "evidence", "missing", "memory", "recurrence",
            "recommendations")
WORKLOAD_KEYS = ("id", "name", "project", "clusterId", "phase", "namespace")

# What must never reach a reader raw: C0 controls but tab and newline, DEL, C1 (0x9b is a one-byte CSI),
# bidi overrides and isolates, zero-width characters, BOM, and the Unicode line/paragraph separators.
UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2064\u2066-\u2069\ufeff]"
)
# Every credential the secret-bearing stories plant (env, args, annotation, git URL, events, logs), and the
# distinctive parts of the longer ones so a partial leak is caught too.
PLANTED = (
    hostile.FAKE_JWT,
    *hostile.FAKE_JWT.split("."),
    hostile.FAKE_GHP,
    hostile.FAKE_HF,
    hostile.FAKE_AKIA,
    hostile.FAKE_AWS_SECRET,
    hostile.FAKE_DOCKER_AUTH,
    "MIIEFAKEdemoKEYmaterial",
    "AAAAFAKEdemoKEYmaterial",
    "hunter2",
    "pa55",
    "0123456789abcdef0123456789abcdefFAKEdemo",
)


def _request_for(case: dict[str, Any], tenant: Tenant) -> DiagnosisRequest:
    kwargs: dict[str, Any] = {"cluster_id": case["clusterId"], "lookback": case.get("lookback") or "24h"}
    if case.get("lookup") == "id" and case.get("workloadId"):
        kwargs["workload_id"] = case["workloadId"]
    else:
        kwargs.update(name=case["name"], project=case["project"], active=case.get("intent") == "active")
    return DiagnosisRequest(now=tenant.captured_at, **kwargs)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def reports() -> AsyncIterator[dict[str, tuple[Report, str]]]:
    """Every report, with the lookback it was asked for. One demo server serves all stories."""
    out: dict[str, tuple[Report, str]] = {}
    for name, workload_id in EXAMPLES.items():
        async with open_case_tenant(CASES / f"{name}.json") as tenant:
            req = DiagnosisRequest(
                cluster_id=EXAMPLE_CLUSTER, workload_id=workload_id, now=tenant.captured_at
            )
            report = await run_to_report(
                req, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable
            )
            out[name] = (report, req.lookback)
    async with open_demo_tenant() as tenant:
        for case in EXPECTATIONS:
            req = _request_for(case, tenant)
            report = await run_to_report(
                req, tenant.runai, tenant.kube, tier2_unavailable=tenant.kube_unavailable
            )
            out[case["key"]] = (report, req.lookback)
    yield out


def _strings(value: Any, path: str = "$") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key, f"{path}.<key>")
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _optional_str(value: Any) -> bool:
    return value is None or isinstance(value, str)


# -- JSON ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
@module_loop
async def test_json_has_every_required_key_with_its_type(
    reports: dict[str, tuple[Report, str]], key: str
) -> None:
    report, lookback = reports[key]
    doc = json.loads(to_json(report))
    assert [k for k in REQUIRED if k not in doc] == []
    assert doc["schema"] == SCHEMA
    assert doc["outcome"] in OUTCOMES
    assert doc["category"] is None or doc["category"] in CATEGORIES

    workload = doc["workload"]
    assert isinstance(workload, dict)
    assert [k for k in WORKLOAD_KEYS if k not in workload] == []
    assert all(_optional_str(workload[k]) for k in WORKLOAD_KEYS), workload

    assert isinstance(doc["evidence"], list)
    for item in doc["evidence"]:
        assert isinstance(item["text"], str) and item["text"].strip()
        assert item["source"] in SOURCES, item
    assert isinstance(doc["missing"], list)
    for item in doc["missing"]:
        assert isinstance(item["what"], str) and item["what"].strip()
        assert isinstance(item["why"], str) and item["why"].strip()

    memory = doc["memory"]
    if memory is not None:
        for name in ("requestBytes", "limitBytes", "peakBytes"):
            assert memory[name] is None or _is_int(memory[name]), (name, memory[name])
        assert _is_int(memory["samples"]) and memory["samples"] >= 0

    rec = doc["recurrence"]
    assert _is_int(rec["count"]) and rec["count"] >= 0
    assert isinstance(rec["recurring"], bool)
    assert rec["lookback"] == lookback
    assert isinstance(doc["recommendations"], list) and doc["recommendations"]
    assert all(isinstance(r, str) and r.strip() for r in doc["recommendations"])


@pytest.mark.parametrize("key", KEYS)
@module_loop
async def test_json_values_follow_the_contract_rules(
    reports: dict[str, tuple[Report, str]], key: str
) -> None:
    report, _ = reports[key]
    doc = json.loads(to_json(report))
    # The JSON is the report, key for key (rendering adds or drops nothing).
    assert doc == report.to_json_dict()
    rec = doc["recurrence"]
    assert rec["recurring"] == (rec["count"] >= 2)
    if doc["outcome"] == "diagnosed":
        assert doc["category"] in CATEGORIES
    else:
        assert doc["category"] is None
        assert rec["count"] == 0 and rec["recurring"] is False
        assert doc["memory"] is None, "memory has no bearing on a routed-out outcome"

    memory = doc["memory"]
    if doc["category"] == "OOM_KILLED":
        assert memory is not None, "an OOM verdict reports the limit and the peak (or that none was seen)"
    if memory is not None:
        if memory["samples"] == 0:
            assert memory["peakBytes"] is None, "a peak needs samples"
        else:
            assert memory["peakBytes"] is not None
        # Memory is only reported when it bears on the verdict: an OOM, or a kill (137) nothing explained.
        cited = " ".join(e["text"] for e in doc["evidence"])
        assert doc["category"] == "OOM_KILLED" or "137" in cited or "OOM" in cited, cited


@pytest.mark.parametrize("key", KEYS)
@module_loop
async def test_no_control_character_in_any_format(reports: dict[str, tuple[Report, str]], key: str) -> None:
    report, _ = reports[key]
    raw = to_json(report)
    assert UNSAFE.search(raw) is None
    dirty = [(path, value[:80]) for path, value in _strings(json.loads(raw)) if UNSAFE.search(value)]
    assert dirty == []
    for render in (to_text, to_markdown):
        text = render(report)
        match = UNSAFE.search(text)
        assert match is None, (render.__name__, text[max(0, match.start() - 60) : match.end() + 20])


@module_loop
async def test_hostile_story_is_quoted_with_its_escapes_made_visible(
    reports: dict[str, tuple[Report, str]],
) -> None:
    report, _ = reports["hostile"]
    text = to_text(report)
    # The clear-screen sequence of the phase message is still there to read, as text.
    assert "\\x1b[2J" in text
    assert "\x1b" not in text and "\x9b" not in text and "\u202e" not in text


@pytest.mark.parametrize("key", ["secrets", "hostile", *EXAMPLES])
@module_loop
async def test_no_planted_secret_in_any_format(reports: dict[str, tuple[Report, str]], key: str) -> None:
    report, _ = reports[key]
    for render in RENDERERS.values():
        output = render(report)
        assert [s for s in PLANTED if s in output] == [], render.__name__
    assert "<redacted>" in to_text(reports["secrets"][0]), "the secrets story quotes redacted values"


@module_loop
async def test_no_planted_secret_in_any_report_of_the_tenant(reports: dict[str, tuple[Report, str]]) -> None:
    leaks = [
        (key, fmt, s)
        for key, (report, _) in reports.items()
        for fmt, render in RENDERERS.items()
        for s in PLANTED
        if s in render(report)
    ]
    assert leaks == []


# -- text ----------------------------------------------------------------------------------------------------
_SECTION_ORDER = ("Evidence:", "History:", "Missing evidence:", "Recommendation:")


def _section_starts(lines: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for i, line in enumerate(lines):
        for head in _SECTION_ORDER:
            if line.startswith(head) and head not in found:
                found[head] = i
    return found


@pytest.mark.parametrize("key", KEYS)
@module_loop
async def test_text_leads_with_the_verdict_then_follows_the_seed_order(
    reports: dict[str, tuple[Report, str]], key: str
) -> None:
    report, lookback = reports[key]
    lines = to_text(report, name=flag).splitlines()  # as `diagnose` prints it
    if report.outcome == "diagnosed":
        assert lines[0] == f"Category: {report.category}"
    else:
        assert re.fullmatch(rf"Outcome: {re.escape(report.outcome)} \([^()]+\)", lines[0]), lines[0]
    assert lines[0] == headline(report)
    name = report.workload.name or "(unknown name)"
    assert lines[1].startswith(f"Workload: {name} | Phase: "), lines[1]
    assert re.fullmatch(r"Workload: .+ \| Phase: \S+(?: since [^|]+ UTC)? \| Project: .+", lines[1])

    starts = _section_starts(lines)
    expected = [h for h in _SECTION_ORDER if h != "Missing evidence:" or report.missing]
    assert list(starts) == expected, "sections present and in the order evidence, history, missing, advice"
    assert [starts[h] for h in expected] == sorted(starts[h] for h in expected)

    # Every signal shown is one line, with its sources in the report-format vocabulary; what the short report
    # leaves out is counted on the line after them.
    view = short_evidence(report)
    cited = [ln for ln in lines[starts["Evidence:"] + 1 :] if ln.startswith("- ")]
    assert cited[: len(view.shown)] == [f"- {line.text} {line.cite()}" for line in view.shown] or (
        not report.evidence and cited[0] == "- none recorded"
    )
    assert all(source in SOURCES for line in view.shown for source in line.sources)
    if view.more:
        assert cited[len(view.shown)].startswith(f"- and {view.more} more line"), cited[len(view.shown)]
        assert cited[len(view.shown)].split(": ", 1)[1].startswith("--verbose")
    # `--verbose` shows every item on a line of its own, decisive first.
    whole = to_text(report, verbose=True).splitlines()
    every = [ln for ln in whole[whole.index("Evidence:") + 1 :] if ln.startswith("- ")][: len(report.evidence)]
    assert sorted(every) == sorted(f"- {item.text} {_cite(item.sources)}" for item in report.evidence)
    history = lines[starts["History:"]]
    if report.outcome != "diagnosed":
        assert "not counted" in history
    elif report.recurrence.count:
        least = "" if report.recurrence.complete else "at least "
        assert history.startswith(f"History: {least}{report.recurrence.count} {report.category} failure")
        assert f"in the last {lookback}" in history and report.recurrence.kind() in history
    advice = [ln[2:] for ln in lines[starts["Recommendation:"] + 1 :]]
    # Each in order; a finding's words it repeated in brackets point to the finding instead (issue 34).
    assert advice == [advice_words(r, report.findings) for r in report.recommendations]


def _cite(sources: list[str]) -> str:
    return f"(source: {sources[0]})" if len(sources) == 1 else f"(sources: {', '.join(sources)})"


@module_loop
async def test_text_of_the_example_oom_reads_like_the_seed_example(
    reports: dict[str, tuple[Report, str]],
) -> None:
    report, _ = reports["example-oom"]
    text = to_text(report)
    lines = text.splitlines()
    assert lines[:2] == ["Category: OOM_KILLED", "Workload: whisper-ft | Phase: Failed | Project: speech"]
    assert "History: 1 OOM_KILLED failure in the last 24h: one-off" in text
    # The limit and the measured peak are quantified, and the peak names where it was measured.
    assert "24Gi / 24Gi (source: get_workload_spec)" in text
    assert re.search(r"Peak CPU memory 23\.\d GiB .* of the 24 GiB limit.* \(source: get_workload_metrics\)", text)
    # The whole report still has the memory figures.
    assert re.search(r"measured peak 23\.\d GiB .* \(source: get_workload_metrics\)", to_text(report, verbose=True))


# -- Markdown ------------------------------------------------------------------------------------------------
# GitHub-flavoured parsing with bare-URL linking on: what a ticket system or chat would make of the text.
_MD = MarkdownIt("gfm-like", {"linkify": True})
_ACTIVE = {"link_open", "image", "html_inline", "html_block"}


def _walk(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def _inline_text(token: Token) -> str:
    parts = []
    for child in token.children or []:
        if child.type in {"text", "code_inline"}:
            parts.append(child.content)
        elif child.type in {"softbreak", "hardbreak"}:
            parts.append(" ")
    return "".join(parts)


# The one piece of HTML a report holds: the collapsed block of every line, around Markdown of its own.
_OWN_HTML = re.compile(r"<details>\n<summary>Every line: [\w ,]+</summary>\n|</details>\n")


def _active(tokens: list[Token]) -> list[str]:
    """Links, images and HTML in the parsed Markdown, but for the collapsed block's own tags."""
    return [
        t.type for t in _walk(tokens)
        if t.type in _ACTIVE and not (t.type == "html_block" and _OWN_HTML.fullmatch(t.content))
    ]


_QUOTES = re.compile(r'(?<![\w"])"(?P<q>[^"\n]*(?:"[^"\n]*)*?)"(?=[.,;)]?(?:\s|$))')


def _unquoted(text: str) -> str:
    """What a reader sees of an evidence line in Markdown: its quoted message as code, without the quotes."""
    found = quoted(text)
    return text if found is None else "".join(found)


def _list_items(tokens: list[Token], heading: str) -> list[str]:
    """The rendered text of each bullet under the `### heading` section."""
    items: list[str] = []
    inside = False
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            inside = tokens[i + 1].content == heading
        in_item = token.type == "inline" and tokens[i - 1].type == "paragraph_open"
        if inside and in_item and tokens[i - 2].type == "list_item_open":
            items.append(_inline_text(token))
    return items


@pytest.mark.parametrize("key", KEYS)
@module_loop
async def test_markdown_has_the_same_content_and_no_active_markup(
    reports: dict[str, tuple[Report, str]], key: str
) -> None:
    report, _ = reports[key]
    tokens = _MD.parse(to_markdown(report))
    assert _active(tokens) == [], "cluster text must not become a link, an image or HTML"
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert _inline_text(_MD.parseInline(headings[0])[0]) == headline(report)
    wanted = ["Evidence", "History"] + (["Missing evidence"] if report.missing else []) + ["Recommendation"]
    assert [h for h in headings[1:] if h in wanted] == wanted
    # Escaping changes how the text is written, never what a reader sees (a quoted message is a code span).
    view = short_evidence(report)
    seen = _list_items(tokens, "Evidence")
    assert seen[: len(view.shown)] == [f"{_unquoted(ln.text)} {ln.cite()}" for ln in view.shown] or (
        not report.evidence and seen == ["none recorded"]
    )
    every = _list_items(tokens, "All evidence")
    assert sorted(every) == sorted(f"{_unquoted(e.text)} {_cite(e.sources)}" for e in report.evidence) or (
        not report.evidence and every == ["none recorded"]
    )
    # The text's recommendations, each message said once (core/report/once.py) as the text says it.
    text = to_text(report).splitlines()
    advice = [ln[2:] for ln in text[text.index("Recommendation:") + 1 :] if ln.startswith("- ")]
    # A quotation in them is one code span, its quotes gone (issue 34): nothing else changes.
    assert _list_items(tokens, "Recommendation") == [_QUOTES.sub(r"\g<q>", a) for a in advice]
    if report.missing:
        said = " ".join(_list_items(tokens, "Missing evidence"))
        assert all(m.what in said and _QUOTES.sub(r"\g<q>", m.why) in said for m in report.missing)


HOSTILE_NAMES = (
    "[login](https://evil.invalid/login)",
    "![pixel](https://evil.invalid/p.png)",
    "<img src=x onerror=alert(1)>",
    "<https://evil.invalid/auto>",
    "see www.evil.invalid/now or https://evil.invalid/path.",
    "**urgent** _now_ ~~gone~~ `tick` ``double``",
    "&lt;script&gt; &#x3C;b&#x3E;",
    "# not a heading\n- not an item\n1. not a list\n<div>block</div>\n===",
    "[ref]: https://evil.invalid/ref",
    "| a | b |",
)


def _hostile_report(text: str) -> Report:
    return Report(
        outcome="diagnosed",
        category="CRASH_APP_ERROR",
        workload=WorkloadRef(id=f"id-{text}", name=text, project=text, cluster_id="c`1", phase="Failed"),
        evidence=[EvidenceItem(text=f"Event message: {text}", source="get_workload_status")],
        missing=[MissingItem(what=text, why=f"because {text}")],
        memory=None,
        recurrence=Recurrence(count=1, lookback="24h", recurring=False),
        recommendations=[f"Fix {text}"],
        reason=text,
        notes=[text],
    )


@pytest.mark.parametrize("text", HOSTILE_NAMES)
def test_markdown_keeps_hostile_cluster_text_inert(text: str) -> None:
    report = _hostile_report(text)
    markdown = to_markdown(report)
    tokens = _MD.parse(markdown)
    kinds = [t.type for t in _walk(tokens)]
    assert _active(tokens) == []
    # Our own structure only: one title, our section headings, our bold labels, no table and no quote.
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings[1:] == ["Evidence", "History", "Missing evidence", "Recommendation", "All evidence", "Notes"]
    assert "table_open" not in kinds and "blockquote_open" not in kinds and "s_open" not in kinds
    assert kinds.count("strong_open") == 5  # Workload, Phase, Project, Reason and the missing item's label
    assert kinds.count("ordered_list_open") == 0
    flat = " ".join(text.split("\n"))
    assert _list_items(tokens, "Evidence") == [f"Event message: {flat} (source: get_workload_status)"]
    assert _list_items(tokens, "Recommendation") == [f"Fix {flat}"]
    code = [t.content for t in _walk(tokens) if t.type == "code_inline"]
    one_line = text.replace("\n", "\\n")  # a line break in an identifier is shown, not obeyed
    assert f"id-{one_line}" in code and "c`1" in code, "identifiers stay whole inside their code spans"


def test_text_keeps_hostile_line_breaks_inside_their_item() -> None:
    report = _hostile_report("first\nCategory: OOM_KILLED\n- forged item")
    lines = to_text(report).splitlines()
    assert lines[0] == "Category: CRASH_APP_ERROR"
    assert "Category: OOM_KILLED" not in [ln.strip() for ln in lines[1:] if not ln.startswith("  ")]
    assert not any(ln == "- forged item" for ln in lines), "a line break cannot start a new item"


def test_rendering_is_the_last_guard_for_text_that_was_not_cleaned() -> None:
    # A report built from raw strings (an engine bug, a hand-made report): every format still comes out clean.
    raw = (
        f"boom \x1b[2J\x1b]52;c;cm0=\x07 \u202egnp.exe \x9b31m token {hostile.FAKE_GHP} "
        f"key {hostile.FAKE_AKIA}"
    )
    report = Report(
        outcome="diagnosed",
        category="UNKNOWN",
        workload=WorkloadRef(id="w1", name=raw, project="p", cluster_id="c", phase="Failed"),
        evidence=[EvidenceItem(text=raw, source="kubectl logs --previous")],
        missing=[MissingItem(what=raw, why=raw)],
        memory=Memory(request_bytes=1, limit_bytes=2, peak_bytes=None, samples=0),
        recurrence=Recurrence(count=0, lookback="24h"),
        recommendations=[raw],
        notes=[raw],
    )
    for render in RENDERERS.values():
        output = render(report)
        assert UNSAFE.search(output) is None, render.__name__
        assert hostile.FAKE_GHP not in output and hostile.FAKE_AKIA not in output, render.__name__
    decoded = json.loads(to_json(report))
    assert [p for p, v in _strings(decoded) if UNSAFE.search(v)] == []
    assert "\\x1b[2J" in decoded["evidence"][0]["text"], "the escape is shown, not dropped"
