"""A quoted message or log line in the Markdown report is an inline code span (core/report/markdown.py): read
back exactly, whatever backticks, links, mentions or markup it holds, and never a fenced block, which would not
wrap in a ticket or a chat."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from core.report.markdown import md_evidence

_MD = MarkdownIt("gfm-like", {"linkify": True})
LOG = "Log line 2 of container main (previous instance): "
MESSAGES = (
    "RuntimeError: CUDA error: unspecified launch failure",
    "bad `token` in ``config`` at ```line``` 3",
    "`starts and ends with a backtick`",
    "see https://evil.invalid/login or www.evil.invalid @here **now** <b>x</b> [a](b)",
    "x" * 700,
)


@pytest.mark.parametrize("message", MESSAGES)
def test_a_quoted_log_line_is_one_code_span_read_back_exactly(message: str) -> None:
    markdown = md_evidence(f'{LOG}"{message}"')
    tokens = _MD.parseInline(markdown)[0].children or []
    assert [t.type for t in tokens if t.type in {"link_open", "html_inline", "image"}] == []
    code = [t.content for t in tokens if t.type == "code_inline"]
    assert code == [message]
    text = "".join(t.content for t in tokens if t.type in {"text", "code_inline"})
    assert text == LOG + message, "what a reader sees is the line, without the quotes around the message"


def test_an_event_message_with_its_object_after_it() -> None:
    line = 'Event reason: BackOff; message: "Back-off pulling image "nvcr.io/acme/x:1""; on Pod x-0-0'
    tokens = _MD.parseInline(md_evidence(line))[0].children or []
    assert [t.content for t in tokens if t.type == "code_inline"] == ['Back-off pulling image "nvcr.io/acme/x:1"']
    assert "".join(t.content for t in tokens if t.type in {"text", "code_inline"}).endswith("; on Pod x-0-0")


def test_a_merged_line_keeps_its_quote_as_code_with_what_follows_it() -> None:
    line = 'Node/gpu-e-47 event Warning NvidiaXID79Error: "NVRM: Xid 79"; node condition AcceleratedHardwareReady=False'
    tokens = _MD.parseInline(md_evidence(line))[0].children or []
    assert [t.content for t in tokens if t.type == "code_inline"] == ["NVRM: Xid 79"]
    assert "".join(t.content for t in tokens if t.type == "text").endswith(
        "; node condition AcceleratedHardwareReady=False"
    )
