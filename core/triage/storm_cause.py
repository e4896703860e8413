"""What several failures can share, read from each one's own diagnosis: the key `watch` groups its posts by.

A failure has at most one shared cause, the first of these its report shows:
1. a node: an infrastructure finding that explains the failure and names a node (GPU hardware or driver, fabric,
   node pressure), or a NODE_FAILURE verdict, whose node is read from the report (its termination order, its
   pods, its decisive lines). Every workload a node takes down is one storm, whatever each one's verdict says;
2. an infrastructure finding without a node that explains the failure (an admission refusal, the control
   plane): the same finding, in the same words, is one storm;
3. an image that cannot be pulled (IMAGE_PULL_FAILED): the image its decisive lines name.
Anything else (a program's own crash, an OOM kill, no report) shares nothing: each is posted alone.

The key is opaque to the delivery records (core.notify.storms); `words` is how a post names the cause, cleaned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.models.report import Report
from core.safety.untrusted import clean

# The order in which a node's findings name its cause: the hardware before what follows from it.
_NODE_KINDS = ("gpu-hardware", "gpu-driver-runtime", "network-fabric", "node-pressure")
_NODE_NAME = r"([A-Za-z0-9][-A-Za-z0-9._]{0,252})"
# Our own evidence's words for a pod's node (core.diagnosis.configuration `pod_evidence`), and the kubelet's and
# the node controller's (`Node/<name> event ...`, `Node <name>: <condition>`, `Node <name> which was running`).
_POD_NODE = re.compile(rf"(?:^|; )node {_NODE_NAME}(?=;|$)")
_NODE_LINE = re.compile(rf"\bNode(?:/{_NODE_NAME}\b| {_NODE_NAME}(?=:| which\b))")
_IMAGE = re.compile(r"\bimage \"([^\"\n]{1,512})\"")
_SUBMITTED = re.compile(r"^Submitted image(?: of [^:]+)?: (\S{1,512})")


@dataclass(frozen=True, slots=True)
class Cause:
    key: str  # what groups failures: "node:<name>", "finding:<kind>:<words>", "image:<reference>"
    kind: str  # node | finding | image
    words: str  # the cause, as a post names it once (cleaned, one line)
    subject: str  # the node, the finding's kind, or the image (cleaned, one line)


def cause_of(report: Report | None) -> Cause | None:
    """The cause this failure may share with others, or None (it is posted alone)."""
    if report is None or report.outcome != "diagnosed":
        return None
    explaining = [f for f in report.findings if f.explains]
    on_node = sorted((f for f in explaining if f.node and f.node.strip()),
                     key=lambda f: _NODE_KINDS.index(f.kind) if f.kind in _NODE_KINDS else len(_NODE_KINDS))
    if on_node:
        return _node_cause(on_node[0].node or "", f"{on_node[0].kind}: {summary(on_node[0].text)}")
    if report.category == "NODE_FAILURE":
        node = failed_node(report)
        if node is not None:
            why = next((e.text for e in report.evidence if e.decisive), report.reason or "the node failed")
            return _node_cause(node, f"node failure: {why}")
    if explaining:
        found = explaining[0]
        words = summary(found.text)
        return Cause(f"finding:{found.kind}:{_fold(words)}", "finding", _one(f"{found.kind}: {words}"),
                     _one(found.kind))
    if report.category == "IMAGE_PULL_FAILED":
        image = pulled_image(report)
        if image is not None:
            return Cause(f"image:{image}", "image", _one(f"the image {image} cannot be pulled"), _one(image))
    return None


def _node_cause(node: str, words: str) -> Cause:
    return Cause(f"node:{_fold(node)}", "node", _one(words, 300), _one(node, 120))


def failed_node(report: Report) -> str | None:
    """The node a NODE_FAILURE verdict rests on: the first pod to end in its termination order, else the node
    its pods ran on, else the node its decisive lines name."""
    first = next((t.node for t in report.termination_order if t.first and t.node), None)
    if first is None:
        first = next((t.node for t in report.termination_order if t.node), None)
    if first:
        return first.strip()
    for item in report.evidence:
        found = _POD_NODE.search(item.text)
        if found:
            return found.group(1)
    for item in report.evidence:
        if item.decisive:
            found = _NODE_LINE.search(item.text)
            if found:
                return found.group(1) or found.group(2)
    return None


def pulled_image(report: Report) -> str | None:
    """The image a pull failed for: the one the decisive lines name (the kubelet quotes it), else the one the
    workload asked for."""
    for item in report.evidence:
        if item.decisive:
            found = _IMAGE.search(item.text)
            if found:
                return found.group(1).strip()
    for item in report.evidence:
        if item.signal == "image":
            found = _SUBMITTED.search(item.text)
            if found:
                return found.group(1).strip()
    return None


def summary(finding_text: str) -> str:
    """What a finding says, without the cluster's words it quotes after it (`<what>: "<quoted>"`)."""
    what, sep, quoted = finding_text.rpartition(': "')
    return what if sep and what and quoted.endswith('"') else finding_text


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _one(text: str, max_len: int = 200) -> str:
    return clean(text, one_line=True, max_len=max_len)
