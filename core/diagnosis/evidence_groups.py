"""One signal, all its sources (report-format.md): evidence items that cite the same message, or the same pod's
container state, become one item naming every read that showed it, and the items the category rests on are
marked decisive and put first.

The same OOM kill is seen by `get_workload_status`, `get_workload_history` and `kubectl get events`; the same
container state by `get_workload_pods` and `kubectl describe pod`. Each read cites it in its own words; the
report cites it once. Nothing is lost: the merged item keeps each read's own citation (`reads`), the Kubernetes
event's count and a node condition's name stay on its line, and what the engine decided is unchanged (this
module only regroups what the journal gathered).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from core.diagnosis.observations import Observation
from core.models.evidence_text import DESCRIBE_POD, Shape, same_message, shape_of
from core.models.report import EvidenceItem, EvidenceRead

# Shapes whose quoted message says what the line is about; two of them with the same message are one signal.
_MESSAGE_SHAPES = frozenset({"event", "phase", "kube-event", "node", "text"})
_POD_OR_NODE = frozenset({"Pod", "Node"})
# How a line about one container's state is put together.
_STATE_ORDER = {"container": 0, "pod": 1}
# A waiting reason as `get_workload_pods` names it, and how `describe pod` words the same state.
_WAITING_WORDS = {
    "ImagePullBackOff": "pulling image",
    "ErrImagePull": "ErrImagePull",
    "CrashLoopBackOff": "back-off",
    "CreateContainerConfigError": "CreateContainerConfigError",
}


@dataclass(slots=True)
class _Group:
    members: list[tuple[int, EvidenceItem, Shape]] = field(default_factory=list)


def _compatible(a: Shape, b: Shape) -> bool:
    """Same message about the same object (a line that does not say its object fits any)."""
    if a.message is None or b.message is None or not same_message(a.message, b.message):
        return False
    if (a.kind == "phase") != (b.kind == "phase"):
        # A phase message is about the workload: the same words in an event about a pod or a node are not it.
        event = b if a.kind == "phase" else a
        return event.obj is None or event.obj[0] not in _POD_OR_NODE
    return a.obj is None or b.obj is None or a.obj == b.obj


def _joins(group: _Group, item: EvidenceItem, shape: Shape) -> bool:
    """Whether a line cites the same message as a group. One read reports one event once, so two events of the
    same read are two things even worded alike; a status read's phase message and one of its events can still
    be the same words, and so can a workload's event and its revision's (two reads of the same source)."""
    head = group.members[0][2]
    same_read = any(
        i.source == item.source and s.kind == shape.kind and s.label == shape.label for _, i, s in group.members
    )
    return not same_read and _compatible(head, shape)


def _same_state(container: Shape, pod: Shape, text: str) -> bool:
    if pod.state is None:
        return False
    if container.state is not None and container.state.lower() == pod.state.lower():
        return True
    words = _WAITING_WORDS.get(pod.state)
    return words is not None and words.lower() in text.lower()


def _pods_by_citation(observations: Iterable[Observation]) -> dict[tuple[str, str], str]:
    """The pod each `describe pod` citation is about, when one pod said it (the engine knows; the words of the
    pod that failed first do not name it)."""
    found: dict[tuple[str, str], set[str]] = {}
    for obs in observations:
        if obs.source == DESCRIBE_POD and obs.pod:
            found.setdefault((obs.text, obs.source), set()).add(obs.pod)
    return {key: next(iter(pods)) for key, pods in found.items() if len(pods) == 1}


def _with_pod(shape: Shape, pod: str | None) -> Shape:
    if shape.pod is not None or pod is None:
        return shape
    obj = shape.obj if shape.obj is not None or shape.kind != "text" else ("Pod", pod)
    return replace(shape, obj=obj, pod=pod)


def _groups(items: Sequence[EvidenceItem], pods: Mapping[tuple[str, str], str]) -> list[_Group]:
    shapes = [_with_pod(shape_of(item.text, item.source), pods.get((item.text, item.source))) for item in items]
    groups: list[_Group] = []
    by_message: list[_Group] = []
    pod_lines: dict[str, _Group] = {}
    for index, (item, shape) in enumerate(zip(items, shapes, strict=True)):
        member = (index, item, shape)
        if shape.kind in _MESSAGE_SHAPES and shape.message is not None:
            home = next((g for g in by_message if _joins(g, item, shape)), None)
            if home is not None:
                home.members.append(member)
                continue
            group = _Group([member])
            by_message.append(group)
        else:
            group = _Group([member])
            if shape.kind == "pod" and shape.pod is not None:
                pod_lines.setdefault(shape.pod, group)
        groups.append(group)
    _join_states(groups, pod_lines)
    return groups


def _state_of(group: _Group) -> Shape | None:
    """The container (else pod) state a group is about, if it is about one."""
    shapes = [shape for _, _, shape in group.members]
    return next((s for s in shapes if s.kind == "container"), next((s for s in shapes if s.kind == "pod"), None))


def _names_state(phase: Shape, state: Shape) -> bool:
    """Whether a phase message names this container's (or pod's) state: same pod, container, reason, code."""
    if phase.pod != state.pod or phase.state is None or state.state is None:
        return False
    if phase.state.lower() != state.state.lower():
        return False
    if state.kind == "pod":
        return True
    same_code = phase.exit_code is None or state.exit_code is None or phase.exit_code == state.exit_code
    return phase.container == state.container and same_code


def _bare(text: str, pod: str | None) -> str:
    """A container's state without the `Pod P: ` a peer's citation puts before it."""
    prefix = f"Pod {pod}: "
    return text[len(prefix):] if pod and text.startswith(prefix) else text


def _twin(
    home: _Group, item: EvidenceItem, shape: Shape
) -> tuple[int, EvidenceItem, Shape] | None:
    """The member of a pod's line that cites this container state in the same read's words, if one does."""
    bare = _bare(item.text, shape.pod)
    return next(
        (m for m in home.members
         if m[2].kind == "container" and m[1].source == item.source and _bare(m[1].text, m[2].pod) == bare),
        None,
    )


def _join_twins(groups: list[_Group], pod_lines: Mapping[str, _Group]) -> None:
    """The same read's words for the same container, cited once as the first failure's (its pod unnamed) and once
    as a peer's (named), when the first failure was found only after its peers were cited: one line, the decisive
    citation kept. An unnamed one that no pod is known to have said is the one pod's whose words these are."""
    for group in list(groups):
        index, item, shape = group.members[0]
        if len(group.members) != 1 or shape.kind != "container":
            continue
        if shape.pod is None:
            homes = list(pod_lines.values())
        else:
            homes = [pod_lines[shape.pod]] if shape.pod in pod_lines else []
        twins = [(home, twin) for home in homes if (twin := _twin(home, item, shape)) is not None]
        if len(twins) != 1:
            continue
        home, twin = twins[0]
        if item.decisive and not twin[1].decisive:
            home.members[home.members.index(twin)] = (index, item, shape)
        groups.remove(group)


def _join_states(groups: list[_Group], pod_lines: Mapping[str, _Group]) -> None:
    """A container's state from `describe pod` joins its pod's line from `get_workload_pods`; a phase message
    that names that state (`pod P container C terminated (OOMKilled)`) joins them too."""
    for group in list(groups):
        index, item, shape = group.members[0]
        if len(group.members) != 1 or shape.kind != "container" or shape.pod is None:
            continue
        home = pod_lines.get(shape.pod)
        if home is None or len(home.members) != 1 or not _same_state(shape, home.members[0][2], item.text):
            continue
        home.members.insert(0, (index, item, shape))
        groups.remove(group)
    _join_twins(groups, pod_lines)
    for group in list(groups):
        phase = group.members[0][2]
        if phase.kind != "phase" or phase.pod is None:
            continue
        home = next(
            (g for g in groups if g is not group and (st := _state_of(g)) is not None and _names_state(phase, st)),
            None,
        )
        if home is not None:
            home.members += group.members
            groups.remove(group)


def _rank(member: tuple[int, EvidenceItem, Shape], source_rank: Mapping[str, int]) -> tuple[int, int, int]:
    index, item, _ = member
    return (0 if item.decisive else 1, index if item.decisive else source_rank.get(item.source, 99), index)


def _state_text(members: Sequence[tuple[int, EvidenceItem, Shape]]) -> str:
    """`Pod P: Container C; <state>; node N; k8sPhase: ...; Phase: Failed since T; phaseMessage: "..."`: the
    container's state first, then the pod's own line, then the phase message that named it (once)."""
    parts: list[str] = []
    phase_said = container_said = False
    for _, item, shape in members:
        if shape.kind == "container":
            parts.append(item.text if item.text.startswith("Pod ") else f"Pod {shape.pod}: {item.text}")
            container_said = True
        elif shape.kind == "pod":
            # After the container's state the pod is named already; else its line is cited whole.
            parts.append(item.text.split("; ", 1)[-1] if container_said else item.text)
        elif shape.kind == "phase" and not phase_said:
            parts.append(item.text)
            phase_said = True
    return "; ".join(parts)


def _merged_text(members: Sequence[tuple[int, EvidenceItem, Shape]]) -> str:
    _, first, shape = members[0]
    if any(s.kind in ("container", "pod") for _, _, s in members):
        return _state_text(members)
    text = first.text
    if shape.kind == "phase":
        # The same words as an event about the workload: its reason (and object) stay on the line.
        event = next((s for _, _, s in members if s.kind in ("event", "kube-event") and s.reason), None)
        if event is not None and event.reason:
            text += f"; event {event.reason}" + (f" on {event.obj[0]} {event.obj[1]}" if event.obj else "")
    counts = [s.count for _, _, s in members if s.count]
    if counts and shape.count is None:
        text += f"; counted x{max(counts)} by Kubernetes"
    conditions = [s.condition for _, _, s in members if s.condition]
    if conditions and shape.condition is None:
        text += f"; node condition {conditions[0]}"
    return text


def merge_evidence(
    items: Sequence[EvidenceItem],
    deciding: Iterable[tuple[str, str]],
    source_rank: Mapping[str, int],
    observations: Iterable[Observation] = (),
) -> list[EvidenceItem]:
    """`items` (deciding signals first, then by source) as one item per signal: decisive ones first, each
    naming its sources strongest first. `deciding` holds the (text, source) of each observation the verdict
    rests on; `observations` say which pod each `describe pod` line is about."""
    decisive = set(deciding)
    marked = [item.model_copy(update={"decisive": (item.text, item.source) in decisive}) for item in items]
    out: list[tuple[tuple[int, int], EvidenceItem]] = []
    for group in _groups(marked, _pods_by_citation(observations)):
        ranked = sorted(group.members, key=lambda m: _rank(m, source_rank))
        any_decisive = any(item.decisive for _, item, _ in ranked)
        position = min(index for index, _, _ in ranked)
        if len(ranked) == 1:
            out.append(((0 if any_decisive else 1, position), ranked[0][1]))
            continue
        # A container's state leads the words of the line about it; the pod's line and the phase follow.
        worded = sorted(ranked, key=lambda m: _STATE_ORDER.get(m[2].kind, len(_STATE_ORDER)))
        sources: list[str] = []
        for _, item, _ in ranked:
            if item.source not in sources:
                sources.append(item.source)
        merged = EvidenceItem(
            text=_merged_text(worded),
            source=ranked[0][1].source,
            signal=ranked[0][1].signal,
            sources=sources,  # type: ignore[arg-type]
            decisive=any_decisive,
            reads=[EvidenceRead(text=item.text, source=item.source) for _, item, _ in ranked],
        )
        out.append(((0 if any_decisive else 1, position), merged))
    return [item for _, item in sorted(out, key=lambda pair: pair[0])]
