"""report@1 -> text, Markdown, JSON: the same content in three forms; text and Markdown lead with the verdict.

Text and Markdown keep the seed example's shape by default: line one, the workload, the evidence (the decisive
signal first, each signal once with its sources, about eight lines, the rest counted), history, what is
missing, the recommendation. `verbose=True` shows every line: every evidence item, the memory figures, each
pod in the order it ended, the notes. JSON is the whole report whatever is asked. The shared pieces are in
`parts.py`, the Markdown in `markdown.py`.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from core.models.report import Report
from core.report.evidence_view import EvidenceLine, EvidenceView, full_lines, short_view
from core.report.markdown import md_code, md_escape, to_markdown
from core.report.parts import (
    FINDINGS_TITLE,
    NO_FINDINGS,
    finding_head,
    finding_label,
    headline,
    history_lines,
    memory_lines,
    missing_items,
    more_line,
    order_lines,
    other_pods,
    safe,
    safe_tree,
    short_order_lines,
    shows_reason,
    workload_fields,
)

# Names other modules read from here: one place to import a report's renderings from.
__all__ = [
    "RENDERERS",
    "finding_head",
    "finding_label",
    "headline",
    "json_dict",
    "md_code",
    "md_escape",
    "to_json",
    "to_markdown",
    "to_text",
]

# How the short text tells a reader to see every line.
VERBOSE_HINT = "--verbose"


def json_dict(report: Report) -> dict[str, Any]:
    """The report@1 object, every string cleaned once more (what `to_json` prints; batches embed it)."""
    return safe_tree(report.to_json_dict())


def to_json(report: Report, verbose: bool = False) -> str:
    """The whole report; `verbose` changes nothing here (JSON always holds every item)."""
    return json.dumps(json_dict(report), indent=2, ensure_ascii=False) + "\n"


def _indent_breaks(text: str) -> str:
    # A line break inside one entry is indented, so what follows can never pass for a heading or a new item.
    return text.replace("\n", "\n  ")


def _item(text: str) -> str:
    return "- " + _indent_breaks(text)


def cited(line: EvidenceLine) -> str:
    """One evidence line as text: its words and its sources."""
    return f"{safe(line.text)} {line.cite()}"


def _evidence(report: Report, verbose: bool, hint: str) -> tuple[list[str], bool, EvidenceView]:
    """The evidence lines (and the order of the pods) as text, whether the order was folded, and the view."""
    view = EvidenceView(tuple(full_lines(report)), ()) if verbose else short_view(report)
    out = [_item(cited(line)) for line in view.shown] or ["- none recorded"]
    order, folded = (order_lines(report), False) if verbose else short_order_lines(report)
    more = None if verbose else more_line(report, view, folded, hint)
    if more:
        out.append(_item(more))
    if order:
        out += ["", "Pods, in the order they ended:"] + ["  " + line for line in order]
    return out, folded, view


def to_text(report: Report, verbose: bool = False) -> str:
    line, ids = workload_fields(report)
    out = [headline(report), " | ".join(f"{label}: {value}" for label, value in line)]
    if ids:
        out.append("  " + ", ".join(f"{label} {value}" for label, value in ids))
    evidence, _, view = _evidence(report, verbose, VERBOSE_HINT)
    if report.reason and (verbose or shows_reason(report, view)):
        out.append(_indent_breaks(f"Reason: {safe(report.reason)}"))
    out.append("")
    if report.findings:
        out.append(f"{FINDINGS_TITLE}:")
        for f in report.findings:
            out.append(_item(f"{finding_head(f)}: {safe(f.text)} (source: {f.source})"))
            out += ["  - " + _indent_breaks(line) for line in other_pods(f)]
        out.append("")
    elif verbose:
        out += [NO_FINDINGS, ""]
    out += ["Evidence:", *evidence]
    mem = memory_lines(report) if verbose else []
    if mem:
        out += ["", "Memory:"] + [_item(m) for m in mem]
    out += ["", *history_lines(report, verbose)]
    if report.missing:
        out += ["", "Missing evidence:"]
        out += [_item(f"{what}: {why}") for what, why in missing_items(report, verbose)]
    if report.notes and verbose:
        out += ["", "Notes:"] + [_item(safe(n)) for n in report.notes]
    out += ["", "Recommendation:"] + ([_item(safe(r)) for r in report.recommendations] or ["- none"])
    return "\n".join(out) + "\n"


class Renderer(Protocol):
    def __call__(self, report: Report, verbose: bool = False) -> str: ...


RENDERERS: dict[str, Renderer] = {"text": to_text, "markdown": to_markdown, "json": to_json}
