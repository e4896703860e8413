"""A case bundle with one workload per corpus credential, the credential planted in every untrusted field.

Each workload is a failure with node evidence (so Tier 2 reads the pod, its previous log, its events and the
node), and every field a bundle can carry holds `<marker> <credential text>`: the marker is a short word that
is never redacted, unique per field, so a test can tell which fields reached which output. Three carriers
also hold the credential with a colour code or a zero-width space inside the secret, as a terminal or a
copy-paste leaves them.
"""

from __future__ import annotations

import copy
from typing import Any

from core.sim.demo.kit import (
    DEMO_CAPTURED_AT,
    DEMO_CLUSTERS,
    PROJECTS,
    Json,
    Story,
    condition,
    cstatus,
    node,
    project_json,
    running,
    taint,
    terminated,
    waiting,
)
from tests.redaction.corpus import Credential

# Every untrusted field a case bundle carries (case-format.md, runai-api.md, kubernetes-facts.md).
FIELDS: tuple[str, ...] = (
    "workload name",
    "workload phaseMessage",
    "workload condition message",
    "workload images",
    "Run:ai event message",
    "Run:ai notice event message",
    "spec command",
    "spec args",
    "spec env value",
    "spec annotation",
    "spec submit-command annotation",
    "spec git repository",
    "Run:ai pod container image",
    "history phaseMessage",
    "history event message",
    "Kubernetes pod event message",
    "Kubernetes node event message",
    "pod status message",
    "pod condition message",
    "pod annotation",
    "pod env value",
    "container terminated message",
    "container waiting message",
    "node condition message",
    "node taint value",
    "log text",
    "split by a colour code: Run:ai event message",
    "split by a colour code: spec env value",
    "split by a zero-width space: Kubernetes pod event message",
)
MARKERS: dict[str, str] = {field: f"zq{i:02d}x" for i, field in enumerate(FIELDS)}
PROJECT = "robotics"
SGR = "\x1b[31m"
ZWSP = "\u200b"


def split_secret(cred: Credential, splitter: str) -> str:
    """The credential's text with `splitter` in the middle of its secret."""
    half = len(cred.secret) // 2
    return cred.text.replace(cred.secret, cred.secret[:half] + splitter + cred.secret[half:], 1)


def _carry(field: str, text: str) -> str:
    return f"{MARKERS[field]} {text}"


def credential_story(index: int, cred: Credential) -> Story:
    def c(field: str) -> str:
        return _carry(field, cred.text)

    node_name = f"gpu-cred-{index:02d}"
    s = Story(
        f"cred-{index:02d}",
        f"cred-{index:02d}",
        PROJECT,
        "Failed",
        phase_at=20,
        created=200,
        restart_policy="OnFailure",
        command=c("spec command"),
        args=c("spec args"),
        env=[
            {"name": "EXTRA_ARGS", "value": c("spec env value")},
            {
                "name": "EXTRA_ARGS_2",
                "value": _carry("split by a colour code: spec env value", split_secret(cred, SGR)),
            },
        ],
        annotations=[
            {"name": "runai-submit-command", "value": "runai submit " + c("spec submit-command annotation")},
            {"name": "note", "value": c("spec annotation")},
        ],
        storage={"pvc": [], "git": [{"repository": c("spec git repository"), "branch": "main", "path": "/src"}]},
        conditions=[condition("Failed", "True", 20, "PodLost", c("workload condition message"))],
    )
    pod = s.add_pod(node=node_name, created=198, k8s_phase="Unknown", updated=20, completed=20)
    lost = f"Node {node_name} which was running pod {pod.name} is unresponsive"
    s.phase_message = f"Workload failed: pod {pod.name} was lost (NodeLost) {c('workload phaseMessage')}"
    s.add_phase(s.created, "Pending").add_phase(195, "Running")
    s.add_phase(20, "Failed", s.phase_message)
    s.add_phase(22, "Running", f"restarting {c('history phaseMessage')}")
    s.add_event(26, "NodeNotReady", f"Node is not ready {c('Run:ai event message')}", pod=pod.name)
    s.add_event(
        25,
        "NodeNotReady",
        f"Node is not ready {_carry('split by a colour code: Run:ai event message', split_secret(cred, SGR))}",
        pod=pod.name,
    )
    s.add_event(24, "Notice", c("Run:ai notice event message"), type_="Normal", source="trainer", pod=pod.name)
    s.add_event(
        23, "Notice", c("history event message"), type_="Normal", source="trainer", pod=pod.name, in_events=False
    )
    s.add_kube_pod(
        pod,
        [
            cstatus(
                "main",
                s.image,
                running(30),
                last=terminated("Error", 1, 190, 31, message=c("container terminated message")),
                restarts=1,
            ),
            cstatus("sidecar", s.image, waiting("CrashLoopBackOff", c("container waiting message"))),
        ],
        phase="Running",
        reason="NodeLost",
        message=f"{lost} {c('pod status message')}",
        deletion=21,
        conditions=[condition("Ready", "False", 26, "NodeLost", f"{lost} {c('pod condition message')}")],
        annotations={"note": c("pod annotation")},
        env=[{"name": "EXTRA_ARGS", "value": c("pod env value")}],
    )
    the_node = node(
        node_name, ready="Unknown", ready_since=26, taints=[taint("node.kubernetes.io/unreachable", added=26)]
    )
    the_node["spec"]["taints"].append(
        {"key": "example.com/note", "value": c("node taint value"), "effect": "NoSchedule"}
    )
    for cond in the_node["status"]["conditions"]:
        if cond["type"] == "Ready":
            cond["message"] = f"Kubelet stopped posting node status. {c('node condition message')}"
    s.nodes.append(the_node)
    s.add_node_event(
        26,
        node_name,
        "NodeNotReady",
        f"Node {node_name} status is now: NodeNotReady {c('Kubernetes node event message')}",
    )
    s.add_kube_event(
        30, "BackOff", f"Back-off restarting failed container {c('Kubernetes pod event message')}", pod=pod.name
    )
    s.add_kube_event(
        29,
        "BackOff",
        "Back-off restarting "
        + _carry("split by a zero-width space: Kubernetes pod event message", split_secret(cred, ZWSP)),
        pod=pod.name,
    )
    log = f"step 100 loss 0.91\n{c('log text')}\nTraceback (most recent call last):\nRuntimeError: lost\n"
    s.add_log(pod.name, log, previous=True)
    s.add_log(pod.name, log)
    return s


def dense_story(credentials: list[Credential]) -> Story:
    """One workload whose list fields carry the whole corpus: an event, a Kubernetes event, a history entry and
    a log line per credential (what the app's Events, History and Log panes list)."""
    s = Story("cred-all", "cred-all", PROJECT, "Failed", phase_at=20, created=200, restart_policy="OnFailure")
    node_name = "gpu-cred-all"
    pod = s.add_pod(node=node_name, created=198, k8s_phase="Unknown", updated=20, completed=20)
    s.phase_message = f"Workload failed: pod {pod.name} was lost (NodeLost)"
    s.add_phase(s.created, "Pending").add_phase(195, "Running").add_phase(20, "Failed", s.phase_message)
    s.add_event(26, "NodeNotReady", "Node is not ready", pod=pod.name)
    for i, cred in enumerate(credentials):
        at = 55 - i * 0.5  # all inside the Kubernetes event TTL
        s.add_event(at, "BackOff", f"Back-off restarting failed container: {cred.text}", pod=pod.name)
        s.add_kube_event(at, "BackOff", f"Back-off restarting failed container: {cred.text}", pod=pod.name)
    s.add_kube_pod(
        pod,
        [cstatus("main", s.image, running(30), last=terminated("Error", 1, 190, 31), restarts=1)],
        phase="Running",
        reason="NodeLost",
        message=f"Node {node_name} which was running pod {pod.name} is unresponsive",
        deletion=21,
    )
    s.nodes.append(node(node_name, ready="Unknown", ready_since=26))
    s.add_node_event(26, node_name, "NodeNotReady", f"Node {node_name} status is now: NodeNotReady")
    log = "".join(f"step {i} {cred.text}\n" for i, cred in enumerate(credentials)) + "RuntimeError: lost\n"
    s.add_log(pod.name, log, previous=True)
    return s


def _entry(s: Story, cred: Credential) -> Json:
    """The story's workload entry, with the fields Story does not let a caller set planted too."""
    item = s.entry()
    item["workload"]["name"] = _carry("workload name", cred.text)
    item["workload"]["images"] = [_carry("workload images", cred.text)]
    for pod in item.get("pods", []):
        pod["containers"] = [{"name": "main", "image": _carry("Run:ai pod container image", cred.text)}]
    return item


def credentials_bundle(credentials: list[Credential], *, dense: bool = False) -> tuple[Json, list[Story]]:
    """The bundle (case@1) and its stories, in the order of `credentials`; with `dense`, `dense_story` too
    (last, and not in the returned list)."""
    stories = [credential_story(index, cred) for index, cred in enumerate(credentials)]
    extra = [dense_story(credentials)] if dense else []
    bundle: dict[str, Any] = {
        "format": "runai-triage/case@1",
        "capturedAt": DEMO_CAPTURED_AT,
        "clusters": DEMO_CLUSTERS,
        "projects": [project_json(PROJECTS[PROJECT])],
        "workloads": [_entry(s, cred) for s, cred in zip(stories, credentials, strict=True)]
        + [s.entry() for s in extra],
        "kubernetes": {
            "pods": [p for s in stories + extra for p in s.kube_pods],
            "events": sorted((e for s in stories + extra for e in s.kube_events), key=lambda e: e["lastTimestamp"]),
            "nodes": [n for s in stories + extra for n in s.nodes],
            "logs": [log for s in stories + extra for log in s.logs],
        },
    }
    return copy.deepcopy(bundle), stories
