"""The evidence as a person reads it: the signal the category rests on first, then what corroborates it, then
context; each signal on one line with its sources; many pods alike on one line; and, by default, only as much
context as fits about eight lines, the rest counted ("and 9 more lines").

Text, Markdown and the app's Evidence tab all show this view; `full_lines` is every item on its own line (what
`--verbose`, the Markdown's collapsed block and the app's full list show). JSON keeps every item whatever is
shown. Nothing here changes a report: it only chooses how its evidence is laid out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from core.models.evidence_text import node_in, pod_of
from core.models.report import EvidenceItem, Report
from core.report.fold import fold_texts, pods_named
from core.report.names import name_range, stem

# About eight evidence lines by default: the decisive and corroborating lines always, context up to this many.
SHORT_LINES = 8
# Even corroboration stops here; the rest is counted with the context left out.
MAX_SHORT_LINES = 12
# Fewer pods than this alike are listed one by one.
FOLD_PODS = 2

DECISIVE, CORROBORATION, CONTEXT = "decisive", "corroboration", "context"
_TIERS = (DECISIVE, CORROBORATION, CONTEXT)

# Signals that describe what was submitted or what is there, not the failure: context.
_CONTEXT_SIGNALS = frozenset(
    {
        "image",
        "command",
        "restart-policy",
        "mounts",
        "env-secrets",
        "submit-command",
        "phase",
        "pods",
        "selection",
        "scheduling",
        "log",
        "peer-log",  # a peer's log read beside the first failure's that explains nothing
        "revision",
        "cluster-mismatch",
        "superseded",  # a signal a later event took back: history, said on the report's history lines
    }
)
_MEMORY_SIGNALS = frozenset({"memory-config", "memory-peak", "memory-peak-earlier", "no-samples"})
_SPEC = "get_workload_spec"
# A pod that is still running, waiting or done tells nothing about a failure.
_QUIET_PHASES = ("Running", "Pending", "Succeeded", "Completed", "not reported")
_K8S_PHASE = re.compile(r"k8sPhase: ([^;]+)")


@dataclass(frozen=True, slots=True)
class EvidenceLine:
    """One line of the view: its words, the reads that showed it, and the evidence items it stands for (a
    folded line stands for several)."""

    text: str
    sources: tuple[str, ...]
    tier: str
    items: tuple[EvidenceItem, ...]

    @property
    def decisive(self) -> bool:
        return self.tier == DECISIVE

    def cite(self) -> str:
        """`(source: x)` for one read, `(sources: a, b, c)` for several."""
        if len(self.sources) == 1:
            return f"(source: {self.sources[0]})"
        return f"(sources: {', '.join(self.sources)})"


@dataclass(frozen=True, slots=True)
class EvidenceView:
    shown: tuple[EvidenceLine, ...]
    hidden: tuple[EvidenceLine, ...]  # every line of the full list that no shown line stands for

    @property
    def more(self) -> int:
        return len(self.hidden)


def tier_of(item: EvidenceItem, report: Report) -> str:
    """Decisive (the category rests on it), corroboration (memory against the limit, an exit code, a failed
    pod, a node's condition, the failing log line) or context (what was submitted, what else was there)."""
    if item.decisive or _explaining_log(item, report):
        return DECISIVE
    signal = item.signal or ""
    if signal in _MEMORY_SIGNALS:
        return CORROBORATION if report.memory is not None else CONTEXT
    if signal == "pod":
        phase = _K8S_PHASE.search(item.text)
        failed = phase is not None and phase.group(1).strip() not in _QUIET_PHASES
        return CORROBORATION if failed or len(item.sources) > 1 else CONTEXT
    if signal == "phase" and "phaseMessage:" in item.text:
        return CORROBORATION  # Run:ai's own words for why the workload ended
    if signal in _CONTEXT_SIGNALS or not signal or item.source == _SPEC:
        return CONTEXT
    return CORROBORATION


def _explaining_log(item: EvidenceItem, report: Report) -> bool:
    """The failing log line of a program's own failure (CRASH_APP_ERROR): the exit code decides the category,
    the log line says why, so a reader meets it first and marked as decisive (the first such line only)."""
    if report.category != "CRASH_APP_ERROR" or item.signal != "log-line":
        return False
    return next((e for e in report.evidence if e.signal == "log-line"), None) is item


def _ordered(report: Report) -> list[tuple[str, EvidenceItem]]:
    tiers = [(tier_of(item, report), item) for item in report.evidence]
    # Stable: the report's order inside a tier, but a program's failing log line first, then the rank a
    # collective timeout waited for (it says where to look), and a phase message (Run:ai's summary) after the
    # signals.
    return sorted(
        tiers,
        key=lambda pair: (
            _TIERS.index(pair[0]), not _explaining_log(pair[1], report), pair[1].signal != "hung-rank",
            pair[1].signal == "phase",
        ),
    )


def _line(item: EvidenceItem, tier: str) -> EvidenceLine:
    return EvidenceLine(item.text, tuple(item.sources or [item.source]), tier, (item,))


def full_lines(report: Report) -> list[EvidenceLine]:
    """Every evidence item on its own line, decisive first, then corroboration, then context."""
    return [_line(item, tier) for tier, item in _ordered(report)]


# -- folding --------------------------------------------------------------------------------------------------
def _fold_pods(lines: Sequence[EvidenceLine]) -> list[EvidenceLine]:
    """Lines about pods that say the same thing (but for the pod and its node) as one line per kind of pod,
    whichever reads showed them."""
    keyed: list[tuple[tuple[str, ...] | None, EvidenceLine, str | None, str | None]] = []
    for line in lines:
        found = pod_of(line.text)
        if found is None:
            keyed.append((None, line, None, None))
            continue
        pod, rest = found
        node, rest = node_in(rest)
        sep = ": " if line.text.startswith(f"Pod {pod}: ") else "; "
        # Not keyed on the tier: the first failure's state and the same state on its peers are one line, at the
        # first's place and tier (lines come decisive first).
        keyed.append(((stem(pod), sep, rest, *sorted(line.sources)), line, pod, node))
    counts: dict[tuple[str, ...], int] = {}
    for key, *_ in keyed:
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
    out: list[EvidenceLine] = []
    done: set[tuple[str, ...]] = set()
    for key, line, _, _ in keyed:
        if key is None or counts[key] < FOLD_PODS:
            out.append(line)
            continue
        if key in done:
            continue
        done.add(key)
        group = [(ln, pod, node) for k, ln, pod, node in keyed if k == key]
        pods = [pod for _, pod, _ in group if pod]
        nodes = [node for _, _, node in group if node]
        where = f", on nodes {name_range(nodes)}" if nodes else ""
        text = f"Pods {name_range(pods)} ({len(pods)} pods{where}): {key[2]}"
        items = tuple(item for ln, _, _ in group for item in ln.items)
        out.append(EvidenceLine(text, line.sources, line.tier, items))
    return out


def _strip_submitted(text: str, first: bool) -> str:
    if first:
        return text
    text = text.removeprefix("Submitted ")
    return text[:1].lower() + text[1:] if text[:1].isupper() and not text.startswith(("CPU", "GPU")) else text


def _fold_spec(lines: Sequence[EvidenceLine]) -> list[EvidenceLine]:
    """What was submitted (image, command, restart policy, mounts, ...) as one line, where the first was."""
    spec = [ln for ln in lines if ln.tier == CONTEXT and ln.sources == (_SPEC,)]
    if len(spec) < 2:
        return list(lines)
    text = "; ".join(_strip_submitted(ln.text, i == 0) for i, ln in enumerate(spec))
    folded = EvidenceLine(text, (_SPEC,), CONTEXT, tuple(item for ln in spec for item in ln.items))
    out: list[EvidenceLine] = []
    for line in lines:
        if line is spec[0]:
            out.append(folded)
        elif line not in spec:
            out.append(line)
    return out


def report_pods(report: Report, texts: Iterable[str] = ()) -> list[str]:
    """The pods a report names: those of its termination order and those its lines mention."""
    return pods_named([*(e.text for e in report.evidence), *texts], (e.pod for e in report.termination_order))


def _fold_alike(lines: Sequence[EvidenceLine], pods: Sequence[str]) -> list[EvidenceLine]:
    """Lines alike but for pods, times and counts (core.report.fold) as one, when the same reads showed them;
    at the first's place and tier."""
    folded = fold_texts([ln.text for ln in lines], pods, [frozenset(ln.sources) for ln in lines])
    out: list[EvidenceLine] = []
    for text, members in folded:
        first = lines[members[0]]
        if len(members) == 1:
            out.append(first)
            continue
        items = tuple(item for index in members for item in lines[index].items)
        out.append(EvidenceLine(text, first.sources, first.tier, items))
    return out


# `Pod/P event Warning Failed x40: "Error: ImagePullBackOff"`: the object, and the rest after it.
_OBJECT_EVENT = re.compile(r'^(?P<obj>[A-Za-z]+/\S+) event (?P<rest>\S+(?: \S+)?(?: x\d+)?: "(?P<msg>.*)")$')
# Events about one object are put on one line only when their messages are this short (the kubelet's echoes:
# "Error: ErrImagePull", "Back-off pulling image ..."): a long message keeps a line of its own.
SHORT_MESSAGE = 90


def _fold_object_events(lines: Sequence[EvidenceLine]) -> list[EvidenceLine]:
    """Kubernetes events about one object that only echo each other (short messages; never the line the view
    opens with) as one line, at the first's place and tier: `Pod/P events: Normal BackOff x40: "..."; Warning
    Failed x5: "..."`, citing every read that showed one of them."""
    found = [(_OBJECT_EVENT.match(ln.text), ln) for ln in lines]
    groups: dict[tuple[str, str], list[int]] = {}
    for index, (m, _) in enumerate(found):
        if m is not None and index > 0 and len(m["msg"]) <= SHORT_MESSAGE:
            groups.setdefault((m["obj"], ""), []).append(index)
    first_of = {members[0]: members for members in groups.values() if len(members) > 1}
    folded = {index for members in first_of.values() for index in members}
    out: list[EvidenceLine] = []
    for index, (_, line) in enumerate(found):
        if index in first_of:
            members = first_of[index]
            parts = [m["rest"] for i in members if (m := found[i][0]) is not None]
            obj = found[index][0]["obj"]  # type: ignore[index]
            sources = tuple(dict.fromkeys(s for i in members for s in lines[i].sources))
            items = tuple(item for i in members for item in lines[i].items)
            out.append(EvidenceLine(f"{obj} events: " + "; ".join(parts), sources, line.tier, items))
        elif index not in folded:
            out.append(line)
    return out


def short_view(report: Report, budget: int = SHORT_LINES, said_above: Collection[str] = ()) -> EvidenceView:
    """The default view: decisive and corroborating lines (up to MAX_SHORT_LINES), then context while the
    view has fewer than `budget` lines; what is left is counted, never dropped from the report. A line whose
    words the report already says above its evidence (`said_above`: the phase on the workload line) is left out
    of both."""
    lines = [line for line in full_lines(report) if line.text not in said_above]
    folded = _fold_spec(_fold_object_events(_fold_alike(_fold_pods(lines), report_pods(report))))
    shown: list[EvidenceLine] = []
    left: list[EvidenceLine] = []
    for line in folded:
        limit = budget if line.tier == CONTEXT else MAX_SHORT_LINES
        if line.decisive or len(shown) < limit:
            shown.append(line)
        else:
            left.append(line)
    hidden = [_line(item, line.tier) for line in left for item in line.items]
    return EvidenceView(tuple(shown), tuple(hidden))
