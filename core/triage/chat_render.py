"""One watched failure as a chat message: short, in the dialect of the chat it goes to. What it says (its
`ChatFacts`) is read from the failure by core.triage.entry_render `chat_facts`, with every rendering of an entry;
here it is written in each dialect.

A person sees it between other messages, so it carries only what decides what to do, in this order: the
category (or the outcome, or "no report"), the workload (its name, project, phase and since when), the decisive
line with the reads that showed it, for an OOM the measured memory against the limit, an infrastructure finding
that explains it, the first recommendation, the command that prints the whole report, and the failure's stable
key. The full report stays in the watch's own output.

Dialects (core.notify.dialects says which chat is which):
- `slack`: mrkdwn. No heading, no HTML, no backslash escape (Slack has none): `&`, `<`, `>` are written as
  `&amp;`, `&lt;`, `&gt;`, the only escaping Slack reads, which also keeps cluster text from making a mention
  (`<!channel>`) or a link. Cluster text is inline code, so `*` or `_` in it format nothing; a backtick in it
  (which would end the code) is shown as `'`. The whole message stays under SLACK_LIMIT characters.
- `mattermost`, `markdown`: CommonMark, every piece of cluster text inline code or escaped
  (core.report.markdown), so no heading, list, link, HTML or mention can come out of it.
Every string from the cluster is cleaned (core.safety.untrusted) before it becomes a fact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.report.markdown import md_code, md_escape

SLACK_LIMIT = 1_500
MARKDOWN_LIMIT = 3_000
# How long each piece may be at first; they shrink (the longest first) until the message fits its limit.
CAPS = {"why": 400, "do": 320, "finding": 200, "name": 100, "project": 60, "command": 320}


@dataclass(frozen=True, slots=True)
class ChatFacts:
    """What a chat message says, in plain (cleaned) words, before a dialect writes it."""

    label: str
    name: str
    project: str
    phase: str
    since: str | None
    why: str
    why_sources: tuple[str, ...]
    memory: str | None
    finding: str | None
    do: str | None
    command: str
    key: str
    repeats: int = 0  # earlier failures of the workload counted in the cool-down, not posted


def chat_message(found: ChatFacts, dialect: str) -> str:
    """The post saying `found` in `dialect` (slack, mattermost, markdown), under the dialect's limit."""
    if dialect == "slack":
        return _fit(found, _slack, SLACK_LIMIT)
    return _fit(found, _markdown, MARKDOWN_LIMIT)


def _fit(found: ChatFacts, write: Callable[[ChatFacts, dict[str, int]], str], limit: int) -> str:
    return fit(found, write, limit, CAPS)


def fit(found: Any, write: Callable[[Any, dict[str, int]], str], limit: int, start: dict[str, int]) -> str:
    """`write(found, caps)` with its pieces' caps shrunk, the longest first, until it is under `limit`."""
    caps = dict(start)
    text = write(found, caps)
    while len(text) >= limit:
        longest = max(caps, key=lambda k: caps[k])
        if caps[longest] <= 40:
            return text[: limit - 2] + "…"
        caps[longest] = max(40, caps[longest] * 3 // 4)
        text = write(found, caps)
    return text


def cut(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - 1].rstrip() + "…"


_cut = cut


# -- the dialects -----------------------------------------------------------------------------------------
def _sl(text: str) -> str:
    """Plain text as Slack reads it: its three control characters escaped, nothing else."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _sl_code(text: str) -> str:
    return "`" + _sl(text.replace("`", "'")) + "`"


@dataclass(frozen=True, slots=True)
class Dialect:
    plain: Callable[[str], str]  # words, made literal
    code: Callable[[str], str]  # an inline code span
    bold: str  # the mark around the category
    item: str  # what starts each line of the body
    gap: tuple[str, ...]  # what stands between the head, the body and the key


SLACK = Dialect(_sl, _sl_code, "*", "", ())
MARKDOWN = Dialect(md_escape, md_code, "**", "- ", ("",))


def _slack(f: ChatFacts, caps: dict[str, int]) -> str:
    return _write(f, caps, SLACK)


def _markdown(f: ChatFacts, caps: dict[str, int]) -> str:
    return _write(f, caps, MARKDOWN)


def _write(f: ChatFacts, caps: dict[str, int], d: Dialect) -> str:
    since = f" since {d.plain(f.since)}" if f.since else ""
    head = (f"{d.bold}{d.plain(f.label)}{d.bold}: {d.code(_cut(f.name, caps['name']))} in "
            f"{d.code(_cut(f.project, caps['project']))}, {d.plain(f.phase)}{since}")
    cited = f" ({d.plain(', '.join(f.why_sources))})" if f.why_sources else ""
    body = [f"Why: {d.code(_cut(f.why, caps['why']))}{cited}"]
    if f.memory:
        body.append(f"Memory: {d.plain(f.memory)}")
    if f.finding:
        body.append(f"Infrastructure: {d.plain(_cut(f.finding, caps['finding']))}")
    if f.do:
        body.append(f"Do: {d.plain(_cut(f.do, caps['do']))}")
    if f.repeats:
        body.append(f"Repeats: failed {f.repeats} more {'time' if f.repeats == 1 else 'times'} since its last post, "
                    "within the cool-down (counted, not posted)")
    body.append(f"Whole report: {d.code(_cut(f.command, caps['command']))}")
    return "\n".join([head, *d.gap, *(d.item + line for line in body), *d.gap, f"key {d.code(f.key)}"])
