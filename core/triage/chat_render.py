"""One watched failure as a chat message: short, in the dialect of the chat it goes to.

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
Every string from the cluster is cleaned (core.safety.untrusted) before it is written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.models.quantity import format_bytes
from core.models.report import Report
from core.report.markdown import md_code, md_escape
from core.safety.untrusted import clean
from core.triage.scan import ScanEntry
from core.triage.scan_render import finding_line, top_line

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


def facts(entry: ScanEntry, command: str, key: str) -> ChatFacts:
    w, report = entry.workload, entry.verdict.report
    why, sources = top_line(entry)
    return ChatFacts(
        label=entry.label,
        name=_one(w.name or w.id or "(no name)"),
        project=_one(w.project_name or "no project"),
        phase=_one(w.phase or "no phase", 40),
        since=w.phase_updated_at.strftime("%Y-%m-%d %H:%M:%S UTC") if w.phase_updated_at else None,
        why=_one(why, 1000),
        why_sources=tuple(_one(s, 40) for s in sources),
        memory=_memory(report),
        finding=(finding_line(entry) or "").removeprefix("⚑ ") or None,
        do=_one(report.recommendations[0], 1000) if report is not None and report.recommendations else None,
        command=_one(command, 1000),
        key=key,
    )


def chat_text(entry: ScanEntry, dialect: str, command: str, key: str) -> str:
    """The message for `dialect` (slack, mattermost, markdown)."""
    found = facts(entry, command, key)
    if dialect == "slack":
        return _fit(found, _slack, SLACK_LIMIT)
    return _fit(found, _markdown, MARKDOWN_LIMIT)


def _fit(found: ChatFacts, write: Callable[[ChatFacts, dict[str, int]], str], limit: int) -> str:
    caps = dict(CAPS)
    text = write(found, caps)
    while len(text) >= limit:
        longest = max(caps, key=lambda k: caps[k])
        if caps[longest] <= 40:
            return text[: limit - 2] + "…"
        caps[longest] = max(40, caps[longest] * 3 // 4)
        text = write(found, caps)
    return text


def _one(text: object, max_len: int = 200) -> str:
    return clean(text, one_line=True, max_len=max_len)


def _cut(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - 1].rstrip() + "…"


def _memory(report: Report | None) -> str | None:
    """For an OOM kill: the measured peak against the limit, or what is missing."""
    if report is None or report.category != "OOM_KILLED" or report.memory is None:
        return None
    m = report.memory
    limit = f"a {format_bytes(m.limit_bytes)} limit" if m.limit_bytes is not None else "no readable limit"
    if m.peak_bytes is None:
        return f"no measured peak; {limit}"
    share = f" ({m.peak_bytes / m.limit_bytes:.1%})" if m.limit_bytes else ""
    whose = f" in pod {_one(m.pod, 80)}" if m.pod else ""
    return f"peak {format_bytes(m.peak_bytes)}{whose} of {limit}{share}"


# -- the dialects -----------------------------------------------------------------------------------------
def _sl(text: str) -> str:
    """Plain text as Slack reads it: its three control characters escaped, nothing else."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _sl_code(text: str) -> str:
    return "`" + _sl(text.replace("`", "'")) + "`"


@dataclass(frozen=True, slots=True)
class _Dialect:
    plain: Callable[[str], str]  # words, made literal
    code: Callable[[str], str]  # an inline code span
    bold: str  # the mark around the category
    item: str  # what starts each line of the body
    gap: tuple[str, ...]  # what stands between the head, the body and the key


_SLACK = _Dialect(_sl, _sl_code, "*", "", ())
_MARKDOWN = _Dialect(md_escape, md_code, "**", "- ", ("",))


def _slack(f: ChatFacts, caps: dict[str, int]) -> str:
    return _write(f, caps, _SLACK)


def _markdown(f: ChatFacts, caps: dict[str, int]) -> str:
    return _write(f, caps, _MARKDOWN)


def _write(f: ChatFacts, caps: dict[str, int], d: _Dialect) -> str:
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
    body.append(f"Whole report: {d.code(_cut(f.command, caps['command']))}")
    return "\n".join([head, *d.gap, *(d.item + line for line in body), *d.gap, f"key {d.code(f.key)}"])
