"""report@1 -> text, Markdown, JSON. The three carry the same content; text and Markdown put the verdict first.

Every string in a report is already redacted and free of control characters (it was cleaned where it entered),
so rendering only lays it out. Markdown escapes the characters that would change a ticket's formatting.
"""

from __future__ import annotations

import json
import re
from datetime import datetime

from core.models.quantity import format_bytes
from core.models.report import Report

_NEXT = {
    "preempted": "route to preemption diagnosis",
    "pending": "route to Pending-workload diagnosis",
    "suspended": "out of scope: the workload is paused",
    "succeeded": "the workload succeeded",
    "running": "ask whether a past run was meant",
    "not-terminal": "report the current phase",
    "cluster-mismatch": "the workload is on another cluster",
    "not-found": "ask for a workload id or clarification",
    "ambiguous": "ask for a workload id",
}


def to_json(report: Report) -> str:
    return json.dumps(report.to_json_dict(), indent=2, ensure_ascii=False) + "\n"


def headline(report: Report) -> str:
    if report.outcome == "diagnosed":
        return f"Category: {report.category}"
    return f"Outcome: {report.outcome} ({_NEXT.get(report.outcome, 'see below')})"


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC") if at else "unknown time"


def _workload_line(report: Report) -> str:
    w = report.workload
    parts = [
        f"Workload: {w.name or '(unknown name)'}",
        f"Phase: {w.phase or 'unknown'}",
        f"Project: {w.project or '?'}",
    ]
    line = " | ".join(parts)
    extra = [f"id {w.id}" if w.id else None, f"cluster {w.cluster_id}" if w.cluster_id else None]
    if w.namespace:
        extra.append(f"namespace {w.namespace}")
    return line + "\n" + "  " + ", ".join(x for x in extra if x)


def _memory_lines(report: Report) -> list[str]:
    m = report.memory
    if m is None:
        return []
    req = format_bytes(m.request_bytes) if m.request_bytes is not None else "not set or unreadable"
    lim = format_bytes(m.limit_bytes) if m.limit_bytes is not None else "not set or unreadable"
    peak = (
        f"{format_bytes(m.peak_bytes)} at {_when(m.peak_at)} from {m.samples} samples"
        if m.peak_bytes is not None
        else "not observed (no samples)"
    )
    lines = [f"request {req}, limit {lim}", f"measured peak {peak}"]
    if m.peak_bytes is not None and m.limit_bytes:
        lines.append(f"peak / limit: {m.peak_bytes / m.limit_bytes:.1%}")
    return lines


def _recurrence_line(report: Report) -> str:
    r = report.recurrence
    if report.outcome != "diagnosed":
        return f"History: not counted (outcome {report.outcome}); lookback {r.lookback}"
    if r.count == 0:
        return f"History: no occurrence of {report.category} inside the last {r.lookback}"
    kind = "recurring" if r.recurring else "one-off"
    times = ", ".join(_when(t) for t in r.occurrences[:5])
    return f"History: {r.count} {report.category} failure(s) in the last {r.lookback}: {kind} ({times})"


def to_text(report: Report) -> str:
    out = [headline(report), _workload_line(report)]
    if report.reason:
        out.append(f"Reason: {report.reason}")
    out.append("")
    out.append("Evidence:")
    out += [f"- {e.text} (source: {e.source})" for e in report.evidence] or ["- none could be read"]
    mem = _memory_lines(report)
    if mem:
        out += ["", "Memory:"] + [f"- {line}" for line in mem]
    out += ["", _recurrence_line(report)]
    if report.missing:
        out += ["", "Missing evidence:"]
        out += [f"- {m.what}: {m.why}" for m in report.missing]
    if report.notes:
        out += ["", "Notes:"] + [f"- {n}" for n in report.notes]
    out += ["", "Recommendation:"] + [f"- {r}" for r in report.recommendations]
    return "\n".join(out) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def to_markdown(report: Report) -> str:
    w = report.workload
    out = [f"## {_md(headline(report))}", ""]
    out.append(
        f"**Workload:** {_md(w.name or '(unknown)')} | **Phase:** {_md(w.phase or 'unknown')} | "
        f"**Project:** {_md(w.project or '?')}  "
    )
    ids = [f"id `{w.id}`" if w.id else "", f"cluster `{w.cluster_id}`" if w.cluster_id else ""]
    if w.namespace:
        ids.append(f"namespace `{w.namespace}`")
    out.append(", ".join(i for i in ids if i))
    if report.reason:
        out += ["", f"**Reason:** {_md(report.reason)}"]
    out += ["", "### Evidence", ""]
    out += [f"- {_md(e.text)} _(source: `{e.source}`)_" for e in report.evidence] or ["- none could be read"]
    mem = _memory_lines(report)
    if mem:
        out += ["", "### Memory", ""] + [f"- {_md(line)}" for line in mem]
    out += ["", "### History", "", _md(_recurrence_line(report).removeprefix("History: "))]
    if report.missing:
        out += ["", "### Missing evidence", ""] + [f"- **{_md(m.what)}**: {_md(m.why)}" for m in report.missing]
    if report.notes:
        out += ["", "### Notes", ""] + [f"- {_md(n)}" for n in report.notes]
    out += ["", "### Recommendation", ""] + [f"- {_md(r)}" for r in report.recommendations]
    out += ["", f"_runai-triage, {report.schema_}, generated {_when(report.generated_at)}_"]
    return "\n".join(out) + "\n"


RENDERERS = {"text": to_text, "markdown": to_markdown, "json": to_json}
