"""Markdown output pings nobody: `@here`, `@channel`, `@everyone`, `@user` and `@org/team` become code spans."""

from __future__ import annotations

import re

import pytest

from core.models.report import Report
from core.report.render import md_escape, to_json, to_markdown, to_text

MENTIONS = ["@here", "@channel", "@everyone", "@alice", "@acme/ml-platform", "@a.b-c_d"]
# A mention outside a code span: an `@` not after a letter, digit or `_`, with no backtick right before it.
LIVE_MENTION = re.compile(r"(?<![A-Za-z0-9_`])@[A-Za-z0-9]")


@pytest.mark.parametrize("mention", MENTIONS)
@pytest.mark.parametrize("shape", ["{}", "cc {} now", "({})", "**{}**", "cc:{}!", "{}, {}", "[x]({})"])
def test_every_mention_becomes_a_code_span(mention: str, shape: str) -> None:
    out = md_escape(shape.format(mention, mention))
    assert LIVE_MENTION.search(out) is None, out
    assert f"`{mention}`" in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail alice@example.com today", "mail `alice@example.com` today"),  # linkable: code, and readable
        ("user@host failed", "user@host failed"),  # an @ inside a word is no mention anywhere
        ("@alice.", "`@alice`."),  # sentence punctuation stays outside
        ("@ alone", "@ alone"),
        ("price@3", "price@3"),
    ],
)
def test_addresses_and_plain_at_signs_stay_readable(text: str, expected: str) -> None:
    assert md_escape(text) == expected


def _report() -> Report:
    return Report.model_validate(
        {
            "outcome": "diagnosed",
            "category": "CRASH_APP_ERROR",
            "workload": {"name": "@channel-bot", "project": "@acme/ml"},
            "reason": "exit 1 @here",
            "evidence": [
                {
                    "text": 'message: "deploy failed, @everyone check" (alice@example.com)',
                    "source": "kubectl get events",
                }
            ],
            "missing": [{"what": "@org/team", "why": "ping @channel"}],
            "notes": ["@here"],
            "recurrence": {"lookback": "24h"},
            "recommendations": ["ask @alice"],
        }
    )


def test_a_whole_markdown_report_carries_no_live_mention() -> None:
    markdown = to_markdown(_report())
    assert LIVE_MENTION.search(markdown) is None, markdown
    for mention in ("@channel-bot", "@acme/ml", "@here", "@everyone", "@org/team", "@channel", "@alice"):
        assert f"`{mention}`" in markdown
    assert "`alice@example.com`" in markdown


def test_text_and_json_keep_the_words_as_written() -> None:
    # Only Markdown is meant to be pasted into chat and tickets; the other forms quote the cluster's words.
    report = _report()
    assert "deploy failed, @everyone check" in to_text(report)
    assert "@everyone" in to_json(report)
