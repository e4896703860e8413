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
    alike: tuple[str, ...] = ()  # evidence lines the same as an earlier one once pods, times and counts are masked


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


# What `alike` sets aside (issue 34): times, counts, and the pods of the workload (its name followed by more).
_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[+-]\d{2}:\d{2}|Z| UTC)?|\b\d{2}:\d{2}:\d{2}\b"
)
_COUNTED = re.compile(r"\bx\d+\b|\b\d+ (?:pods?|times?|restarts?|more|samples)\b|\brestarts \d+\b")


def masked(line: str, workload: str, pods: Iterable[str]) -> str:
    """An evidence line with its pods, times and counts set aside, and without its sources."""
    out = _TIME.sub("T", _CITED.sub("", line))
    for pod in sorted(pods, key=len, reverse=True):
        out = out.replace(pod, "POD")
    if workload:
        out = re.sub(re.escape(workload) + r"-[\w.{},-]+", "POD", out)
    return re.sub(r"\b[Pp]ods? POD", "pod POD", _COUNTED.sub("N", out))


def measure(
    text: str, evidence: Iterable[Mapping[str, Any]], workload: str = "", pods: Iterable[str] = ()
) -> Shape:
    """The shape of one report: `text` as printed by default, `evidence` its JSON evidence items, `workload`
    its name and `pods` the pods it names (for `alike`)."""
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
    folded = {_loose(q) for line in items if (q := quote_of(_CITED.sub("", line[2:]))) and _FOLDED.search(q)}
    unseen = tuple(
        m for item in evidence
        if (m := quote_of(str(item.get("text", "")))) is not None and m not in flat and _loose(m) not in folded
    )
    seen_masked: set[str] = set()
    alike: list[str] = []
    named = list(pods)
    for line in items:
        key = masked(line[2:], workload, named)
        if key in seen_masked:
            alike.append(line)
        seen_masked.add(key)
    return Shape(len(lines), len(items), duplicates, more, unseen, tuple(alike))


# A quote that folds several (core/report/fold.py) names its values as a range or a set: `worker-{0..3,5}`,
# `worker-0..7`, `{11:31:00, 11:31:02}`. It shows each message it stands for: the same once every name, time
# and count in either is set aside.
_FOLDED = re.compile(r"\{[^{}]*\}|\d\.\.\d")
_TOKEN = r"[\w.{}:+-]*\d(?:[\w.{}:+-]|,(?! ))*"
_VALUE = re.compile(rf"{_TOKEN}(?:, {_TOKEN})*")


def _loose(message: str) -> str:
    return _VALUE.sub("#", message)


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
