"""The Nodes view -> text, Markdown or JSON (`runai-triage/nodes@1`, report-format.md; added keys only).

Every row says the node, its state now (Ready or not, cordoned, pool, GPUs), the workloads that ran there in the
window (the denominator), how many failed and their verdicts; a node whose failures share a cause is marked ⚑
and its cause is the line under it. Every string from the cluster is cleaned on the way out.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Protocol

from core.models.report import Finding
from core.plural import plural
from core.report.markdown import md_code, md_escape
from core.report.parts import safe_tree
from core.safety.untrusted import clean
from core.triage.nodes import SCHEMA, NodesResult
from core.triage.nodes_rows import NodeFailure, NodeRow
from core.triage.verdicts import count_line
from core.usage import Namer, Opt, sentence

MARK = "⚑"


def line(text: object, max_len: int = 200) -> str:
    return clean(text, one_line=True, max_len=max_len)


def iso(at: datetime | None) -> str | None:
    return at.isoformat().replace("+00:00", "Z") if at is not None else None


def short_time(at: datetime | None, end: datetime) -> str:
    """`21:58` on the window's last day, `11-29 21:58` before it (UTC)."""
    if at is None:
        return "time unknown"
    return at.strftime("%H:%M" if at.date() == end.date() else "%m-%d %H:%M")


def cause_line(row: NodeRow, end: datetime, *, counted: bool = True) -> str | None:
    """`gpu-hardware: the GPU has fallen off the bus ... (from 21:58), 7 of 8 failures`."""
    cause = row.cause
    if cause is None:
        return None
    said = f"{cause.key}: {cause.text} (from {short_time(cause.at, end)})"
    return f"{said}, {cause.count} of {row.failed} failures" if counted else said


def rate_text(row: NodeRow) -> str:
    return f"{round(100 * row.rate)}%" if row.rate is not None else "—"


def verdicts_text(row: NodeRow, *, short: bool = False) -> str:
    return count_line([f.label for f in row.failures], short=short) if row.failures else "—"


def gpus_text(row: NodeRow) -> str:
    return str(row.state.gpus) if row.state.gpus is not None else "—"


def scope_words(result: NodesResult) -> str:
    r = result.request
    name = f"{line(result.cluster.name, 80)} " if result.cluster is not None else ""
    what = f"node {line(r.node, 120)}" if r.node else f"pool {line(r.node_pool, 80)}" if r.node_pool else "all nodes"
    return (f"cluster {name}({line(r.cluster_id, 80)}) · {what} · window {result.start.strftime('%Y-%m-%d %H:%M')} "
            f"to {result.end.strftime('%Y-%m-%d %H:%M')} UTC ({r.since})")


def headline(result: NodesResult) -> str:
    failed = {f.workload_id for row in result.rows for f in row.failures}
    ran = {wid for row in result.rows for wid in row.ran}
    marked = [row for row in result.rows if row.cause is not None]
    out = f"{plural(len(ran), 'workload')} ran on {plural(len(result.rows), 'node')}; {len(failed):,} failed"
    if marked:
        out += f"; {plural(len(marked), 'node')} with failures that share a cause: " + ", ".join(
            line(r.name, 80) for r in marked[:5]
        )
    return out + "."


def footer(result: NodesResult, name: Namer | None = None) -> list[str]:
    """The lines under the table; `name`: how the front end names an option its advice names (core.usage)."""
    r = result.request
    out = [f"Note: {line(note, 400)}." for note in result.notes]
    if result.cluster is not None and result.cluster.warning:
        out.insert(0, f"{MARK} {line(result.cluster.warning, 300)}")
    elif result.cluster_unread:
        out.insert(0, f"Cluster state unknown: {line(result.cluster_unread, 300)}.")
    if result.nodes_unread:
        out.append(f"Node states unknown: {line(result.nodes_unread, 300)}.")
    out.append(
        f"{plural(result.pods, 'pod')} ran on a node in the window; {result.diagnosed:,} failures diagnosed now "
        f"({r.politeness.describe()}); {plural(result.reads, 'API read')}."
    )
    if result.unplaced:
        out.append(f"{plural(result.unplaced, 'pod')} of the window never reached a node (not counted anywhere).")
    if result.unreadable:
        out.append(f"{plural(result.unreadable, 'listed item')} could not be read and are left out.")
    if result.pods_cut:
        out.append("The window holds more pods than are read at once: the counts are a floor. Narrow the window.")
    if result.more_failures:
        out.append(sentence(f"More failures than the {r.max_failures:,} diagnosed: the rest count as failed, \"not "
                            "diagnosed\". Narrow the window or raise ", Opt("max_failures"), ".").worded(name))
    t = r.threshold
    crossing = result.crossing
    said = ", ".join(line(row.name, 80) for row in crossing) if crossing else "none"
    out.append(f"Threshold: {round(100 * t.fail_rate)}% of at least {plural(t.min_workloads, 'workload')} failed; "
               f"crossed by: {said}.")
    return out


# -- text ------------------------------------------------------------------------------------------------
_COLUMNS = ("NODE", "STATE", "POOL", "GPUS", "WORKLOADS", "FAILED", "RATE", "VERDICTS")


def _cells(row: NodeRow) -> list[str]:
    mark = f"{MARK} " if row.cause is not None else "  "
    return [mark + line(row.name, 60), row.state.words(), line(row.state.pool or "—", 30), gpus_text(row),
            str(row.workloads), str(row.failed), rate_text(row), verdicts_text(row, short=True)]


def to_text(result: NodesResult, name: Namer | None = None) -> str:
    out = ["runai-triage nodes · " + scope_words(result), headline(result), ""]
    table = [list(_COLUMNS)] + [_cells(row) for row in result.rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(_COLUMNS) - 1)]
    table[0][0] = "  " + table[0][0]
    widths[0] = max(widths[0], len(table[0][0]))
    for index, cells in enumerate(table):
        out.append("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=False)) + "  " + cells[-1])
        row = result.rows[index - 1] if index else None
        cause = cause_line(row, result.end) if row is not None else None
        if cause:
            out.append(f"    cause: {line(cause, 300)}")
        if row is not None and row.state.conditions:
            out.append(f"    condition: {'; '.join(line(c, 200) for c in row.state.conditions)}")
    out += ["", *footer(result, name)]
    return "\n".join(out) + "\n"


# -- Markdown --------------------------------------------------------------------------------------------
def to_markdown(result: NodesResult, name: Namer | None = None) -> str:
    out = [f"## {md_escape(headline(result))}", "", md_escape(scope_words(result)), ""]
    out += ["| | Node | State | Pool | GPUs | Workloads | Failed | Rate | Verdicts |",
            "|---|---|---|---|---:|---:|---:|---:|---|"]
    for row in result.rows:
        cells = [MARK if row.cause is not None else "", md_code(line(row.name, 120)), md_escape(row.state.words()),
                 md_escape(line(row.state.pool or "—", 60)), gpus_text(row), str(row.workloads), str(row.failed),
                 rate_text(row), md_escape(verdicts_text(row))]
        out.append("| " + " | ".join(cells) + " |")
    causes = [(row, cause_line(row, result.end)) for row in result.rows if row.cause is not None]
    if causes:
        out += ["", "### Shared causes", ""]
        out += [f"- {md_code(line(row.name, 120))}: {md_escape(line(text, 400))}" for row, text in causes]
    out += ["", *(f"_{md_escape(text)}_  " for text in footer(result, name))]
    return "\n".join(out) + "\n"


# -- JSON ------------------------------------------------------------------------------------------------
def _failure_json(failure: NodeFailure) -> dict[str, Any]:
    return {
        "workload": {"id": failure.workload_id, "name": line(failure.name, 400) if failure.name else None,
                     "project": line(failure.project, 200) if failure.project else None},
        "category": failure.label,
        "endedAt": iso(failure.ended_at),
        "line": line(failure.line, 600) if failure.line else None,
        "source": failure.source,
        "pods": [line(p, 200) for p in failure.pods],
        "failure": line(failure.verdict.failure, 600) if failure.verdict and failure.verdict.failure else None,
    }


def node_json(row: NodeRow, end: datetime) -> dict[str, Any]:
    state = row.state
    findings = [json_dict_finding(f) for f in row.findings]
    cause = row.cause
    return {
        "node": line(row.name, 200),
        "pool": line(state.pool, 120) if state.pool else None,
        "state": {"ready": state.ready, "cordoned": state.cordoned, "taints": list(state.taints),
                  "gpus": state.gpus, "status": state.status, "listed": state.listed,
                  "conditions": list(state.conditions), "gpuType": state.gpu_type, "unknown": state.unread},
        "workloads": row.workloads,
        "failed": row.failed,
        "verdicts": row.verdicts,
        "cause": cause_line(row, end, counted=False),
        "findings": findings,
        "failures": [_failure_json(f) for f in row.failures],
        "rate": round(row.rate, 4) if row.rate is not None else None,
        "crosses": row.crosses,
        "causeDetail": {"kind": cause.key, "text": cause.text, "firstAt": iso(cause.at), "count": cause.count}
        if cause is not None else None,
        "projects": [line(p, 200) for p in row.projects],
    }


def json_dict_finding(finding: Finding) -> dict[str, Any]:
    """A finding as report@1 writes it, every string cleaned once more."""
    found: dict[str, Any] = safe_tree(finding.model_dump(mode="json", by_alias=True))
    return found


def to_dict(result: NodesResult) -> dict[str, Any]:
    r = result.request
    c = result.cluster
    return {
        "schema": SCHEMA,
        "cluster": {"id": r.cluster_id, "name": c.name if c else None, "state": c.status if c else None,
                    "stale": result.stale, "unknown": result.cluster_unread},
        "window": {"since": iso(result.start), "until": iso(result.end), "duration": r.since},
        "nodes": [node_json(row, result.end) for row in result.rows],
        "scope": {"nodePool": r.node_pool, "node": r.node},
        "threshold": {"failRate": r.threshold.fail_rate, "minWorkloads": r.threshold.min_workloads},
        "crossing": [line(row.name, 200) for row in result.crossing],
        "pods": result.pods,
        "unplacedPods": result.unplaced,
        "unreadableItems": result.unreadable,
        "podsCut": result.pods_cut,
        "moreFailures": result.more_failures,
        "nodesUnknown": result.nodes_unread,
        "reads": result.reads,
        "politeness": {"diagnoses": r.politeness.diagnoses, "requests": r.politeness.requests},
        "notes": [line(n, 400) for n in result.notes],
    }


def to_json(result: NodesResult) -> str:
    return json.dumps(to_dict(result), indent=2, ensure_ascii=False) + "\n"


class NodesRenderer(Protocol):
    """The Nodes view in one format, any option its advice names said by `name` (JSON names none)."""

    def __call__(self, result: NodesResult, name: Namer | None = None) -> str: ...


NODES_RENDERERS: dict[str, NodesRenderer] = {
    "text": to_text,
    "json": lambda result, name=None: to_json(result),
    "markdown": to_markdown,
}
