"""report@1 -> text, Markdown, JSON: the same content in three forms; text and Markdown lead with the verdict.

Strings in a report were already redacted and made safe where they entered the diagnosis. Rendering is the
last step before a terminal, a ticket or another tool, so every string passes the same cleaning once more:
on clean text it changes nothing, and a value that slipped past an earlier step still cannot carry an
escape sequence or a credential out. Markdown additionally escapes what would change a ticket's formatting.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from core.models.quantity import format_bytes
from core.models.report import Finding, Report
from core.safety.untrusted import clean

# What to do next for each outcome that is not a diagnosis (report-format.md, "Outcome first").
NEXT_STEP: dict[str, str] = {
    "preempted": "route to preemption diagnosis",
    "pending": "route to Pending-workload diagnosis",
    "suspended": "out of scope: the workload is paused",
    "succeeded": "the workload succeeded; nothing to diagnose",
    "running": "ask whether a past run was meant",
    "not-terminal": "report the current phase",
    "cluster-mismatch": "the workload is on another cluster; check the cluster id",
    "not-found": "ask for a workload id or clarification",
    "ambiguous": "ask for a workload id",
}


def _safe(text: object) -> str:
    return clean(text, max_len=None)


def _safe_line(text: object) -> str:
    # Names and ids stay on their line: a line break in one is shown as `\n`, as in the rest of the app.
    return clean(text, max_len=None, one_line=True)


def _safe_tree(value: Any) -> Any:
    if isinstance(value, str):
        return _safe(value)
    if isinstance(value, list):
        return [_safe_tree(v) for v in value]
    if isinstance(value, dict):
        return {k: _safe_tree(v) for k, v in value.items()}
    return value


def json_dict(report: Report) -> dict[str, Any]:
    """The report@1 object, every string cleaned once more (what `to_json` prints; batches embed it)."""
    return _safe_tree(report.to_json_dict())


def to_json(report: Report) -> str:
    return json.dumps(json_dict(report), indent=2, ensure_ascii=False) + "\n"


def headline(report: Report) -> str:
    """Line one: `Category: X` for a diagnosis, `Outcome: <outcome> (<what to do next>)` otherwise."""
    if report.outcome == "diagnosed":
        return f"Category: {report.category}"
    return f"Outcome: {report.outcome} ({NEXT_STEP.get(report.outcome, 'see below')})"


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC") if at else "unknown time"


def _workload_fields(report: Report) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the seed's workload line: name, phase, project), (identifiers for the second line)."""
    w = report.workload
    line = [
        ("Workload", _safe_line(w.name) if w.name else "(unknown name)"),
        ("Phase", _safe_line(w.phase) if w.phase else "unknown"),
        ("Project", _safe_line(w.project) if w.project else "unknown"),
    ]
    ids = [(label, _safe_line(value)) for label, value in (("id", w.id), ("cluster", w.cluster_id)) if value]
    if w.namespace:
        ids.append(("namespace", _safe_line(w.namespace)))
    return line, ids


def _memory_lines(report: Report) -> list[str]:
    m = report.memory
    if m is None:
        return []
    req = format_bytes(m.request_bytes) if m.request_bytes is not None else "not set or unreadable"
    lim = format_bytes(m.limit_bytes) if m.limit_bytes is not None else "not set or unreadable"
    whose = f"pod {_safe_line(m.pod)}: " if m.pod else ""
    lines = [f"{whose}request {req}, limit {lim}"]
    if m.peak_bytes is not None:
        lines.append(
            f"measured peak {format_bytes(m.peak_bytes)} at {_when(m.peak_at)} from {m.samples} samples "
            + ("of the pod's own series " if m.pod else "")
            + "(source: get_workload_metrics)"
        )
        if m.limit_bytes:
            lines.append(f"peak / limit: {m.peak_bytes / m.limit_bytes:.1%}")
    elif m.windows:
        lines.append("no measured peak: the metrics series had no samples for the queried window")
    elif any(g.source == "get_workload_metrics" for g in report.missing):
        lines.append("no measured peak: the metrics could not be read (see Missing evidence)")
    else:
        lines.append("no measured peak: no usage samples were read")
    for pod in m.pods:
        if pod.pod == m.pod:
            continue
        peak = format_bytes(pod.peak_bytes) if pod.peak_bytes is not None else "no samples"
        limit = format_bytes(pod.limit_bytes) if pod.limit_bytes is not None else "not set or unreadable"
        lines.append(f"pod {_safe_line(pod.pod)}: peak {peak}, limit {limit}")
    return lines


def _order_lines(report: Report) -> list[str]:
    """The pods of a multi-pod workload in the order they ended, when more than one did."""
    if len(report.termination_order) < 2:
        return []
    lines = []
    # Listed by recorded time: a consequence recorded a few seconds before the first failure comes before it.
    first = next((i for i, e in enumerate(report.termination_order) if e.first), 0)
    for index, entry in enumerate(report.termination_order, start=1):
        role = f" ({_safe_line(entry.role)})" if entry.role else ""
        node = f" on {_safe_line(entry.node)}" if entry.node else ""
        mark = (
            "first failure"
            if entry.first
            else "after the first failure"
            if index > first
            else "a consequence, recorded before the first failure"
        )
        lines.append(f"{index}. {_safe_line(entry.pod)}{role}{node}, {_when(entry.at)}: {_safe(entry.how)} [{mark}]")
    return lines


def _others_line(report: Report) -> str | None:
    others = report.recurrence.other_submissions
    if others is None or report.outcome != "diagnosed":
        return None
    lookback = _safe(others.lookback)
    if others.failed is None:
        return f"Other submissions of this name: not counted ({_safe(others.why or 'unknown')})"
    text = f"Other submissions of this name: {others.failed} failed in the last {lookback}"
    if others.stopped:
        text += f", {others.stopped} stopped"
    if others.total:
        text += f" ({others.total} changed phase in that time)"
    if others.why:
        text += f"; {_safe(others.why)}"
    return text


def _recurrence_line(report: Report) -> str:
    r = report.recurrence
    lookback = _safe(r.lookback)
    if report.outcome != "diagnosed":
        return f"History: not counted (outcome {report.outcome}); lookback {lookback}"
    partly = "" if r.complete else "; the history could not be read whole (see Missing evidence)"
    if r.count == 0:
        found = "inside" if r.complete else "in what could be read of"
        return f"History: no occurrence of {report.category} {found} the last {lookback}{partly}"
    times = ", ".join(_when(t) for t in r.occurrences[:5])
    more = f", and {len(r.occurrences) - 5} more" if len(r.occurrences) > 5 else ""
    shown = f" ({times}{more})" if times else ""
    noun = "failure" if r.count == 1 else "failures"
    least = "" if r.complete else "at least "
    return f"History: {least}{r.count} {report.category} {noun} in the last {lookback}: {r.kind()}{partly}{shown}"


FINDINGS_TITLE = "Infrastructure findings (faults under the workload, for the administrator)"
NO_FINDINGS = "Infrastructure findings: none in the evidence read"


# Whether a finding clears the workload depends on its kind: a failing GPU, driver, fabric or control plane is
# not the workload's doing; a node short of memory or disk evicts the pods using most over their requests, and an
# admission refusal may be the spec's as much as the policy's.
_LABELS = {
    "gpu-hardware": "Not the workload's fault",
    "gpu-driver-runtime": "Not the workload's fault",
    "network-fabric": "Not the workload's fault",
    "control-plane": "Not the workload's fault",
    "node-pressure": "The node ran short",
    "admission": "Pods refused",
}


def finding_label(finding: Finding) -> str:
    """A few words that head a finding: what it says about the workload, or "Also found" when it does not
    explain the failure."""
    return _LABELS.get(finding.kind, "Under the workload") if finding.explains else "Also found"


def finding_head(finding: Finding) -> str:
    """`gpu-hardware on node gpu-e-07, for the administrator (explains this failure)`."""
    where = f" on node {_safe_line(finding.node)}" if finding.node else ""
    explains = " (explains this failure)" if finding.explains else ""
    return f"{finding.kind}{where}, for the {finding.owner}{explains}"


def _other_pods(finding: Finding) -> list[str]:
    lines = [_safe(finding.other_pods_note)] if finding.other_pods_note else []
    for pod in finding.other_pods or ():
        name = f"{pod.namespace}/{pod.name}" if pod.namespace else pod.name
        lines.append(f"{_safe_line(name)}: {_safe(pod.how)}" + (f", {_when(pod.at)}" if pod.at else ""))
    return lines


# -- text ----------------------------------------------------------------------------------------------------
def _indent_breaks(text: str) -> str:
    # A line break inside one entry is indented, so what follows can never pass for a heading or a new item.
    return text.replace("\n", "\n  ")


def _item(text: str) -> str:
    return "- " + _indent_breaks(text)


def to_text(report: Report) -> str:
    line, ids = _workload_fields(report)
    out = [headline(report), " | ".join(f"{label}: {value}" for label, value in line)]
    if ids:
        out.append("  " + ", ".join(f"{label} {value}" for label, value in ids))
    if report.reason:
        out.append(_indent_breaks(f"Reason: {_safe(report.reason)}"))
    out.append("")
    if report.findings:
        out.append(f"{FINDINGS_TITLE}:")
        for f in report.findings:
            out.append(_item(f"{finding_head(f)}: {_safe(f.text)} (source: {f.source})"))
            out += ["  - " + _indent_breaks(line) for line in _other_pods(f)]
    else:
        out.append(NO_FINDINGS)
    out += ["", "Evidence:"]
    out += [_item(f"{_safe(e.text)} (source: {e.source})") for e in report.evidence] or ["- none recorded"]
    order = _order_lines(report)
    if order:
        out += ["", "Pods, in the order they ended:"] + ["  " + line for line in order]
    mem = _memory_lines(report)
    if mem:
        out += ["", "Memory:"] + [_item(m) for m in mem]
    out += ["", _recurrence_line(report)]
    others = _others_line(report)
    if others:
        out.append(others)
    if report.missing:
        out += ["", "Missing evidence:"]
        out += [_item(f"{_safe(m.what)}: {_safe(m.why)}") for m in report.missing]
    if report.notes:
        out += ["", "Notes:"] + [_item(_safe(n)) for n in report.notes]
    out += ["", "Recommendation:"] + ([_item(_safe(r)) for r in report.recommendations] or ["- none"])
    return "\n".join(out) + "\n"


# -- Markdown ------------------------------------------------------------------------------------------------
# The ASCII punctuation that CommonMark or GitHub-flavoured Markdown gives a meaning to anywhere in a line
# (links, images, HTML and entities, emphasis, code, tables, strikethrough, math). Characters that only
# matter at the start of a line are handled by _LINE_START, since line breaks are flattened first.
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~&$])")
# Renderers turn more than `http://...` into links: GitHub links `www.` hosts, chat tools and linkify
# libraries link bare domains (`evil.io/login`) and e-mail addresses, and escaping does not stop them all.
# A word that could be taken for one is shown as inline code instead, which no renderer links.
_LINKABLE = re.compile(r"://|^www\.|[\w-]\.[A-Za-z]{2}")
_EDGE_PUNCT = "\"'()[]<>{},.;:!?"
_WORDS = re.compile(r"(\s+)")
_BREAKS = re.compile(r"[\r\n\f\v\x1c-\x1e\x85\u2028\u2029]")
_LINE_START = re.compile(r"^(\d+[.)]|[-=])")


def md_code(text: str) -> str:
    """`text` as an inline code span, whatever backticks it holds (the fence is longer than any run)."""
    # Blocks are parsed before code spans, so a line break inside one could still start an HTML block.
    text = _BREAKS.sub(" ", text)
    runs = [len(r) for r in re.findall(r"`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# Mentions: `@here`, `@channel`, `@everyone`, `@user`, `@org/team`. Pasted into GitHub, Slack or Jira they
# notify people. Each is shown as inline code: GitHub does not resolve mentions inside code, Slack does not
# notify for them inside code formatting, and Jira's editor turns a code span into monospace text, not a
# mention. It stays readable and copyable, with no invisible character inserted. An `@` that follows a
# letter or digit (`alice@example.com`, `user@host`) is not a mention on any of them and stays as it is;
# e-mail addresses are code already, as linkable words.
_MENTION = re.compile(
    r"(?<![A-Za-z0-9_])@[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*"
    r"(?:/[A-Za-z0-9](?:[A-Za-z0-9_-]|\.(?=[A-Za-z0-9_-]))*)?"
)


def _md_plain(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def _md_word(word: str) -> str:
    core = word.strip(_EDGE_PUNCT)
    if core and _LINKABLE.search(core):
        lead = word[: word.index(core)]
        trail = word[len(lead) + len(core) :]
        return _md_plain(lead) + md_code(core) + _md_plain(trail)
    if "@" not in word:
        return _md_plain(word)
    pieces: list[str] = []
    pos = 0
    for mention in _MENTION.finditer(word):
        pieces += [_md_plain(word[pos : mention.start()]), md_code(mention[0])]
        pos = mention.end()
    pieces.append(_md_plain(word[pos:]))
    return "".join(pieces)


def md_escape(text: str) -> str:
    """Cluster text as literal Markdown: no links, images, HTML, emphasis, headings, lists or mentions.

    Line breaks become spaces (inside a list item a new line could start a heading or a table), and leading
    blanks go (four of them would start a code block).
    """
    words = _WORDS.split(text.strip())
    out = "".join(_BREAKS.sub(" ", w) if i % 2 else _md_word(w) for i, w in enumerate(words))
    # "1." or "-" at the start of an item would open a list inside it; "=" or "-" could underline a heading.
    return _LINE_START.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], out)


def _md(text: object) -> str:
    return md_escape(_safe(text))


def to_markdown(report: Report) -> str:
    line, ids = _workload_fields(report)
    out = [f"## {md_escape(headline(report))}", ""]
    workload = " | ".join(f"**{label}:** {md_escape(value)}" for label, value in line)
    out.append(workload + ("  " if ids else ""))
    if ids:
        out.append(", ".join(f"{label} {md_code(value)}" for label, value in ids))
    if report.reason:
        out += ["", f"**Reason:** {_md(report.reason)}"]
    if report.findings:
        out += ["", f"### {md_escape(FINDINGS_TITLE)}", ""]
        for f in report.findings:
            out.append(f"- **{md_escape(finding_head(f))}**: {_md(f.text)} _(source: {md_code(f.source)})_")
            out += [f"  - {md_escape(line)}" for line in _other_pods(f)]
    else:
        out += ["", md_escape(NO_FINDINGS)]
    out += ["", "### Evidence", ""]
    evidence = [f"- {_md(e.text)} _(source: {md_code(e.source)})_" for e in report.evidence]
    out += evidence or ["- none recorded"]
    order = _order_lines(report)
    if order:
        out += ["", "### Pods, in the order they ended", ""] + [f"- {md_escape(line)}" for line in order]
    mem = _memory_lines(report)
    if mem:
        out += ["", "### Memory", ""] + [f"- {md_escape(m)}" for m in mem]
    out += ["", "### History", "", md_escape(_recurrence_line(report).removeprefix("History: "))]
    others = _others_line(report)
    if others:
        out += ["", md_escape(others)]
    if report.missing:
        out += ["", "### Missing evidence", ""] + [
            f"- **{_md(m.what)}**: {_md(m.why)}" for m in report.missing
        ]
    if report.notes:
        out += ["", "### Notes", ""] + [f"- {_md(n)}" for n in report.notes]
    out += ["", "### Recommendation", ""] + ([f"- {_md(r)}" for r in report.recommendations] or ["- none"])
    out += [
        "",
        f"_runai-triage, {md_escape(report.schema_)}, generated {md_escape(_when(report.generated_at))}_",
    ]
    return "\n".join(out) + "\n"


RENDERERS: dict[str, Callable[[Report], str]] = {"text": to_text, "markdown": to_markdown, "json": to_json}
