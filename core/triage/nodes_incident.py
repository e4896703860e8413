"""The incident report of one node: what happened there in the window, as one document for a ticket or a
post-mortem (`runai-triage nodes --node N --format markdown`, `e` on a node in the app).

1. What happened, in one paragraph: how many of the workloads that ran there failed, the cause they share.
2. What the administrator should do, from the node's state now and the cause: cordon (when it is not), drain
   what still runs there, then the kind's own work (reset or replace a GPU, align a driver, free a node that ran
   short, check a fabric link, bring back a node that left) and when to let workloads back.
3. Timeline: every workload that ended there, in time order, with its verdict and its decisive line.
4. Who was affected: the projects and workloads that failed there, and those still running.
5. The infrastructure evidence: each finding on the node with its source, the other pods it names, and the
   node's failing conditions.
Cluster text is cleaned (and redacted) as in every report; in Markdown it is made literal too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.plural import plural
from core.report.markdown import md_code, md_escape, md_evidence
from core.report.parts import other_pods
from core.triage.nodes import NodesResult
from core.triage.nodes_render import iso, line, scope_words, short_time
from core.triage.nodes_rows import NODE_FAILURE_KEY, NodeFailure, NodeRow, summary

# Per shared cause: the work on the node itself, after it is cordoned and drained.
_REPAIR: dict[str, str] = {
    "gpu-hardware": (
        "Find the failing GPU (the Xid lines in the node's kernel log, `nvidia-smi -q`, a DCGM diagnostic such "
        "as `dcgmi diag -r 3`). Reset it (`nvidia-smi -r -i <index>`, with nothing running on it); if the fault "
        "comes back or the GPU has left the bus, replace it. Let workloads back only after a clean diagnostic."
    ),
    "gpu-driver-runtime": (
        "Bring the NVIDIA driver, its user-space libraries, the container toolkit and the device plugin to one "
        "version (a driver upgraded under running workloads needs a reboot), then run one GPU pod there before "
        "letting workloads back."
    ),
    "node-pressure": (
        "Find what filled the node (images, container logs, emptyDir volumes, other pods), free it, and check "
        "the kubelet's eviction thresholds and reserved resources before letting workloads back."
    ),
    "network-fabric": (
        "Check the node's InfiniBand / RoCE / EFA ports and links (link state, flaps, error counters) and its "
        "switch port; let multi-node workloads back once the links stay clean."
    ),
    NODE_FAILURE_KEY: (
        "Find why the node stopped serving its pods: the kubelet's status and journal, the machine's console, "
        "its power and network. Let workloads back once it has been Ready for a while."
    ),
}


class Code(str):
    """A command line of ours, shown as code."""


class Quote(str):
    """An evidence line of a report: in Markdown its quoted message is a code span (md_evidence)."""


# An item: plain words (cluster text among them) and our own command lines; a leading "  " nests it.
Item = str | tuple[str, ...]


def ours(template: str, **values: str) -> tuple[str, ...]:
    """One of our sentences as pieces: what is between backticks in the template is a command (Code), and
    `values` (cluster text, such as a node's name) are filled in after the split, so a backtick in them is
    only ever text."""
    pieces = template.split("`")
    return tuple(Code(p.format(**values)) if i % 2 else p.format(**values) for i, p in enumerate(pieces) if p)


@dataclass
class Incident:
    """The document, in sections of items (each section a heading and its items)."""

    title: str
    summary: str
    sections: list[tuple[str, list[Item]]] = field(default_factory=list)


def _when(failure: NodeFailure, row_end: NodesResult) -> str:
    return short_time(failure.ended_at, row_end.end) + " UTC" if failure.ended_at else "time unknown"


def _actions(row: NodeRow) -> list[Item]:
    name = line(row.name, 120)
    out: list[Item] = []
    node_owns = row.cause is not None or any(f.explains for f in row.findings)
    if not node_owns:
        out.append(
            "Nothing on the node itself: its failures share no cause of its own (each is its workload's, see the "
            "timeline). Pass each verdict to the workload's owner."
        )
        return out
    if row.state.cordoned:
        out.append(f"{name} is cordoned already: nothing new is scheduled there.")
    elif row.state.listed:
        out.append(ours("Cordon {n} now, so nothing new lands there: `kubectl cordon {n}`.", n=name))
    else:
        out.append(f"{name} is not in the cluster's node list now: check whether it was removed or replaced.")
    live = [r for r in row.ran.values() if r.live]
    if live:
        live_words = plural(len(live), "workload")
        out.append(ours(
            "Drain it once their owners know ({live} still has pods there, listed below): "
            "`kubectl drain {n} --ignore-daemonsets --delete-emptydir-data`.", n=name, live=live_words
        ))
    else:
        out.append("Nothing of the window still runs there: no drain is needed before the repair.")
    kinds = [row.cause.key] if row.cause is not None else []
    kinds += [f.kind for f in row.findings if f.explains and f.kind not in kinds]
    out += [ours(_REPAIR[k]) for k in dict.fromkeys(kinds) if k in _REPAIR]
    explained = [f for f in row.failures if row.cause is not None and _shares(f, row)]
    if explained:
        out.append(
            f"Tell the owners of the {plural(len(explained), 'workload')} the node ended that nothing in them needs "
            "to change: they can resubmit once the node is cordoned (the scheduler then places them elsewhere)."
        )
    return out


def _shares(failure: NodeFailure, row: NodeRow) -> bool:
    report = failure.report
    if report is None or row.cause is None:
        return False
    if row.cause.key == NODE_FAILURE_KEY:
        return report.category == "NODE_FAILURE"
    return any(f.kind == row.cause.key and (f.node or "").casefold() == row.name.casefold() for f in report.findings)


def _timeline(row: NodeRow, result: NodesResult) -> list[Item]:
    out: list[Item] = []
    for f in row.failures:
        who = f"{line(f.name or f.workload_id, 120)} ({line(f.project or 'project unknown', 80)})"
        mark = " ⚑" if _shares(f, row) else ""
        head = f"{_when(f, result)}  {who}: {f.label}{mark}"
        said: tuple[str, ...] = (" — ", Quote(line(f.line, 240))) if f.line else ()
        cited = (f" [{f.source}]",) if f.source else ()
        out.append((head, *said, *cited))
    return out or ["No workload failed there in the window."]


def _affected(row: NodeRow) -> list[str]:
    failed: dict[str, list[str]] = {}
    for f in row.failures:
        failed.setdefault(line(f.project or "project unknown", 80), []).append(line(f.name or f.workload_id, 120))
    out = [f"{project}: {', '.join(names)}" for project, names in sorted(failed.items())]
    live = sorted(line(r.name or r.workload_id, 120) for r in row.ran.values() if r.live)
    if live:
        out.append(f"Still running there: {', '.join(live)}")
    ok = row.workloads - row.failed - len(live)
    out.append(f"{plural(ok, 'other workload')} ran there in the window and ended without failing.")
    return out


def _evidence(row: NodeRow) -> list[Item]:
    out: list[Item] = []
    for finding in row.findings:
        head = f"{finding.kind}{' (explains its failures)' if finding.explains else ''}"
        out.append(f"{head}: {line(summary(finding.text), 300)} [{finding.source}]")
        out.append(("  ", "the evidence: ", Quote(line(finding.text, 600))))
        out += [f"  {line(other, 300)}" for other in other_pods(finding)]
    out += [f"node condition now: {c}" for c in row.state.conditions]
    return out or ["No infrastructure finding names this node."]


def _state(row: NodeRow) -> str:
    s = row.state
    if not s.listed:
        return f"not in the node list now{f' ({line(s.unread, 200)})' if s.unread else ''}"
    parts = [s.words(), f"pool {line(s.pool, 60)}" if s.pool else "pool unknown",
             f"{s.gpus} GPUs" if s.gpus is not None else "GPUs unknown"]
    if s.taints:
        parts.append("taints " + ", ".join(s.taints))
    return "; ".join(parts)


def incident(result: NodesResult, row: NodeRow) -> Incident:
    rate = f" ({round(100 * row.rate)}%)" if row.rate is not None else ""
    said = f"{row.failed} of the {plural(row.workloads, 'workload')} that ran on {line(row.name, 120)}{rate} failed"
    if row.cause is not None:
        said += (f"; {row.cause.count} of them share one cause, {row.cause.key}: {row.cause.text}, from "
                 f"{short_time(row.cause.at, result.end)} UTC")
    projects = {f.project for f in row.failures if f.project}
    if projects:
        said += f", across {plural(len(projects), 'project')}"
    cluster = f" ({line(result.cluster.name, 80)})" if result.cluster is not None else ""
    window = f"{result.start.strftime('%Y-%m-%d %H:%M')} to {result.end.strftime('%Y-%m-%d %H:%M')} UTC"
    title = f"Incident report: node {line(row.name, 120)}{cluster}, {window}"
    doc = Incident(title, said + f". Now: {_state(row)}.")
    doc.sections = [
        ("What the administrator should do", _actions(row)),
        ("Timeline of the failures (⚑: ended by the cause they share)" if row.cause else "Timeline of the failures",
         _timeline(row, result)),
        ("Who was affected", list(_affected(row))),
        ("Infrastructure evidence", _evidence(row)),
    ]
    return doc


def _footer(result: NodesResult) -> str:
    return (f"runai-triage, {scope_words(result)}, generated {iso(result.end)}, {plural(result.reads, 'API read')}; "
            "read-only: nothing was changed on the cluster")


def _pieces(item: Item) -> tuple[bool, tuple[str, ...]]:
    """(nested or not, the item's pieces): a leading "  " (a piece of its own, or the start of a line) nests."""
    if isinstance(item, str):
        return item.startswith("  "), (item.strip(),)
    if item and item[0] == "  ":
        return True, item[1:]
    return False, item


def _md_piece(piece: str) -> str:
    if isinstance(piece, Code):
        return md_code(piece)
    if isinstance(piece, Quote):
        return md_evidence(piece)
    # Escaping trims the blanks at the ends; the ones between a sentence and a command are kept.
    lead = " " if piece.startswith(" ") else ""
    trail = " " if piece.endswith(" ") else ""
    return lead + md_escape(piece) + trail


def to_markdown(result: NodesResult, row: NodeRow) -> str:
    doc = incident(result, row)
    out = [f"# {md_escape(doc.title)}", "", md_escape(doc.summary)]
    for title, items in doc.sections:
        out += ["", f"## {md_escape(title)}", ""]
        for item in items:
            nested, pieces = _pieces(item)
            out.append(f"{'  ' if nested else ''}- {''.join(_md_piece(p) for p in pieces).strip()}")
    out += ["", f"_{md_escape(_footer(result))}_"]
    return "\n".join(out) + "\n"


def to_text(result: NodesResult, row: NodeRow) -> str:
    doc = incident(result, row)
    out = [doc.title, "", doc.summary]
    for title, items in doc.sections:
        out += ["", title]
        for item in items:
            nested, pieces = _pieces(item)
            said = "".join(f"`{p}`" if isinstance(p, Code) else p for p in pieces)
            out.append(f"  {'  ' if nested else ''}- {said}")
    out += ["", _footer(result)]
    return "\n".join(out) + "\n"
