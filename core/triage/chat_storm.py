"""A storm as a chat message: the cause named once, then the workloads it took down (core.notify.storms says
which go together and when). The first post of a storm names the cause, the line that shows it (from its first
failure), what to do and the command that says more; a follow-up names the cause in a few words and lists the
workloads that joined since, with the storm's count so far.

The workloads are listed by project, each with its verdict when they differ. A list too long for the chat's
limit (Slack: under 1,500 characters) is cut, saying how many it leaves out: every failure is in the watch's
own output. Dialects, escaping and cleaning as core.triage.chat_render.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Protocol

from core.safety.untrusted import clean
from core.triage.chat_render import MARKDOWN, MARKDOWN_LIMIT, SLACK, SLACK_LIMIT, Dialect, cut
from core.triage.storm_cause import Cause

CAPS = {"words": 300, "why": 300, "do": 300, "command": 240, "name": 60, "list": 1_000}


def storm_facts(cause: Cause, why: str, why_sources: tuple[str, ...], do: str | None, command: str) -> dict[str, str]:
    """What every post of a storm says of its cause, kept with the storm (plain, cleaned words)."""
    return {"kind": cause.kind, "subject": cause.subject, "words": cause.words,
            "why": clean(why, one_line=True, max_len=1000), "sources": ", ".join(why_sources)[:200],
            "do": clean(do or "", one_line=True, max_len=1000), "command": clean(command, one_line=True, max_len=1000)}


class Listed(Protocol):
    """A failure as a storm's list shows it (core.notify.storms `Member` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def project(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def repeats(self) -> int: ...


class Post(Protocol):
    """A storm's post as written here (core.notify.storms `Release` is one)."""

    @property
    def facts(self) -> Mapping[str, str]: ...  # what storm_facts said of the cause
    @property
    def members(self) -> Sequence[Listed]: ...
    @property
    def first(self) -> bool: ...
    @property
    def number(self) -> int: ...  # 0 for the first post, then 1, 2, ... for follow-ups
    @property
    def total(self) -> int: ...  # failures of the storm posted with this one
    @property
    def projects(self) -> int: ...  # projects of those
    @property
    def since(self) -> float: ...  # the storm's first failure (epoch seconds)
    @property
    def key(self) -> str: ...


# What gives way first when a post is too long: the lines about the cause, then the list of workloads.
_SHRINK = ("command", "do", "why", "words", "name", "list")


def storm_text(post: Post, dialect: str) -> str:
    """The post in `dialect` (slack, mattermost, markdown), under the dialect's limit."""
    d, limit = (SLACK, SLACK_LIMIT) if dialect == "slack" else (MARKDOWN, MARKDOWN_LIMIT)
    caps = dict(CAPS)
    text = _write(post, caps, d)
    for piece in _SHRINK:
        while len(text) >= limit and caps[piece] > 40:
            caps[piece] = max(40, caps[piece] * 3 // 4)
            text = _write(post, caps, d)
    if len(text) < limit:
        return text
    body, _, key = text.rpartition("\n")  # the key stays the last line, whole
    return body[: limit - len(key) - 3] + "…\n" + key


def _subject(facts: Mapping[str, str], d: Dialect) -> str:
    kind, subject = facts.get("kind"), facts.get("subject") or "?"
    if kind == "node":
        return f"node {d.code(cut(subject, 120))}"
    if kind == "image":
        return f"image {d.code(cut(subject, 160))}"
    return d.plain(cut(subject, 80))


def _stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _write(p: Post, caps: dict[str, int], d: Dialect) -> str:
    f = p.facts
    n = len(p.members)
    where = f"in {p.projects} project{'s' if p.projects != 1 else ''}"
    subject = _subject(f, d)
    if p.first:
        head = (f"{d.bold}Storm: {n} workload{'s' if n != 1 else ''} failed, one cause{d.bold}: {subject}, "
                f"{where}, since {d.plain(_stamp(p.since))}")
    else:
        head = (f"{d.bold}Storm follow-up {p.number}: {n} more workload{'s' if n != 1 else ''} failed{d.bold}, "
                f"{subject}: {p.total} in all {where} since {d.plain(_stamp(p.since))}")
    body = [f"Cause: {d.plain(cut(f.get('words', ''), caps['words']))}"]
    if p.first and f.get("why"):
        cited = f" ({d.plain(f['sources'])})" if f.get("sources") else ""
        body.append(f"Shown by (first failure): {d.code(cut(f['why'], caps['why']))}{cited}")
    body.append(f"Workloads: {_members(p.members, caps, d)}")
    if p.first:
        if f.get("do"):
            body.append(f"Do: {d.plain(cut(f['do'], caps['do']))}")
        if f.get("command"):
            body.append(f"More: {d.code(cut(f['command'], caps['command']))}")
    return "\n".join([head, *d.gap, *(d.item + line for line in body), *d.gap, f"key {d.code(p.key)}"])


def _members(members: Sequence[Listed], caps: dict[str, int], d: Dialect) -> str:
    """`nlp: a, b; vision: c` (each name in code), with each verdict when they differ, cut to caps['list']."""
    labels = {m.label for m in members}
    same = len(labels) == 1
    by_project: dict[str, list[str]] = {}
    for m in members:
        name = d.code(cut(m.name, caps["name"]))
        if not same:
            name += f" {d.plain(m.label)}"
        if m.repeats:
            name += f" (+{m.repeats} repeat{'s' if m.repeats != 1 else ''})"
        by_project.setdefault(m.project, []).append(name)
    parts: list[str] = []
    shown = 0
    budget = caps["list"]
    for project, names in by_project.items():
        kept: list[str] = []
        for name in names:
            if sum(map(len, parts)) + sum(len(k) + 2 for k in kept) + len(name) + len(project) + 4 > budget:
                break
            kept.append(name)
        if kept:
            parts.append(f"{d.plain(project)}: {', '.join(kept)}")
            shown += len(kept)
        if len(kept) < len(names):
            break
    text = "; ".join(parts)
    if shown < len(members):
        text += f"; and {len(members) - shown} more (each in the watch's output)"
    if same:
        text += f" (all {d.plain(next(iter(labels)))})"
    return text
