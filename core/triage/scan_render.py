"""A scan -> text, Markdown, JSON or JSON Lines.

Text and Markdown group the workloads by verdict (the largest group first, newest first inside a group), each
with its recurrence and its top line of evidence, so a platform team reads "what failed overnight, and why" at
a glance. JSON is one `runai-triage/scan@1` object holding every workload's full report@1; JSON Lines is one
report@1 a line (a diagnosis that produced no report is a `runai-triage/scan-failure@1` line instead), led by a
`runai-triage/scan-cluster@1` line when the cluster is not Connected or has not reported lately. Every format
says that a stale cluster's list may be out of date, and when the filters match no workload at all.
Each workload is drawn by core.triage.entry_render, which holds every rendering of one entry; here are the
scan's own lines (its scope, headline, groups and footer). Every string from the cluster is cleaned on the way
out, as in a single report.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from core.plural import plural
from core.report.render import md_escape
from core.triage.entry_render import entry_json, entry_jsonl, entry_lines, entry_markdown, minute
from core.triage.entry_render import one_line as _line
from core.triage.scan import SCHEMA, ScanResult, count_line, newest_first
from core.usage import Namer, Opt, sentence

CLUSTER_SCHEMA = "runai-triage/scan-cluster@1"
# Skipped rows are counted by reason; this many are named in JSON, the rest only counted.
MAX_SKIPPED_NAMED = 50


def _scope(result: ScanResult) -> list[str]:
    r = result.request
    named = f"{_line(result.cluster.name, 80)} " if result.cluster is not None else ""
    return [
        f"cluster {named}{_line(r.cluster_id.strip())}",
        f"project {_line(r.project)}" if r.project else "all projects",
        f"names starting {_line(r.name_prefix)!r}" if r.name_prefix else "any name",
        f"window {minute(result.start)} to {minute(result.end)} ({r.since})",
    ]


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


def _footer(result: ScanResult, name: Namer | None) -> list[str]:
    lines = [*(f"Note: {_line(note, 400)}." for note in result.notes)]
    lines += [f"Listed {plural(result.listed, 'row')}; {len(result.entries):,} diagnosed, {len(result.skipped):,} "
             "skipped."]
    if result.skipped:
        lines.append(f"Skipped: {_skipped_summary(result)}.")
    if result.unreadable:
        left = "is" if result.unreadable == 1 else "are"
        lines.append(f"{plural(result.unreadable, 'listed row')} could not be read and {left} left out.")
    if result.more:
        lines.append(sentence(f"More rows matched than the {result.request.max_workloads:,} scanned: narrow the "
                              "window or the project, or raise ", Opt("max_workloads"), ".").worded(name))
    return lines


def to_text(result: ScanResult, name: Namer | None = None) -> str:
    """`name`: how the front end names an option its advice names (core.usage; plain words when None)."""
    out = ["runai-triage scan · " + " · ".join(_scope(result))]
    out += [flag] if (flag := cluster_line(result)) else []
    out.append(_headline(result))
    for label, entries in result.groups():
        out += ["", f"{label} ({len(entries)})"]
        for entry in entries:
            out += entry_lines(entry)
    out += ["", *_footer(result, name)]
    return "\n".join(out) + "\n"


def to_markdown(result: ScanResult, name: Namer | None = None) -> str:
    out = [f"## {md_escape(_headline(result))}", ""]
    out += [f"**{md_escape(flag)}**", ""] if (flag := cluster_line(result)) else []
    out.append(" · ".join(md_escape(part) for part in _scope(result)))
    for label, entries in result.groups():
        out += ["", f"### {md_escape(label)} ({len(entries)})", ""]
        for entry in entries:
            out += entry_markdown(entry)
    out += ["", *(f"_{md_escape(line)}_" for line in _footer(result, name))]
    return "\n".join(out) + "\n"


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
        "results": [entry_json(e) for e in entries],
    }


def to_json(result: ScanResult) -> str:
    return json.dumps(to_dict(result), indent=2, ensure_ascii=False) + "\n"


def to_jsonl(result: ScanResult) -> str:
    head = ""
    if result.cluster is not None and result.stale:
        head = json.dumps({"schema": CLUSTER_SCHEMA, **result.cluster.to_dict()}, ensure_ascii=False) + "\n"
    return head + "".join(entry_jsonl(entry) for entry in newest_first(result.entries))


class ScanRenderer(Protocol):
    """A scan in one format, any option its advice names said by `name` (JSON names none)."""

    def __call__(self, result: ScanResult, name: Namer | None = None) -> str: ...


SCAN_RENDERERS: dict[str, ScanRenderer] = {
    "text": to_text,
    "json": lambda result, name=None: to_json(result),
    "jsonl": lambda result, name=None: to_jsonl(result),
    "markdown": to_markdown,
}
