"""The pod sandbox: the kubelet asked the node's container runtime for the pod's sandbox (its network namespace
and pause container) and it could not make one (`FailedCreatePodSandBox`).

Nothing of the pod can start without it, and nothing in the workload causes it: the runtime's socket refuses
connections (containerd or CRI-O down), the network plugin (CNI) cannot give the pod an address, the node cannot
pull its own pause image, or the runtime does not answer in time. The pod stays `ContainerCreating` (or
`Init:0/1`) on that node, so it is a start failure of the node's making: the seed's NODE_FAILURE (the node-failure
row), owned by infrastructure. `SandboxChanged` (the kubelet replacing a sandbox) is not a failure.
"""

from __future__ import annotations

from core.diagnosis.signals.family import Family, example
from core.diagnosis.signals.model import SignalKind
from core.diagnosis.signals.text import Collector, Text, rx

K = SignalKind
_TRIGGER_RE = rx(r"failed to create pod sandbox|createpodsandbox failed|failed to (?:create|start) sandbox container")
_CAUSES = (
    (
        "runtime",
        rx(r"\.sock\b|transport: error while dialing|code = unavailable|connection refused|cannot connect to the"),
        "the node's container runtime cannot be reached (its socket refuses connections): the runtime is down",
    ),
    (
        "network",
        rx(r"failed to (?:setup|set up) network|plugin type=|\bcni\b|networkplugin|no ip addresses available"),
        "the node's network plugin (CNI) could not set up the pod's network",
    ),
    (
        "sandbox-image",
        rx(r"failed to get sandbox image|/pause:"),
        "the node could not pull its own sandbox (pause) image",
    ),
    (
        "runtime-slow",
        rx(r"context deadline exceeded|failed to reserve sandbox name|code = deadlineexceeded"),
        "the container runtime did not answer in time (overloaded or hung)",
    ),
)
_DEFAULT_NOTE = "the node's container runtime could not create the pod's sandbox"


def sandbox_cause(message: str) -> tuple[str | None, str]:
    """What failed (`runtime`, `network`, `sandbox-image`, `runtime-slow`, or None) and the words for it."""
    for name, pattern, note in _CAUSES:
        if pattern.search(message):
            return name, note
    return None, _DEFAULT_NOTE


def match(t: Text, out: Collector) -> None:
    if t.r != "failedcreatepodsandbox" and not _TRIGGER_RE.search(t.m):
        return
    cause, note = sandbox_cause(t.m)
    out.add(K.SANDBOX_FAILED, reason="FailedCreatePodSandBox", resource=cause, note=note)


def is_sandbox(t: Text) -> bool:
    """The text is a sandbox failure: the pull and start wording inside it is the runtime's, not the app's."""
    return t.r == "failedcreatepodsandbox" or bool(_TRIGGER_RE.search(t.m))


EXAMPLES = (
    example(
        "FailedCreatePodSandBox",
        'Failed to create pod sandbox: rpc error: code = Unavailable desc = connection error: desc = "transport: '
        'Error while dialing: dial unix /run/containerd/containerd.sock: connect: connection refused"',
        K.SANDBOX_FAILED,
        resource="runtime",
    ),
    example(
        "FailedCreatePodSandBox",
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "
        '"9c1f3e0b7a44": plugin type="calico" failed (add): error getting ClusterInformation: connection is '
        "unauthorized: Unauthorized",
        K.SANDBOX_FAILED,
        resource="network",
    ),
    example(
        "FailedCreatePodSandBox",
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox image "
        '"registry.k8s.io/pause:3.9": failed to pull image "registry.k8s.io/pause:3.9": failed to pull and unpack '
        'image "registry.k8s.io/pause:3.9": failed to resolve reference "registry.k8s.io/pause:3.9": failed to do '
        'request: Head "https://registry.k8s.io/v2/pause/manifests/3.9": dial tcp 34.96.108.209:443: i/o timeout',
        K.SANDBOX_FAILED,
        resource="sandbox-image",
    ),
    example(
        "FailedCreatePodSandBox",
        "Failed to create pod sandbox: rpc error: code = DeadlineExceeded desc = context deadline exceeded",
        K.SANDBOX_FAILED,
        resource="runtime-slow",
    ),
    example(
        "FailedCreatePodSandBox",
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create containerd task: failed "
        "to create shim task: OCI runtime create failed: runc create failed: unable to start container process: "
        "error during container init: error running hook #0: error running hook: exit status 1, stdout: , "
        "stderr: Auto-detected mode as 'legacy'\nnvidia-container-cli: initialization error: nvml error: driver "
        "not loaded: unknown",
        K.SANDBOX_FAILED,
    ),
    # The kubelet replacing a sandbox it lost is not a failure to make one.
    example("SandboxChanged", "Pod sandbox changed, it will be killed and re-created.", None),
)

FAMILY = Family(
    name="sandbox",
    kinds=frozenset({K.SANDBOX_FAILED}),
    match=match,
    examples=EXAMPLES,
    rows={K.SANDBOX_FAILED: "node-failure"},
)
