"""What a person meets in a text report, measured: its length, its evidence lines, a message cited on more than
one of them, and a quoted message of the JSON evidence that the text neither shows nor counts as left out.

Shared by tests/golden/test_report_shape.py (which asserts issue 24's bounds over every golden report) and
tests/benchmarks/report_lengths.py (which prints the numbers, for any set of reports).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.models.evidence_text import message_stem, quoted

# The text's evidence lines end with where they came from.
_CITED = re.compile(r" \(sources?: [^()]*\)$")
_MORE = re.compile(r"^- and (?P<n>[\d,]+) more lines?\b")


@dataclass(frozen=True, slots=True)
class Shape:
    lines: int  # the text report's lines
    evidence: int  # its evidence lines (the "N more lines" line not counted)
    duplicates: int  # evidence lines that quote a message another evidence line already quoted
    left_out: int  # the count its "and N more lines" line gives (0 without one)
    unseen: tuple[str, ...]  # quoted messages of the JSON evidence that the text does not show


def evidence_lines(text_lines: Sequence[str]) -> list[str]:
    """The evidence items of a text report, as printed (`- ... (source: x)`), continuation lines joined."""
    out: list[str] = []
    inside = False
    for line in text_lines:
        if line == "Evidence:":
            inside = True
            continue
        if inside and not line:
            break
        if inside and line.startswith("- "):
            out.append(line)
        elif inside and line.startswith("  ") and out:
            out[-1] += "\n" + line[2:]
    return out


def quote_of(text: str) -> str | None:
    """The message an evidence text quotes, its blanks collapsed, or None."""
    found = quoted(text)
    return message_stem(found[1]) if found else None


def measure(text: str, evidence: Iterable[Mapping[str, Any]]) -> Shape:
    """The shape of one report: `text` as printed by default, `evidence` its JSON evidence items."""
    lines = text.rstrip("\n").split("\n")
    cited = evidence_lines(lines)
    more = next((int(m["n"].replace(",", "")) for ln in cited if (m := _MORE.match(ln))), 0)
    items = [ln for ln in cited if not _MORE.match(ln)]
    seen: set[str] = set()
    duplicates = 0
    for line in items:
        message = quote_of(_CITED.sub("", line[2:]))
        if message is None:
            continue
        duplicates += message in seen
        seen.add(message)
    flat = " ".join(text.split())
    unseen = tuple(m for item in evidence if (m := quote_of(str(item.get("text", "")))) is not None and m not in flat)
    return Shape(len(lines), len(items), duplicates, more, unseen)


@dataclass(frozen=True, slots=True)
class Summary:
    reports: int
    median_lines: float
    max_lines: int
    longest: str
    median_evidence: float
    duplicates: int
    unseen: int


def summarise(shapes: Mapping[str, Shape]) -> Summary:
    lengths = [s.lines for s in shapes.values()]
    longest = max(shapes, key=lambda key: shapes[key].lines)
    return Summary(
        reports=len(shapes),
        median_lines=statistics.median(lengths),
        max_lines=max(lengths),
        longest=longest,
        median_evidence=statistics.median(s.evidence for s in shapes.values()),
        duplicates=sum(s.duplicates for s in shapes.values()),
        unseen=sum(max(0, len(s.unseen) - s.left_out) for s in shapes.values()),
    )
