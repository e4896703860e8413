"""The incident report of one node renders in a Markdown viewer: parsed with markdown-it-py (the parser rich and
Textual use), it is one h1 and its h2 sections in order, the administrator's commands are code spans, and no
link, image or HTML comes out of cluster text, however hostile; credentials in it are redacted.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from core.sim.bundle import parse_bundle
from core.sim.demo import DEMO_CLUSTERS, load_demo_bundle
from core.tenant import open_bundle_tenant
from core.triage import nodes_incident
from core.triage.nodes import NodesRequest, NodesResult, nodes_view
from tests.integration.test_nodes_bundles import NOW, C, bundle, failed

SECTIONS = ["What the administrator should do", "Timeline of the failures", "Who was affected",
            "Infrastructure evidence"]
SECRET = "ghp_" + "Zq8" * 12


def _tokens(text: str) -> list[Token]:
    md = MarkdownIt("gfm-like")  # tables, strikethrough and linkify: what GitHub's renderer adds
    flat: list[Token] = []
    for token in md.parse(text):
        flat.append(token)
        flat += token.children or []
    return flat


def _words(inline: Token) -> str:
    """What a viewer shows of an inline run: its text with the escapes resolved, and its code spans."""
    return "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))


def _headings(tokens: list[Token]) -> list[tuple[str, str]]:
    return [(t.tag, _words(tokens[i + 1])) for i, t in enumerate(tokens) if t.type == "heading_open"]


@pytest.fixture(scope="module")
def storm() -> NodesResult:
    async def run() -> NodesResult:
        async with open_bundle_tenant(load_demo_bundle(), label="demo") as tenant:
            assert tenant.captured_at is not None
            request = NodesRequest(DEMO_CLUSTERS[0]["uuid"], node="gpu-e-23")
            return await nodes_view(request, tenant.runai, tenant.kube, now=tenant.captured_at)

    return asyncio.run(run())


def test_the_incident_parses_as_one_document_with_its_sections(storm: NodesResult) -> None:
    text = nodes_incident.to_markdown(storm, storm.rows[0])
    tokens = _tokens(text)
    heads = _headings(tokens)
    assert heads[0][0] == "h1" and heads[0][1].startswith("Incident report: node gpu-e-23 (demo-east)")
    assert [tag for tag, _ in heads[1:]] == ["h2"] * len(SECTIONS)
    assert [title.split(" (")[0] for _, title in heads[1:]] == SECTIONS
    code = {t.content for t in tokens if t.type == "code_inline"}
    assert {"kubectl cordon gpu-e-23", "nvidia-smi -q", "dcgmi diag -r 3"} <= code
    # The timeline: one list item per failure, in time order, the seven of the shared cause marked.
    timeline = text.split("## Timeline")[1].split("## ")[0]
    items = [line for line in timeline.splitlines() if line.startswith("- ")]
    assert len(items) == 8 and sum("⚑" in item for item in items) == 7
    assert [i[2:13] for i in items] == sorted(i[2:13] for i in items)  # each starts with its time
    assert not [t for t in tokens if t.type in ("html_block", "html_inline", "link_open", "image")]


def test_hostile_cluster_text_stays_text_and_credentials_are_hidden() -> None:
    raw = bundle()
    evil = failed("w-evil", ["n2"], 0.5)
    name = f"[click](https://evil.example/x) <img src=x onerror=alert(1)> @here {SECRET}"
    for pod in evil["pods"]:
        pod["workloadName"] = name
    evil["workload"]["name"] = name
    evil["workload"]["phaseMessage"] += f" <script>steal()</script> token {SECRET}"
    raw["workloads"].append(evil)

    async def run() -> NodesResult:
        async with open_bundle_tenant(parse_bundle(copy.deepcopy(raw)), label="hostile") as tenant:
            return await nodes_view(NodesRequest(C, node="n2"), tenant.runai, None, tier2_unavailable="none",
                                    now=NOW)

    result = asyncio.run(run())
    row = result.rows[0]
    assert any(f.workload_id == "w-evil" for f in row.failures)
    for text in (nodes_incident.to_markdown(result, row), nodes_incident.to_text(result, row)):
        assert SECRET not in text and "ghp_" not in text.replace("ghp_…", "")
    tokens = _tokens(nodes_incident.to_markdown(result, row))
    assert not [t for t in tokens if t.type in ("html_block", "html_inline", "link_open", "image")]
    said = "".join(t.content for t in tokens if t.type in ("text", "code_inline"))
    assert "<img src=x" in said or "img src=x" in said  # shown as words, not as an element


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_a_node_without_a_shared_cause_says_there_is_nothing_to_do_on_it(fmt: str) -> None:
    async def run() -> tuple[NodesResult, Any]:
        async with open_bundle_tenant(parse_bundle(copy.deepcopy(bundle())), label="plain") as tenant:
            result = await nodes_view(NodesRequest(C, node="n1"), tenant.runai, None, tier2_unavailable="none",
                                      now=NOW)
            return result, result.rows[0]

    result, row = asyncio.run(run())
    render = nodes_incident.to_markdown if fmt == "markdown" else nodes_incident.to_text
    text = render(result, row)
    assert "Nothing on the node itself" in text and "kubectl cordon" not in text
    assert "Still running there: w-run" in text
