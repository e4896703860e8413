"""One workload of a scan or a watch (a `ScanEntry`) -> text, Markdown, a JSON line, or the facts of a chat post.

Every rendering of a single entry is here; core.triage.scan_render lays whole scans out with them, `watch`
prints each failure with `render` (its format switch), and core.triage.chat_render writes the chat facts in each
chat's dialect. Every string from the cluster is cleaned on the way out, as in a single report.
- text: `entry_lines` (under a scan's verdict heading), `watch_lines` (on its own, the verdict first);
- Markdown: `entry_markdown` (a scan's bullet), `watch_markdown` (a headline, then the whole report);
- JSON: `entry_json` (a scan's `results` item), `entry_jsonl` (its report@1, or a scan-failure@1 line);
- chat: `chat_facts` and `chat_text` (what a post says, then written for its dialect).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from core.models.quantity import format_bytes
from core.models.report import Report
from core.report.render import finding_label, json_dict, md_code, md_escape, to_markdown
from core.report.why import why_line
from core.safety.untrusted import clean
from core.triage.chat_render import ChatFacts, chat_message
from core.triage.scan import ScanEntry
from core.usage import Namer

FAILURE_SCHEMA = "runai-triage/scan-failure@1"


def one_line(text: object, max_len: int = 200) -> str:
    return clean(text, one_line=True, max_len=max_len)


def minute(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if at else "unknown time"


# -- what every rendering of an entry says --------------------------------------------------------------------
def _recurrence(entry: ScanEntry) -> str | None:
    report = entry.verdict.report
    if report is None or report.outcome != "diagnosed":
        return None
    rec = report.recurrence
    loop = f" · {rec.crash_loop.words()}" if rec.crash_loop is not None else ""
    if rec.recurring:
        return f"recurring: {rec.counted()} in {rec.lookback}{loop}"
    if not rec.complete:
        return f"{rec.counted()} in {rec.lookback}, history not read whole{loop}"
    return (f"once in {rec.lookback}" if rec.count == 1 else f"none counted in {rec.lookback}") + loop


def finding_line(entry: ScanEntry) -> str | None:
    """The infrastructure finding that explains the failure, in a few words (who acts, which node), if any."""
    report = entry.verdict.report
    found = next((f for f in report.findings if f.explains), None) if report is not None else None
    if found is None:
        return None
    node = f" on node {one_line(found.node, 80)}" if found.node else ""
    return f"⚑ {finding_label(found)}: {found.kind}{node}, for the {found.owner}"


def top_line(entry: ScanEntry) -> tuple[str, tuple[str, ...]]:
    """(the line that says why, its sources): the same line the report and the picker lead with
    (`core.report.why`), else the reason, else the failure."""
    report = entry.verdict.report
    if report is None:
        return entry.verdict.failure or "no report", ()
    why = why_line(report)
    if why is not None:
        return why
    return report.reason or entry.why, ()


# -- text ----------------------------------------------------------------------------------------------------
def entry_lines(entry: ScanEntry, indent: str = "  ") -> list[str]:
    """One workload as the text output lists it (under its verdict's heading): when, name, phase and
    recurrence, then its top line of evidence, the finding under it if any, and its id."""
    w = entry.workload
    head = f"{indent}{minute(w.phase_updated_at)}  {one_line(w.name, 80)} ({one_line(w.project_name, 60)})"
    head += f"  {w.phase or 'no phase'}"
    rec = _recurrence(entry)
    head += f"  {rec}" if rec else ""
    return [head, *_body(entry, indent)]


def _body(entry: ScanEntry, indent: str) -> list[str]:
    text, sources = top_line(entry)
    out = [f"{indent}    {one_line(text, 300)}" + (f" ({', '.join(sources)})" if sources else "")]
    out += [f"{indent}    {flag}"] if (flag := finding_line(entry)) else []
    out.append(f"{indent}    id {entry.workload.id}")
    return out


def watch_lines(entry: ScanEntry) -> list[str]:
    """One workload as `watch` prints it, on its own (no heading above it): the verdict first, then the
    workload, its phase, when and its recurrence; then the same lines as `scan` gives it."""
    w = entry.workload
    head = f"{entry.label}  {one_line(w.name, 80)} ({one_line(w.project_name, 60)})  {w.phase or 'no phase'}"
    head += f"  {minute(w.phase_updated_at)}"
    rec = _recurrence(entry)
    head += f"  {rec}" if rec else ""
    return [head, *_body(entry, "")]


# -- Markdown ------------------------------------------------------------------------------------------------
def entry_markdown(entry: ScanEntry) -> list[str]:
    """One workload as the Markdown output lists it: a bullet with its name, when, recurrence and id, and its
    top line of evidence (with the finding under it) below."""
    w = entry.workload
    parts = [f"**{md_escape(one_line(w.name, 80))}** ({md_escape(one_line(w.project_name, 60))})",
             md_escape(minute(w.phase_updated_at))]
    rec = _recurrence(entry)
    if rec:
        parts.append(md_escape(rec))
    parts.append(f"id {md_code(one_line(w.id, 80))}")
    text, sources = top_line(entry)
    label = "source" if len(sources) == 1 else "sources"
    cited = f" _({label}: {', '.join(md_code(s) for s in sources)})_" if sources else ""
    out = [f"- {', '.join(parts)}  ", f"  {md_escape(one_line(text, 300))}{cited}"]
    out[-1] += f"  \n  {md_escape(flag)}" if (flag := finding_line(entry)) else ""
    return out


def watch_markdown(entry: ScanEntry, name: Namer | None = None) -> str:
    """A headline (the workload, its phase since when, the verdict), then the report whole, or why there is none
    (`name` names the options the report mentions, as `to_markdown` does)."""
    w = entry.workload
    workload = md_escape(clean(w.name or "(no name)", one_line=True, max_len=120))
    project = md_escape(clean(w.project_name or "no project", one_line=True, max_len=80))
    phase = md_escape(clean(w.phase or "no phase", one_line=True, max_len=40))
    since = f"`{w.phase_updated_at.isoformat()}`" if w.phase_updated_at else "an unknown time"
    head = (f"**runai-triage watch**: {workload} ({project}) {phase} since {since}: **{md_escape(entry.label)}** · "
            f"id `{clean(w.id or '', one_line=True, max_len=80)}`")
    report = entry.verdict.report
    if report is not None:
        return f"{head}\n\n{to_markdown(report, name=name)}"
    return f"{head}\n\n{md_escape(clean(entry.verdict.failure or 'no report', max_len=1000))}\n"


# -- JSON ----------------------------------------------------------------------------------------------------
def entry_json(entry: ScanEntry) -> dict[str, Any]:
    """One workload as an item of a scan@1's `results`: how it was listed, its verdict, and its report@1."""
    w = entry.workload
    report = entry.verdict.report
    return {
        "workloadId": w.id,
        "name": one_line(w.name, 400),
        "project": one_line(w.project_name, 400),
        "phase": one_line(w.phase, 80),
        "phaseUpdatedAt": w.phase_updated_at.isoformat() if w.phase_updated_at else None,
        "why": one_line(entry.why, 400),
        "verdict": entry.label,
        "failure": entry.verdict.failure,
        "report": json_dict(report) if report is not None else None,
    }


def entry_jsonl(entry: ScanEntry) -> str:
    """One workload as one JSON line: its report@1, or a scan-failure@1 line saying why there is none."""
    report = entry.verdict.report
    if report is not None:
        body = json_dict(report)
    else:
        body = {"schema": FAILURE_SCHEMA, **{k: v for k, v in entry_json(entry).items() if k != "report"}}
    return json.dumps(body, ensure_ascii=False) + "\n"


# -- one entry on its own, in a format (`watch`'s stdout) -------------------------------------------------------
ENTRY_RENDERERS: dict[str, Callable[[ScanEntry, Namer | None], str]] = {
    "text": lambda entry, _: "\n".join(watch_lines(entry)) + "\n\n",
    "jsonl": lambda entry, _: entry_jsonl(entry),
    "markdown": lambda entry, name: watch_markdown(entry, name) + "\n---\n\n",
}


def render(entry: ScanEntry, fmt: str, name: Namer | None = None) -> str:
    """One entry as `watch` prints it in `fmt` (one of ENTRY_RENDERERS): a text block, a JSON line, or the
    whole Markdown report, each with what separates it from the next (`name` names the options the report
    mentions: the command line's flags)."""
    return ENTRY_RENDERERS[fmt](entry, name)


# -- a chat post ---------------------------------------------------------------------------------------------
def chat_facts(entry: ScanEntry, command: str, key: str, repeats: int = 0) -> ChatFacts:
    """What a chat post of the entry says, in plain (cleaned) words; `command` prints the whole report."""
    w, report = entry.workload, entry.verdict.report
    why, sources = top_line(entry)
    return ChatFacts(
        label=entry.label,
        name=one_line(w.name or w.id or "(no name)"),
        project=one_line(w.project_name or "no project"),
        phase=one_line(w.phase or "no phase", 40),
        since=w.phase_updated_at.strftime("%Y-%m-%d %H:%M:%S UTC") if w.phase_updated_at else None,
        why=one_line(why, 1000),
        why_sources=tuple(one_line(s, 40) for s in sources),
        memory=_memory(report),
        finding=(finding_line(entry) or "").removeprefix("⚑ ") or None,
        do=one_line(report.recommendations[0], 1000) if report is not None and report.recommendations else None,
        command=one_line(command, 1000),
        key=key,
        repeats=repeats,
    )


def chat_text(entry: ScanEntry, dialect: str, command: str, key: str, repeats: int = 0) -> str:
    """The entry's chat post for `dialect` (slack, mattermost, markdown); `repeats`: the workload's failures the
    cool-down counted since its last post."""
    return chat_message(chat_facts(entry, command, key, repeats), dialect)


def _memory(report: Report | None) -> str | None:
    """For an OOM kill: the measured peak against the limit, or what is missing."""
    if report is None or report.category != "OOM_KILLED" or report.memory is None:
        return None
    m = report.memory
    limit = f"a {format_bytes(m.limit_bytes)} limit" if m.limit_bytes is not None else "no readable limit"
    if m.peak_bytes is None:
        return f"no measured peak; {limit}"
    share = f" ({m.peak_bytes / m.limit_bytes:.1%})" if m.limit_bytes else ""
    whose = f" in pod {one_line(m.pod, 80)}" if m.pod else ""
    return f"peak {format_bytes(m.peak_bytes)}{whose} of {limit}{share}"
