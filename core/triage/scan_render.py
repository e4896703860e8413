"""A scan -> text, Markdown, JSON or JSON Lines.

Text and Markdown group the workloads by verdict (the largest group first, newest first inside a group), each
with its recurrence and its top line of evidence, so a platform team reads "what failed overnight, and why" at
a glance. JSON is one `runai-triage/scan@1` object holding every workload's full report@1; JSON Lines is one
report@1 a line (a diagnosis that produced no report is a `runai-triage/scan-failure@1` line instead), led by a
`runai-triage/scan-cluster@1` line when the cluster is not Connected or has not reported lately. Every format
says that a stale cluster's list may be out of date, and when the filters match no workload at all.
Every string from the cluster is cleaned on the way out, as in a single report.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from core.plural import plural
from core.report.render import finding_label, json_dict, md_code, md_escape
from core.report.why import why_line
from core.safety.untrusted import clean
from core.triage.scan import SCHEMA, ScanEntry, ScanResult, count_line, newest_first

FAILURE_SCHEMA = "runai-triage/scan-failure@1"
CLUSTER_SCHEMA = "runai-triage/scan-cluster@1"
# Skipped rows are counted by reason; this many are named in JSON, the rest only counted.
MAX_SKIPPED_NAMED = 50


def _line(text: object, max_len: int = 200) -> str:
    return clean(text, one_line=True, max_len=max_len)


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if at else "unknown time"


def _scope(result: ScanResult) -> list[str]:
    r = result.request
    named = f"{_line(result.cluster.name, 80)} " if result.cluster is not None else ""
    return [
        f"cluster {named}{_line(r.cluster_id.strip())}",
        f"project {_line(r.project)}" if r.project else "all projects",
        f"names starting {_line(r.name_prefix)!r}" if r.name_prefix else "any name",
        f"window {_when(result.start)} to {_when(result.end)} ({r.since})",
    ]


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
    node = f" on node {_line(found.node, 80)}" if found.node else ""
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


def _skipped_summary(result: ScanResult) -> str:
    reasons: dict[str, int] = {}
    for _, why in result.skipped:
        reasons[why] = reasons.get(why, 0) + 1
    return "; ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))


def _filters(result: ScanResult) -> str:
    r = result.request
    parts = [f"in project {_line(r.project, 80)}" if r.project else "",
             f"with a name starting {_line(r.name_prefix, 80)!r}" if r.name_prefix else ""]
    return " ".join(p for p in parts if p)


def _headline(result: ScanResult) -> str:
    labels = [e.label for e in result.entries]
    if not labels and result.matched == 0:
        return f"No workload {_filters(result)} on this cluster, at any time: the filters match nothing."
    if not labels:
        seen = " as far as Run:ai shows, and for this cluster that may be stale" if result.stale else ""
        line = f"Nothing failed or needs attention in the window{seen}."
        if isinstance(result.matched, int):
            line += f" (The filters match {plural(result.matched, 'workload')} at other times.)"
        elif isinstance(result.matched, str):
            line += f" (Whether any workload {_filters(result)} exists is unknown: {_line(result.matched, 300)}.)"
        return line
    verb = "needs" if len(labels) == 1 else "need"
    cut = " (interrupted: only what was diagnosed before Ctrl-C)" if result.interrupted else ""
    return f"{plural(len(labels), 'workload')} failed or {verb} attention{cut}: {count_line(labels)}"


def cluster_line(result: ScanResult) -> str | None:
    """⚑ and the cluster's state when it is stale; its state unknown, said as such; None when it is fine."""
    if result.cluster is not None and result.cluster.warning:
        return f"⚑ {_line(result.cluster.warning, 300)}"
    if result.cluster_unread:
        return f"Cluster state unknown: {_line(result.cluster_unread, 300)}."
    return None


def _footer(result: ScanResult) -> list[str]:
    lines = [*(f"Note: {_line(note, 400)}." for note in result.notes)]
    lines += [f"Listed {plural(result.listed, 'row')}; {len(result.entries):,} diagnosed, {len(result.skipped):,} "
             "skipped."]
    if result.skipped:
        lines.append(f"Skipped: {_skipped_summary(result)}.")
    if result.unreadable:
        left = "is" if result.unreadable == 1 else "are"
        lines.append(f"{plural(result.unreadable, 'listed row')} could not be read and {left} left out.")
    if result.more:
        lines.append(
            f"More rows matched than the {result.request.max_workloads:,} scanned: narrow the window or the "
            "project, or raise --max-workloads."
        )
    return lines


def entry_lines(entry: ScanEntry, indent: str = "  ") -> list[str]:
    """One workload as the text output lists it (under its verdict's heading): when, name, phase and
    recurrence, then its top line of evidence, the finding under it if any, and its id."""
    w = entry.workload
    head = f"{indent}{_when(w.phase_updated_at)}  {_line(w.name, 80)} ({_line(w.project_name, 60)})"
    head += f"  {w.phase or 'no phase'}"
    rec = _recurrence(entry)
    head += f"  {rec}" if rec else ""
    return [head, *_body(entry, indent)]


def _body(entry: ScanEntry, indent: str) -> list[str]:
    text, sources = top_line(entry)
    out = [f"{indent}    {_line(text, 300)}" + (f" ({', '.join(sources)})" if sources else "")]
    out += [f"{indent}    {flag}"] if (flag := finding_line(entry)) else []
    out.append(f"{indent}    id {entry.workload.id}")
    return out


def watch_lines(entry: ScanEntry) -> list[str]:
    """One workload as `watch` prints it, on its own (no heading above it): the verdict first, then the
    workload, its phase, when and its recurrence; then the same lines as `scan` gives it."""
    w = entry.workload
    head = f"{entry.label}  {_line(w.name, 80)} ({_line(w.project_name, 60)})  {w.phase or 'no phase'}"
    head += f"  {_when(w.phase_updated_at)}"
    rec = _recurrence(entry)
    head += f"  {rec}" if rec else ""
    return [head, *_body(entry, "")]


def to_text(result: ScanResult) -> str:
    out = ["runai-triage scan · " + " · ".join(_scope(result))]
    out += [flag] if (flag := cluster_line(result)) else []
    out.append(_headline(result))
    for label, entries in result.groups():
        out += ["", f"{label} ({len(entries)})"]
        for entry in entries:
            out += entry_lines(entry)
    out += ["", *_footer(result)]
    return "\n".join(out) + "\n"


def entry_markdown(entry: ScanEntry) -> list[str]:
    """One workload as the Markdown output lists it: a bullet with its name, when, recurrence and id, and its
    top line of evidence (with the finding under it) below."""
    w = entry.workload
    parts = [f"**{md_escape(_line(w.name, 80))}** ({md_escape(_line(w.project_name, 60))})",
             md_escape(_when(w.phase_updated_at))]
    rec = _recurrence(entry)
    if rec:
        parts.append(md_escape(rec))
    parts.append(f"id {md_code(_line(w.id, 80))}")
    text, sources = top_line(entry)
    label = "source" if len(sources) == 1 else "sources"
    cited = f" _({label}: {', '.join(md_code(s) for s in sources)})_" if sources else ""
    out = [f"- {', '.join(parts)}  ", f"  {md_escape(_line(text, 300))}{cited}"]
    out[-1] += f"  \n  {md_escape(flag)}" if (flag := finding_line(entry)) else ""
    return out


def to_markdown(result: ScanResult) -> str:
    out = [f"## {md_escape(_headline(result))}", ""]
    out += [f"**{md_escape(flag)}**", ""] if (flag := cluster_line(result)) else []
    out.append(" · ".join(md_escape(part) for part in _scope(result)))
    for label, entries in result.groups():
        out += ["", f"### {md_escape(label)} ({len(entries)})", ""]
        for entry in entries:
            out += entry_markdown(entry)
    out += ["", *(f"_{md_escape(line)}_" for line in _footer(result))]
    return "\n".join(out) + "\n"


def _entry_json(entry: ScanEntry) -> dict[str, Any]:
    w = entry.workload
    report = entry.verdict.report
    return {
        "workloadId": w.id,
        "name": _line(w.name, 400),
        "project": _line(w.project_name, 400),
        "phase": _line(w.phase, 80),
        "phaseUpdatedAt": w.phase_updated_at.isoformat() if w.phase_updated_at else None,
        "why": _line(entry.why, 400),
        "verdict": entry.label,
        "failure": entry.verdict.failure,
        "report": json_dict(report) if report is not None else None,
    }


def to_dict(result: ScanResult) -> dict[str, Any]:
    r = result.request
    entries = newest_first(result.entries)
    return {
        "schema": SCHEMA,
        "clusterId": r.cluster_id.strip(),
        "cluster": result.cluster.to_dict() if result.cluster is not None else None,
        "clusterStale": result.stale,
        "clusterUnknown": result.cluster_unread,
        "project": r.project,
        "namePrefix": r.name_prefix,
        "since": r.since,
        "lookback": r.history_window,
        "window": {"start": result.start.isoformat(), "end": result.end.isoformat()},
        "politeness": {"diagnoses": r.politeness.diagnoses, "requests": r.politeness.requests},
        "listed": result.listed,
        "unreadableRows": result.unreadable,
        "more": result.more,
        "counts": {label: len(group) for label, group in result.groups()},
        "skipped": [{"name": _line(name, 200), "why": _line(why, 300)} for name, why in
                    result.skipped[:MAX_SKIPPED_NAMED]],
        "skippedCount": len(result.skipped),
        "matched": result.matched if isinstance(result.matched, int) else None,
        "interrupted": result.interrupted,
        "notes": [_line(note, 400) for note in result.notes],
        "results": [_entry_json(e) for e in entries],
    }


def to_json(result: ScanResult) -> str:
    return json.dumps(to_dict(result), indent=2, ensure_ascii=False) + "\n"


def entry_jsonl(entry: ScanEntry) -> str:
    """One workload as one JSON line: its report@1, or a scan-failure@1 line saying why there is none."""
    report = entry.verdict.report
    if report is not None:
        body = json_dict(report)
    else:
        body = {"schema": FAILURE_SCHEMA, **{k: v for k, v in _entry_json(entry).items() if k != "report"}}
    return json.dumps(body, ensure_ascii=False) + "\n"


def to_jsonl(result: ScanResult) -> str:
    head = ""
    if result.cluster is not None and result.stale:
        head = json.dumps({"schema": CLUSTER_SCHEMA, **result.cluster.to_dict()}, ensure_ascii=False) + "\n"
    return head + "".join(entry_jsonl(entry) for entry in newest_first(result.entries))


SCAN_RENDERERS: dict[str, Callable[[ScanResult], str]] = {
    "text": to_text,
    "json": to_json,
    "jsonl": to_jsonl,
    "markdown": to_markdown,
}
