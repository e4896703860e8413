"""The pieces of a report that text and Markdown both show: line one, the workload, memory, the order the pods
ended in, recurrence, findings, and what the default view leaves to `--verbose`.

Strings in a report were already redacted and made safe where they entered the diagnosis. Rendering is the
last step before a terminal, a ticket or another tool, so every string passes the same cleaning once more
(`safe`, `safe_line`): on clean text it changes nothing, and a value that slipped past an earlier step still
cannot carry an escape sequence or a credential out.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from core.models.quantity import format_bytes
from core.models.report import AFTER_CLOCK, AFTER_NOW, NOT_MEASUREMENTS, Finding, PodTerminationEntry, Report
from core.plural import plural
from core.report.evidence_view import EvidenceView, report_pods
from core.report.fold import fold_texts
from core.report.names import name_range, number_runs
from core.safety.untrusted import clean
from core.usage import Namer, Opt, sentence

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


def safe(text: object) -> str:
    return clean(text, max_len=None)


def safe_line(text: object) -> str:
    # Names and ids stay on their line: a line break in one is shown as `\n`, as in the rest of the app.
    return clean(text, max_len=None, one_line=True)


def safe_tree(value: Any) -> Any:
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, list):
        return [safe_tree(v) for v in value]
    if isinstance(value, dict):
        return {k: safe_tree(v) for k, v in value.items()}
    return value


# A workload of more pods than FOLD_ORDER lists the first FOLD_ORDER_AFTER as they ended and folds the rest by
# role and ending.
FOLD_ORDER = 8
FOLD_ORDER_AFTER = 3


def headline(report: Report) -> str:
    """Line one: `Category: X` for a diagnosis, `Outcome: <outcome> (<what to do next>)` otherwise."""
    if report.outcome == "diagnosed":
        return f"Category: {report.category}"
    return f"Outcome: {report.outcome} ({NEXT_STEP.get(report.outcome, 'see below')})"


def when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC") if at else "unknown time"


_PHASE_SINCE = re.compile(r"^Phase: (?P<phase>\S+) since (?P<at>\S+)$")


def phase_since(report: Report) -> tuple[str, datetime] | None:
    """(the evidence line `Phase: X since T`, T) when it says no more than the workload's phase and since when
    (no phase message): the workload line can carry it, and the short report need not repeat it."""
    for item in report.evidence:
        m = _PHASE_SINCE.match(item.text)
        if item.signal == "phase" and m and m["phase"] == report.workload.phase:
            try:
                return item.text, datetime.fromisoformat(m["at"])
            except ValueError:
                return None
    return None


def workload_fields(report: Report, since: bool = False) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(the seed's workload line: name, phase (`since` a time, when the evidence gives no more), project),
    (identifiers for the second line)."""
    w = report.workload
    found = phase_since(report) if since else None
    line = [
        ("Workload", safe_line(w.name) if w.name else "(unknown name)"),
        ("Phase", (safe_line(w.phase) if w.phase else "unknown") + (f" since {when(found[1])}" if found else "")),
        ("Project", safe_line(w.project) if w.project else "unknown"),
    ]
    ids = [(label, safe_line(value)) for label, value in (("id", w.id), ("cluster", w.cluster_id)) if value]
    if w.namespace:
        ids.append(("namespace", safe_line(w.namespace)))
    return line, ids


def memory_lines(report: Report) -> list[str]:
    m = report.memory
    if m is None:
        return []
    req = format_bytes(m.request_bytes) if m.request_bytes is not None else "not set or unreadable"
    lim = format_bytes(m.limit_bytes) if m.limit_bytes is not None else "not set or unreadable"
    whose = f"pod {safe_line(m.pod)}: " if m.pod else ""
    lines = [f"{whose}request {req}, limit {lim}"]
    if m.peak_bytes is not None:
        lines.append(
            f"measured peak {format_bytes(m.peak_bytes)} at {when(m.peak_at)} from {m.samples} samples "
            + ("of the pod's own series " if m.pod else "")
            + "(source: get_workload_metrics)"
        )
        if m.limit_bytes:
            lines.append(f"peak / limit: {m.peak_bytes / m.limit_bytes:.1%}")
    elif any(g.what == "CPU-memory peak" and NOT_MEASUREMENTS in g.why for g in report.missing):
        lines.append("no measured peak: no sample read could be a measurement (see Missing evidence)")
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
        lines.append(f"pod {safe_line(pod.pod)}: peak {peak}, limit {limit}")
    return lines


def _first_place(report: Report) -> int:
    """Where the first failure is in the order (from 1), or 0 when none is."""
    return next((i for i, e in enumerate(report.termination_order, start=1) if e.first), 0)


def _mark(entry: PodTerminationEntry, index: int, first: int) -> str:
    # Listed by recorded time: a consequence recorded a few seconds before the first failure comes before it.
    if entry.first:
        return "first failure"
    return "after the first failure" if index > first else "a consequence, recorded before the first failure"


def _order_line(index: int, entry: PodTerminationEntry, first: int) -> str:
    role = f" ({safe_line(entry.role)})" if entry.role else ""
    node = f" on {safe_line(entry.node)}" if entry.node else ""
    mark = _mark(entry, index, first)
    return f"{index}. {safe_line(entry.pod)}{role}{node}, {when(entry.at)}: {safe(entry.how)} [{mark}]"


def order_lines(report: Report) -> list[str]:
    """The pods of a multi-pod workload in the order they ended, when more than one did."""
    if len(report.termination_order) < 2:
        return []
    first = _first_place(report)
    return [_order_line(index, entry, first) for index, entry in enumerate(report.termination_order, start=1)]


def _span(entries: list[PodTerminationEntry]) -> str:
    times = sorted(e.at for e in entries if e.at is not None)
    if not times:
        return "unknown time"
    if times[0] == times[-1]:
        return when(times[0])
    return f"{when(times[0])} to {when(times[-1]).removeprefix(times[0].strftime('%Y-%m-%d '))}"


def short_order_lines(report: Report) -> tuple[list[str], bool]:
    """The order the pods ended in, as a person reads it: every pod when there are few; else the first failure
    and the pods just after it one by one, the rest one line per role and way of ending, with their places in
    the order. Also whether anything was folded (the full order is behind `--verbose`)."""
    entries = report.termination_order
    if len(entries) <= FOLD_ORDER:
        return order_lines(report), False
    first = _first_place(report)
    lines: list[str] = []
    kinds: dict[tuple[str | None, str, str], list[tuple[int, PodTerminationEntry]]] = {}
    for index, entry in enumerate(entries, start=1):
        if entry.first or index <= FOLD_ORDER_AFTER:
            lines.append(_order_line(index, entry, first))
        else:
            kinds.setdefault((entry.role, entry.how, _mark(entry, index, first)), []).append((index, entry))
    for (role, how, mark), group in kinds.items():
        if len(group) == 1:
            lines.append(_order_line(*group[0], first))
            continue
        places = number_runs([index for index, _ in group], to="-", sep=", ")
        pods = name_range([safe_line(e.pod) for _, e in group])
        whose = f", {safe_line(role)}" if role else ""
        span = _span([e for _, e in group])
        lines.append(f"{places}. {pods} ({len(group)} pods{whose}), {span}: {safe(how)} [{mark}]")
    return lines, True


def others_line(report: Report) -> str | None:
    others = report.recurrence.other_submissions
    if others is None or report.outcome != "diagnosed":
        return None
    lookback = safe(others.lookback)
    if others.failed is None:
        return f"Other submissions of this name: not counted ({safe(others.why or 'unknown')})"
    text = f"Other submissions of this name: {others.failed} failed in the last {lookback}"
    if others.stopped:
        text += f", {others.stopped} stopped"
    if others.total:
        text += f" ({others.total} changed phase in that time)"
    if others.why:
        text += f"; {safe(others.why)}"
    return text


# A failure after the moment diagnosed at is not counted: the option that gave that moment, as data.
AFTER_THE_MOMENT = sentence(
    "; the failure diagnosed is after the moment given as ", Opt("now"), ", so it is not counted"
)


AFTER_THE_CLOCK = "; the failure diagnosed is after the moment taken as now (two clocks disagree), so it is not counted"


def recurrence_line(report: Report, name: Namer | None = None) -> str:
    """`History: ...`; `name` names the option a line may mention (the command line: its flag)."""
    r = report.recurrence
    lookback = safe(r.lookback)
    if report.outcome != "diagnosed":
        return f"History: not counted (outcome {report.outcome}); lookback {lookback}"
    partly = "" if r.complete else "; the history could not be read whole (see Missing evidence)"
    if r.count == 0:
        found = "inside" if r.complete else "in what could be read of"
        given = any(AFTER_NOW in note for note in report.notes)
        clocks = any(AFTER_CLOCK in note for note in report.notes)
        why = AFTER_THE_MOMENT.worded(name) if given else AFTER_THE_CLOCK if clocks else ""
        return f"History: no occurrence of {report.category} {found} the last {lookback}{partly}{why}"
    listed = r.occurrences[:5]
    times = ", ".join(when(t) for t in listed)
    # `count` is the whole count; the report lists only the newest occurrences (`occurrencesCut`).
    more = f", and {r.count - len(listed)} more" if times and r.count > len(listed) else ""
    shown = f" ({times}{more})" if times else ""
    noun = "failure" if r.count == 1 else "failures"
    least = "" if r.complete else "at least "
    if r.crash_loop is not None and r.kind() == r.crash_loop.words():
        # The restarts of this failure after the count of separate failures, never "one-off".
        return f"History: {least}{r.count} {report.category} {noun} in the last {lookback}{shown} — {r.kind()}{partly}"
    return f"History: {least}{r.count} {report.category} {noun} in the last {lookback}: {r.kind()}{partly}{shown}"


FINDINGS_TITLE = "Infrastructure findings (faults under the workload, and who acts on each)"
# A policy the submitter's spec broke is not under the workload: a heading that says so only when every finding is.
USER_FINDINGS_TITLE = "Findings (what stopped the workload from outside its code, and who acts on each)"


def findings_title(findings: list[Finding]) -> str:
    """The findings' heading: faults under the workload, unless one is the submitter's to fix."""
    return USER_FINDINGS_TITLE if any(f.owner == "user" for f in findings) else FINDINGS_TITLE
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
    where = f" on node {safe_line(finding.node)}" if finding.node else ""
    explains = " (explains this failure)" if finding.explains else ""
    return f"{finding.kind}{where}, for the {finding.owner}{explains}"


def other_pods(finding: Finding) -> list[str]:
    lines = [safe(finding.other_pods_note)] if finding.other_pods_note else []
    for pod in finding.other_pods or ():
        name = f"{pod.namespace}/{pod.name}" if pod.namespace else pod.name
        lines.append(f"{safe_line(name)}: {safe(pod.how)}" + (f", {when(pod.at)}" if pod.at else ""))
    return lines


def shows_reason(report: Report, view: EvidenceView) -> bool:
    """The short view leaves the reason out when the evidence opens with the signal the category rests on (the
    reason quotes that signal again); a routed-out outcome, UNKNOWN and a verdict with no decisive line keep it."""
    if report.outcome != "diagnosed" or report.category == "UNKNOWN" or not report.reason:
        return bool(report.reason)
    return not (view.shown and view.shown[0].decisive)


def shows_others(report: Report) -> bool:
    """The short view names other submissions of the name only when one failed or stopped, or when they could not
    be counted; none is said in full (`--verbose`) and in JSON."""
    others = report.recurrence.other_submissions
    return others is not None and (others.failed is None or bool(others.failed) or bool(others.stopped))


def more_line(report: Report, view: EvidenceView, order_folded: bool, how: str) -> str | None:
    """The short view's last evidence line: how many lines it left out, how to see them (`how`: `--verbose`, a
    key), and what else it left out (the memory figures and the notes repeat or explain what is cited, so they
    alone do not take a line); None when no cited line and no pod of the order was left out."""
    extras: list[str] = []
    if report.memory is not None:
        extras.append("the memory figures")
    if order_folded:
        extras.append("every pod in order")
    if report.notes:
        extras.append(plural(len(report.notes), "note"))
    also = (extras[0] if len(extras) == 1 else f"{', '.join(extras[:-1])} and {extras[-1]}") if extras else ""
    if view.more:
        return f"and {plural(view.more, 'more line')}: {how}" + (f" (also {also})" if also else "")
    # Nothing cited was left out: the pointer is worth a line only when the pods' order was cut short.
    return f"{how}: also {also}" if order_folded else None


_JOIN = "\x1f"  # between a gap's what and why while they are folded (a unit separator: never in cleaned text)


def missing_items(report: Report, verbose: bool) -> list[tuple[str, str]]:
    """(what, why) of each gap; the short view says one reason once for every gap it explains (the events of
    a pod and of its node gone for the same reason)."""
    pairs = [(safe(m.what), safe(m.why)) for m in report.missing]
    if verbose:
        return pairs
    # One line for the gaps alike but for their pods and times (each pod's empty series), as the evidence does.
    joined = fold_texts([f"{what}{_JOIN}{why}" for what, why in pairs], report_pods(report))
    pairs = [(what, why) for text, _ in joined for what, _, why in [text.partition(_JOIN)]]
    whats: dict[str, list[str]] = {}
    for what, why in pairs:
        whats.setdefault(why, []).append(what)
    return [("; ".join(names), why) for why, names in whats.items()]


def resolved_line(report: Report) -> str | None:
    """The signals a later event took back, on one line: history, not the cause."""
    if not report.superseded:
        return None
    label = "Resolved earlier, not the cause" if report.outcome == "diagnosed" else "Resolved earlier"
    return f"{label} (times UTC): " + "; ".join(safe(item.text) for item in report.superseded)


def history_lines(report: Report, verbose: bool, name: Namer | None = None) -> list[str]:
    """`History: ...`, what a later event took back, and the other submissions of the name: on a line of their
    own in full, in the short view after the history on its line, and only when one failed or stopped or they
    could not be counted. `name` names an option, as `recurrence_line` does."""
    history = recurrence_line(report, name)
    resolved = resolved_line(report)
    taken = [resolved] if resolved else []
    others = others_line(report)
    if others is None:
        return [history, *taken]
    if verbose:
        return [history, *taken, others]
    return [f"{history}; {others[:1].lower()}{others[1:]}", *taken] if shows_others(report) else [history, *taken]
