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
from core.report.evidence_view import EvidenceLine
from core.report.layout import layout
from core.report.markdown import md_code, md_escape, to_markdown
from core.report.parts import (
    NO_FINDINGS,
    finding_head,
    finding_label,
    findings_title,
    headline,
    other_pods,
    safe,
    safe_tree,
)
from core.usage import Namer, Opt, sentence

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

# How the short text tells a reader to see every line: the option that shows them, as data (the command line says
# its flag; plain words, where the whole report is).
EVERY_LINE = sentence(Opt("verbose", plainly="in the whole report"))


def json_dict(report: Report) -> dict[str, Any]:
    """The report@1 object, every string cleaned once more (what `to_json` prints; batches embed it)."""
    return safe_tree(report.to_json_dict())


def to_json(report: Report, verbose: bool = False, name: Namer | None = None) -> str:
    """The whole report; `verbose` and `name` change nothing here (JSON always holds every item, and its text
    fields are the report's own)."""
    return json.dumps(json_dict(report), indent=2, ensure_ascii=False) + "\n"


def _indent_breaks(text: str) -> str:
    # A line break inside one entry is indented, so what follows can never pass for a heading or a new item.
    return text.replace("\n", "\n  ")


def _item(text: str) -> str:
    return "- " + _indent_breaks(text)


def cited(line: EvidenceLine) -> str:
    """One evidence line as text: its words and its sources."""
    return f"{safe(line.text)} {line.cite()}"


def to_text(report: Report, verbose: bool = False, name: Namer | None = None) -> str:
    """The short report, or every line (`verbose`); `name` names the options it mentions (the command line: its
    flags, `--verbose` to see every line; None, plain words)."""
    lay = layout(report, verbose, EVERY_LINE.worded(name), name)
    out = [headline(report), " | ".join(f"{label}: {value}" for label, value in lay.workload)]
    if lay.ids:
        out.append("  " + ", ".join(f"{label} {value}" for label, value in lay.ids))
    if lay.reason:
        out.append(_indent_breaks(f"Reason: {lay.reason}"))
    out.append("")
    if lay.findings:
        out.append(f"{findings_title(lay.findings)}:")
        for f in lay.findings:
            out.append(_item(f"{finding_head(f)}: {safe(f.text)} (source: {f.source})"))
            out += ["  - " + _indent_breaks(line) for line in other_pods(f)]
        out.append("")
    elif lay.say_no_findings:
        out += [NO_FINDINGS, ""]
    out += ["Evidence:", *([_item(cited(line)) for line in lay.evidence.shown] or ["- none recorded"])]
    if lay.more:
        out.append(_item(lay.more))
    if lay.order:
        out += ["", "Pods, in the order they ended:"] + ["  " + line for line in lay.order]
    if lay.memory:
        out += ["", "Memory:"] + [_item(m) for m in lay.memory]
    out += ["", *lay.history]
    if lay.missing:
        out += ["", "Missing evidence:"] + [_item(f"{what}: {why}") for what, why in lay.missing]
    if lay.notes:
        out += ["", "Notes:"] + [_item(n) for n in lay.notes]
    out += ["", "Recommendation:"] + ([_item(r) for r in lay.recommendations] or ["- none"])
    return "\n".join(out) + "\n"


class Renderer(Protocol):
    def __call__(self, report: Report, verbose: bool = False, name: Namer | None = None) -> str: ...


RENDERERS: dict[str, Renderer] = {"text": to_text, "markdown": to_markdown, "json": to_json}
