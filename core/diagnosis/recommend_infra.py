"""Next actions for infrastructure findings, in our own words.

When a finding explains the failure, the administrator acts first (which node, what to check there, cordon it)
and the user's part is to resubmit once the workload can land elsewhere: no advice tells the user to fix code
that did nothing wrong. A finding that does not explain the failure (a disconnected cluster, node pressure
beside an OOM kill) is still passed on to the administrator, after the category's own advice.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.diagnosis.signals.control_plane import cluster_advice
from core.models.report import Finding


def _node(finding: Finding) -> str:
    return f"node {finding.node}" if finding.node else "the node it ran on"


def _what(finding: Finding) -> str:
    """The finding in our words, without the evidence it quotes (the findings list quotes it)."""
    return finding.text.split(': "', 1)[0]


def _admin(finding: Finding) -> str:
    node = _node(finding)
    cordon = f"cordon it (kubectl cordon {finding.node})" if finding.node else "cordon it"
    cordon_first = cordon[0].upper() + cordon[1:]
    if finding.kind == "gpu-hardware":
        return (
            f"For the administrator: {node} shows a GPU hardware fault ({_what(finding)}). {cordon_first} and "
            "drain it, then check the GPU (nvidia-smi -q, the kernel log's Xid lines, a DCGM "
            "diagnostic) and reset, repair or replace it before the node takes workloads again."
        )
    if finding.kind == "gpu-driver-runtime":
        return (
            f"For the administrator: the NVIDIA software stack on {node} is failing ({_what(finding)}). "
            f"{cordon_first}, then check the driver, the container toolkit and the GPU device "
            "plugin there (the driver and its libraries at one version, the kernel module loaded, the device "
            "plugin pod healthy); a driver upgraded under running workloads needs the node rebooted."
        )
    if finding.kind == "network-fabric":
        return (
            f"For the administrator: the network fabric failed on {node}, on the pod that failed first "
            f"({_what(finding)}). Check that node's InfiniBand / RoCE / EFA ports and links (link state, flaps, "
            f"error counters) and its switch port, and {cordon} until the fabric is healthy."
        )
    if finding.kind == "node-pressure":
        return (
            f"For the administrator: {node} ran short and its kubelet evicted pods ({_what(finding)}). Find what "
            "filled it (other pods, images, logs), check its eviction thresholds and reserved resources, and "
            f"{cordon} until it recovers."
        )
    if finding.kind == "admission":
        return (
            f"For the administrator: the API server refused to create the workload's pods ({_what(finding)}). "
            "Review the webhook, ResourceQuota or LimitRange it names, and the message it gave; a webhook that "
            "could not be called needs its service checked."
        )
    if finding.source == "list_clusters":
        # The finding is the cluster's detail, then its note (last): the detail may hold "; " of its own.
        detail = finding.text.rsplit("; ", 1)[0]
        return (
            f"For the administrator: {detail}. {cluster_advice(detail)}; until then, what Run:ai shows about this "
            "workload may be out of date (kubectl shows the cluster's own view)."
        )
    return f"For the administrator: the control plane failed ({_what(finding)}); check the API server and etcd."


def _user(finding: Finding, restart_policy: str | None) -> str:
    node = _node(finding)
    if finding.kind == "admission":
        if "ResourceQuota" in finding.text:
            return "Then resubmit, or ask for less: lower what the workload requests so it fits the quota."
        if "LimitRange" in finding.text:
            return "Then resubmit with requests and limits inside the namespace's LimitRange."
        return "Then resubmit once the policy allows it, or change the spec to meet the policy the message names."
    if finding.kind == "control-plane":
        return "Then resubmit once the control plane is healthy; nothing in the workload needs to change."
    retry = (
        " With restart policy OnFailure the job's own retry may land on the same node: make sure it is cordoned."
        if (restart_policy or "").lower() == "onfailure"
        else ""
    )
    if finding.kind == "node-pressure":
        return (
            f"Then resubmit the workload once {node} has recovered or is cordoned, so the scheduler places it "
            f"elsewhere (until then, keep it off that node with a node affinity that excludes it).{retry}"
        )
    return (
        f"Then resubmit the workload: nothing in it needs to change, and once {node} is cordoned the scheduler "
        f"places it elsewhere (until then, keep it off that node with a node affinity that excludes it).{retry}"
    )


def leading(findings: Sequence[Finding], restart_policy: str | None) -> tuple[list[str], list[str]]:
    """For the findings that explain the failure: the administrator's actions (first), and the user's
    resubmission (after any change the evidence asks of the workload itself)."""
    explaining = [f for f in findings if f.explains]
    if not explaining:
        return [], []
    return [_admin(f) for f in explaining], [_user(explaining[0], restart_policy)]


def trailing(findings: Sequence[Finding]) -> list[str]:
    """The administrator's actions for findings that do not explain this failure."""
    return [_admin(f) for f in findings if not f.explains]
