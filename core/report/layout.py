"""What a text or Markdown report holds, decided once for both: the short report a person reads (the seed
example's shape) or every line (`verbose`). The renderers only write it out, each in its own syntax.

Every string here is cleaned (`parts.safe`) except the evidence lines, which the renderers clean as they quote
them (Markdown turns a quoted message into a code span first).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.models.report import Finding, Report
from core.report.evidence_view import EvidenceView, full_lines, short_view
from core.report.once import advice_words, cited_messages, finding_words, reason_words
from core.report.parts import (
    history_lines,
    memory_lines,
    missing_items,
    more_line,
    order_lines,
    phase_since,
    safe,
    short_order_lines,
    shows_reason,
    workload_fields,
)
from core.usage import Namer


@dataclass(frozen=True, slots=True)
class Layout:
    workload: list[tuple[str, str]]  # the seed's workload line: name, phase, project
    ids: list[tuple[str, str]]  # id, cluster, namespace
    reason: str | None
    findings: list[Finding]
    say_no_findings: bool  # the whole report says there were none; the short one says nothing
    evidence: EvidenceView
    more: str | None  # what the short report left out, and how to see it
    order: list[str]  # the pods in the order they ended (folded in the short report)
    order_folded: bool
    memory: list[str]
    history: list[str]
    missing: list[tuple[str, str]]
    notes: list[str]
    recommendations: list[str]


def short_evidence(report: Report) -> EvidenceView:
    """The evidence the short text and Markdown show: the short view, less the line the workload line says."""
    said = phase_since(report)
    return short_view(report, said_above={said[0]} if said else set())


def layout(report: Report, verbose: bool, how: str, name: Namer | None = None) -> Layout:
    """The report's sections; `how` tells a reader of the short report how to see every line, `name` names an
    option a line mentions (the command line: its flag; None, plain words)."""
    # The short report says the phase's time on the workload line, not again as a line of evidence.
    line, ids = workload_fields(report, since=not verbose)
    view = EvidenceView(tuple(full_lines(report)), ()) if verbose else short_evidence(report)
    order, folded = (order_lines(report), False) if verbose else short_order_lines(report)
    reason = safe(report.reason) if report.reason and (verbose or shows_reason(report, view)) else None
    findings = list(report.findings)
    advice = [safe(r) for r in report.recommendations]
    if not verbose:  # each message once: the evidence quotes it, the rest point to it
        cited = cited_messages(report)
        reason = reason_words(reason, cited) if reason else None
        advice = [advice_words(r, findings) for r in advice]
        findings = [f.model_copy(update={"text": finding_words(f, cited)}) for f in findings]
    return Layout(
        workload=line,
        ids=ids,
        reason=reason,
        findings=findings,
        say_no_findings=verbose and not report.findings,
        evidence=view,
        more=None if verbose else more_line(report, view, folded, how),
        order=order,
        order_folded=folded,
        memory=memory_lines(report) if verbose else [],
        history=history_lines(report, verbose, name),
        missing=missing_items(report, verbose),
        notes=[safe(n) for n in report.notes] if verbose else [],
        recommendations=advice,
    )
