"""What an evidence line is about, read back from the words the diagnosis cited it with.

Evidence is cited in a handful of shapes, one per kind of read: a Run:ai event (`Event reason: X; message: "M";
on Pod P`, also from history and revisions), a phase (`Phase: Failed since T; phaseMessage: "M"`), a Kubernetes
event (`Pod/P event Warning X x31: "M"`), a node's condition (`Node N: Ready=False: M`), a container's state as
`describe pod` shows it (`Pod P: Container C; Error (exit 1); ...`), and a pod of `get_workload_pods`
(`Pod P; node N; k8sPhase: Error; ...`). Reading these back lets the report cite each signal once with all its
sources, and fold many pods into one line, without changing what the engine cites. A line in no known shape is
about itself alone: it is never merged and never folded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# `clean(max_len=...)` ends a cut quote with this marker; a cut quote is the same message as the whole one.
_CUT = re.compile(r"… \[\+\d+ chars\]$")

_RUNAI_EVENT = re.compile(
    r'^(?P<prefix>(?:Revision )?(?:[Hh]istory )?[Ee]vent) reason: (?P<reason>[^;]*); message: "(?P<msg>.*)"'
    r"(?:; on (?P<kind>[A-Za-z]+) (?P<name>\S+))?$"
)
_PHASE = re.compile(r'^(?P<head>.*?)phaseMessage: "(?P<msg>.*)"$')
_KUBE_EVENT = re.compile(
    r"^(?P<kind>[A-Za-z?]+)/(?P<name>\S+) event (?:(?P<type>Normal|Warning|[A-Z][a-z]+) )?(?P<reason>\S+)"
    r'(?: x(?P<count>\d+))?: "(?P<msg>.*)"$'
)
_NODE = re.compile(r"^Node (?P<name>\S+): (?:(?P<cond>[A-Za-z][\w.-]*=(?:True|False|Unknown)): )?(?P<msg>.+)$")
_CONTAINER = re.compile(r"^(?:Pod (?P<pod>\S+): )?(?P<state>(?:Init container|Container) (?P<container>\S+); .+)$")
_POD = re.compile(r"^Pod (?P<pod>[^\s;:]+); (?P<rest>.+)$")
_POD_NODE = re.compile(r"(?:^|; )node (?P<node>[^\s;]+)")
_K8S_PHASE = re.compile(r"k8sPhase: (?P<phase>[^;]+)")
_CONTAINER_REASON = re.compile(r"; (?P<reason>[A-Za-z]+)(?: \(exit (?P<code>-?\d+)\))?")
_PREFIXED = re.compile(r"^Pod (?P<pod>[^\s;:]+): (?P<rest>.+)$")
# A phase message that names the container state that ended the workload (Run:ai's own words).
_PHASE_STATE = re.compile(
    r"\bpod (?P<pod>\S+) (?:init )?container (?P<container>\S+) terminated \((?P<reason>[A-Za-z]+)\)"
    r"(?:, exit code (?P<code>-?\d+))?"
)
# A quoted message that is cited at the end of a line: `...: "M"` (a log line, a Kubernetes event), or
# `message: "M"` / `phaseMessage: "M"`, and after it only unquoted words (what it is about, a count, a node
# condition).
_QUOTED = re.compile(r'^(?P<head>.*?(?:message: |phaseMessage: |\): |: ))"(?P<msg>.*)"(?P<tail>(?:; [^"]*)?)$')

DESCRIBE_POD = "kubectl describe pod"
DESCRIBE_NODE = "kubectl describe node"
PODS = "get_workload_pods"


@dataclass(frozen=True, slots=True)
class Shape:
    """What one cited line says: the message it quotes and the object that message is about (None: not said),
    how many times a Kubernetes event counted it, a node condition's name, and for a pod's or a container's
    state the pod, the container and the state's reason."""

    kind: str  # "event", "phase", "kube-event", "node", "container", "pod", "text" (no known shape)
    message: str | None = None
    obj: tuple[str, str] | None = None
    reason: str | None = None
    count: int | None = None
    condition: str | None = None
    pod: str | None = None
    container: str | None = None
    state: str | None = None  # the container's or pod's state reason: OOMKilled, Error, ...
    exit_code: int | None = None
    label: str | None = None  # how a Run:ai event was read: `Event`, `History event`, `Revision event`, ...


def message_stem(message: str) -> str:
    """The message without a cut marker and with its blanks collapsed: the same message cut at two lengths has
    the same stem start."""
    return " ".join(_CUT.sub("", message).split())


def same_message(a: str, b: str) -> bool:
    """Whether two quotes are one message: equal, or one cut short of the other (each read cuts at its length)."""
    sa, sb = message_stem(a), message_stem(b)
    if sa == sb:
        return bool(sa)
    short, long_ = (sa, sb) if len(sa) < len(sb) else (sb, sa)
    cut = _CUT.search(a) is not None or _CUT.search(b) is not None
    return cut and len(short) >= 60 and long_.startswith(short)


def shape_of(text: str, source: str) -> Shape:
    """The shape of one cited line (`text` as the report holds it, `source` the read it came from)."""
    if source == DESCRIBE_NODE and (m := _NODE.match(text)):
        return Shape("node", m["msg"], ("Node", m["name"]), condition=m["cond"])
    if m := _RUNAI_EVENT.match(text):
        obj = (m["kind"], m["name"]) if m["kind"] and m["name"] else None
        return Shape("event", m["msg"], obj, reason=m["reason"], label=m["prefix"])
    if m := _KUBE_EVENT.match(text):
        obj = (m["kind"], m["name"]) if m["kind"] != "?" and m["name"] != "?" else None
        count = int(m["count"]) if m["count"] else None
        return Shape("kube-event", m["msg"], obj, reason=m["reason"], count=count)
    if m := _PHASE.match(text):
        state = _PHASE_STATE.search(m["msg"])
        if state is None:
            return Shape("phase", m["msg"], ("Workload", ""))
        code = int(state["code"]) if state["code"] else None
        return Shape(
            "phase", m["msg"], ("Workload", ""), pod=state["pod"], container=state["container"],
            state=state["reason"], exit_code=code,
        )
    if source == DESCRIBE_POD:
        if m := _CONTAINER.match(text):
            reason = _CONTAINER_REASON.match(m["state"][m["state"].index(";") :])
            code = int(reason["code"]) if reason and reason["code"] else None
            return Shape(
                "container",
                pod=m["pod"],
                container=m["container"],
                state=reason["reason"] if reason else None,
                exit_code=code,
            )
        prefixed = _PREFIXED.match(text)
        pod = prefixed["pod"] if prefixed else None
        message = prefixed["rest"] if prefixed else text
        return Shape("text", message, ("Pod", pod) if pod else None, pod=pod)
    if source == PODS and (m := _POD.match(text)) and (phase := _K8S_PHASE.search(m["rest"])):
        return Shape("pod", pod=m["pod"], state=phase["phase"].strip())
    return Shape("text")


def pod_of(text: str) -> tuple[str, str] | None:
    """(the pod a line opens with, the rest of the line) for `Pod P; ...` and `Pod P: ...`, else None."""
    if m := _POD.match(text):
        return m["pod"], m["rest"]
    if m := _PREFIXED.match(text):
        return m["pod"], m["rest"]
    return None


def node_in(rest: str) -> tuple[str | None, str]:
    """(the node a pod line names, the line without it)."""
    m = _POD_NODE.search(rest)
    if m is None:
        return None, rest
    start, end = m.span()
    head, tail = rest[:start], rest[end:]
    joined = head + tail if head else tail.removeprefix("; ")
    return m["node"], joined


def quoted(text: str) -> tuple[str, str, str] | None:
    """(what comes before the quote, the quoted message, what follows it) for a line that ends by quoting a
    message or a log line, else None."""
    m = _QUOTED.match(text)
    if m is None or not m["msg"]:
        return None
    return m["head"], m["msg"], m["tail"]
