"""Lines that say one thing about several pods, at several times or counted differently, as one line.

Run:ai's "Pod X exited with code 1" once per pod of a job, "no CPU-memory samples for pod X" once per pod, an
OOMKilled event on each of three workers, and the Missing lines that match them: once the pods, the times and
the counts are set aside, each says what the others say. A line is read as a template with slots (the report's
pod names, ISO-8601 instants, counts such as `x31` or `918 samples`); lines with the same template, tier and
sources become one line whose slots name every value: pods as a range (`worker-{1..8}`), times and counts as a
set in braces (`{11:29:32, 11:29:35}`, `x{3..5}`), so what the line stands for can still be read off it, and the
number of pods it covers is said. Nothing is dropped: the folded line keeps every item it stands for.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.report.names import name_range

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)?")
# A count: a Kubernetes event's `x31`, `restarts 7`, `918 samples`, `7 times` (not a size, an exit code or a
# limit: those are facts that tell lines apart).
_COUNT = re.compile(r"(?<=\bx)\d+\b|(?<=\brestarts )\d+\b|\b\d+(?= (?:times?|restarts?|samples|back-offs?)\b)")
# Where a line names a pod: `Pod P;`, `Pod P:`, `Pod/P event`, `on Pod P`, `of pod P`, `for pod P`.
_NAMED = re.compile(r"\b[Pp]ods?[/ ](?P<pod>[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)")
# More values than this in a slot are given as the first and the last.
LISTED = 3
TIME, COUNT, POD = "time", "count", "pod"


@dataclass(frozen=True, slots=True)
class Template:
    literals: tuple[str, ...]  # the text between slots (one more than the slots)
    kinds: tuple[str, ...]
    values: tuple[str, ...]


def pods_named(texts: Iterable[str], known: Iterable[str] = ()) -> list[str]:
    """The pod names `texts` mention (`Pod P`, `on Pod P`, ...) and the `known` ones, longest first."""
    found = {m["pod"] for text in texts for m in _NAMED.finditer(text)} | {p for p in known if p}
    return sorted(found, key=lambda p: (-len(p), p))


def _pod_pattern(pods: Sequence[str]) -> re.Pattern[str] | None:
    if not pods:
        return None
    names = "|".join(re.escape(p) for p in pods)
    return re.compile(rf"(?<![\w-])(?:{names})(?![\w-])")


def template(text: str, pods: re.Pattern[str] | None) -> Template:
    """The text as literals and slots."""
    spans: list[tuple[int, int, str]] = []
    for kind, pattern in ((POD, pods), (TIME, _ISO), (COUNT, _COUNT)):
        if pattern is None:
            continue
        for m in pattern.finditer(text):
            if not any(a < m.end() and m.start() < b for a, b, _ in spans):
                spans.append((m.start(), m.end(), kind))
    spans.sort()
    literals, kinds, values = [], [], []
    at = 0
    for start, end, kind in spans:
        literals.append(text[at:start])
        kinds.append(kind)
        values.append(text[start:end])
        at = end
    literals.append(text[at:])
    return Template(tuple(literals), tuple(kinds), tuple(values))


def _number_set(values: list[str]) -> str:
    numbers = sorted({int(v) for v in values})
    if len(numbers) == 1:
        return str(numbers[0])
    if len(numbers) <= LISTED:
        return "{" + ",".join(str(n) for n in numbers) + "}"
    return f"{{{numbers[0]}..{numbers[-1]}}}"


def _time_set(values: list[str]) -> str:
    ordered = sorted(set(values))
    if len(ordered) == 1:
        return ordered[0]
    if len(ordered) <= LISTED:
        return "{" + ", ".join(ordered) + "}"
    return f"{{{ordered[0]} … {ordered[-1]}}}"


def _filled(shape: Template, columns: list[list[str]]) -> tuple[str, int]:
    """The folded text, and how many pods it names (0: no pod slot varies)."""
    out: list[str] = []
    pods = 0
    for index, literal in enumerate(shape.literals[:-1]):
        values = columns[index]
        kind = shape.kinds[index]
        if kind == POD and len(set(values)) > 1:
            unique = list(dict.fromkeys(values))
            pods = max(pods, len(unique))
            literal = re.sub(r"\b([Pp]od)( |/)$", r"\1s\2", literal)
            out += [literal, name_range(unique)]
        elif kind == COUNT:
            out += [literal, _number_set(values)]
        elif kind == TIME:
            out += [literal, _time_set(values)]
        else:
            out += [literal, values[0]]
    out.append(shape.literals[-1])
    return "".join(out), pods


def fold_texts(
    texts: Sequence[str], pods: Sequence[str], keys: Sequence[object] | None = None
) -> list[tuple[str, list[int]]]:
    """Each group of texts alike but for pods, times and counts (and with the same `keys`, when given) as one
    text, in the order of each group's first; with the indices of the texts it stands for. A text alone keeps
    its words."""
    pattern = _pod_pattern(pods)
    shapes = [template(text, pattern) for text in texts]
    groups: dict[object, list[int]] = {}
    for index, shape in enumerate(shapes):
        key = (shape.literals, shape.kinds, keys[index] if keys is not None else None)
        groups.setdefault(key, []).append(index)
    out: list[tuple[str, list[int]]] = []
    for members in groups.values():
        if len(members) == 1 or not shapes[members[0]].kinds:
            out += [(texts[i], [i]) for i in members]
            continue
        shape = shapes[members[0]]
        columns = [[shapes[i].values[slot] for i in members] for slot in range(len(shape.kinds))]
        text, named = _filled(shape, columns)
        out.append((text + (f" ({named} pods)" if named and f"({named} pods" not in text else ""), members))
    return sorted(out, key=lambda pair: pair[1][0])
