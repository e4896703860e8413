"""The one line that says why a workload failed, with its sources: what `scan`, `watch` and the picker show
beside a verdict, where a line is cut to the width of a terminal, so what decides comes first.

- A program's own failure (CRASH_APP_ERROR and the like): the failing log line (the exit code says that it
  failed, its log says why).
- OOM_KILLED: the measured peak against the limit (`OOM-killed: peak 47.8 GiB = 99.5% of the 48 GiB limit`),
  or that no peak was measured; never a pod line cut before its numbers.
- Otherwise the decisive line. A long message chained the way Go and containerd wrap errors (`a: b: c: cause`)
  is given tail first: its last clause is the cause (`not found`, `no such host`), the first says what was
  tried, and the line's own head (which event, how many times) follows in brackets. A message in sentences
  (an eviction's) is prose and reads whole.

None when there is neither (a route-out, or a verdict no signal decides: the reason says why then).
"""

from __future__ import annotations

import re

from core.models.evidence_text import quoted
from core.models.quantity import format_bytes
from core.models.report import Report
from core.report.evidence_view import full_lines

METRICS = "get_workload_metrics"
# A message longer than this is given tail first; a shorter one reads whole on a line.
LONG_MESSAGE = 100
# A cause shorter than this takes the clause before it too (`nvcr.io/x:v1: not found`, not `not found`).
SHORT_CAUSE = 24
# `a: b` splits where a colon and a blank follow outside a quoted name (`image "x:1"` keeps its colon).
_CLAUSE = re.compile(r'((?:[^":]|"[^"]*"|:(?! ))+)(?:: |$)')
# A clause that is only a hidden value says nothing of the cause.
_HIDDEN = re.compile(r"^<redacted>\W*")
# Sentences (`... available: 4Ki. Container main was using ...`) are prose, not a chain of wrapped errors.
_SENTENCE = re.compile(r"\.\s+[A-Z]")


def clauses(message: str) -> list[str]:
    """`a: b: "c: d": e` -> ["a", "b", '"c: d"', "e"]: the clauses of an error wrapped the way Go wraps them."""
    return [m.group(1).strip() for m in _CLAUSE.finditer(message) if m.group(1).strip()]


def tail_first(text: str) -> str:
    """A line quoting a long wrapped message, said cause first: `{last clauses} ({first clause}; {the line's
    head})`; any other line as it is."""
    found = quoted(text)
    if found is None:
        return text
    head, message, after = found
    parts = clauses(message)
    if len(message) <= LONG_MESSAGE or len(parts) < 3 or _SENTENCE.search(message):
        return text
    take = 1
    while take < len(parts) - 1 and (len(": ".join(parts[-take:])) < SHORT_CAUSE or _HIDDEN.match(parts[-take])):
        take += 1
    cause = ": ".join(parts[-take:])
    where = head.rstrip().removesuffix(":").removesuffix("message").rstrip("; ").strip()
    context = "; ".join(p for p in (parts[0], where, after.strip("; ").strip()) if p)
    return f"…{cause} ({context})"


def _oom(report: Report, sources: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    memory = report.memory
    if memory is None or memory.limit_bytes is None:
        return None
    pod = f" (pod {memory.pod})" if memory.pod else ""
    limit = format_bytes(memory.limit_bytes)
    if memory.peak_bytes is None:
        return f"OOM-killed{pod} at its {limit} limit; no peak was measured", sources
    share = memory.peak_bytes / memory.limit_bytes
    cited = sources if METRICS in sources else (*sources, METRICS)
    return f"OOM-killed{pod}: peak {format_bytes(memory.peak_bytes)} = {share:.1%} of the {limit} limit", cited


def why_line(report: Report) -> tuple[str, tuple[str, ...]] | None:
    """The line that says why, with its sources (see the module docstring)."""
    if report.outcome != "diagnosed":
        return None
    log = next((e for e in report.evidence if e.signal == "log-line"), None)
    if log is not None and report.category != "OOM_KILLED":
        return log.text, tuple(log.sources or [log.source])
    first = next((line for line in full_lines(report) if line.decisive), None)
    if report.category == "OOM_KILLED" and (said := _oom(report, first.sources if first else ())) is not None:
        return said
    return (tail_first(first.text), first.sources) if first is not None else None
